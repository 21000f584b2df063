/**
 * The contract every RatingStore adapter keeps (src/store/ratings.ts), with the rated end a game's update writes
 * (GameStore `update` with a RatedEnd). Each adapter's test file calls `runRatingStoreContract` with a factory for a
 * store (which may hold what earlier tests wrote: player ids are fresh in every test); the store is closed after
 * each test.
 *
 * ```ts
 * runRatingStoreContract('MemoryGameStore', async () => new MemoryGameStore());
 * ```
 */
import { randomBytes } from 'node:crypto';
import { describe, test, type TestContext } from 'node:test';
import type { GameRecord } from '../../src/domain/game.ts';
import { newPerf, ratedGame, type Perf } from '../../src/domain/glicko.ts';
import { utcDay, type PerfType, type RatedEnd } from '../../src/domain/ratings.ts';
import type { PlayerInfo } from '../../src/contract/shapes.ts';
import type { RatingStore } from '../../src/store/ratings.ts';
import type { GameStore } from '../../src/store/store.ts';
import { makeRecord } from './gameStore.contract.ts';

type Store = GameStore & RatingStore;

const run = randomBytes(3).toString('hex');
let counter = 0;
const fresh = (): PlayerInfo => {
  const id = `r${run}${++counter}`;
  return { id, displayName: `Name of ${id}` };
};

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 1, 12);

/** A rated end of a game between `white` and `black` from `before`, as the service makes one. */
function endOf(
  white: PlayerInfo,
  black: PlayerInfo,
  before: { white: Perf; black: Perf },
  winner: 'white' | 'black' | undefined,
  at: number,
  perfType: PerfType = 'blitz',
): RatedEnd {
  const after = ratedGame(before, winner, at);
  return {
    perfType,
    day: utcDay(at),
    sides: [
      { player: white, before: before.white, after: after.white },
      { player: black, before: before.black, after: after.black },
    ],
  };
}

/** A game between the two, stored, and its ending update (one version on). */
async function storedGame(store: Store, white: PlayerInfo, black: PlayerInfo) {
  const record = makeRecord({ white, black, moves: ['e2e4', 'e7e5'] });
  if (!(await store.create(record))) throw new Error('not created');
  const ended: GameRecord = { ...record, version: 2, result: { kind: 'resign', winner: 'white' } };
  return { record, ended };
}

