/**
 * The change feed stays exact under any interleaving (DECISIONS §15: RESYNC_REQUIRED only when the log no longer
 * holds a change), on the real PostgreSQL store: a property test over random sequences of commits, their
 * publication (this instance) or announcement (another instance), subscriptions at the current version, and the
 * moment each catch-up read of the log completes. Every subscriber must get every version after its own exactly
 * once, in order, and none may be told it lost a change: the log keeps every change of the test.
 */
import { test, type TestContext } from 'node:test';
import fc from 'fast-check';
import { ChangeFeed, type ChangeLog } from '../../src/bus/feed.ts';
import { PostgresGameStore } from '../../src/store/postgres.ts';
import type { StoredChange } from '../../src/store/store.ts';
import { makeRecord, stateEvent } from '../store/gameStore.contract.ts';
import { createTestDatabase, postgresSkip } from '../helpers/postgres.ts';

const skip = await postgresSkip();

/** A log whose reads the test lets complete one at a time, in an order of its choosing. */
function gatedLog(store: ChangeLog) {
  const pending: Array<() => void> = [];
  const log: ChangeLog = {
    changesSince: async (gameId, afterVersion) => {
      const changes: StoredChange[] = await store.changesSince(gameId, afterVersion);
      await new Promise<void>(resolve => pending.push(resolve));
      return changes;
    },
  };
  return { log, pending };
}

type Step =
  | { kind: 'commit'; how: 'publish' | 'announce' | 'both' | 'silent' }
  | { kind: 'subscribe' }
  | { kind: 'release'; which: number }
  | { kind: 'settle' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom('publish', 'announce', 'both', 'silent').map(how => ({ kind: 'commit' as const, how })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'subscribe' as const }) },
  { weight: 3, arbitrary: fc.nat(7).map(which => ({ kind: 'release' as const, which })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'settle' as const }) },
);

const tick = () => new Promise(resolve => setImmediate(resolve));

test(
  'every subscriber gets every change once, in order, whatever the interleaving',
  { skip },
  async (t: TestContext) => {
    const db = await createTestDatabase();
    const store = await PostgresGameStore.open(db.url);
    t.after(async () => {
      await store.close();
      await db.drop();
    });

    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 40 }), async steps => {
        const record = makeRecord();
        await store.create(record);
        const { log, pending } = gatedLog(store);
        const feed = new ChangeFeed(log);
        let version = 1;
        const subscribers: Array<{ from: number; seen: number[]; lost: number }> = [];
        const subscribe = () => {
          const subscriber = { from: version, seen: [] as number[], lost: 0 };
          subscribers.push(subscriber);
          feed.subscribe(
            record.id,
            version,
            change => subscriber.seen.push(change.version),
            () => subscriber.lost++,
          );
        };
        subscribe();
        for (const next of steps) {
          if (next.kind === 'commit') {
            const event = stateEvent([`v${version + 1}`]);
            if (!(await store.update({ ...record, version: version + 1 }, version, event))) throw new Error('refused');
            version++;
            const change = { gameId: record.id, version, event };
            if (next.how === 'publish' || next.how === 'both') feed.publish(change);
            if (next.how === 'announce' || next.how === 'both') feed.announce(record.id, version);
          } else if (next.kind === 'subscribe') {
            subscribe();
          } else if (next.kind === 'release') {
            if (pending.length > 0) pending.splice(next.which % pending.length, 1)[0]!();
          } else {
            await tick();
          }
          await tick();
        }
        // Then everything settles: a resync (as after a reconnection) and every read allowed to complete.
        feed.resync();
        for (let round = 0; round < 200; round++) {
          while (pending.length > 0) pending.shift()!();
          await new Promise(resolve => setTimeout(resolve, 2));
          if (pending.length === 0 && subscribers.every(s => s.seen.length === version - s.from)) break;
        }
        for (const subscriber of subscribers) {
          t.assert.equal(subscriber.lost, 0, `a subscriber from version ${subscriber.from} was told it lost a change`);
          const expected = Array.from({ length: version - subscriber.from }, (_, i) => subscriber.from + 1 + i);
          t.assert.deepStrictEqual(subscriber.seen, expected);
        }
        await feed.close();
      }),
      { numRuns: Number(process.env.FEED_RUNS ?? 150) },
    );
  },
);
