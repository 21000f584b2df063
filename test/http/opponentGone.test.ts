/**
 * Opponent gone (DECISIONS §17), over real sockets: in a real-time game, a player whose streams of the game are all
 * closed for 10 s is gone; the other player's lichess stream gets `opponentGone` `{gone: true, claimWinInSeconds}`
 * (counting down from 20 s), `{gone: false}` when the first comes back, and after the count-down `claim-victory`
 * ends the game as a win (status `timeout`) and `claim-draw` as a draw; before it, both are 400 CLAIM_NOT_AVAILABLE.
 * On SQLite, and on two instances of one PostgreSQL database with each player on another instance. The service's
 * clock is skewed forward rather than waited for; the presence is read every 200 ms.
 */
import { suite, test, type TestContext } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { PostgresGameStore } from '../../src/store/postgres.ts';
import type { GameStore } from '../../src/store/store.ts';
import { assertError, json, makeTestApp, type TestApp } from '../helpers/app.ts';
import { assertLichess } from '../helpers/lichess.ts';
import { databaseOfFile } from '../helpers/postgres.ts';
import { openStream, type StreamClient } from '../stream/helpers.ts';

let players = 0;

interface Instance extends TestApp {
  url: string;
  post: (token: string, path: string, payload?: object) => Promise<LightMyRequestResponse>;
}

async function instance(t: TestContext, now: () => number, store?: GameStore): Promise<Instance> {
  const testApp = await makeTestApp({ now, sharedStore: store !== undefined, ...(store ? { store } : {}) });
  t.after(() => testApp.app.close());
  await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(testApp.app.server.address() as { port: number }).port}`;
  const post: Instance['post'] = (token, path, payload) =>
    testApp.app.inject({
      method: 'POST',
      url: path,
      headers: { authorization: `Bearer ${token}` },
      ...(payload ? { payload } : {}),
    });
  return { ...testApp, url, post };
}

/**
 * Ann (white, a bot) and Bob play 5+3 from a challenge, both move once and Ann again; Ann follows the game on `annAt`'s lichess
 * stream, Bob on `bobAt`'s; Bob leaves, stays away, comes back, leaves again, and Ann claims.
 */
async function leaveAndClaim(t: TestContext, annAt: Instance, bobAt: Instance, skew: { ms: number }): Promise<void> {
  const id = ++players;
  const ann = {
    id: `ann-${id}`,
    token: (await annAt.playerTokens.issue({ id: `ann-${id}`, displayName: 'Ann' }, { bot: true })).token, // Bot API
  };
  const bob = {
    id: `bob-${id}`,
    token: (await annAt.playerTokens.issue({ id: `bob-${id}`, displayName: 'Bob' })).token,
  };
  const made = json<{ id: string }>(
    await annAt.post(ann.token, `/api/challenge/${bob.id}`, {
      'clock.limit': 300,
      'clock.increment': 3,
      color: 'white',
    }),
  );
  const gameId = made.id;
  t.assert.equal((await bobAt.post(bob.token, `/api/challenge/${gameId}/accept`)).statusCode, 200);
  const streams: StreamClient[] = [];
  t.after(() => streams.forEach(stream => stream.close()));
  const follow = async (at: Instance, token: string, path = `/api/bot/game/stream/${gameId}`) => {
    const stream = await openStream(`${at.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    streams.push(stream);
    await stream.waitForEvents(1);
    return stream;
  };
  const annStream = await follow(annAt, ann.token);
  let bobStream = await follow(bobAt, bob.token, `/api/board/game/${gameId}/stream`); // the seed's stream counts too
  t.assert.equal((await annAt.post(ann.token, `/api/bot/game/${gameId}/move/e2e4`)).statusCode, 200);
  t.assert.equal((await bobAt.post(bob.token, `/api/board/game/${gameId}/move/e7e5`)).statusCode, 200);
  // A claim is made on the opponent's turn only (DECISIONS §16a): Bob is to move when he leaves.
  t.assert.equal((await annAt.post(ann.token, `/api/bot/game/${gameId}/move/g1f3`)).statusCode, 200);
  const gone = () => annStream.events.filter(line => line.type === 'opponentGone');
  const claimVictory = () => annAt.post(ann.token, `/api/bot/game/${gameId}/claim-victory`);

  // Bob is there: nothing is said, nothing can be claimed.
  await new Promise(resolve => setTimeout(resolve, 500));
  t.assert.deepEqual(gone(), []);
  assertError(await claimVictory(), 'CLAIM_NOT_AVAILABLE');

  // Bob leaves; 10 s later (by the service's clock) Ann hears he is gone, with 20 s to wait.
  bobStream.close();
  await new Promise(resolve => setTimeout(resolve, 500));
  t.assert.deepEqual(gone(), [], 'not gone before 10 s');
  skew.ms += 11_000;
  await annStream.waitFor(() => gone().length === 1, 'opponentGone');
  assertLichess('OpponentGoneEvent', gone()[0]);
  t.assert.equal(gone()[0].gone, true);
  t.assert.ok(gone()[0].claimWinInSeconds >= 18 && gone()[0].claimWinInSeconds <= 20, JSON.stringify(gone()[0]));
  assertError(await claimVictory(), 'CLAIM_NOT_AVAILABLE');

  // He comes back: {gone: false}; he leaves again, and the count starts again from then.
  bobStream = await follow(bobAt, bob.token);
  await annStream.waitFor(() => gone().length === 2, 'opponent back');
  t.assert.deepEqual(gone()[1], { type: 'opponentGone', gone: false });
  bobStream.close();
  await new Promise(resolve => setTimeout(resolve, 500));
  skew.ms += 25_000;
  await annStream.waitFor(() => gone().length === 3, 'opponentGone again');
  t.assert.equal(gone()[2].gone, true);
  assertError(await claimVictory(), 'CLAIM_NOT_AVAILABLE');
  skew.ms += 6_000;
  // Bob cannot claim: he is the one who left.
  assertError(await bobAt.post(bob.token, `/api/board/game/${gameId}/claim-victory`), 'CLAIM_NOT_AVAILABLE');
  t.assert.equal((await claimVictory()).statusCode, 200);
  const game = json(
    await bobAt.app.inject({ url: `/api/board/game/${gameId}`, headers: { authorization: `Bearer ${bob.token}` } }),
  );
  t.assert.deepEqual([game.state.status, game.state.winner], ['timeout', 'white']);
  await annStream.waitFor(() => annStream.events.some(line => line.status === 'timeout'), 'the end');
  const end = annStream.events.find(line => line.status === 'timeout');
  assertLichess('GameStateEvent', end);
  t.assert.equal(end.winner, 'white');
}

