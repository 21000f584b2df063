/**
 * The contract every HistoryStore adapter keeps (src/store/history.ts): a player's games, filtered as lichess's
 * export filters them (DECISIONS §22), newest first by creation time (ties by id) or oldest first, read in keyset
 * pages that never repeat or skip a game. Each adapter's test file calls `runHistoryStoreContract` with a factory for
 * a store (which may hold what earlier tests wrote: player ids are fresh in every test); closed after each test.
 *
 * ```ts
 * runHistoryStoreContract('MemoryGameStore', async () => new MemoryGameStore());
 * ```
 */
import { randomBytes } from 'node:crypto';
import { describe, test, type TestContext } from 'node:test';
import type { GameRecord } from '../../src/domain/game.ts';
import type { HistoryQuery } from '../../src/domain/history.ts';
import type { Speed } from '../../src/contract/lichess.ts';
import type { HistoryStore } from '../../src/store/history.ts';
import type { GameStore } from '../../src/store/store.ts';
import { makeRecord } from './gameStore.contract.ts';
import { archiveRecord } from '../helpers/archive.ts';

type Store = GameStore & HistoryStore;

const run = randomBytes(3).toString('hex');
let counter = 0;
const fresh = (prefix: string) => `${prefix}-${run}-${++counter}`;
let ids = 0;
const freshId = () => `${run.slice(0, 3)}H${String(++ids).padStart(4, '0')}`;

/** What a test game is, as the test writes it down (the expected answers are filtered from these). */
interface Made {
  record: GameRecord;
  color: 'white' | 'black' | 'both';
  opponent: string;
  perf: Speed;
  rated: boolean;
  ended: boolean;
}

const CLOCKS: Record<Speed, GameRecord['clock']> = {
  ultraBullet: {
    control: { initial: 15_000, increment: 0 },
    white: 15_000,
    black: 15_000,
    since: 0,
    phase: 0,
    timedFrom: 2,
  },
  bullet: {
    control: { initial: 60_000, increment: 1_000 },
    white: 60_000,
    black: 60_000,
    since: 0,
    phase: 0,
    timedFrom: 2,
  },
  blitz: {
    control: { initial: 180_000, increment: 2_000 },
    white: 180_000,
    black: 180_000,
    since: 0,
    phase: 0,
    timedFrom: 2,
  },
  rapid: {
    control: { initial: 600_000, increment: 0 },
    white: 600_000,
    black: 600_000,
    since: 0,
    phase: 0,
    timedFrom: 2,
  },
  classical: {
    control: { initial: 1_800_000, increment: 20_000 },
    white: 1_800_000,
    black: 1_800_000,
    since: 0,
    phase: 0,
    timedFrom: 2,
  },
  correspondence: {
    control: { daysPerMove: 3 },
    white: 259_200_000,
    black: 259_200_000,
    since: 0,
    phase: 0,
    timedFrom: 2,
  },
};

/** The games of one player: every colour, three opponents, every speed and no clock, rated or not, over or not. */
async function makeGames(store: Store, ann: string): Promise<Made[]> {
  const [bob, cat] = [fresh('bob'), fresh('cat')];
  const perfs: Array<Speed | 'none'> = [
    'blitz',
    'bullet',
    'none',
    'rapid',
    'classical',
    'ultraBullet',
    'correspondence',
  ];
  const made: Made[] = [];
  for (let i = 0; i < 21; i++) {
    const color = i % 7 === 6 ? 'both' : i % 2 === 0 ? 'white' : 'black';
    const other = color === 'both' ? ann : i % 3 === 0 ? bob : cat;
    const perf = perfs[i % perfs.length]!;
    const me = { id: ann, displayName: 'Ann' };
    const them = { id: other, displayName: 'Other' };
    // Three games share each creation time: ties are ordered by id.
    const createdAt = new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3) * 60_000).toISOString();
    const rated = i % 4 === 1;
    const record = makeRecord({
      id: freshId(),
      createdAt,
      white: color === 'black' ? them : me,
      black: color === 'white' ? them : me,
      clock: perf === 'none' ? null : CLOCKS[perf],
      ...(rated ? { rated: true } : {}),
    });
    const ended = i % 3 !== 2;
    made.push({ record, color, opponent: other, perf: perf === 'none' ? 'correspondence' : perf, rated, ended });
  }
  // Created in another order than that of their times: the order is the creation time's, not the insert's.
  for (const game of [...made].reverse()) {
    if (!(await store.create(game.record, { deadline: null, ended: game.ended }))) throw new Error('not created');
  }
  // A game of others only.
  await store.create(
    makeRecord({ id: freshId(), white: { id: bob, displayName: 'Bob' }, black: { id: cat, displayName: 'Cat' } }),
  );
  return made;
}

