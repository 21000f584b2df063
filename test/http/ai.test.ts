/**
 * The computer opponent over HTTP (DECISIONS §18), with a stand-in engine (test/helpers/engine.ts): the request's
 * fields and codes, the engine's seat and level, lichess's answer, the engine moving first as white and answering
 * each move, exactly once per turn with two instances on one store, a restart with the engine to move, and 503 when
 * no engine can start. The real engines play in test/engine-system.
 */
import { test, type TestContext } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import { assertError, json, makeTestApp, type TestApp, requestsAs } from '../helpers/app.ts';
import { FirstMoveEngine } from '../helpers/engine.ts';
import { assertLichess } from '../helpers/lichess.ts';
import { openStream } from '../stream/helpers.ts';

const SERVICE_TOKEN = 'service-token-for-the-computer';

interface AiApp extends TestApp {
  as: (token: string | undefined, request: InjectOptions | string) => Promise<LightMyRequestResponse>;
}

async function start(
  t: TestContext,
  engine: FirstMoveEngine,
  options: { store?: SqliteGameStore; tokens?: string[] } = {},
) {
  // A store given is shared by two instances: each reads through to it.
  const shared = options.store ? { store: options.store, sharedStore: true } : {};
  const testApp = await makeTestApp({ engine, ...shared, tokens: options.tokens ?? [] });
  t.after(() => testApp.app.close());
  const as = await requestsAs(testApp.app);
  return { ...testApp, as };
}

const ai = (app: AiApp, token: string | undefined, payload: object | string) =>
  app.as(token, {
    method: 'POST',
    url: '/api/challenge/ai',
    payload,
    ...(typeof payload === 'string' ? { headers: { 'content-type': 'application/x-www-form-urlencoded' } } : {}),
  });

async function movesOf(app: AiApp, token: string | undefined, id: string, count: number): Promise<string[]> {
  let moves: string[] = [];
  for (let i = 0; i < 250 && moves.length < count; i++) {
    moves = json(await app.as(token, `/api/board/game/${id}`)).state.moves;
    if (moves.length < count) await new Promise(resolve => setTimeout(resolve, 20));
  }
  return moves;
}

test('a player plays the computer: its seat and level, lichess answer, it moves first as white and replies', async (t: TestContext) => {
  const engine = new FirstMoveEngine();
  const app = await start(t, engine, { tokens: [SERVICE_TOKEN] });
  const ann = (await app.playerTokens.issue({ id: 'ann', displayName: 'Ann' })).token;
  const res = await ai(app, ann, 'level=3&clock.limit=300&clock.increment=2&color=black');
  t.assert.equal(res.statusCode, 201, res.body);
  const body = json(res);
  t.assert.deepEqual(
    [body.player, body.speed, body.source, body.status, body.rated, body.fullId.slice(0, 8)],
    ['black', 'blitz', 'ai', { id: 20, name: 'started' }, false, body.id],
  );
  const moves = await movesOf(app, ann, body.id, 1);
  t.assert.equal(moves.length, 1, 'the engine moved first');
  const game = json(await app.as(ann, `/api/board/game/${body.id}`));
  t.assert.deepEqual(game.white, { id: 'stockfish', displayName: 'Stockfish level 3' });
  t.assert.deepEqual(game.black, { id: 'ann', displayName: 'Ann' });
  t.assert.equal(engine.searches[0]!.level, 3);
  t.assert.deepEqual(engine.searches[0]!.clock, { wtime: 300_000, btime: 300_000, winc: 2_000, binc: 2_000 });
  // Ann replies; the engine answers once.
  const legal = json(await app.as(ann, `/api/board/game/${body.id}/moves`)).moves;
  await app.as(ann, { method: 'POST', url: `/api/board/game/${body.id}/move/${legal[0].uci}` });
  t.assert.equal((await movesOf(app, ann, body.id, 3)).length, 3);
  await new Promise(resolve => setTimeout(resolve, 300));
  t.assert.equal(json(await app.as(ann, `/api/board/game/${body.id}`)).state.moves.length, 3, 'once per turn');
  t.assert.equal(engine.searches.length, 2);
  // As white, the person moves first: nothing is searched until then.
  const white = json(await ai(app, ann, { level: 8, days: 2, color: 'white' }));
  await new Promise(resolve => setTimeout(resolve, 300));
  t.assert.equal(engine.searches.length, 2);
  t.assert.equal(white.speed, 'correspondence');
});

test('the request: level 1-8 required, the challenge fields and codes; a service token is 403', async (t: TestContext) => {
  const app = await start(t, new FirstMoveEngine(), { tokens: [SERVICE_TOKEN] });
  const ann = (await app.playerTokens.issue({ id: 'ann', displayName: 'Ann' })).token;
  for (const [payload, field] of [
    [{}, 'level'],
    [{ level: 0 }, 'level'],
    [{ level: 9 }, 'level'],
    ['level=x', 'level'],
    [{ level: 1, 'clock.limit': 5, 'clock.increment': 0 }, 'clock.limit'],
    [{ level: 1, days: 4 }, 'days'],
    [{ level: 1, color: 'green' }, 'color'],
    [{ level: 1, fen: 'not a fen' }, 'fen'],
  ] as const) {
    const res = await ai(app, ann, payload);
    const body = assertError(res, 'INVALID_BODY', field);
    t.assert.equal(body.error, body.message, "lichess's error");
  }
  assertError(await ai(app, SERVICE_TOKEN, { level: 1 }), 'FORBIDDEN');
  assertError(await ai(app, undefined, { level: 1 }), 'UNAUTHORIZED');
  const fen = '4k3/8/8/8/8/8/8/4K2R w K - 0 1';
  const fromFen = json(await ai(app, ann, { level: 1, fen, color: 'white' }));
  t.assert.equal(fromFen.fen, fen);
  t.assert.equal(fromFen.variant.key, 'fromPosition');
});

