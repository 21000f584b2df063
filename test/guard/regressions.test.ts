/**
 * Inputs the fuzz tests found to break the service, kept as plain tests so that they are checked on every run
 * whatever the fuzzer's seed.
 */
import { test, type TestContext } from 'node:test';
import { assertError, json, makeCheckedApp } from '../helpers/app.ts';

test('createGame ignores unknown body properties: a body cannot choose the game id or its date', async (t: TestContext) => {
  // Found by fuzzing: the whole body was spread over the new game's input, so {"id": ...} set the game id
  // (a non-string one failed in the store with a 500, a repeated one exhausted the id attempts with a 500)
  // and {"createdAt": ...} set the creation date.
  const { call } = await makeCheckedApp(t);
  const create = (payload: object) => call({ method: 'POST', url: '/api/board/game', payload });
  for (const body of [
    { id: 'Chosen00' },
    { id: 'Chosen00' },
    { id: { id: true } },
    { id: 1 },
    { createdAt: 5 },
    { createdAt: '1999-01-01T00:00:00.000Z' },
  ]) {
    const res = await create(body);
    t.assert.equal(res.statusCode, 201, `${JSON.stringify(body)}: ${res.body}`);
    const game = json(res);
    t.assert.notEqual(game.gameId, 'Chosen00');
    t.assert.match(game.gameId, /^[A-Za-z0-9]{8}$/);
    const pgn = await call(`/api/board/game/${game.gameId}/export/pgn`);
    t.assert.equal(pgn.statusCode, 200);
    t.assert.match(pgn.body, new RegExp(`\\[Date "${new Date().toISOString().slice(0, 4)}\\.`));
  }
  // The same holds next to valid players, and on a FEN import.
  const withPlayers = await create({ id: 'Chosen01', white: { id: 'w', displayName: 'W' } });
  t.assert.notEqual(json(withPlayers).gameId, 'Chosen01');
  t.assert.deepEqual(json(withPlayers).white, { id: 'w', displayName: 'W' });
  const fen = await call({
    method: 'POST',
    url: '/api/board/game/import/fen',
    payload: { fen: '8/8/8/8/8/8/8/K6k w - - 0 1', id: 'Chosen02', createdAt: 3 },
  });
  t.assert.equal(fen.statusCode, 201);
  t.assert.notEqual(json(fen).gameId, 'Chosen02');
  assertError(await call('/api/board/game/Chosen00'), 'GAME_NOT_FOUND');
});
