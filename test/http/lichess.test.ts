/**
 * The lichess dialect over HTTP (DECISIONS §17): the account and the ongoing games in lichess's shapes, the game
 * streams of the Board and Bot APIs (gameFull, then gameState per change), the actions under both prefixes
 * (`move` with `offeringDraw`, `draw/yes|no`, `takeback/yes|no`, `resign`, `abort`), a promotion without its piece
 * (a queen on the lichess paths, promotionPending on the seed's), lichess's `error` in errors, unknown query
 * parameters ignored, and the event stream's GameEventInfo. Every answer and stream line of the lichess paths is
 * validated against lichess's own schema (test/fixtures/lichess).
 */
import { test, type TestContext } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { assertError, json, makeTestApp, type TestApp, requestsAs } from '../helpers/app.ts';
import { assertLichess } from '../helpers/lichess.ts';
import { openStream, type StreamClient } from '../stream/helpers.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';

const SERVICE_TOKEN = 'service-token-for-lichess-001';
let players = 0;

interface LichessApp extends TestApp {
  as: (token: string | undefined, request: InjectOptions | string) => Promise<LightMyRequestResponse>;
  /** A player with a token of their own; `bot`: a bot's (DECISIONS §17). */
  player: (name: string, options?: { bot?: boolean }) => Promise<{ id: string; name: string; token: string }>;
  url: string;
  stream: (path: string, token: string) => Promise<StreamClient>;
}