const byPosition = (order: 'asc' | 'desc') => (a: Made, b: Made) => {
  const key = (m: Made) => `${m.record.createdAt} ${m.record.id}`;
  return (key(a) < key(b) ? -1 : 1) * (order === 'asc' ? 1 : -1);
};

/** The expected answer of a query, filtered from what was made. */
function expected(made: Made[], query: HistoryQuery): string[] {
  return made
    .filter(m => query.since === undefined || m.record.createdAt >= query.since)
    .filter(m => query.until === undefined || m.record.createdAt <= query.until)
    .filter(m => query.vs === undefined || m.opponent === query.vs)
    .filter(m => query.rated === undefined || m.rated === query.rated)
    .filter(m => query.perfs === undefined || query.perfs.includes(m.perf))
    .filter(m => query.color === undefined || m.color === query.color || m.color === 'both')
    .filter(m => query.ended === undefined || m.ended === query.ended)
    .sort(byPosition(query.order))
    .map(m => m.record.id);
}

/** Every game of a query, read in pages of `size`. */
async function walk(store: Store, query: Omit<HistoryQuery, 'limit' | 'after'>, size: number): Promise<string[]> {
  const found: string[] = [];
  let after: HistoryQuery['after'];
  for (;;) {
    const page = await store.playerGames({ ...query, after, limit: size });
    found.push(...page.map(record => record.id));
    if (page.length < size) return found;
    const last = page.at(-1)!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

export function runHistoryStoreContract(
  name: string,
  makeStore: () => Promise<Store>,
  options: { skip?: string | false } = {},
): void {
  describe(`HistoryStore contract: ${name}`, { skip: options.skip ?? false }, () => {
    test('every filter alone and combined, in both orders, whole and in pages', async (t: TestContext) => {
      const store = await makeStore();
      t.after(() => store.close());
      const ann = fresh('ann');
      const made = await makeGames(store, ann);
      const bob = made.find(m => m.opponent.startsWith('bob'))!.opponent;
      const times = [...new Set(made.map(m => m.record.createdAt))].sort();
      const filters: Array<Partial<HistoryQuery>> = [
        {},
        { since: times[2] },
        { until: times[4] },
        { since: times[1], until: times[1] },
        { vs: bob },
        { vs: ann },
        { vs: 'nobody' },
        { rated: true },
        { rated: false },
        { perfs: ['blitz'] },
        { perfs: ['correspondence', 'bullet'] },
        { perfs: [] },
        { color: 'white' },
        { color: 'black' },
        { ended: true },
        { ended: false },
        { vs: bob, color: 'white', ended: true },
        { since: times[1], until: times[5], perfs: ['blitz', 'rapid', 'correspondence'], rated: false, ended: true },
        { color: 'black', rated: true, perfs: ['bullet', 'classical'] },
      ];
      for (const filter of filters) {
        for (const order of ['desc', 'asc'] as const) {
          const query = { player: ann, order, ...filter };
          const want = expected(made, { ...query, limit: 100 });
          const label = JSON.stringify(query);
          t.assert.deepEqual(
            (await store.playerGames({ ...query, limit: 100 })).map(r => r.id),
            want,
            label,
          );
          t.assert.deepEqual(await walk(store, query, 2), want, `${label} in pages of 2`);
        }
      }
      // The games come back whole.
      const first = (await store.playerGames({ player: ann, order: 'asc', limit: 1 }))[0]!;
      const made0 = [...made].sort(byPosition('asc'))[0]!.record;
      t.assert.deepEqual(first, made0);
    });

    test("a page's games come back with their lines whole, each its own, however long", async (t: TestContext) => {
      const store = await makeStore();
      t.after(() => store.close());
      const ann = fresh('ann');
      const line = archiveRecord(0, ann).moves;
      // Lines around the lengths a store keeps apart (rows of their own, a tail in the game's row), one with moves
      // undone, one changed after its creation; each game of a page is read with the others at once.
      const lengths = [0, 1, 15, 16, 17, 32, 33, 40];
      const made = lengths.map((length, i) => {
        const record = archiveRecord(i, ann);
        return {
          ...record,
          id: freshId(),
          moves: line.slice(0, length),
          moveClocks: record.moveClocks.slice(0, length),
        };
      });
      const withRedo = { ...archiveRecord(lengths.length, ann), id: freshId() };
      made.push({
        ...withRedo,
        moves: line.slice(0, 20),
        redo: line.slice(20, 25).reverse(),
        moveClocks: withRedo.moveClocks.slice(0, 20),
      });
      for (const record of made) await store.create(record, { deadline: null, ended: true });
      const changed = {
        ...made[4]!,
        version: 2,
        moves: line.slice(0, 30),
        moveClocks: withRedo.moveClocks.slice(0, 30),
      };
      t.assert.equal(await store.update(changed, 1, undefined, { deadline: null, ended: true }), true);
      made[4] = changed;
      const expected = await Promise.all(made.map(record => store.get(record.id)));
      const whole = await store.playerGames({ player: ann, order: 'asc', limit: 100 });
      t.assert.deepEqual(whole, expected);
      t.assert.deepEqual(
        whole.map(record => [record.moves, record.redo, record.moveClocks]),
        made.map(record => [record.moves, record.redo, record.moveClocks]),
      );
      const paged: GameRecord[] = [];
      let after: HistoryQuery['after'];
      for (;;) {
        const page = await store.playerGames({ player: ann, order: 'asc', limit: 3, after });
        paged.push(...page);
        if (page.length < 3) break;
        after = { createdAt: page.at(-1)!.createdAt, id: page.at(-1)!.id };
      }
      t.assert.deepEqual(paged, expected);
    });

    test('a game changed or ended after its creation keeps its place and filters by its state now', async (t: TestContext) => {
      const store = await makeStore();
      t.after(() => store.close());
      const [ann, bob] = [fresh('ann'), fresh('bob')];
      const older = makeRecord({
        id: freshId(),
        createdAt: '2026-02-01T10:00:00.000Z',
        white: { id: ann, displayName: 'Ann' },
        black: { id: bob, displayName: 'Bob' },
      });
      const newer = makeRecord({
        id: freshId(),
        createdAt: '2026-02-01T11:00:00.000Z',
        white: { id: bob, displayName: 'Bob' },
        black: { id: ann, displayName: 'Ann' },
      });
      await store.create(older);
      await store.create(newer);
      const finished = () => store.playerGames({ player: ann, ended: true, order: 'desc', limit: 10 });
      t.assert.deepEqual(await finished(), []);
      const moved = {
        ...older,
        version: 2,
        moves: ['e2e4'],
        result: { kind: 'resign' as const, winner: 'black' as const },
      };
      t.assert.equal(await store.update(moved, 1, undefined, { deadline: null, ended: true }), true);
      t.assert.deepEqual(await finished(), [moved]);
      const all = await store.playerGames({ player: ann, order: 'desc', limit: 10 });
      t.assert.deepEqual(
        all.map(r => r.id),
        [newer.id, older.id],
        'by creation, not by change',
      );
      t.assert.deepEqual(
        (await store.playerGames({ player: ann, ended: false, order: 'desc', limit: 10 })).map(r => r.id),
        [newer.id],
      );
    });
  });
}
