/**
 * Claims follow lichess's rule (DECISIONS §16a), over HTTP: `claim-victory` and `claim-draw` only in a game that has
 * started, with a clock, against a person, on the opponent's turn, after the count-down. The three ways a win was
 * claimed that was not earned: on the claimer's own turn against a player who moves through the REST API without a
 * stream, before the game started, and against the computer (never present, so "gone" after 10 s). On SQLite, and on
 * PostgreSQL with two instances (the presence of players is kept in the store). The service's clock is skewed forward
 * rather than waited for.
 */
import { suite, test, type TestContext } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { PostgresGameStore } from '../../src/store/postgres.ts';
import type { GameStore } from '../../src/store/store.ts';
import { assertError, json, makeTestApp, type TestApp } from '../helpers/app.ts';
import { FirstMoveEngine } from '../helpers/engine.ts';
import { databaseOfFile } from '../helpers/postgres.ts';
import { openStream } from '../stream/helpers.ts';

const pg = await databaseOfFile();
let players = 0;

interface Instance extends TestApp {
  url: string;
  post: (token: string, path: string, payload?: object) => Promise<LightMyRequestResponse>;
  get: (token: string, path: string) => Promise<LightMyRequestResponse>;
}

async function instance(t: TestContext, now: () => number, store?: GameStore, engine?: FirstMoveEngine) {
  const testApp = await makeTestApp({
    now,
    sharedStore: store !== undefined,
    ...(store ? { store } : {}),
    ...(engine ? { engine } : {}),
  });
  t.after(() => testApp.app.close());
  await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(testApp.app.server.address() as { port: number }).port}`;
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  const post: Instance['post'] = (token, path, payload) =>
    testApp.app.inject({ method: 'POST', url: path, headers: auth(token), ...(payload ? { payload } : {}) });
  const get: Instance['get'] = (token, path) => testApp.app.inject({ url: path, headers: auth(token) });
  return { ...testApp, url, post, get } satisfies Instance;
}

/** Two instances (one on SQLite: the same one twice) and the skew of their clock. */
type Setup = (t: TestContext, engine?: FirstMoveEngine) => Promise<{ a: Instance; b: Instance; skew: { ms: number } }>;

const onSqlite: Setup = async (t, engine) => {
  const skew = { ms: 0 };
  const a = await instance(t, () => Date.now() + skew.ms, undefined, engine);
  return { a, b: a, skew };
};

const onPostgres: Setup = async (t, engine) => {
  const skew = { ms: 0 };
  const now = () => Date.now() + skew.ms;
  const stores = await Promise.all([PostgresGameStore.open(pg.url()), PostgresGameStore.open(pg.url())]);
  t.after(() => Promise.all(stores.map(store => store.close())));
  return { a: await instance(t, now, stores[0], engine), b: await instance(t, now, stores[1], engine), skew };
};

async function player(at: Instance, name: string) {
  const id = `${name}-${++players}`;
  return { id, token: (await at.playerTokens.issue({ id, displayName: name })).token };
}

/** Ann (white, on `a`) and Bob (black, on `b`) in a 5+3 game from a challenge; Ann follows it on a lichess stream. */
async function annAndBob(t: TestContext, a: Instance, b: Instance) {
  const [ann, bob] = [await player(a, 'ann'), await player(a, 'bob')];
  const body = { 'clock.limit': 300, 'clock.increment': 3, color: 'white' };
  const gameId = json<{ id: string }>(await a.post(ann.token, `/api/challenge/${bob.id}`, body)).id;
  t.assert.equal((await b.post(bob.token, `/api/challenge/${gameId}/accept`)).statusCode, 200);
  const stream = await openStream(`${a.url}/api/board/game/stream/${gameId}`, {
    headers: { authorization: `Bearer ${ann.token}` },
  });
  t.after(() => stream.close());
  await stream.waitForEvents(1);
  const move = (who: { token: string }, at: Instance, uci: string) =>
    at.post(who.token, `/api/board/game/${gameId}/move/${uci}`);
  const claim = (what: 'victory' | 'draw' = 'victory') => a.post(ann.token, `/api/board/game/${gameId}/claim-${what}`);
  const status = async () => json(await b.get(bob.token, `/api/board/game/${gameId}`)).state;
  return { ann, bob, gameId, move, claim, status };
}

function claims(setup: Setup) {
  test('against a player who moves through the REST API without a stream: not on the claimer’s own turn', async (t: TestContext) => {
    const { a, b, skew } = await setup(t);
    const { ann, bob, move, claim, status } = await annAndBob(t, a, b);
    t.assert.equal((await move(ann, a, 'e2e4')).statusCode, 200);
    t.assert.equal((await move(bob, b, 'e7e5')).statusCode, 200); // Bob never opens a stream: gone since the start
    skew.ms += 31_000;
    // Ann to move: however long Bob has had no stream, it is not his turn that he lets run.
    const refused = assertError(await claim(), 'CLAIM_NOT_AVAILABLE');
    t.assert.match(refused.message, /opponent's turn/);
    assertError(await claim('draw'), 'CLAIM_NOT_AVAILABLE');
    t.assert.equal((await status()).status, 'started');
    // Once it is Bob's turn and he is gone, the claim is Ann's.
    t.assert.equal((await move(ann, a, 'g1f3')).statusCode, 200);
    t.assert.equal((await claim()).statusCode, 200);
    t.assert.deepEqual([(await status()).status, (await status()).winner], ['timeout', 'white']);
  });

  test('not before the game has started: the opponent has not made a first move (the game can be aborted)', async (t: TestContext) => {
    const { a, b, skew } = await setup(t);
    const { ann, move, claim, status } = await annAndBob(t, a, b);
    t.assert.equal((await move(ann, a, 'e2e4')).statusCode, 200);
    skew.ms += 31_000; // Bob's turn, gone since the start, and 29 s left of his first move's minute
    const refused = assertError(await claim(), 'CLAIM_NOT_AVAILABLE');
    t.assert.match(refused.message, /not started/);
    assertError(await claim('draw'), 'CLAIM_NOT_AVAILABLE');
    t.assert.equal((await status()).status, 'started');
  });

  test('never against the computer: it is never gone', async (t: TestContext) => {
    const engine = new FirstMoveEngine();
    const { a, b, skew } = await setup(t, engine);
    const ann = await player(a, 'ann');
    const ai = await a.post(ann.token, '/api/challenge/ai', {
      level: 1,
      'clock.limit': 300,
      'clock.increment': 3,
      color: 'white',
    });
    t.assert.equal(ai.statusCode, 201, ai.body);
    const gameId = json<{ id: string }>(ai).id;
    const moves = async () => json(await b.get(ann.token, `/api/board/game/${gameId}`)).state.moves as string[];
    t.assert.equal((await a.post(ann.token, `/api/board/game/${gameId}/move/e2e4`)).statusCode, 200);
    const until = performance.now() + 10_000; // the engine's reply: at once, found by the change the move committed
    while ((await moves()).length < 2 && performance.now() < until) await new Promise(setImmediate);
    t.assert.equal((await moves()).length, 2, 'the engine replied');
    engine.failing = true; // the engine's next turn lasts
    t.assert.equal((await a.post(ann.token, `/api/board/game/${gameId}/move/d2d4`)).statusCode, 200);
    skew.ms += 31_000; // the game has started, it is the computer's turn, and it never had a stream
    for (const what of ['victory', 'draw']) {
      const refused = assertError(
        await a.post(ann.token, `/api/board/game/${gameId}/claim-${what}`),
        'CLAIM_NOT_AVAILABLE',
      );
      t.assert.match(refused.message, /computer/);
    }
    t.assert.equal(json(await b.get(ann.token, `/api/board/game/${gameId}`)).state.status, 'started');
  });
}

suite('on SQLite', () => claims(onSqlite));
suite('on PostgreSQL, two instances', { skip: pg.skip }, () => claims(onPostgres));
