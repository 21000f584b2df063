/**
 * The computer's rules of DECISIONS §16a over HTTP, with a stand-in engine (test/helpers/engine.ts):
 * - a player has at most 5 ongoing real-time games against the computer (429 RATE_LIMITED beyond), counted in the
 *   store: on SQLite, and on PostgreSQL with two instances, also when the requests race;
 * - the seat id `stockfish` is given to nobody, in any case or look-alike spelling: no token, no seat in a game made
 *   by `POST /api/board/game` or a FEN import.
 */
import { suite, test, type TestContext } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { PostgresGameStore } from '../../src/store/postgres.ts';
import { assertError, json, makeTestApp, type TestApp } from '../helpers/app.ts';
import { FirstMoveEngine } from '../helpers/engine.ts';
import { databaseOfFile } from '../helpers/postgres.ts';

const pg = await databaseOfFile();
const SERVICE_TOKEN = 'service-token-for-the-computer-rules';
const REAL_TIME = { 'clock.limit': 300, 'clock.increment': 3, color: 'white' };
let players = 0;

type Call = (
  token: string | undefined,
  method: 'GET' | 'POST',
  url: string,
  payload?: object,
) => Promise<LightMyRequestResponse>;

function caller(app: TestApp): Call {
  return (token, method, url, payload) =>
    app.app.inject({
      method,
      url,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      ...(payload ? { payload } : {}),
    });
}

async function apps(t: TestContext, postgres: boolean, tokens: string[] = [SERVICE_TOKEN]) {
  const engine = new FirstMoveEngine();
  if (!postgres) {
    const app = await makeTestApp({ engine, tokens });
    t.after(() => app.app.close());
    return { calls: [caller(app)], app, engine };
  }
  const stores = await Promise.all([PostgresGameStore.open(pg.url()), PostgresGameStore.open(pg.url())]);
  t.after(() => Promise.all(stores.map(store => store.close())));
  const both = await Promise.all(stores.map(store => makeTestApp({ engine, store, sharedStore: true, tokens })));
  t.after(() => Promise.all(both.map(app => app.app.close())));
  return { calls: both.map(caller), app: both[0]!, engine };
}

async function issue(app: TestApp, name: string) {
  const id = `${name}-${++players}`;
  return { id, token: (await app.playerTokens.issue({ id, displayName: name })).token };
}

function fiveGames(postgres: boolean) {
  test('at most 5 ongoing real-time games against the computer; correspondence and unlimited ones are not counted', async (t: TestContext) => {
    const { calls, app } = await apps(t, postgres);
    const [ann, bob] = [await issue(app, 'ann'), await issue(app, 'bob')];
    const ai = (i: number, token: string, body: object) =>
      calls[i % calls.length]!(token, 'POST', '/api/challenge/ai', body);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await ai(i, ann.token, { level: 8, ...REAL_TIME });
      t.assert.equal(res.statusCode, 201, res.body);
      ids.push(json<{ id: string }>(res).id);
    }
    for (let i = 0; i < calls.length; i++) {
      const refused = assertError(await ai(i, ann.token, { level: 1, ...REAL_TIME }), 'RATE_LIMITED');
      t.assert.match(refused.message, /at most 5 ongoing real-time games against the computer/);
    }
    t.assert.equal((await ai(0, ann.token, { level: 8, days: 2, color: 'white' })).statusCode, 201);
    t.assert.equal((await ai(1, ann.token, { level: 8, color: 'white' })).statusCode, 201);
    t.assert.equal((await ai(0, bob.token, { level: 8, ...REAL_TIME })).statusCode, 201, 'Bob has his own five');
    // A game that ends frees its place.
    t.assert.equal((await calls[0]!(ann.token, 'POST', `/api/board/game/${ids[0]}/resign`)).statusCode, 200);
    t.assert.equal((await ai(1, ann.token, { level: 2, ...REAL_TIME })).statusCode, 201);
    assertError(await ai(0, ann.token, { level: 2, ...REAL_TIME }), 'RATE_LIMITED');
    const games = json(await calls[0]!(ann.token, 'GET', `/api/board/game?player=${ann.id}&status=ongoing`)).games;
    t.assert.equal(games.filter((g: { clock: { initial?: number } | null }) => g.clock?.initial).length, 5);
  });

  test('requests racing (on both instances) make exactly 5 games', async (t: TestContext) => {
    const { calls, app } = await apps(t, postgres);
    const cid = await issue(app, 'cid');
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        calls[i % calls.length]!(cid.token, 'POST', '/api/challenge/ai', { level: 1, ...REAL_TIME }),
      ),
    );
    const codes = answers.map(res => res.statusCode).sort();
    t.assert.deepEqual(codes, [...Array(5).fill(201), ...Array(7).fill(429)], answers.map(res => res.body).join('\n'));
    const games = json(await calls[0]!(cid.token, 'GET', `/api/board/game?player=${cid.id}&status=ongoing`)).games;
    t.assert.equal(games.length, 5);
  });
}

suite('on SQLite', () => fiveGames(false));
suite('on PostgreSQL, two instances', { skip: pg.skip }, () => fiveGames(true));

test('the computer’s id is given to nobody: no token, no seat by POST /api/board/game or a FEN import', async (t: TestContext) => {
  const { calls } = await apps(t, false);
  const call = calls[0]!;
  const lookalikes = [
    'stockfish',
    'Stockfish',
    'stock fish',
    'stock\u200bfish',
    '\u0455tockfish',
    'ＳＴＯＣＫＦＩＳＨ',
  ];
  const refused = (res: LightMyRequestResponse, field: string) =>
    t.assert.match(assertError(res, 'INVALID_BODY', field).message, /the computer's id/);
  for (const id of lookalikes) {
    const seat = { id, displayName: 'Stockfish level 8' };
    const person = { id: 'ann', displayName: 'Ann' };
    refused(await call(SERVICE_TOKEN, 'POST', '/api/board/game', { white: seat, black: seat }), 'white.id');
    refused(await call(SERVICE_TOKEN, 'POST', '/api/board/game', { white: person, black: seat }), 'black.id');
    const fen = '4k3/8/8/8/8/8/8/4K2R w K - 0 1';
    refused(await call(SERVICE_TOKEN, 'POST', '/api/board/game/import/fen', { fen, white: seat }), 'white.id');
    refused(
      await call(SERVICE_TOKEN, 'POST', '/api/tokens', { player: { id, displayName: 'Stockfish' } }),
      'player.id',
    );
  }
  t.assert.deepEqual(json(await call(SERVICE_TOKEN, 'GET', '/api/board/game?status=all')).games, []);
  const other = { id: 'stockfisher', displayName: 'Not the computer' };
  t.assert.equal((await call(SERVICE_TOKEN, 'POST', '/api/board/game', { white: other })).statusCode, 201);
  t.assert.equal((await call(SERVICE_TOKEN, 'POST', '/api/tokens', { player: other })).statusCode, 201);
});

test('with authentication off, POST /api/board/game cannot seat the computer on both sides either', async (t: TestContext) => {
  const { calls } = await apps(t, false, []);
  const seat = { id: 'stockfish', displayName: 'Stockfish level 8' };
  assertError(
    await calls[0]!(undefined, 'POST', '/api/board/game', { white: seat, black: seat }),
    'INVALID_BODY',
    'white.id',
  );
  t.assert.deepEqual(json(await calls[0]!(undefined, 'GET', '/api/board/game?status=all')).games, []);
});
