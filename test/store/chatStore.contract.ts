/**
 * The contract every ChatStore adapter keeps (src/store/chat.ts). Each adapter's test file calls
 * `runChatStoreContract` with a factory for a store (which may hold what earlier tests wrote: game and player ids
 * are fresh in every test); the store is closed after each test.
 *
 * ```ts
 * runChatStoreContract('MemoryGameStore', async () => new MemoryGameStore());
 * ```
 */
import { randomBytes } from 'node:crypto';
import { describe, test, type TestContext } from 'node:test';
import type { ChatLimit, NewChatLine } from '../../src/domain/chat.ts';
import type { AppendedChat, ChatStore } from '../../src/store/chat.ts';
import type { ChatRoom } from '../../src/contract/vocabulary.ts';

type Store = ChatStore & { close(): Promise<void> };

const run = randomBytes(3).toString('hex');
let counter = 0;
const fresh = () => `${run}${String(++counter).padStart(2, '0')}`.slice(-8).padStart(8, 'c');

const NOW = Date.UTC(2026, 2, 1, 12);
const LOOSE: ChatLimit = { lines: 1000, windowMs: 60_000, kept: 1000 };

const lineOf = (gameId: string, room: ChatRoom, player: string, text: string, at = NOW): NewChatLine => ({
  gameId,
  room,
  player: { id: player, displayName: `Name of ${player}` },
  text,
  at,
});

const appended = (result: AppendedChat) => {
  if (!('line' in result)) throw new Error(`refused until ${result.retryAt}`);
  return result.line;
};

export function runChatStoreContract(
  name: string,
  makeStore: () => Promise<Store>,
  options: { skip?: string | false } = {},
): void {
  describe(`ChatStore contract: ${name}`, { skip: options.skip ?? false }, () => {
    const open = async (t: TestContext): Promise<Store> => {
      const store = await makeStore();
      t.after(() => store.close());
      return store;
    };

    test("lines come back per room, oldest first, numbered in the game's order, with their writer as they were", async (t: TestContext) => {
      const store = await open(t);
      const [game, other, ann, bob] = [fresh(), fresh(), `ann-${fresh()}`, `bob-${fresh()}`];
      const first = appended(await store.appendChat(lineOf(game, 'player', ann, 'good luck ♞'), LOOSE));
      t.assert.deepEqual(first, { ...lineOf(game, 'player', ann, 'good luck ♞'), seq: 1 });
      appended(await store.appendChat(lineOf(game, 'spectator', bob, 'hi', NOW + 1), LOOSE));
      appended(await store.appendChat(lineOf(other, 'player', bob, 'elsewhere', NOW + 2), LOOSE));
      appended(await store.appendChat(lineOf(game, 'player', bob, 'you too 👍', NOW + 3), LOOSE));
      const players = await store.chatLines(game, 'player');
      t.assert.deepEqual(
        players.map(line => [line.seq, line.player.id, line.player.displayName, line.text, line.at]),
        [
          [1, ann, `Name of ${ann}`, 'good luck ♞', NOW],
          [3, bob, `Name of ${bob}`, 'you too 👍', NOW + 3],
        ],
      );
      t.assert.deepEqual(
        (await store.chatLines(game, 'spectator')).map(line => [line.seq, line.room, line.text]),
        [[2, 'spectator', 'hi']],
      );
      t.assert.deepEqual(
        (await store.chatLines(other, 'player')).map(line => [line.seq, line.gameId]),
        [[1, other]],
      );
      t.assert.deepEqual(await store.chatLines(fresh(), 'player'), []);
    });

    test('a writer has `lines` lines in any window, across games and rooms; then the time the oldest leaves it', async (t: TestContext) => {
      const store = await open(t);
      const limit: ChatLimit = { lines: 3, windowMs: 60_000, kept: 100 };
      const [one, two, ann, bob] = [fresh(), fresh(), `ann-${fresh()}`, `bob-${fresh()}`];
      appended(await store.appendChat(lineOf(one, 'player', ann, 'a', NOW), limit));
      appended(await store.appendChat(lineOf(two, 'spectator', ann, 'b', NOW + 10_000), limit));
      appended(await store.appendChat(lineOf(one, 'spectator', ann, 'c', NOW + 20_000), limit));
      t.assert.deepEqual(await store.appendChat(lineOf(two, 'player', ann, 'd', NOW + 30_000), limit), {
        retryAt: NOW + 60_000,
      });
      // Another writer is not held back, and the refused line is not kept.
      appended(await store.appendChat(lineOf(two, 'player', bob, 'e', NOW + 30_000), limit));
      t.assert.deepEqual(
        (await store.chatLines(two, 'player')).map(line => line.text),
        ['e'],
      );
      // The first line has left the window at NOW + 60000: one more; then the second's turn.
      appended(await store.appendChat(lineOf(two, 'player', ann, 'f', NOW + 60_000), limit));
      t.assert.deepEqual(await store.appendChat(lineOf(one, 'player', ann, 'g', NOW + 60_001), limit), {
        retryAt: NOW + 70_000,
      });
    });

    test('a room keeps its latest `kept` lines; the other room and the numbering are untouched', async (t: TestContext) => {
      const store = await open(t);
      const limit: ChatLimit = { lines: 1000, windowMs: 60_000, kept: 3 };
      const [game, ann] = [fresh(), `ann-${fresh()}`];
      appended(await store.appendChat(lineOf(game, 'spectator', ann, 's1'), limit));
      for (let i = 1; i <= 5; i++) appended(await store.appendChat(lineOf(game, 'player', ann, `p${i}`), limit));
      t.assert.deepEqual(
        (await store.chatLines(game, 'player')).map(line => [line.seq, line.text]),
        [
          [4, 'p3'],
          [5, 'p4'],
          [6, 'p5'],
        ],
      );
      t.assert.deepEqual(
        (await store.chatLines(game, 'spectator')).map(line => line.text),
        ['s1'],
      );
      t.assert.equal(appended(await store.appendChat(lineOf(game, 'spectator', ann, 's2'), limit)).seq, 7);
    });

    test('lines written at once: each numbered once, and a writer gets no more than the limit', async (t: TestContext) => {
      const store = await open(t);
      const limit: ChatLimit = { lines: 4, windowMs: 60_000, kept: 100 };
      const game = fresh();
      const writers = Array.from({ length: 6 }, () => `w-${fresh()}`);
      const many = await Promise.all(
        writers.map((writer, i) => store.appendChat(lineOf(game, 'player', writer, `line ${i}`), limit)),
      );
      t.assert.deepEqual(
        many.map(result => appended(result).seq).sort((a, b) => a - b),
        [1, 2, 3, 4, 5, 6],
      );
      const ann = `ann-${fresh()}`;
      const burst = await Promise.all(
        Array.from({ length: 10 }, (_, i) => store.appendChat(lineOf(fresh(), 'spectator', ann, `${i}`), limit)),
      );
      t.assert.equal(burst.filter(result => 'line' in result).length, 4);
      t.assert.ok(burst.every(result => 'line' in result || result.retryAt === NOW + 60_000));
    });
  });
}