async function start(t: TestContext): Promise<LichessApp> {
  const testApp = await makeTestApp({ tokens: [SERVICE_TOKEN] });
  t.after(() => testApp.app.close());
  const as = await requestsAs(testApp.app);
  const player: LichessApp['player'] = async (name, { bot = false } = {}) => {
    const id = `${name.toLowerCase()}-${++players}`;
    const issued = await testApp.playerTokens.issue({ id, displayName: name }, { bot });
    return { id, name, token: issued.token };
  };
  await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(testApp.app.server.address() as { port: number }).port}`;
  const streams: StreamClient[] = [];
  t.after(() => streams.forEach(stream => stream.close()));
  const stream: LichessApp['stream'] = async (path, token) => {
    const opened = await openStream(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    streams.push(opened);
    return opened;
  };
  return { ...testApp, as, player, url, stream };
}

const post = (app: LichessApp, token: string, url: string, payload?: object) =>
  app.as(token, { method: 'POST', url, ...(payload ? { payload } : {}) });

/** Ann challenges Bob to 5+3 with white, Bob accepts: the game's id (the challenge's). */
async function challengeGame(app: LichessApp, ann: { token: string }, bob: { id: string; token: string }) {
  const res = await post(app, ann.token, `/api/challenge/${bob.id}`, {
    'clock.limit': 300,
    'clock.increment': 3,
    color: 'white',
  });
  const { id } = json<{ id: string }>(res);
  const accepted = await post(app, bob.token, `/api/challenge/${id}/accept`);
  if (accepted.statusCode !== 200) throw new Error(accepted.body);
  return id;
}

const ok = (t: TestContext, res: LightMyRequestResponse) => {
  t.assert.equal(res.statusCode, 200, res.body);
  t.assert.deepEqual(json(res), { ok: true });
  assertLichess('Ok', json(res));
};

test("the account and the ongoing games in lichess's shapes, beside the seed's", async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
  const account = json(await app.as(ann.token, '/api/account?cacheBust=1'));
  assertLichess('UserExtended', account);
  t.assert.deepEqual([account.id, account.username, account.player.id], [ann.id, 'Ann', ann.id]);
  t.assert.deepEqual(json(await app.as(ann.token, '/api/account/playing')), { nowPlaying: [], nbMyTurn: 0 });
  const gameId = await challengeGame(app, ann, bob);
  const playing = json(await app.as(ann.token, '/api/account/playing?nb=5&x=y'));
  assertLichess('AccountPlaying', playing);
  t.assert.equal(playing.nbMyTurn, 1);
  const [game] = playing.nowPlaying;
  t.assert.deepEqual(
    [game.gameId, game.color, game.isMyTurn, game.opponent.id, game.opponent.username, game.secondsLeft, game.speed],
    [gameId, 'white', true, bob.id, 'Bob', 300, 'blitz'],
  );
  t.assert.equal(game.fullId.slice(0, 8), gameId);
  t.assert.equal(game.fullId.length, 12);
  const bobs = json(await app.as(bob.token, '/api/account/playing'));
  assertLichess('AccountPlaying', bobs);
  t.assert.deepEqual([bobs.nowPlaying[0].color, bobs.nowPlaying[0].isMyTurn, bobs.nbMyTurn], ['black', false, 0]);
  t.assert.notEqual(bobs.nowPlaying[0].fullId, game.fullId, 'fullId is per player');
  assertError(await app.as(SERVICE_TOKEN, '/api/account/playing'), 'FORBIDDEN');
});

test('Board and Bot game streams: gameFull then gameState lines, each lichess-valid, through every action', async (t: TestContext) => {
  const app = await start(t);
  // Ann is a bot (the Bot API), Bob a person (the Board API).
  const [ann, bob] = [await app.player('Ann', { bot: true }), await app.player('Bob')];
  const gameId = await challengeGame(app, ann, bob);
  const annStream = await app.stream(`/api/bot/game/stream/${gameId}?cb=123`, ann.token);
  const bobStream = await app.stream(`/api/board/game/stream/${gameId}`, bob.token);
  for (const stream of [annStream, bobStream]) {
    t.assert.equal(stream.status, 200);
    const [full] = await stream.waitForEvents(1);
    assertLichess('GameFullEvent', full);
    t.assert.deepEqual(
      [full.id, full.white.id, full.black.name, full.clock, full.initialFen, full.speed, full.state.status],
      [gameId, ann.id, 'Bob', { initial: 300_000, increment: 3_000 }, 'startpos', 'blitz', 'started'],
    );
    t.assert.equal(full.state.moves, '');
  }
  const bot = (token: string, action: string) => post(app, token, `/api/bot/game/${gameId}/${action}`);
  const board = (token: string, action: string) => post(app, token, `/api/board/game/${gameId}/${action}`);
  ok(t, await bot(ann.token, 'move/e2e4?offeringDraw=true&cacheBust=7')); // the move and the offer: one change
  ok(t, await board(bob.token, 'draw/no'));
  const seedMove = await board(bob.token, 'move/e7e5');
  t.assert.equal(json(seedMove).status, 'started', "the seed's own move answers its GameState");
  ok(t, await bot(ann.token, 'takeback/yes'));
  ok(t, await bot(ann.token, 'takeback/yes')); // one's own offer again: nothing to do
  ok(t, await board(bob.token, 'takeback/yes')); // accepts: Ann's move and Bob's reply are taken back
  ok(t, await bot(ann.token, 'move/d2d4'));
  ok(t, await board(bob.token, 'draw/yes'));
  ok(t, await bot(ann.token, 'draw/no'));
  t.assert.equal(json(await board(bob.token, 'move/d7d5')).status, 'started');
  ok(t, await bot(ann.token, 'resign'));
  const expected = [
    ['e2e4', { wdraw: true }],
    ['e2e4', {}],
    ['e2e4 e7e5', {}],
    ['e2e4 e7e5', { wtakeback: true }],
    ['', {}],
    ['d2d4', {}],
    ['d2d4', { bdraw: true }],
    ['d2d4', {}],
    ['d2d4 d7d5', {}],
    ['d2d4 d7d5', { status: 'resign', winner: 'black' }],
  ] as const;
  for (const stream of [annStream, bobStream]) {
    const lines = (await stream.waitForEvents(1 + expected.length)).slice(1);
    lines.forEach((line, i) => {
      assertLichess('GameStateEvent', line);
      const [moves, flags] = expected[i]!;
      const seen = Object.fromEntries(
        ['wdraw', 'bdraw', 'wtakeback', 'btakeback', 'winner'].filter(key => key in line).map(key => [key, line[key]]),
      );
      const { status = 'started', ...rest } = flags as Record<string, unknown>;
      t.assert.deepEqual([line.moves, line.status, seen], [moves, status, rest], `line ${i + 1}`);
      t.assert.ok(line.wtime <= 300_000 + 3_000 && line.winc === 3_000);
    });
  }
});

test("lichess's game streams end with the game, as lichess's do; the seed's own stream stays open", async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob] = [await app.player('Ann', { bot: true }), await app.player('Bob')];
  const gameId = await challengeGame(app, ann, bob);
  const botStream = await app.stream(`/api/bot/game/stream/${gameId}`, ann.token);
  const boardStream = await app.stream(`/api/board/game/stream/${gameId}`, bob.token);
  const seedStream = await app.stream(`/api/board/game/${gameId}/stream`, bob.token);
  for (const stream of [botStream, boardStream, seedStream]) await stream.waitForEvents(1);
  ok(t, await post(app, ann.token, `/api/bot/game/${gameId}/move/e2e4`));
  ok(t, await post(app, bob.token, `/api/board/game/${gameId}/resign`));
  // 1. The last gameState shows the end, and the response ends after it (a client's loop over the lines ends).
  for (const stream of [botStream, boardStream]) {
    await stream.waitFor(() => stream.done, 'the end of the response', 5_000);
    t.assert.equal(await stream.finished, 'end');
    t.assert.deepEqual(
      stream.events.map(line => [line.type, line.status ?? line.state.status]),
      [
        ['gameFull', 'started'],
        ['gameState', 'started'],
        ['gameState', 'resign'],
      ],
    );
    t.assert.equal(stream.rest, '');
  }
  // 2. A stream opened on a game over: its gameFull, then the end.
  const late = await app.stream(`/api/bot/game/stream/${gameId}`, bob.token);
  await late.waitFor(() => late.done, 'the end of the response', 5_000);
  t.assert.equal(await late.finished, 'end');
  t.assert.deepEqual(
    late.events.map(line => [line.type, line.state.status, line.state.winner]),
    [['gameFull', 'resign', 'white']],
  );
  assertLichess('GameFullEvent', late.events[0]);
  // 3. The seed's stream is as it was: it has the end, and stays open.
  await seedStream.waitForEvents(3);
  t.assert.equal(seedStream.done, false);
});

test("lichess's promotion is a queen; the seed's move path keeps promotionPending; errors carry lichess's error", async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob] = [await app.player('Ann', { bot: true }), await app.player('Bob')];
  const fen = '4k3/P7/8/8/8/8/8/4K3 w - - 0 1';
  const created = await post(app, SERVICE_TOKEN, '/api/board/game/import/fen', {
    fen,
    white: { id: ann.id, displayName: 'Ann' },
    black: { id: bob.id, displayName: 'Bob' },
  });
  const { gameId } = json<{ gameId: string }>(created);
  // The seed's path, for any side with the service token (Ann, a bot, plays on the Bot API only).
  const pending = json(await post(app, SERVICE_TOKEN, `/api/board/game/${gameId}/move/a7a8`));
  t.assert.equal(pending.status, 'promotionPending');
  const refused = await post(app, ann.token, `/api/bot/game/${gameId}/move/a7b8`);
  const body = assertError(refused, 'INVALID_MOVE', 'uci');
  t.assert.equal(body.error, body.message);
  t.assert.equal(
    json(await post(app, bob.token, `/api/board/game/${gameId}/move/e8e7`)).code,
    'NOT_YOUR_TURN',
    "the seed's own errors have no `error`",
  );
  t.assert.equal('error' in json(await post(app, bob.token, `/api/board/game/${gameId}/move/e8e7`)), false);
  const stream = await app.stream(`/api/bot/game/stream/${gameId}`, bob.token);
  const [full] = await stream.waitForEvents(1);
  assertLichess('GameFullEvent', full);
  t.assert.deepEqual([full.initialFen, full.variant.key, 'clock' in full], [fen, 'fromPosition', false]);
  t.assert.deepEqual([full.state.wtime, full.state.btime], [2_147_483_647, 2_147_483_647]);
  ok(t, await post(app, ann.token, `/api/bot/game/${gameId}/move/a7a8`));
  const [, state] = await stream.waitForEvents(2);
  assertLichess('GameStateEvent', state);
  t.assert.equal(state.moves, 'a7a8q');
  assertError(await post(app, ann.token, `/api/bot/game/${gameId}/draw/maybe`), 'NOT_FOUND');
  assertError(await post(app, bob.token, `/api/board/game/${gameId}/draw/maybe`), 'INVALID_ACTION', 'action');
  assertError(await post(app, ann.token, '/api/bot/game/NoSuch12/resign'), 'GAME_NOT_FOUND');
});

test("the event stream's gameStart and gameFinish keep the GameFull fields and gain lichess's GameEventInfo", async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
  const events = await app.stream('/api/stream/event', bob.token);
  const gameId = await challengeGame(app, ann, bob);
  await events.waitFor(() => events.events.some(line => line.type === 'gameStart'), 'gameStart');
  const started = events.events.find(line => line.type === 'gameStart');
  assertLichess('GameStartEvent', started);
  t.assert.deepEqual(
    [started.game.gameId, started.game.id, started.game.color, started.game.isMyTurn, started.game.opponent.username],
    [gameId, gameId, 'black', false, 'Ann'],
  );
  t.assert.deepEqual(
    [started.game.white.id, started.game.black.id, started.game.state.status],
    [ann.id, bob.id, 'started'],
  );
  ok(t, await post(app, ann.token, `/api/board/game/${gameId}/abort`));
  await events.waitFor(() => events.events.some(line => line.type === 'gameFinish'), 'gameFinish');
  const finish = events.events.find(line => line.type === 'gameFinish');
  assertLichess('GameFinishEvent', finish);
  t.assert.deepEqual(
    [finish.type, finish.game.status.name, finish.game.state.status],
    ['gameFinish', 'aborted', 'aborted'],
  );
});

test('bots: issued as bots or upgraded, for good; titled BOT; on the Bot API only; listed online with a stream', async (t: TestContext) => {
  const app = await start(t);
  const issued = await app.as(SERVICE_TOKEN, {
    method: 'POST',
    url: '/api/tokens',
    payload: { player: { id: 'robo-1', displayName: 'Robo' }, bot: true },
  });
  t.assert.equal(issued.statusCode, 201);
  const robo = { id: 'robo-1', token: json<{ token: string }>(issued).token };
  const account = json(await app.as(robo.token, '/api/account'));
  assertLichess('UserExtended', account);
  t.assert.equal(account.title, 'BOT');
  for (const id of ['stockfish', 'StockFish']) {
    const refused = await app.as(SERVICE_TOKEN, {
      method: 'POST',
      url: '/api/tokens',
      payload: { player: { id, displayName: 'Engine' } },
    });
    assertError(refused, 'INVALID_BODY', 'player.id');
  }

  // An upgrade: a new player becomes a bot; one who has played is refused.
  const [ann, bob, cid] = [await app.player('Ann'), await app.player('Bob'), await app.player('Cid')];
  ok(t, await post(app, cid.token, '/api/bot/account/upgrade'));
  ok(t, await post(app, cid.token, '/api/bot/account/upgrade'));
  t.assert.equal(json(await app.as(cid.token, '/api/account')).title, 'BOT');
  await challengeGame(app, ann, bob);
  assertError(await post(app, ann.token, '/api/bot/account/upgrade'), 'FORBIDDEN');
  t.assert.equal('title' in json(await app.as(ann.token, '/api/account')), false);

  // A game between a bot and a person: the bot moves on the Bot API only, and is titled in gameFull.
  const res = await post(app, ann.token, `/api/challenge/${robo.id}`, {
    'clock.limit': 60,
    'clock.increment': 0,
    color: 'black',
  });
  const gameId = json<{ id: string }>(res).id;
  ok(t, await post(app, robo.token, `/api/challenge/${gameId}/accept`));
  assertError(await post(app, robo.token, `/api/board/game/${gameId}/move/e2e4`), 'FORBIDDEN');
  assertError(await post(app, robo.token, '/api/board/seek', { days: 3 }), 'FORBIDDEN');
  t.assert.equal((await app.as(robo.token, `/api/board/game/${gameId}`)).statusCode, 200, 'reads are not changes');
  ok(t, await post(app, robo.token, `/api/bot/game/${gameId}/move/e2e4`));
  const stream = await app.stream(`/api/bot/game/stream/${gameId}`, robo.token);
  const [full] = await stream.waitForEvents(1);
  assertLichess('GameFullEvent', full);
  t.assert.deepEqual([full.white.title, full.black.title, full.state.moves], ['BOT', null, 'e2e4']);

  // Online: the bots with an event stream open.
  const none = await app.as(ann.token, '/api/bot/online?nb=10');
  t.assert.equal(none.statusCode, 200);
  t.assert.equal(none.body, '');
  await app.stream('/api/stream/event', robo.token);
  await app.stream('/api/stream/event', ann.token);
  const online = (await app.as(ann.token, '/api/bot/online')).body
    .trim()
    .split('\n')
    .map(line => JSON.parse(line));
  for (const user of online) assertLichess('User', user);
  t.assert.deepEqual(online, [{ id: 'robo-1', username: 'Robo', title: 'BOT' }]);
});

test("the Board API's move with offeringDraw=true: the seed's move path offers the draw too, and answers the state after it", async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
  const gameId = await challengeGame(app, ann, bob);
  const stream = await app.stream(`/api/board/game/stream/${gameId}`, bob.token);
  await stream.waitForEvents(1);
  const moved = json(await post(app, ann.token, `/api/board/game/${gameId}/move/e2e4?offeringDraw=true&cb=1`));
  t.assert.deepEqual([moved.moves, moved.drawOfferedBy], [['e2e4'], 'white']);
  const plain = json(await post(app, bob.token, `/api/board/game/${gameId}/move/e7e5?offeringDraw=false`));
  t.assert.equal(plain.drawOfferedBy, null, 'false offers nothing, and a move lets the pending offer go');
  const lines = (await stream.waitForEvents(3)).slice(1);
  for (const line of lines) assertLichess('GameStateEvent', line);
  t.assert.deepEqual(
    lines.map(line => [line.moves, line.wdraw ?? false]),
    [
      ['e2e4', true], // the move and its offer are one change
      ['e2e4 e7e5', false],
    ],
  );
});

test('bots online on any instance: an event stream open on one is listed by the other', async (t: TestContext) => {
  const database = SqliteGameStore.open(':memory:');
  t.after(() => database.close());
  const [a, b] = await Promise.all(
    [0, 1].map(async () => {
      const testApp = await makeTestApp({ store: database, sharedStore: true, tokens: [SERVICE_TOKEN] });
      t.after(() => testApp.app.close());
      await testApp.app.listen({ port: 0, host: '127.0.0.1' });
      return testApp;
    }),
  );
  const robo = await a!.playerTokens.issue({ id: 'robo-2', displayName: 'Robo' }, { bot: true });
  const online = async () =>
    (await b!.app.inject({ url: '/api/bot/online', headers: { authorization: `Bearer ${robo.token}` } })).body;
  t.assert.equal(await online(), '');
  const url = `http://127.0.0.1:${(a!.app.server.address() as { port: number }).port}`;
  const stream = await openStream(`${url}/api/stream/event`, { headers: { authorization: `Bearer ${robo.token}` } });
  await stream.waitFor(() => stream.status === 200, 'the head');
  let listed = '';
  for (let i = 0; i < 50 && listed === ''; i++) {
    listed = await online();
    if (listed === '') await new Promise(resolve => setTimeout(resolve, 20));
  }
  t.assert.deepEqual(JSON.parse(listed), { id: 'robo-2', username: 'Robo', title: 'BOT' });
  stream.close();
  for (let i = 0; i < 50 && listed !== ''; i++) {
    await new Promise(resolve => setTimeout(resolve, 20));
    listed = await online();
  }
  t.assert.equal(listed, '', 'gone once its stream closes');
});
