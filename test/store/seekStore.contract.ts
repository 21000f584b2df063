/**
 * The contract every SeekStore adapter keeps (src/store/seeks.ts). Each adapter's test file calls
 * `runSeekStoreContract` with a factory for a store (which may hold what earlier tests wrote: ids and pools are
 * fresh in every test); the store is closed after each test.
 *
 * ```ts
 * runSeekStoreContract('MemoryGameStore', async () => new MemoryGameStore());
 * ```
 */
import { randomBytes } from 'node:crypto';
import { describe, test, type TestContext } from 'node:test';
import { pairSeeks, type Seek } from '../../src/domain/seek.ts';
import type { SeekStore } from '../../src/store/seeks.ts';

type Store = SeekStore & { close(): Promise<void> };

const run = randomBytes(3).toString('hex');
let counter = 0;
const fresh = () => `${run}${String(++counter).padStart(2, '0')}`.slice(-8).padStart(8, 's');

const NOW = Date.UTC(2026, 1, 28, 12);

/** An open real-time seek with a fresh id and player, in `pool`, made at `createdAt`. */
function makeSeek(pool: string, fields: Partial<Seek> = {}): Seek {
  const createdAt = fields.createdAt ?? NOW;
  const id = fresh();
  return {
    id,
    player: { id: `p-${id}`, displayName: 'P' },
    timeControl: { type: 'clock', limit: 300, increment: 0 },
    color: 'random',
    pool,
    status: 'open',
    createdAt,
    aliveUntil: createdAt + 15_000,
    gameId: null,
    pairedAt: null,
    gameColor: null,
    ...fields,
  };
}

const ids = (seeks: Seek[]) => seeks.map(seek => seek.id);

