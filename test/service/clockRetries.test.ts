/**
 * What the clocks' timers do when the store cannot record the end they make (DECISIONS §13a): a flag or a
 * first-move abort whose write fails is tried again with backoff until it is recorded, so that an outage of the
 * store delays it and never drops it; a request that ends the game meanwhile ends the retries, and so does close().
 * On fake time (node:test's mock timers drive both Date and setTimeout).
 */
import { test, type TestContext } from 'node:test';
import { ChangeFeed } from '../../src/bus/feed.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { SERVICE } from '../../src/domain/seats.ts';
import { makeMove } from '../../src/domain/transitions.ts';
import { gameStateOf } from '../../src/domain/views.ts';
import { GameService } from '../../src/service/games.ts';
import { MemoryGameStore } from '../../src/store/memory.ts';
import { settle, storeWith } from '../helpers/store.ts';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');

/**
 * A service on fake time whose store refuses the writes that end a game (`outOfTime`, `aborted`) while `down`
 * says so, as a store does during an outage; `attempts` are the times those writes were asked for.
 */
function onFakeTime(t: TestContext) {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: T0 });
  const memory = new MemoryGameStore();
  const outage = { down: 0, attempts: [] as number[] };
  const store = storeWith(memory, {
    update: (record, expectedVersion, event, index) => {
      if (event && ['outOfTime', 'aborted'].includes(event.state.status)) {
        outage.attempts.push(Date.now());
        if (outage.down > 0) {
          outage.down--;
          return Promise.reject(new DomainError('UNAVAILABLE', 'the database is unreachable'));
        }
      }
      return memory.update(record, expectedVersion, event, index);
    },
  });
  const failures: Array<{ error: unknown; gameId: string }> = [];
  let n = 0;
  const games = new GameService({
    store,
    bus: new ChangeFeed(store),
    newId: () => `game000${n++}`,
    clock: () => new Date(),
    onTimerError: (error, failure) => failures.push({ error, gameId: failure.key }),
  });
  t.after(() => games.close());
  /** Advances fake time by `ms` in steps of 10 ms, letting every timer and promise due meanwhile run. */
  const advance = async (ms: number) => {
    for (let passed = 0; passed < ms; passed += 10) {
      t.mock.timers.tick(Math.min(10, ms - passed));
      await settle();
    }
  };
  return { games, memory, outage, failures, advance };
}

/** A real-time game of 5 s a side in which both sides have moved: white's clock runs out at T0 + 5 s. */
async function running(games: GameService): Promise<string> {
  const id = (await games.create({ clock: { initial: 5_000, increment: 0 } })).record.id;
  await games.change(id, (game, now) => makeMove(game, 'e2e4', SERVICE, now));
  await games.change(id, (game, now) => makeMove(game, 'e7e5', SERVICE, now));
  return id;
}

const statuses = async (memory: MemoryGameStore, id: string) =>
  (await memory.changesSince(id, 0)).map(change => change.event.state.status);

test('a flag the store refuses five times is recorded once it accepts, with doubling waits between the tries', async (t: TestContext) => {
  const { games, memory, outage, failures, advance } = onFakeTime(t);
  const id = await running(games);
  outage.down = 5;
  await advance(5_000);
  t.assert.deepEqual(outage.attempts, [T0 + 5_000], 'the first try at the deadline');
  t.assert.equal(gameStateOf(await games.get(id)).status, 'started');
  await advance(10_000);
  t.assert.equal(outage.attempts.length, 6, 'five refused, the sixth recorded');
  const waits = outage.attempts.slice(1).map((at, i) => at - outage.attempts[i]!);
  // Each wait is its step (100 ms doubling) less at most half of it, at random.
  for (const [i, wait] of waits.entries()) {
    const step = 100 * 2 ** i;
    t.assert.ok(wait >= step / 2 - 10 && wait <= step + 10, `wait ${i + 1}: ${wait} ms, step ${step} ms`);
  }
  t.assert.deepEqual(await statuses(memory, id), ['started', 'started', 'outOfTime']);
  const state = gameStateOf(await games.get(id));
  t.assert.deepEqual([state.status, state.winner], ['outOfTime', 'black']);
  t.assert.equal(failures.length, 5, 'each refused try is reported');
  for (const failure of failures) {
    t.assert.equal(failure.gameId, id);
    t.assert.match(String(failure.error), /unreachable/);
  }
  t.assert.equal(games.armedClocks(), 0);
  await advance(30_000);
  t.assert.equal(outage.attempts.length, 6, 'nothing more once recorded');
  t.assert.deepEqual(await statuses(memory, id), ['started', 'started', 'outOfTime']);
});

test('the waits grow to a cap of a few seconds and the tries go on for as long as the outage lasts', async (t: TestContext) => {
  const { games, memory, outage, advance } = onFakeTime(t);
  const id = await running(games);
  outage.down = Infinity;
  await advance(5_000 + 60_000);
  const waits = outage.attempts.slice(1).map((at, i) => at - outage.attempts[i]!);
  t.assert.ok(outage.attempts.length >= 15, `${outage.attempts.length} tries in a minute`);
  t.assert.ok(Math.max(...waits) <= 5_010, `the longest wait: ${Math.max(...waits)} ms`);
  t.assert.ok(
    waits.slice(-5).every(wait => wait >= 2_000),
    `the last waits are capped, not short: ${waits.slice(-5).join(', ')}`,
  );
  outage.down = 0;
  await advance(6_000);
  t.assert.deepEqual(await statuses(memory, id), ['started', 'started', 'outOfTime']);
});

test('a first move that does not come: the abort is retried until recorded too', async (t: TestContext) => {
  const { games, memory, outage, advance } = onFakeTime(t);
  const id = (await games.create({ clock: { initial: 60_000, increment: 0 } })).record.id;
  outage.down = 3;
  await advance(60_000 + 2_000);
  t.assert.equal(outage.attempts.length, 4);
  t.assert.deepEqual(await statuses(memory, id), ['aborted']);
});

test('a request that ends the game while a retry waits ends the retries', async (t: TestContext) => {
  const { games, memory, outage, advance } = onFakeTime(t);
  const id = await running(games);
  outage.down = 3;
  await advance(5_000 + 150); // two tries refused, the third waits
  t.assert.equal(outage.attempts.length, 2);
  outage.down = 0;
  await t.assert.rejects(
    games.change(id, (game, now) => makeMove(game, 'g1f3', SERVICE, now)),
    (error: unknown) => error instanceof DomainError && error.code === 'GAME_OVER',
  );
  t.assert.equal(outage.attempts.length, 3, 'the request recorded the flag');
  await advance(30_000);
  t.assert.equal(outage.attempts.length, 3, 'and no retry followed');
  t.assert.deepEqual(await statuses(memory, id), ['started', 'started', 'outOfTime']);
});

test('after close() no retry runs', async (t: TestContext) => {
  const { games, outage, advance } = onFakeTime(t);
  const id = await running(games);
  outage.down = Infinity;
  await advance(5_000 + 1_000);
  const before = outage.attempts.length;
  t.assert.ok(before >= 4, `${before} tries in the first second`);
  games.close();
  await advance(60_000);
  t.assert.equal(outage.attempts.length, before);
  t.assert.equal(gameStateOf(await games.get(id)).status, 'started');
});
