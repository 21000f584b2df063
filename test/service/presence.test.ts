/**
 * Presence at games (DECISIONS §17) without sockets: the rule of when a player is gone and what a watcher is told,
 * the leases and closes one instance writes, and two instances on one store: a player present on either is
 * present. The service's time is a variable; the watchers' ticks are run by hand.
 */
import { test, type TestContext } from 'node:test';
import { GamePresence, goneSinceOf, opponentGoneLine } from '../../src/service/presence.ts';
import { MemoryGameStore } from '../../src/store/memory.ts';

test('gone since: the latest time seen when it is past, the start when never seen, undefined while there', (t: TestContext) => {
  t.assert.equal(goneSinceOf(undefined, 1000, 5000), 1000);
  t.assert.equal(goneSinceOf(6000, 1000, 5000), undefined);
  t.assert.equal(goneSinceOf(3000, 1000, 5000), 3000);
  t.assert.equal(goneSinceOf(500, 1000, 5000), 1000, 'seen only before the game started: gone since its start');
});

test('the line: not gone before 10 s; then gone with the seconds left of the 20 s count-down, down to 0', (t: TestContext) => {
  t.assert.deepEqual(opponentGoneLine(undefined, 50_000), { type: 'opponentGone', gone: false });
  t.assert.deepEqual(opponentGoneLine(40_001, 50_000), { type: 'opponentGone', gone: false });
  t.assert.deepEqual(opponentGoneLine(40_000, 50_000), { type: 'opponentGone', gone: true, claimWinInSeconds: 20 });
  t.assert.deepEqual(opponentGoneLine(30_500, 50_000), { type: 'opponentGone', gone: true, claimWinInSeconds: 11 });
  t.assert.deepEqual(opponentGoneLine(0, 50_000), { type: 'opponentGone', gone: true, claimWinInSeconds: 0 });
});

test('two instances on one store: present while either holds a stream; gone from the last close', async (t: TestContext) => {
  const store = new MemoryGameStore();
  let now = 100_000;
  const [a, b] = ['a', 'b'].map(
    instanceId => new GamePresence({ store, now: () => now, instanceId, tickMs: 3_600_000 }),
  );
  t.after(() => [a!, b!].forEach(presence => presence.close()));
  const game = { record: { id: 'AbCd1234', createdAt: new Date(90_000).toISOString() } } as never;
  const settle = () => new Promise(resolve => setTimeout(resolve, 10));
  t.assert.equal(await a!.goneSince(game, 'bob'), 90_000, 'never seen: since the start');
  const closeA = a!.open('AbCd1234', 'bob');
  const closeB1 = b!.open('AbCd1234', 'bob');
  const closeB2 = b!.open('AbCd1234', 'bob');
  await settle();
  t.assert.equal(await a!.goneSince(game, 'bob'), undefined);
  now = 101_000;
  closeA();
  closeB1();
  await settle();
  t.assert.equal(await a!.goneSince(game, 'bob'), undefined, "b's second stream is open");
  now = 102_000;
  closeB2();
  closeB2(); // once only
  await settle();
  now = 103_000;
  t.assert.equal(await a!.goneSince(game, 'bob'), 102_000);

  // A watcher of Bob hears of it once it has lasted 10 s, and when he is back.
  const lines: unknown[] = [];
  const stop = a!.watch({ gameId: 'AbCd1234', opponentId: 'bob', startedAt: 90_000 }, line => lines.push(line));
  await settle();
  t.assert.deepEqual(lines, [], 'gone for 1 s only');
  now = 112_500;
  await a!['tick']();
  t.assert.deepEqual(lines, [{ type: 'opponentGone', gone: true, claimWinInSeconds: 20 }]);
  await a!['tick']();
  t.assert.equal(lines.length, 1, 'said once');
  const back = b!.open('AbCd1234', 'bob');
  await settle();
  await a!['tick']();
  t.assert.deepEqual(lines.at(-1), { type: 'opponentGone', gone: false });
  back();
  stop();
});

test('a lease that is not renewed lapses: a dead instance leaves its players gone from the lease end', async (t: TestContext) => {
  const store = new MemoryGameStore();
  let now = 0;
  const dead = new GamePresence({ store, now: () => now, instanceId: 'dead', leaseMs: 15_000 });
  dead.open('AbCd1234', 'ann');
  dead.close(); // no renewal any more, and no close written: as if the process died
  await new Promise(resolve => setTimeout(resolve, 10));
  const game = { record: { id: 'AbCd1234', createdAt: new Date(0).toISOString() } } as never;
  const alive = new GamePresence({ store, now: () => now, instanceId: 'alive' });
  t.after(() => alive.close());
  now = 14_000;
  t.assert.equal(await alive.goneSince(game, 'ann'), undefined);
  now = 16_000;
  t.assert.equal(await alive.goneSince(game, 'ann'), 15_000);
});

test('no opponentGone line is ever sent about the computer: it never goes (DECISIONS §16a)', async (t: TestContext) => {
  const store = new MemoryGameStore();
  let now = 0;
  const presence = new GamePresence({ store, now: () => now, tickMs: 3_600_000 });
  t.after(() => presence.close());
  // Ann plays the computer in one game and Bob in another; neither opponent ever opens a stream.
  const lines: Record<string, unknown[]> = { stockfish: [], bob: [] };
  for (const [gameId, opponentId] of [
    ['AiGame01', 'stockfish'],
    ['BobGame1', 'bob'],
  ] as const) {
    presence.watch({ gameId, opponentId, startedAt: 0 }, line => lines[opponentId]!.push(line));
  }
  now = 60_000; // long after any count-down
  await presence['tick']();
  await presence['tick']();
  t.assert.deepEqual(lines.bob, [{ type: 'opponentGone', gone: true, claimWinInSeconds: 0 }]);
  t.assert.deepEqual(lines.stockfish, []);
});