test('on SQLite: gone after 10 s, back, gone again, then the claim of a win (timeout)', async (t: TestContext) => {
  const skew = { ms: 0 };
  const app = await instance(t, () => Date.now() + skew.ms);
  await leaveAndClaim(t, app, app, skew);
});

test('claim-draw after the count-down draws; an untimed game is never claimed', async (t: TestContext) => {
  const skew = { ms: 0 };
  const app = await instance(t, () => Date.now() + skew.ms);
  const issue = async (name: string) =>
    (await app.playerTokens.issue({ id: `${name}-${++players}`, displayName: name })).token;
  const [annToken, bobToken] = [await issue('ann'), await issue('bob')];
  const ann = json(await app.app.inject({ url: '/api/account', headers: { authorization: `Bearer ${annToken}` } }));
  const bob = json(await app.app.inject({ url: '/api/account', headers: { authorization: `Bearer ${bobToken}` } }));
  const untimed = json<{ id: string }>(await app.post(annToken, `/api/challenge/${bob.id}`, { color: 'white' })).id;
  await app.post(bobToken, `/api/challenge/${untimed}/accept`);
  const timed = json<{ id: string }>(
    await app.post(annToken, `/api/challenge/${bob.id}`, { 'clock.limit': 60, 'clock.increment': 0, color: 'black' }),
  ).id;
  await app.post(bobToken, `/api/challenge/${timed}/accept`);
  await app.post(bobToken, `/api/board/game/${timed}/move/d2d4`);
  await app.post(annToken, `/api/board/game/${timed}/move/d7d5`);
  skew.ms += 31_000; // nobody ever came: gone since the start
  assertError(await app.post(annToken, `/api/board/game/${untimed}/claim-draw`), 'CLAIM_NOT_AVAILABLE');
  t.assert.equal((await app.post(annToken, `/api/board/game/${timed}/claim-draw`)).statusCode, 200);
  const game = json(
    await app.app.inject({ url: `/api/board/game/${timed}`, headers: { authorization: `Bearer ${bobToken}` } }),
  );
  t.assert.deepEqual([game.state.status, game.state.winner, ann.id], ['draw', null, game.black.id]);
});

const pg = await databaseOfFile();

suite('on PostgreSQL', { skip: pg.skip }, () => {
  test('two instances: each player on another; gone, back, gone, claimed, all across instances', async (t: TestContext) => {
    const skew = { ms: 0 };
    const now = () => Date.now() + skew.ms;
    const stores = await Promise.all([PostgresGameStore.open(pg.url()), PostgresGameStore.open(pg.url())]);
    t.after(() => Promise.all(stores.map(store => store.close())));
    const [a, b] = [await instance(t, now, stores[0]), await instance(t, now, stores[1])];
    await leaveAndClaim(t, a, b, skew);
  });
});
