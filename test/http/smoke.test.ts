import { test } from 'node:test';
import { makeTestApp, json, gameWithMoves } from '../helpers/app.ts';

test('a game is created and played to checkmate over HTTP', async t => {
  const { app } = await makeTestApp();
  t.after(() => app.close());
  const id = await gameWithMoves(app, ['f2f3', 'e7e5', 'g2g4']);
  const res = await app.inject({ method: 'POST', url: `/api/board/game/${id}/move/d8h4` });
  t.assert.equal(res.statusCode, 200);
  const state = json(res);
  t.assert.equal(state.status, 'checkmate');
  t.assert.equal(state.winner, 'black');
  t.assert.equal(state.pgn, '1. f3 e5 2. g4 Qh4#');
});
