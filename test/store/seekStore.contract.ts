/**
 * The contract every SeekStore adapter keeps (src/store/seeks.ts). Each adapter's test file calls
 * `runSeekStoreContract` with a factory for a store (which may hold what earlier tests wrote: ids, players and pools
 * are fresh in every test); the store is closed after each test. An adapter whose data outlives its process also
 * gives `sameData`: an opener of stores on one place (a file, a database), for what the next process finds of the
 * seeks of one that is gone.
 *
 * ```ts
 * runSeekStoreContract('MemoryGameStore', async () => new MemoryGameStore());
 * runSeekStoreContract('SqliteGameStore file', open, { sameData: async () => { const path = newFile(); return async () => SqliteGameStore.open(path); } });
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

/** An open correspondence seek with a fresh id and player, in `pool`. */
const correspondence = (pool: string, fields: Partial<Seek> = {}): Seek =>
  makeSeek(pool, {
    timeControl: { type: 'correspondence', daysPerTurn: 3 },
    aliveUntil: Number.MAX_SAFE_INTEGER,
    ...fields,
  });

export function runSeekStoreContract(
  name: string,
  makeStore: () => Promise<Store>,
  options: { skip?: string | false; sameData?: () => Promise<() => Promise<Store>> } = {},
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
        t.assert.deepEqual(await store.insertSeek(seek), { result: 'inserted', withdrawn: [] });
        t.assert.deepEqual(await store.seek(seek.id), seek);
      }
      t.assert.deepEqual(await store.insertSeek({ ...corr, color: 'black' }), { result: 'taken', withdrawn: [] });
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

    test("a player's new real-time seek withdraws the older, and says so; others' and correspondence seeks stay", async (t: TestContext) => {
      const store = await open(t);
      const pool = `pool-${fresh()}`;
      const first = makeSeek(pool);
      const player = first.player;
      const corr = correspondence(pool, { player });
      const other = makeSeek(pool);
      for (const seek of [first, corr, other]) await store.insertSeek(seek);
      const second = makeSeek(pool, { player, createdAt: NOW + 1 });
      t.assert.deepEqual(await store.insertSeek(second), { result: 'inserted', withdrawn: [first.id] });
      t.assert.equal((await store.seek(first.id))!.status, 'withdrawn');
      t.assert.deepEqual(ids(await store.openSeeks(pool, NOW, 10)), [corr.id, other.id, second.id]);
      // Another pool too: one real-time seek open per player, whatever its time control.
      const third = makeSeek(`pool-${fresh()}`, { player, createdAt: NOW + 2 });
      t.assert.deepEqual(await store.insertSeek(third), { result: 'inserted', withdrawn: [second.id] });
      // A taken id withdraws nothing.
      t.assert.deepEqual(await store.insertSeek({ ...third, createdAt: NOW + 3 }), { result: 'taken', withdrawn: [] });
      t.assert.equal((await store.seek(third.id))!.status, 'open');
      t.assert.equal((await store.seek(corr.id))!.status, 'open');
    });

    test('correspondence seeks: at most the bound open per player; paired, withdrawn and real-time ones do not count', async (t: TestContext) => {
      const store = await open(t);
      const pool = `pool-${fresh()}`;
      const player = makeSeek(pool).player;
      const mine = Array.from({ length: 3 }, (_, i) => correspondence(pool, { player, createdAt: NOW + i }));
      for (const seek of mine) t.assert.equal((await store.insertSeek(seek, 3)).result, 'inserted');
      t.assert.deepEqual(await store.insertSeek(correspondence(pool, { player }), 3), {
        result: 'limit',
        withdrawn: [],
      });
      t.assert.equal(
        (await store.insertSeek(makeSeek(pool, { player }), 3)).result,
        'inserted',
        'real-time: its own bound',
      );
      t.assert.equal((await store.insertSeek(correspondence(pool), 3)).result, 'inserted', 'another player');
      t.assert.equal(await store.withdrawSeek(mine[0]!.id), true);
      const partner = correspondence(pool);
      await store.insertSeek(partner);
      const pairing = pairSeeks(mine[1]!, partner, `P${fresh().slice(1)}`, NOW, () => 0.5);
      t.assert.equal(await store.pairSeeks(pairing.older, pairing.newer), true);
      const again = Array.from({ length: 3 }, () => correspondence(pool, { player }));
      // Three at once, with room for two: which one finds the bound reached is the race's (any, on PostgreSQL).
      const results = await Promise.all(again.map(seek => store.insertSeek(seek, 3).then(inserted => inserted.result)));
      t.assert.deepEqual(results.sort(), ['inserted', 'inserted', 'limit']);
    });

    test("one player's seeks racing: twenty real-time ones leave one open; twenty correspondence ones, ten", async (t: TestContext) => {
      const store = await open(t);
      const pool = `pool-${fresh()}`;
      const player = makeSeek(pool).player;
      const realTime = Array.from({ length: 20 }, (_, i) => makeSeek(pool, { player, createdAt: NOW + i }));
      const inserted = await Promise.all(realTime.map(seek => store.insertSeek(seek)));
      t.assert.ok(inserted.every(one => one.result === 'inserted'));
      const left = (await store.openSeeks(pool, NOW, 50)).filter(seek => seek.player.id === player.id);
      t.assert.equal(left.length, 1, 'one real-time seek open');
      // Each was withdrawn once, by one of the others, and the one open by none.
      const withdrawn = inserted.flatMap(one => one.withdrawn);
      t.assert.deepEqual([...withdrawn].sort(), ids(realTime.filter(seek => seek.id !== left[0]!.id)).sort());
      const corrPool = `pool-${fresh()}`;
      const corr = Array.from({ length: 20 }, () => correspondence(corrPool, { player }));
      const results = await Promise.all(corr.map(seek => store.insertSeek(seek, 10).then(one => one.result)));
      t.assert.equal(results.filter(result => result === 'inserted').length, 10);
      t.assert.equal(results.filter(result => result === 'limit').length, 10);
      t.assert.equal((await store.openSeeks(corrPool, NOW, 50)).length, 10);
    });

    test(
      'the next process on the same data never pairs a real-time seek of one gone; correspondence seeks live on',
      {
        skip: options.sameData ? false : 'its seeks do not outlive its process',
      },
      async (t: TestContext) => {
        const opener = await options.sameData!();
        const gone = await opener();
        const pool = `pool-${fresh()}`;
        const held = makeSeek(pool, { aliveUntil: NOW + 60_000 }); // its lease has not lapsed
        const corr = correspondence(pool);
        for (const seek of [held, corr]) await gone.insertSeek(seek);
        await gone.close();
        const next = await opener();
        t.after(() => next.close());
        t.assert.deepEqual(ids(await next.openSeeks(pool, NOW, 10)), [corr.id]);
        const newcomer = makeSeek(pool);
        t.assert.equal((await next.insertSeek(newcomer)).result, 'inserted');
        t.assert.deepEqual(ids(await next.openSeeks(pool, NOW, 10)), [corr.id, newcomer.id]);
        const pairing = pairSeeks(held, newcomer, `D${fresh().slice(1)}`, NOW, () => 0.5);
        t.assert.equal(await next.pairSeeks(pairing.older, pairing.newer), false);
        t.assert.notEqual((await next.seek(held.id))!.status, 'paired');
        t.assert.equal((await next.seek(newcomer.id))!.status, 'open');
      },
    );
  });
}
