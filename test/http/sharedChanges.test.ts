/**
 * Changes on a shared store start from the game in memory (GameService.change): one store write and no read
 * when no other instance changed the game, and every request judged on the game's current version when one did.
 */
import { test, type TestContext } from 'node:test';
import { makeMove } from '../../src/domain/transitions.ts';
import { MAX_CONFLICT_RETRIES } from '../../src/service/games.ts';
import { assertError, gameWithMoves, json, makeSharedApp } from '../helpers/app.ts';

/** An app on a shared store, another instance on the same database, and what each test does with them. */
async function twoInstances(t: TestContext) {
  const { app, store, database, other } = await makeSharedApp(t);
  const post = (id: string, path: string) => app.inject({ method: 'POST', url: `/api/board/game/${id}/${path}` });
  const moves = async (id: string) => (await database.get(id))!.moves;
  return { app, store, other, post, moves };
}

test('on a shared store a change to a game in memory costs one store write and no read', async (t: TestContext) => {
  const { app, store, post, moves } = await twoInstances(t);
  const id = await gameWithMoves(app, ['e2e4']);
  for (const path of ['move/e7e5', 'undo', 'redo', 'draw/offer', 'draw/decline', 'resign']) {
    store.reads = 0;
    store.updates = 0;
    const res = await post(id, path);
    t.assert.equal(res.statusCode, 200, path);
    t.assert.deepEqual([store.reads, store.updates], [0, 1], `POST ${path}: no read, one write`);
  }
  t.assert.deepEqual(await moves(id), ['e2e4', 'e7e5']);
});

test('a move refused on the game in memory is judged again on the version another instance stored', async (t: TestContext) => {
  const { app, other, post, moves } = await twoInstances(t);
  const id = await gameWithMoves(app, ['e2e4']); // in memory here: black to move
  await other.change(id, game => makeMove(game, 'e7e5'));
  // White's move, illegal in the version in memory, legal in the stored one.
  const res = await post(id, 'move/g1f3');
  t.assert.equal(res.statusCode, 200);
  t.assert.deepEqual(json(res).moves, ['e2e4', 'e7e5', 'g1f3']);
  t.assert.deepEqual(await moves(id), ['e2e4', 'e7e5', 'g1f3']);
});

test('a change made on an older version is made again on the stored one, or refused there', async (t: TestContext) => {
  const { app, other, post, moves } = await twoInstances(t);
  const id = await gameWithMoves(app, ['e2e4', 'e7e5']);
  await other.change(id, game => makeMove(game, 'g1f3'));
  // Legal in the version in memory (white to move), not in the stored one.
  assertError(await post(id, 'move/d2d4'), 'INVALID_MOVE', 'uci');
  t.assert.deepEqual(await moves(id), ['e2e4', 'e7e5', 'g1f3']);

  await other.change(id, game => makeMove(game, 'b8c6'));
  // The undo takes back the stored last move, not the one in memory.
  const undone = await post(id, 'undo');
  t.assert.equal(undone.statusCode, 200);
  t.assert.deepEqual(json(undone).moves, ['e2e4', 'e7e5', 'g1f3']);
  t.assert.deepEqual(await moves(id), ['e2e4', 'e7e5', 'g1f3']);
});

test('a refusal on the current version stays a refusal, and an unknown game is still looked up', async (t: TestContext) => {
  const { app, store, post, moves } = await twoInstances(t);
  const id = await gameWithMoves(app, ['e2e4']);
  store.reads = 0;
  assertError(await post(id, 'move/e2e4'), 'INVALID_MOVE', 'uci');
  t.assert.equal(store.reads, 1, 'the refusal was judged again on the stored game');
  t.assert.deepEqual(await moves(id), ['e2e4']);

  store.reads = 0;
  assertError(await post('Zz9Zz9Zz', 'move/e2e4'), 'GAME_NOT_FOUND');
  t.assert.equal(store.reads, 1);
});

test('a change that loses to other instances at every try gives up with 503 UNAVAILABLE, the game unchanged', async (t: TestContext) => {
  const { app, store, post, moves } = await twoInstances(t);
  const id = await gameWithMoves(app, ['e2e4']);
  store.updates = 0;
  store.update = () => {
    store.updates++;
    return Promise.resolve(false); // as if another instance had always just changed the game
  };
  const res = await post(id, 'move/e7e5');
  t.assert.equal(res.statusCode, 503);
  assertError(res, 'UNAVAILABLE');
  t.assert.equal(store.updates, MAX_CONFLICT_RETRIES + 1);
  t.assert.deepEqual(await moves(id), ['e2e4']);
});
