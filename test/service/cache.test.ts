/**
 * The games the service keeps in memory are bounded twice: by count (GAME_CACHE_SIZE) and by estimated bytes
 * (GAME_CACHE_BYTES, DECISIONS §15), least recently used out first. A game in memory is read without the store; an
 * evicted one is read back from it.
 */
import { test, type TestContext } from 'node:test';
import { approximateBytes } from '../../src/domain/game.ts';
import { makeMove, undo } from '../../src/domain/transitions.ts';
import { gameStateOf } from '../../src/domain/views.ts';
import { ChangeFeed } from '../../src/bus/feed.ts';
import { GameService } from '../../src/service/games.ts';
import { MemoryGameStore } from '../../src/store/memory.ts';
import { longGameSans, pgnOf } from '../helpers/longGame.ts';
import { countingStore } from '../helpers/store.ts';

const LONG_PGN = pgnOf(longGameSans(400));

function service(bounds: { cacheSize?: number; cacheBytes?: number }) {
  let n = 0;
  const store = countingStore(new MemoryGameStore());
  const bus = new ChangeFeed(store);
  const games = new GameService({ store, bus, newId: () => `game${n++}`, clock: () => new Date(0), ...bounds });
  /** Store reads that reading the game costs: 0 when it is in memory. */
  const readCost = async (id: string): Promise<number> => {
    const before = store.reads;
    await games.get(id);
    return store.reads - before;
  };
  return { games, readCost };
}

test('long games are evicted by their bytes, least recently used first, and read back from the store', async (t: TestContext) => {
  const { games: probe } = service({});
  const size = approximateBytes(await probe.importPgn(LONG_PGN));
  const { games, readCost } = service({ cacheBytes: 3 * size + size / 2 });
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) ids.push((await games.importPgn(LONG_PGN)).record.id);
  t.assert.deepStrictEqual(games.memory(), { games: 3, bytes: 3 * size });
  t.assert.deepStrictEqual(await Promise.all([ids[9]!, ids[8]!, ids[7]!].map(readCost)), [0, 0, 0]);
  // The oldest is read back whole and kept, in place of the least recently used (ids[7]).
  t.assert.equal(await readCost(ids[0]!), 1);
  const first = await games.get(ids[0]!);
  t.assert.equal(first.record.moves.length, 400);
  t.assert.equal(gameStateOf(first).moves.length, 400);
  t.assert.deepStrictEqual(await Promise.all([ids[0]!, ids[9]!, ids[8]!].map(readCost)), [0, 0, 0]);
  t.assert.equal(await readCost(ids[7]!), 1);
  t.assert.deepStrictEqual(games.memory(), { games: 3, bytes: 3 * size });
});

test('a change replaces the size of the game it changes', async (t: TestContext) => {
  const { games } = service({});
  const game = await games.create({});
  const before = games.memory().bytes;
  t.assert.equal(before, approximateBytes(game));
  const { game: after } = await games.change(game.record.id, current => makeMove(current, 'e2e4'));
  t.assert.deepStrictEqual(games.memory(), { games: 1, bytes: approximateBytes(after) });
  t.assert.ok(approximateBytes(after) > before);
});

test('a game larger than the whole bound is not kept, and still changes through the store', async (t: TestContext) => {
  const { games, readCost } = service({ cacheBytes: 10_000 });
  const small = await games.create({});
  const long = await games.importPgn(LONG_PGN);
  t.assert.deepStrictEqual(games.memory(), { games: 1, bytes: approximateBytes(small) });
  t.assert.equal(await readCost(small.record.id), 0);
  t.assert.equal(await readCost(long.record.id), 1);
  const { game } = await games.change(long.record.id, current => undo(current));
  t.assert.equal(game.record.moves.length, 399);
  t.assert.equal((await games.get(long.record.id)).record.version, 2);
  t.assert.deepStrictEqual(games.memory(), { games: 1, bytes: approximateBytes(small) });
});

test('the count bound holds for small games', async (t: TestContext) => {
  const { games, readCost } = service({ cacheSize: 2 });
  const ids = [];
  for (let i = 0; i < 4; i++) ids.push((await games.create({})).record.id);
  t.assert.equal(games.memory().games, 2);
  t.assert.deepStrictEqual(await Promise.all([ids[3]!, ids[2]!].map(readCost)), [0, 0]);
  t.assert.equal(await readCost(ids[0]!), 1);
});
