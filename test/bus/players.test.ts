/**
 * The players' events in memory (bus/players.ts): the feed hands each transition to the streams of the game's seats
 * (once for a player on both), an announced one after reading the game at its version, in order per game; a stream
 * sends a game's events once and in version order, a start only for a game it does not show started and a finish
 * only for one it does.
 */
import { test, type TestContext } from 'node:test';
import { PlayerFeed, PlayerStream, type PlayerEvent } from '../../src/bus/players.ts';
import type { GameFull } from '../../src/contract/shapes.ts';

const game = (gameId: string): GameFull => ({ gameId }) as GameFull;
const event = (type: PlayerEvent['type'], gameId: string, version: number): PlayerEvent => ({
  type,
  gameId,
  version,
  game: game(gameId),
});

test('a stream: each game’s events once, in version order; a finish only after a start it showed', (t: TestContext) => {
  const sent: string[] = [];
  const stream = new PlayerStream(line => sent.push(`${line.type} ${line.game.gameId}`));
  stream.started([{ version: 3, game: game('A') }]);
  stream.apply(event('gameStart', 'A', 1)); // older than what the stream showed
  stream.apply(event('gameStart', 'A', 4)); // already shown started
  stream.apply(event('gameFinish', 'B', 2)); // never shown started: nothing to finish
  stream.apply(event('gameStart', 'C', 1));
  stream.apply(event('gameFinish', 'C', 5));
  stream.apply(event('gameFinish', 'C', 5)); // a duplicate
  stream.apply(event('gameStart', 'C', 6)); // resumed
  stream.apply(event('gameFinish', 'A', 7));
  t.assert.deepEqual(sent, ['gameStart A', 'gameStart C', 'gameFinish C', 'gameStart C', 'gameFinish A']);
  t.assert.deepEqual(stream.ongoing(), ['C']);
});

test('the feed: published to the streams of both seats, once for a player on both; announced in order per game', async (t: TestContext) => {
  const reads: string[] = [];
  let release: () => void = () => undefined;
  const slow = new Promise<void>(resolve => (release = resolve));
  const feed = new PlayerFeed(async (gameId, version) => {
    reads.push(`${gameId}@${version}`);
    if (version === 1) await slow; // the first read is slow: the second must still come after it
    return game(gameId);
  });
  const heard: Record<string, string[]> = { ann: [], bob: [] };
  for (const player of ['ann', 'bob'])
    feed.subscribe(player, e => heard[player]!.push(`${e.type} ${e.gameId}@${e.version}`));
  feed.publish(['ann', 'ann'], event('gameStart', 'P', 1));
  feed.publish(['ann', 'bob'], event('gameStart', 'V', 1));
  t.assert.deepEqual(heard, { ann: ['gameStart P@1', 'gameStart V@1'], bob: ['gameStart V@1'] });

  feed.announce({ gameId: 'X', version: 1, transition: 'gameStart', white: 'ann', black: 'zed' });
  feed.announce({ gameId: 'X', version: 2, transition: 'gameFinish', white: 'ann', black: 'zed' });
  feed.announce({ gameId: 'Y', version: 1, transition: 'gameStart', white: 'cid', black: 'dan' }); // nobody listens
  await new Promise(resolve => setImmediate(resolve));
  t.assert.deepEqual(heard.ann!.slice(2), [], 'the first read is still on its way');
  release();
  await new Promise(resolve => setTimeout(resolve, 10));
  t.assert.deepEqual(heard.ann!.slice(2), ['gameStart X@1', 'gameFinish X@2']);
  t.assert.deepEqual(reads, ['X@1', 'X@2'], 'no read for a game whose seats have no stream here');
});

/** Lets the feed's queued reads run: the reads here answer at once, so a few turns of the loop do. */
const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise(resolve => setImmediate(resolve));
};

test('an announced transition whose read fails is read again a second later until it succeeds; the player’s later events wait for it', async (t: TestContext) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  let down = true; // the change log cannot be read
  const reads: string[] = [];
  const errors: unknown[] = [];
  const feed = new PlayerFeed(
    (gameId, version) => {
      reads.push(`${gameId}@${version}`);
      return down ? Promise.reject(new Error('store unreachable')) : Promise.resolve(game(gameId));
    },
    error => errors.push(error),
  );
  const heard: string[] = [];
  feed.subscribe('ann', e => heard.push(`${e.type} ${e.gameId}@${e.version}`));
  feed.announce({ gameId: 'X', version: 1, transition: 'gameStart', white: 'ann', black: 'bob' });
  feed.announce({ gameId: 'Y', version: 1, transition: 'gameStart', white: 'ann', black: 'ann' });
  feed.announce({ gameId: 'X', version: 2, transition: 'gameFinish', white: 'ann', black: 'bob' });
  await settle();
  t.assert.deepEqual(heard, [], 'nothing yet: the read failed');
  t.assert.deepEqual(reads, ['X@1'], 'the later transitions of the player wait for the first');
  t.assert.equal(errors.length, 1, 'the failure is reported');
  t.mock.timers.tick(999);
  await settle();
  t.assert.deepEqual(reads, ['X@1'], 'the retry waits a second');
  t.mock.timers.tick(1);
  await settle();
  t.assert.deepEqual(reads, ['X@1', 'X@1'], 'read again, and again refused');
  t.assert.deepEqual(heard, []);
  down = false; // the store is back
  t.mock.timers.tick(1000);
  await settle();
  t.assert.deepEqual(heard, ['gameStart X@1', 'gameStart Y@1', 'gameFinish X@2'], 'each once, in the order announced');
  t.assert.deepEqual(reads, ['X@1', 'X@1', 'X@1', 'Y@1', 'X@2']);
  t.mock.timers.tick(5000);
  await settle();
  t.assert.equal(heard.length, 3, 'nothing more');
  t.assert.equal(errors.length, 2);
});

test('a failed read is no longer tried once no stream of its players is left', async (t: TestContext) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  let reads = 0;
  const feed = new PlayerFeed(() => {
    reads++;
    return Promise.reject(new Error('store unreachable'));
  });
  const off = feed.subscribe('ann', () => undefined);
  feed.announce({ gameId: 'X', version: 1, transition: 'gameStart', white: 'ann', black: 'bob' });
  await settle();
  t.mock.timers.tick(1000);
  await settle();
  t.assert.equal(reads, 2);
  off();
  for (let i = 0; i < 5; i++) {
    t.mock.timers.tick(1000);
    await settle();
  }
  t.assert.equal(reads, 2, 'nobody to tell: no more reads');
});