export function runSeekStoreContract(
  name: string,
  makeStore: () => Promise<Store>,
  options: { skip?: string | false } = {},
): void {
  describe(`SeekStore contract: ${name}`, { skip: options.skip ?? false }, () => {
    const open = async (t: TestContext): Promise<Store> => {
      const store = await makeStore();
      t.after(() => store.close());
      return store;
    };

    test('a seek inserted is read back unchanged; an id taken is refused and keeps the first', async (t: TestContext) => {
      const store = await open(t);
      const pool = `pool-${fresh()}`;
      const realTime = makeSeek(pool, { color: 'white' });
      const corr = makeSeek(pool, {
        timeControl: { type: 'correspondence', daysPerTurn: 3 },
        aliveUntil: Number.MAX_SAFE_INTEGER,
      });
      for (const seek of [realTime, corr]) {
        t.assert.equal(await store.insertSeek(seek), true);
        t.assert.deepEqual(await store.seek(seek.id), seek);
      }
      t.assert.equal(await store.insertSeek({ ...corr, color: 'black' }), false);
      t.assert.deepEqual(await store.seek(corr.id), corr);
      t.assert.equal(await store.seek('Zz999999'), undefined);
    });

    test("a pool's open seeks: alive at the time asked, oldest first, up to the limit; no other pool's", async (t: TestContext) => {
      const store = await open(t);
      const pool = `pool-${fresh()}`;
      const old = makeSeek(pool, { createdAt: NOW - 3000 });
      const mid = makeSeek(pool, { createdAt: NOW - 2000 });
      const lapsed = makeSeek(pool, { createdAt: NOW - 2500, aliveUntil: NOW - 1 });
      const young = makeSeek(pool, { createdAt: NOW - 1000 });
      const other = makeSeek(`pool-${fresh()}`, { createdAt: NOW - 4000 });
      for (const seek of [young, lapsed, mid, other, old]) await store.insertSeek(seek);
      t.assert.deepEqual(ids(await store.openSeeks(pool, NOW, 10)), [old.id, mid.id, young.id]);
      t.assert.deepEqual(ids(await store.openSeeks(pool, NOW, 2)), [old.id, mid.id]);
      t.assert.deepEqual(ids(await store.openSeeks(pool, NOW - 2, 10)), [old.id, lapsed.id, mid.id, young.id]);
      await store.withdrawSeek(mid.id);
      t.assert.deepEqual(ids(await store.openSeeks(pool, NOW, 10)), [old.id, young.id]);
    });

    test('a pairing records both seeks, once; with one of them no longer open, neither changes', async (t: TestContext) => {
      const store = await open(t);
      const pool = `pool-${fresh()}`;
      const [a, b, c] = [makeSeek(pool), makeSeek(pool), makeSeek(pool)];
      for (const seek of [a, b, c]) await store.insertSeek(seek);
      const first = pairSeeks(a, b, 'Game0001', NOW, () => 0.9);
      t.assert.equal(await store.pairSeeks(first.older, first.newer), true);
      t.assert.deepEqual(await store.seek(a.id), {
        ...a,
        status: 'paired',
        gameId: 'Game0001',
        pairedAt: NOW,
        gameColor: 'black',
      });
      t.assert.deepEqual(await store.seek(b.id), {
        ...b,
        status: 'paired',
        gameId: 'Game0001',
        pairedAt: NOW,
        gameColor: 'white',
      });
      t.assert.equal(await store.pairSeeks(first.older, first.newer), false);
      // c with a (paired already): refused, and c stays open.
      const second = pairSeeks(a, c, 'Game0002', NOW, () => 0.1);
      t.assert.equal(await store.pairSeeks(second.older, second.newer), false);
      const third = pairSeeks(c, a, 'Game0002', NOW, () => 0.1);
      t.assert.equal(await store.pairSeeks(third.older, third.newer), false);
      t.assert.deepEqual(await store.seek(c.id), c);
      t.assert.equal((await store.seek(a.id))!.gameId, 'Game0001');
      t.assert.deepEqual(ids(await store.openSeeks(pool, NOW, 10)), [c.id]);
    });

    test('ten pairings of one seek racing: exactly one is recorded; the losers stay open', async (t: TestContext) => {
      const store = await open(t);
      const pool = `pool-${fresh()}`;
      const target = makeSeek(pool, { createdAt: NOW - 1000 });
      const others = Array.from({ length: 10 }, () => makeSeek(pool));
      for (const seek of [target, ...others]) await store.insertSeek(seek);
      const results = await Promise.all(
        others.map((other, i) => {
          const pairing = pairSeeks(target, other, `Race${String(i).padStart(4, '0')}`, NOW, () => 0.5);
          return store.pairSeeks(pairing.newer, pairing.older);
        }),
      );
      t.assert.equal(results.filter(Boolean).length, 1);
      const winner = others[results.indexOf(true)]!;
      t.assert.equal((await store.seek(target.id))!.gameId, (await store.seek(winner.id))!.gameId);
      const stillOpen = ids(await store.openSeeks(pool, NOW, 20));
      t.assert.deepEqual(stillOpen.sort(), ids(others.filter(other => other !== winner)).sort());
    });

    test('withdrawing: an open seek once; a paired one never', async (t: TestContext) => {
      const store = await open(t);
      const pool = `pool-${fresh()}`;
      const [a, b, c] = [makeSeek(pool), makeSeek(pool), makeSeek(pool)];
      for (const seek of [a, b, c]) await store.insertSeek(seek);
      t.assert.equal(await store.withdrawSeek(a.id), true);
      t.assert.equal(await store.withdrawSeek(a.id), false);
      t.assert.equal((await store.seek(a.id))!.status, 'withdrawn');
      const pairing = pairSeeks(b, c, 'Game0003', NOW, () => 0.5);
      t.assert.equal(await store.pairSeeks(pairing.older, pairing.newer), true);
      t.assert.equal(await store.withdrawSeek(b.id), false);
      t.assert.equal((await store.seek(b.id))!.status, 'paired');
      t.assert.equal(await store.withdrawSeek('Zz999999'), false);
      // A withdrawn seek is not paired either.
      const d = makeSeek(pool);
      await store.insertSeek(d);
      const late = pairSeeks(a, d, 'Game0004', NOW, () => 0.5);
      t.assert.equal(await store.pairSeeks(late.older, late.newer), false);
    });

    test('keeping seeks alive moves the lease of the open ones only', async (t: TestContext) => {
      const store = await open(t);
      const pool = `pool-${fresh()}`;
      const [a, b] = [makeSeek(pool), makeSeek(pool)];
      for (const seek of [a, b]) await store.insertSeek(seek);
      await store.withdrawSeek(b.id);
      await store.keepSeeksAlive([a.id, b.id, 'Zz999999'], NOW + 60_000);
      t.assert.equal((await store.seek(a.id))!.aliveUntil, NOW + 60_000);
      t.assert.equal((await store.seek(b.id))!.aliveUntil, b.aliveUntil);
      t.assert.deepEqual(ids(await store.openSeeks(pool, NOW + 30_000, 10)), [a.id]);
      await store.keepSeeksAlive([], NOW);
    });

    test('pairings without their game: both seeks, paired at or after the time asked', async (t: TestContext) => {
      const store = await open(t);
      const pool = `pool-${fresh()}`;
      const [a, b, c, d] = [makeSeek(pool), makeSeek(pool), makeSeek(pool), makeSeek(pool)];
      for (const seek of [a, b, c, d]) await store.insertSeek(seek);
      const early = pairSeeks(a, b, `E${fresh().slice(1)}`, NOW - 10_000, () => 0.5);
      const late = pairSeeks(c, d, `L${fresh().slice(1)}`, NOW, () => 0.5);
      await store.pairSeeks(early.older, early.newer);
      await store.pairSeeks(late.older, late.newer);
      const unmade = (await store.seeksWithoutGame(NOW - 5000)).filter(seek => seek.pool === pool);
      t.assert.deepEqual(ids(unmade).sort(), [c.id, d.id].sort());
      const all = (await store.seeksWithoutGame(NOW - 20_000)).filter(seek => seek.pool === pool);
      t.assert.equal(all.length, 4);
    });
  });
}
