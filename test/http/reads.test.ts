/**
 * Reads answer from the game `requireGame` found, with the answer serialized once per game version: one store
 * read per request on a shared store, and never a stale answer after a change, whichever instance made it.
 */
import { test, type TestContext } from 'node:test';
import { makeMove } from '../../src/domain/transitions.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { assertError, gameWithMoves, json, makeSharedApp, makeTestApp } from '../helpers/app.ts';

test('on a shared store every read costs one store read and sees changes made by another instance', async (t: TestContext) => {
  const { app, store, other } = await makeSharedApp(t);

  const id = await gameWithMoves(app, ['e2e4']);
  for (const path of ['', '/moves', '/moves?square=g1', '/export/fen', '/export/pgn']) {
    store.reads = 0;
    const res = await app.inject(`/api/board/game/${id}${path}`);
    t.assert.equal(res.statusCode, 200, path);
    t.assert.equal(store.reads, 1, `GET ${path || 'game'} reads the store once`);
  }

  const before = json(await app.inject(`/api/board/game/${id}`));
  const movesBefore = json(await app.inject(`/api/board/game/${id}/moves`));
  await other.change(id, game => makeMove(game, 'e7e5'));
  const after = json(await app.inject(`/api/board/game/${id}`));
  const movesAfter = json(await app.inject(`/api/board/game/${id}/moves`));
  t.assert.deepEqual(before.state.moves, ['e2e4']);
  t.assert.deepEqual(after.state.moves, ['e2e4', 'e7e5']);
  t.assert.equal(after.state.turn, 'white');
  t.assert.notDeepEqual(movesAfter, movesBefore);
  t.assert.ok(movesAfter.moves.some((move: { uci: string }) => move.uci === 'g1f3'));
});

test('on a shared store a stream reads the game before it starts: an unreachable store is 503, not a cut stream', async (t: TestContext) => {
  const { app, store, database } = await makeSharedApp(t);
  const id = await gameWithMoves(app, ['e2e4']); // in memory
  store.reads = 0;
  store.get = gameId => {
    store.reads++;
    return gameId === id
      ? Promise.reject(new DomainError('UNAVAILABLE', 'the database is unreachable'))
      : database.get(gameId);
  };
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const res = await fetch(`http://127.0.0.1:${port}/api/board/game/${id}/stream`, {
    signal: AbortSignal.timeout(5000),
  });
  t.assert.equal(res.status, 503);
  t.assert.equal(((await res.json()) as { code: string }).code, 'UNAVAILABLE');
  t.assert.ok(store.reads >= 1);
  assertError(await app.inject(`/api/board/game/${id}`), 'UNAVAILABLE');
});

test('a read answered from memory follows every change: move, undo, redo, resign', async (t: TestContext) => {
  const { app } = await makeTestApp();
  t.after(() => app.close());
  const id = await gameWithMoves(app, ['e2e4']);
  const read = async () => ({
    game: json(await app.inject(`/api/board/game/${id}`)),
    moves: json(await app.inject(`/api/board/game/${id}/moves`)).moves.length as number,
  });
  const seen = [await read(), await read()]; // the second read is the cached answer
  t.assert.deepEqual(seen[1], seen[0]);
  for (const step of ['move/e7e5', 'undo', 'redo', 'resign']) {
    const res = await app.inject({ method: 'POST', url: `/api/board/game/${id}/${step}` });
    t.assert.equal(res.statusCode, 200, step);
    seen.push(await read());
  }
  const states = seen.map(({ game }) => [game.state.moves.join(' '), game.state.status]);
  t.assert.deepEqual(states, [
    ['e2e4', 'started'],
    ['e2e4', 'started'],
    ['e2e4 e7e5', 'started'],
    ['e2e4', 'started'],
    ['e2e4 e7e5', 'started'],
    ['e2e4 e7e5', 'resign'],
  ]);
  t.assert.deepEqual(
    seen.map(({ moves }) => moves),
    [20, 20, 29, 20, 29, 0],
  );
});