test('with authentication off anyone plays, as the default player of their colour', async (t: TestContext) => {
  const app = await start(t, new FirstMoveEngine());
  const body = json(await ai(app, undefined, { level: 2, color: 'white' }));
  const game = json(await app.as(undefined, `/api/board/game/${body.id}`));
  t.assert.deepEqual([game.white.id, game.black.id], ['p1', 'stockfish']);
});

test('no engine can start: 503 UNAVAILABLE, no game; everything else answers', async (t: TestContext) => {
  const engine = new FirstMoveEngine();
  engine.up = false;
  const app = await start(t, engine);
  assertError(await ai(app, undefined, { level: 1 }), 'UNAVAILABLE');
  t.assert.equal((await app.as(undefined, '/readyz')).statusCode, 200);
  t.assert.deepEqual(json(await app.as(undefined, '/api/board/game?status=all')).games, []);
});

test('a resignation while the engine searches stops the search: it holds no engine, and no move follows', async (t: TestContext) => {
  const engine = new FirstMoveEngine(30_000);
  const app = await start(t, engine);
  const id = json(await ai(app, undefined, { level: 8, color: 'black' })).id;
  // 1. The engine (white) searches its first move; 2. the person resigns.
  for (let i = 0; i < 250 && engine.searches.length === 0; i++) await new Promise(resolve => setTimeout(resolve, 20));
  t.assert.equal(engine.searches.length, 1);
  t.assert.equal((await app.as(undefined, { method: 'POST', url: `/api/board/game/${id}/resign` })).statusCode, 200);
  // 3. The search is stopped at once, not left to finish its thought.
  for (let i = 0; i < 250 && engine.aborted.length === 0; i++) await new Promise(resolve => setTimeout(resolve, 20));
  t.assert.equal(engine.aborted.length, 1);
  const game = json(await app.as(undefined, `/api/board/game/${id}`));
  t.assert.deepEqual([game.state.status, game.state.moves], ['resign', []]);
});

test('two instances on one store: exactly one engine move per turn; a restart moves where the engine is to move', async (t: TestContext) => {
  const database = SqliteGameStore.open(':memory:');
  t.after(() => database.close());
  const engines = [new FirstMoveEngine(50), new FirstMoveEngine(50)];
  const a = await start(t, engines[0]!, { store: database });
  const b = await start(t, engines[1]!, { store: database });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push(json(await ai(a, undefined, { level: 1, color: 'black' })).id);
  for (const id of ids) t.assert.equal((await movesOf(b, undefined, id, 1)).length, 1);
  await new Promise(resolve => setTimeout(resolve, 500)); // both instances' looks have run meanwhile
  for (const id of ids) t.assert.equal(json(await b.as(undefined, `/api/board/game/${id}`)).state.moves.length, 1);
  t.assert.equal(engines[0]!.searches.length + engines[1]!.searches.length, 5, 'one search per turn');

  // A game where the engine is to move and nobody searched (as after a crash): the next look plays it.
  engines.forEach(engine => (engine.failing = true));
  const stuck = json(await ai(a, undefined, { level: 1, color: 'black' })).id;
  await new Promise(resolve => setTimeout(resolve, 300));
  t.assert.equal(json(await a.as(undefined, `/api/board/game/${stuck}`)).state.moves.length, 0);
  engines.forEach(engine => (engine.failing = false));
  t.assert.equal((await movesOf(a, undefined, stuck, 1)).length, 1);
});

test('the computer the lichess way: aiLevel in gameFull, an AI opponent in GameEventInfo, lichess-valid', async (t: TestContext) => {
  const app = await start(t, new FirstMoveEngine(), { tokens: [SERVICE_TOKEN] });
  const ann = (await app.playerTokens.issue({ id: 'ann', displayName: 'Ann' })).token;
  const { id } = json(await ai(app, ann, { level: 5, 'clock.limit': 180, 'clock.increment': 0, color: 'white' }));
  const playing = json(await app.as(ann, '/api/account/playing'));
  assertLichess('AccountPlaying', playing);
  t.assert.deepEqual(playing.nowPlaying[0].opponent, { id: 'stockfish', username: 'Stockfish level 5', ai: 5 });
  t.assert.equal(playing.nowPlaying[0].source, 'ai');
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.app.server.address() as { port: number }).port}`;
  const stream = await openStream(`${url}/api/bot/game/stream/${id}`, { headers: { authorization: `Bearer ${ann}` } });
  t.after(() => stream.close());
  const [full] = await stream.waitForEvents(1);
  assertLichess('GameFullEvent', full);
  t.assert.deepEqual([full.black.id, full.black.aiLevel, full.white.aiLevel], ['stockfish', 5, undefined]);
});