export function runRatingStoreContract(
  name: string,
  makeStore: () => Promise<Store>,
  options: { skip?: string | false } = {},
): void {
  describe(`RatingStore contract: ${name}`, { skip: options.skip ?? false }, () => {
    const open = async (t: TestContext): Promise<Store> => {
      const store = await makeStore();
      t.after(() => store.close());
      return store;
    };

    test('a player never rated has no perf, no history and is on no leaderboard', async (t: TestContext) => {
      const store = await open(t);
      const ann = fresh();
      t.assert.deepEqual(await store.perfsOf([ann.id]), []);
      t.assert.deepEqual(await store.ratingHistory(ann.id), []);
      t.assert.equal((await store.topPlayers('blitz', 100)).filter(p => p.player.id === ann.id).length, 0);
    });

    test('a rated end is written with its game: both perfs and the day of the history', async (t: TestContext) => {
      const store = await open(t);
      const [ann, bob] = [fresh(), fresh()];
      const { record, ended } = await storedGame(store, ann, bob);
      const end = endOf(ann, bob, { white: newPerf(), black: newPerf() }, 'white', T0);
      t.assert.equal(await store.update(ended, 1, undefined, undefined, record, end), true);
      t.assert.deepEqual(await store.get(record.id), ended);
      const perfs = await store.perfsOf([ann.id, bob.id, fresh().id]);
      t.assert.deepEqual(
        perfs.sort((a, b) => a.player.id.localeCompare(b.player.id)),
        [
          { player: ann, perfType: 'blitz', perf: end.sides[0].after },
          { player: bob, perfType: 'blitz', perf: end.sides[1].after },
        ].sort((a, b) => a.player.id.localeCompare(b.player.id)),
      );
      t.assert.deepEqual(await store.ratingHistory(ann.id), [
        { perfType: 'blitz', day: '2026-03-01', rating: Math.trunc(end.sides[0].after.glicko.rating) },
      ]);
    });

    test('a rated end computed from perfs that changed since is refused whole: neither the game nor a perf is written', async (t: TestContext) => {
      const store = await open(t);
      const [ann, bob, cat] = [fresh(), fresh(), fresh()];
      const first = await storedGame(store, ann, bob);
      const firstEnd = endOf(ann, bob, { white: newPerf(), black: newPerf() }, 'white', T0);
      t.assert.equal(await store.update(first.ended, 1, undefined, undefined, first.record, firstEnd), true);
      // A game of Ann's rated from her perf before the first game: stale.
      const second = await storedGame(store, cat, ann);
      const stale = endOf(cat, ann, { white: newPerf(), black: newPerf() }, 'black', T0 + 1000);
      t.assert.equal(await store.update(second.ended, 1, undefined, undefined, second.record, stale), false);
      t.assert.deepEqual(await store.get(second.record.id), second.record);
      t.assert.deepEqual(await store.perfsOf([cat.id]), [], "Cat's perf is not written either");
      const annPerf = (await store.perfsOf([ann.id]))[0]!.perf;
      t.assert.deepEqual(annPerf, firstEnd.sides[0].after);
      // Rated again from the perfs as they are: written.
      const fresh2 = endOf(cat, ann, { white: newPerf(), black: annPerf }, 'black', T0 + 1000);
      t.assert.equal(await store.update(second.ended, 1, undefined, undefined, second.record, fresh2), true);
      t.assert.equal((await store.perfsOf([ann.id]))[0]!.perf.games, 2);
    });

    test('racing ends of two games of one player from the same perf: one is written, the other refused', async (t: TestContext) => {
      const store = await open(t);
      const [ann, bob, cat] = [fresh(), fresh(), fresh()];
      const one = await storedGame(store, ann, bob);
      const two = await storedGame(store, cat, ann);
      const saved = await Promise.all([
        store.update(
          one.ended,
          1,
          undefined,
          undefined,
          one.record,
          endOf(ann, bob, { white: newPerf(), black: newPerf() }, 'white', T0),
        ),
        store.update(
          two.ended,
          1,
          undefined,
          undefined,
          two.record,
          endOf(cat, ann, { white: newPerf(), black: newPerf() }, undefined, T0),
        ),
      ]);
      t.assert.deepEqual(saved.filter(Boolean).length, 1, `saved: ${saved.join(', ')}`);
      t.assert.equal((await store.perfsOf([ann.id]))[0]!.perf.games, 1);
      const loser = saved[0] ? two : one;
      t.assert.deepEqual(await store.get(loser.record.id), loser.record, 'the refused game is not ended');
    });

    test('the history keeps the last rating of each UTC day, oldest day first, per perf', async (t: TestContext) => {
      const store = await open(t);
      const [ann, bob] = [fresh(), fresh()];
      let perfs = { white: newPerf(), black: newPerf() };
      const ratings: number[] = [];
      for (const [i, at] of [T0, T0 + 1000, T0 + DAY].entries()) {
        const { record, ended } = await storedGame(store, ann, bob);
        const end = endOf(ann, bob, perfs, i === 1 ? 'black' : 'white', at);
        t.assert.equal(await store.update(ended, 1, undefined, undefined, record, end), true);
        perfs = { white: end.sides[0].after, black: end.sides[1].after };
        ratings.push(Math.trunc(perfs.white.glicko.rating));
      }
      const { record, ended } = await storedGame(store, ann, bob);
      const bullet = endOf(ann, bob, { white: newPerf(), black: newPerf() }, 'white', T0, 'bullet');
      t.assert.equal(await store.update(ended, 1, undefined, undefined, record, bullet), true);
      t.assert.deepEqual(await store.ratingHistory(ann.id), [
        { perfType: 'blitz', day: '2026-03-01', rating: ratings[1] },
        { perfType: 'bullet', day: '2026-03-01', rating: Math.trunc(bullet.sides[0].after.glicko.rating) },
        { perfType: 'blitz', day: '2026-03-02', rating: ratings[2] },
      ]);
    });

    test('the leaderboard: established players of the perf only, best first, at most the limit', async (t: TestContext) => {
      const store = await open(t);
      const perfType: PerfType = 'classical';
      const established = (rating: number, deviation: number): Perf => ({
        ...newPerf(),
        glicko: { rating, deviation, volatility: 0.06 },
        games: 30,
        latest: T0,
      });
      const players = [fresh(), fresh(), fresh(), fresh()];
      const values = [
        [2600, 60],
        [2900, 80],
        [3000, 150], // provisional: not listed
        [2700, 109],
      ] as const;
      // Each written as the end of a game against a new opponent, from a stored perf made by the store itself.
      for (const [i, player] of players.entries()) {
        const opponent = fresh();
        const { record, ended } = await storedGame(store, player, opponent);
        const after = established(values[i]![0], values[i]![1]);
        const end: RatedEnd = {
          perfType,
          day: utcDay(T0),
          sides: [
            { player, before: newPerf(), after },
            { player: opponent, before: newPerf(), after: { ...newPerf(), games: 1, latest: T0 } },
          ],
        };
        t.assert.equal(await store.update(ended, 1, undefined, undefined, record, end), true);
      }
      const ours = new Set(players.map(p => p.id));
      const top = (await store.topPlayers(perfType, 1000)).filter(p => ours.has(p.player.id));
      t.assert.deepEqual(
        top.map(p => [p.player, p.perf.glicko.rating]),
        [
          [players[1], 2900],
          [players[3], 2700],
          [players[0], 2600],
        ],
      );
      t.assert.ok((await store.topPlayers(perfType, 2)).length <= 2);
    });
  });
}
