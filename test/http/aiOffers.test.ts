/**
 * Offers to the computer never stay pending (DECISIONS §16a), over HTTP with a stand-in engine (test/helpers/
 * engine.ts): a takeback is granted at once (back to the person's previous turn), a draw declined at once, on the
 * seed's paths and lichess's.
 */
import { test, type TestContext } from 'node:test';
import { assertError, json, makeTestApp } from '../helpers/app.ts';
import { FirstMoveEngine } from '../helpers/engine.ts';

const REAL_TIME = { 'clock.limit': 300, 'clock.increment': 3, color: 'white' };

test('offers to the computer never stay pending: a takeback is granted at once, a draw declined at once', async (t: TestContext) => {
  const engine = new FirstMoveEngine();
  const app = await makeTestApp({ engine, tokens: ['a-service-token'] });
  t.after(() => app.app.close());
  const ann = { token: (await app.playerTokens.issue({ id: 'ann', displayName: 'Ann' })).token };
  const call = (token: string, method: 'GET' | 'POST', url: string, payload?: object) =>
    app.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
  const id = json<{ id: string }>(await call(ann.token, 'POST', '/api/challenge/ai', { level: 1, ...REAL_TIME })).id;
  const state = async () => json(await call(ann.token, 'GET', `/api/board/game/${id}`)).state;
  /** Ann plays `uci`, and the engine answers. */
  const play = async (uci: string) => {
    const plies = (await state()).moves.length;
    t.assert.equal((await call(ann.token, 'POST', `/api/board/game/${id}/move/${uci}`)).statusCode, 200);
    const until = performance.now() + 10_000;
    while ((await state()).moves.length < plies + 2 && performance.now() < until) await new Promise(setImmediate);
    t.assert.equal((await state()).moves.length, plies + 2, 'the engine answered');
  };
  await play('e2e4');
  await play('d2d4');
  const searched = engine.searches.length;
  // The seed's takeback offer, on Ann's turn: back to her previous turn, nothing pending.
  const offer = await call(ann.token, 'POST', `/api/board/game/${id}/takeback/offer`);
  t.assert.equal(offer.statusCode, 200, offer.body);
  let now = await state();
  t.assert.deepEqual([now.moves.length, now.takebackOfferedBy, now.turn], [2, null, 'white']);
  // lichess's takeback/yes: the same.
  t.assert.equal((await call(ann.token, 'POST', `/api/board/game/${id}/takeback/yes`)).statusCode, 200);
  now = await state();
  t.assert.deepEqual([now.moves.length, now.takebackOfferedBy], [0, null]);
  // Draw offers on both dialects: declined at once, the game goes on.
  for (const path of ['draw/offer', 'draw/yes']) {
    t.assert.equal((await call(ann.token, 'POST', `/api/board/game/${id}/${path}`)).statusCode, 200);
    now = await state();
    t.assert.deepEqual([now.drawOfferedBy, now.status], [null, 'started']);
    assertError(await call(ann.token, 'POST', `/api/board/game/${id}/draw/accept`), 'NO_DRAW_OFFER');
  }
  t.assert.equal(engine.searches.length, searched, 'Ann is to move: the engine had nothing to search');
  await play('e2e4');
  // A move offering a draw (lichess's ?offeringDraw=true): the move stands, the offer is declined with it.
  const plies = (await state()).moves.length;
  const offering = await call(ann.token, 'POST', `/api/board/game/${id}/move/d2d4?offeringDraw=true`);
  t.assert.equal(offering.statusCode, 200, offering.body);
  now = await state();
  t.assert.ok(now.moves.length > plies);
  t.assert.deepEqual([now.drawOfferedBy, now.status], [null, 'started']);
});
