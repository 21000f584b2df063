/** The change feed: every change after a subscriber's version, once each, in order, whatever the sources do. */
import { test, type TestContext } from 'node:test';
import { ChangeFeed } from '../../src/bus/feed.ts';
import type { GameChange } from '../../src/bus/bus.ts';
import { MemoryGameStore } from '../../src/store/memory.ts';
import type { StoredChange } from '../../src/store/store.ts';
import { makeRecord, stateEvent } from '../store/gameStore.contract.ts';

/** A store with one game and `count` logged changes (versions 2..count+1); moves name each version. */
async function storeWithChanges(count: number) {
  const store = new MemoryGameStore();
  const record = makeRecord();
  await store.create(record);
  const changes: GameChange[] = [];
  for (let version = 2; version <= count + 1; version++) {
    const event = stateEvent([`v${version}`]);
    await store.update({ ...record, version }, version - 1, event);
    changes.push({ gameId: record.id, version, event });
  }
  return { store, id: record.id, changes };
}

/** Lets every catch-up the feed queued run: the logs here answer at once, so a few turns of the loop do. */
const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise(resolve => setImmediate(resolve));
};

function collect(feed: ChangeFeed, id: string, after: number) {
  const seen: number[] = [];
  let lost = 0;
  const off = feed.subscribe(
    id,
    after,
    change => seen.push(change.version),
    () => lost++,
  );
  return { seen, lost: () => lost, off };
}

test('a subscriber gets what was committed after its version from the log, then live changes', async (t: TestContext) => {
  const { store, id, changes } = await storeWithChanges(5);
  const feed = new ChangeFeed(store);
  const sub = collect(feed, id, 3); // its snapshot was version 3; versions 4-6 are only in the log
  feed.publish(changes[4]!); // version 6 arrives live while the log is read
  await settle();
  t.assert.deepEqual(sub.seen, [4, 5, 6]);
  feed.publish(changes[4]!); // a repeat
  await settle();
  t.assert.deepEqual(sub.seen, [4, 5, 6]);
  t.assert.equal(sub.lost(), 0);
});

test('changes published out of order are delivered in version order, once', async (t: TestContext) => {
  const { store, id, changes } = await storeWithChanges(4);
  const feed = new ChangeFeed(store);
  const sub = collect(feed, id, 1);
  await settle();
  t.assert.deepEqual(sub.seen, [2, 3, 4, 5]);
  const more = await storeWithChanges(0); // an unrelated game's feed stays quiet
  const other = collect(feed, more.id, 1);
  feed.publish(changes[3]!);
  feed.publish(changes[1]!);
  await settle();
  t.assert.deepEqual(sub.seen, [2, 3, 4, 5]);
  t.assert.deepEqual(other.seen, []);
});

test('an announcement from another instance is read from the log; a missed one is found by resync', async (t: TestContext) => {
  const { store, id } = await storeWithChanges(1);
  const feed = new ChangeFeed(store);
  const a = collect(feed, id, 2);
  const b = collect(feed, id, 2);
  await settle();
  const record = (await store.get(id))!;
  const commit = (version: number) => store.update({ ...record, version }, version - 1, stateEvent([`v${version}`]));
  await commit(3);
  await commit(4);
  feed.announce(id, 4); // version 3's announcement was lost; 4 makes the feed read 3 and 4
  await settle();
  t.assert.deepEqual(a.seen, [3, 4]);
  await commit(5);
  feed.resync(); // version 5 was never announced
  await settle();
  t.assert.deepEqual(a.seen, [3, 4, 5]);
  t.assert.deepEqual(b.seen, [3, 4, 5]);
  b.off();
  feed.announce(id, 5);
  await settle();
  t.assert.deepEqual(b.seen, [3, 4, 5]);
});

test('changes the log no longer has end the subscription with onLost', async (t: TestContext) => {
  const { id, changes } = await storeWithChanges(6);
  const pruned = {
    changesSince: (_id: string, after: number): Promise<StoredChange[]> =>
      Promise.resolve(changes.filter(change => change.version > Math.max(after, 4))),
  };
  const feed = new ChangeFeed(pruned);
  const sub = collect(feed, id, 2); // needs 3 and 4, which are gone
  await settle();
  t.assert.deepEqual(sub.seen, []);
  t.assert.equal(sub.lost(), 1);
  feed.publish(changes[5]!);
  await settle();
  t.assert.deepEqual(sub.seen, [], 'nothing after the subscription ended');
});

test('a log that fails is read again later; nothing is lost meanwhile', async (t: TestContext) => {
  const { store, id } = await storeWithChanges(3);
  let failures = 1;
  const flaky = {
    changesSince: (gameId: string, after: number) =>
      failures-- > 0 ? Promise.reject(new Error('store unreachable')) : store.changesSince(gameId, after),
  };
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const errors: unknown[] = [];
  const feed = new ChangeFeed(flaky, error => errors.push(error));
  const sub = collect(feed, id, 1);
  await settle();
  t.assert.equal(errors.length, 1);
  t.assert.deepEqual(sub.seen, [], 'nothing yet: the read failed');
  t.mock.timers.tick(999);
  await settle();
  t.assert.deepEqual(sub.seen, [], 'the retry waits a second');
  t.mock.timers.tick(1);
  await settle();
  t.assert.deepEqual(sub.seen, [2, 3, 4]);
  t.assert.equal(errors.length, 1);
});
