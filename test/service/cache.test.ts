/**
 * The games the service keeps in memory are bounded twice: by count (GAME_CACHE_SIZE) and by estimated bytes
 * (GAME_CACHE_BYTES, DECISIONS §15), least recently used out first. A game evicted is read back from the store.
 */
import { test, type TestContext } from 'node:test';
import { approximateBytes, gameStateOf, makeMove, undo } from '../../src/domain/game.ts';
import { GameService } from '../../src/service/games.ts';
import { MemoryGameStore } from '../../src/store/memory.ts';
import { longGameSans, pgnOf } from '../helpers/longGame.ts';

const LONG_PGN = pgnOf(longGameSans(400));

function service(bounds: { cacheSize?: number; cacheBytes?: number }) {
  let n = 0;
  const store = new MemoryGameStore();
  const games = new GameService({ store, newId: () => `game${n++}`, clock: () => new Date(0), ...bounds });
  return { store, games };
}

test('long games are evicted by their bytes, least recently used first, and read back from the store', async (t: TestContext) => {
  const { games: probe } = service({});
  const size = approximateBytes(await probe.importPgn(LONG_PGN));
  const { games } = service({ cacheBytes: 3 * size + size / 2 });
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) ids.push((await games.importPgn(LONG_PGN)).record.id);
  t.assert.deepStrictEqual(games.memory(), { games: 3, bytes: 3 * size });
  t.assert.deepStrictEqual(
    ids.map(id => games.known(id) !== undefined),
    [false, false, false, false, false, false, false, true, true, true],
  );
  // The oldest is read back whole, and is then the most recently used: the least recent one left goes.
  const first = await games.get(ids[0]!);
  t.assert.equal(first.record.moves.length, 400);
  t.assert.equal(gameStateOf(first).moves.length, 400);
  t.assert.ok(games.known(ids[0]!));
  t.assert.equal(games.known(ids[7]!), undefined);
  t.assert.ok(games.memory().bytes <= 3 * size + size / 2);
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
  const { games } = service({ cacheBytes: 10_000 });
  const small = await games.create({});
  const long = await games.importPgn(LONG_PGN);
  t.assert.equal(games.known(long.record.id), undefined);
  t.assert.ok(games.known(small.record.id));
  const { game } = await games.change(long.record.id, current => undo(current));
  t.assert.equal(game.record.moves.length, 399);
  t.assert.equal((await games.get(long.record.id)).record.version, 2);
  t.assert.deepStrictEqual(games.memory(), { games: 1, bytes: approximateBytes(small) });
});

test('the count bound holds for small games', async (t: TestContext) => {
  const { games } = service({ cacheSize: 2 });
  const ids = [];
  for (let i = 0; i < 4; i++) ids.push((await games.create({})).record.id);
  t.assert.deepStrictEqual(
    ids.map(id => games.known(id) !== undefined),
    [false, false, true, true],
  );
  t.assert.equal(games.memory().games, 2);
});
