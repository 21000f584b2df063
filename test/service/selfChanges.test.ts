/**
 * The changes the service makes by itself (selfChanges.ts, DECISIONS §13a): run at their time, tried again with
 * backoff while they fail, until they succeed; replaced or cancelled by their key; nothing after close(). On fake
 * time.
 */
import { test, type TestContext } from 'node:test';
import { BACKOFF, retryDelay, SelfChanges, type Failure } from '../../src/service/selfChanges.ts';
import { settle } from '../helpers/store.ts';

const T0 = 1_000_000;

function onFakeTime(t: TestContext, random = () => 0) {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: T0 });
  const failures: Failure[] = [];
  const changes = new SelfChanges<string>({ now: Date.now, onFailure: failure => failures.push(failure), random });
  t.after(() => changes.close());
  /** Advances fake time by `ms` in steps of 10 ms, running first what is due now. */
  const advance = async (ms: number) => {
    t.mock.timers.tick(0);
    await settle();
    for (let passed = 0; passed < ms; passed += 10) {
      t.mock.timers.tick(Math.min(10, ms - passed));
      await settle();
    }
  };
  /** A task that fails `times` times, then succeeds; `tries` are the times it ran. */
  const failing = (times: number) => {
    const tries: number[] = [];
    const run = () => {
      tries.push(Date.now() - T0);
      return tries.length <= times ? Promise.reject(new Error(`refused ${tries.length}`)) : Promise.resolve();
    };
    return { tries, run };
  };
  return { changes, failures, advance, failing };
}

test('the waits: 100 ms doubling to 5 s, less up to half of each at random', (t: TestContext) => {
  t.assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 8, 100].map(failures => retryDelay(failures, BACKOFF, 0)),
    [100, 200, 400, 800, 1_600, 3_200, 5_000, 5_000, 5_000],
  );
  t.assert.equal(retryDelay(1, BACKOFF, 0.999_999), 50);
  t.assert.equal(retryDelay(7, BACKOFF, 0.5), 3_750);
  t.assert.equal(retryDelay(3, { firstMs: 10, maxMs: 1_000, jitter: 0 }, 0.7), 40);
});

test('a change runs at its time and, while it fails, again after each wait until it succeeds', async (t: TestContext) => {
  const { changes, failures, advance, failing } = onFakeTime(t);
  const task = failing(4);
  changes.schedule('a', T0 + 1_000, task.run, 'data of a');
  t.assert.equal(changes.dataOf('a'), 'data of a');
  await advance(999);
  t.assert.deepEqual(task.tries, []);
  await advance(1);
  t.assert.deepEqual(task.tries, [1_000]);
  await advance(5_000);
  t.assert.deepEqual(task.tries, [1_000, 1_100, 1_300, 1_700, 2_500]);
  t.assert.deepEqual(
    failures.map(({ key, failures: n, retryInMs, error }) => [key, n, retryInMs, (error as Error).message]),
    [
      ['a', 1, 100, 'refused 1'],
      ['a', 2, 200, 'refused 2'],
      ['a', 3, 400, 'refused 3'],
      ['a', 4, 800, 'refused 4'],
    ],
  );
  t.assert.equal(changes.has('a'), false, 'done once it succeeded');
  t.assert.equal(changes.size, 0);
});

test('a task that throws instead of rejecting is retried the same way', async (t: TestContext) => {
  const { changes, advance } = onFakeTime(t);
  let tries = 0;
  changes.schedule(
    'a',
    T0,
    () => {
      if (++tries < 3) throw new Error('at once');
      return Promise.resolve();
    },
    '',
  );
  await advance(1_000);
  t.assert.equal(tries, 3);
  t.assert.equal(changes.size, 0);
});

test('scheduling a key again replaces its retries; a try under way when replaced is not retried', async (t: TestContext) => {
  const { changes, failures, advance, failing } = onFakeTime(t);
  const first = failing(Infinity);
  changes.schedule('a', T0, first.run, 'first');
  await advance(350);
  t.assert.deepEqual(first.tries, [0, 100, 300]);
  const second = failing(0);
  changes.schedule('a', T0 + 2_000, second.run, 'second');
  t.assert.equal(changes.dataOf('a'), 'second');
  await advance(10_000);
  t.assert.deepEqual(first.tries, [0, 100, 300], 'the first is not tried again');
  t.assert.deepEqual(second.tries, [2_000]);

  // A try that fails after its key was scheduled again is reported, and not retried.
  let reject: (error: Error) => void = () => undefined;
  changes.schedule('b', T0 + 10_000, () => new Promise((_, no) => (reject = no)), 'slow'); // due already
  t.mock.timers.tick(0);
  await settle();
  const third = failing(0);
  changes.schedule('b', T0 + 20_000, third.run, 'third');
  reject(new Error('late'));
  await settle();
  t.assert.deepEqual(failures.at(-1), { key: 'b', error: new Error('late'), failures: 1, retryInMs: undefined });
  t.assert.equal(changes.dataOf('b'), 'third');
  await advance(10_000);
  t.assert.deepEqual(third.tries, [20_000]);
});

test('cancel and close: nothing runs or is retried any more', async (t: TestContext) => {
  const { changes, advance, failing } = onFakeTime(t);
  const cancelled = failing(Infinity);
  const closed = failing(Infinity);
  const never = failing(0);
  changes.schedule('a', T0, cancelled.run, '');
  changes.schedule('b', T0, closed.run, '');
  changes.schedule('c', T0 + 60_000, never.run, '');
  await advance(150);
  changes.cancel('a');
  await advance(1_000);
  t.assert.deepEqual(cancelled.tries, [0, 100]);
  t.assert.ok(closed.tries.length >= 4);
  const tried = closed.tries.length;
  changes.close();
  t.assert.equal(changes.size, 0);
  changes.schedule('d', T0, never.run, '');
  await advance(120_000);
  t.assert.equal(closed.tries.length, tried);
  t.assert.deepEqual(never.tries, []);
});

test('a time beyond the longest setTimeout is waited for in steps', async (t: TestContext) => {
  const { changes, failing } = onFakeTime(t);
  const task = failing(0);
  const month = 31 * 24 * 3_600_000;
  changes.schedule('a', T0 + month, task.run, '');
  t.mock.timers.tick(2 ** 31 - 1);
  await settle();
  t.assert.deepEqual(task.tries, []);
  t.mock.timers.tick(month - (2 ** 31 - 1));
  await settle();
  t.assert.deepEqual(task.tries, [month]);
});
