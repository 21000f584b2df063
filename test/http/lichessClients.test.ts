/**
 * What lichess's own clients (berserk, lichess-bot) do that a careless reading of lichess's API would miss
 * (DECISIONS §16a), over HTTP: a move with `?offeringDraw=true` that mates, or that answers the opponent's pending
 * offer; bots and people each on their own API, however the path is written; a JSON `null` as an absent field;
 * a trailing slash and lichess's boolean words in the game paths; `source: "lobby"` for a game paired from seeks
 * (kept by the store, on SQLite and PostgreSQL); and the document listing every answer of the challenge paths.
 * Every answer is checked against the OpenAPI document, and lichess's shapes against lichess's own schemas.
 */
import { suite, test, type TestContext } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { assertError, json, makeTestApp, type TestApp, type TestAppOptions, requestsAs } from '../helpers/app.ts';
import { assertLichess } from '../helpers/lichess.ts';
import { FirstMoveEngine } from '../helpers/engine.ts';
import { databaseOfFile } from '../helpers/postgres.ts';
import { openStream } from '../stream/helpers.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import { PostgresGameStore } from '../../src/store/postgres.ts';
import type { GameStore } from '../../src/store/store.ts';

const SERVICE_TOKEN = 'service-token-for-lichess-clients';
let players = 0;

interface Player {
  id: string;
  name: string;
  token: string;
}

interface ClientsApp extends TestApp {
  as: (token: string | undefined, request: InjectOptions | string) => Promise<LightMyRequestResponse>;
  player: (name: string, options?: { bot?: boolean }) => Promise<Player>;
}

async function start(t: TestContext, options: TestAppOptions = {}): Promise<ClientsApp> {
  const testApp = await makeTestApp({ tokens: [SERVICE_TOKEN], ...options });
  t.after(() => testApp.app.close());
  const as = await requestsAs(testApp.app);
  const player: ClientsApp['player'] = async (name, { bot = false } = {}) => {
    const id = `${name.toLowerCase()}-${++players}`;
    const issued = await testApp.playerTokens.issue({ id, displayName: name }, { bot });
    return { id, name, token: issued.token };
  };
  return { ...testApp, as, player };
}

const post = (app: ClientsApp, token: string, url: string, payload?: object) =>
  app.as(token, { method: 'POST', url, ...(payload ? { payload } : {}) });

/** The game as the seed shows it. */
const gameOf = async (app: ClientsApp, id: string) => json(await app.as(SERVICE_TOKEN, `/api/board/game/${id}`));

/** A game imported from `fen` (by the service token) with these players seated. */
async function importGame(app: ClientsApp, fen: string, white: Player, black: Player): Promise<string> {
  const res = await post(app, SERVICE_TOKEN, '/api/board/game/import/fen', {
    fen,
    white: { id: white.id, displayName: white.name },
    black: { id: black.id, displayName: black.name },
  });
  if (res.statusCode !== 201) throw new Error(res.body);
  return json<{ gameId: string }>(res).gameId;
}

/** `challenger` challenges `challenged` to 5+3 with white; accepted: the game's id. */
async function challengeGame(app: ClientsApp, challenger: Player, challenged: Player): Promise<string> {
  const made = await post(app, challenger.token, `/api/challenge/${challenged.id}`, {
    'clock.limit': 300,
    'clock.increment': 3,
    color: 'white',
  });
  const { id } = json<{ id: string }>(made);
  const accepted = await post(app, challenged.token, `/api/challenge/${id}/accept`);
  if (accepted.statusCode !== 200) throw new Error(accepted.body);
  return id;
}

const ok = (t: TestContext, res: LightMyRequestResponse) => {
  t.assert.equal(res.statusCode, 200, res.body);
  t.assert.deepEqual(json(res), { ok: true });
  assertLichess('Ok', json(res));
};

/** Black to mate at once (1. f3 e5 2. g4: Qh4#). */
const FOOLS_MATE = 'rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq g3 0 2';

test('offeringDraw=true with a mating move: the move is answered (200), on the Board and Bot APIs', async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob, robo] = [await app.player('Ann'), await app.player('Bob'), await app.player('Robo', { bot: true })];
  const board = await importGame(app, FOOLS_MATE, ann, bob);
  const mated = await post(app, bob.token, `/api/board/game/${board}/move/d8h4?offeringDraw=true`);
  t.assert.equal(mated.statusCode, 200, mated.body);
  t.assert.deepEqual(
    [json(mated).status, json(mated).winner, json(mated).drawOfferedBy, json(mated).moves],
    ['checkmate', 'black', null, ['d8h4']],
  );
  const bot = await importGame(app, FOOLS_MATE, ann, robo);
  ok(t, await post(app, robo.token, `/api/bot/game/${bot}/move/d8h4?offeringDraw=true`));
  const { state } = await gameOf(app, bot);
  t.assert.deepEqual([state.status, state.winner, state.drawOfferedBy], ['checkmate', 'black', null]);
});

test("offeringDraw=true with the opponent's offer pending agrees to it: the game is drawn, the move played", async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob, robo] = [await app.player('Ann'), await app.player('Bob'), await app.player('Robo', { bot: true })];
  // The Board API: Ann offers with her move, Bob answers with his.
  const board = await challengeGame(app, ann, bob);
  const offered = json(await post(app, ann.token, `/api/board/game/${board}/move/e2e4?offeringDraw=true`));
  t.assert.deepEqual([offered.status, offered.drawOfferedBy], ['drawOffered', 'white']);
  const answered = await post(app, bob.token, `/api/board/game/${board}/move/e7e5?offeringDraw=true`);
  t.assert.equal(answered.statusCode, 200, answered.body);
  t.assert.deepEqual(
    [json(answered).status, json(answered).winner, json(answered).drawOfferedBy, json(answered).moves],
    ['draw', null, null, ['e2e4', 'e7e5']],
  );
  // The Bot API: Ann offers (draw/yes), Robo answers with his move.
  const bot = await challengeGame(app, robo, ann);
  ok(t, await post(app, robo.token, `/api/bot/game/${bot}/move/e2e4`));
  ok(t, await post(app, ann.token, `/api/board/game/${bot}/draw/yes`));
  t.assert.equal((await post(app, ann.token, `/api/board/game/${bot}/move/e7e5`)).statusCode, 200);
  t.assert.equal((await gameOf(app, bot)).state.drawOfferedBy, null, 'a move lets the offer go');
  ok(t, await post(app, ann.token, `/api/board/game/${bot}/draw/yes`));
  ok(t, await post(app, robo.token, `/api/bot/game/${bot}/move/g1f3?offeringDraw=true`));
  const { state } = await gameOf(app, bot);
  t.assert.deepEqual([state.status, state.moves], ['draw', ['e2e4', 'e7e5', 'g1f3']]);
});

test('bots on the Bot API, people on the Board API, judged on the route however the path is written', async (t: TestContext) => {
  const app = await start(t);
  const [ann, robo] = [await app.player('Ann'), await app.player('Robo', { bot: true })];
  const gameId = await challengeGame(app, robo, ann); // Robo white
  // A bot's changes on the Board API: 403, percent-encoded or not; the game does not change.
  for (const path of [`/api/board/game/${gameId}/move/e2e4`, `/api/%62oard/game/${gameId}/move/e2e4`]) {
    assertError(await post(app, robo.token, path), 'FORBIDDEN');
  }
  assertError(await post(app, robo.token, `/api/b%6Fard/game/${gameId}/draw/offer`), 'FORBIDDEN');
  assertError(
    await post(app, robo.token, `/api/%62oard/game/${gameId}/chat`, { room: 'player', text: 'hi' }),
    'FORBIDDEN',
  );
  t.assert.deepEqual((await gameOf(app, gameId)).state.moves, []);
  ok(t, await post(app, robo.token, `/api/%62ot/game/${gameId}/move/e2e4`));
  // A person's commands on the Bot API: 403, percent-encoded or not; their reads are welcome.
  for (const path of [`/api/bot/game/${gameId}/move/e7e5`, `/api/%62ot/game/${gameId}/move/e7e5`]) {
    const refused = assertError(await post(app, ann.token, path), 'FORBIDDEN');
    t.assert.match(refused.message, /Bot API is for bots/);
  }
  for (const action of ['resign', 'abort', 'draw/yes', 'takeback/no', 'claim-victory', 'claim-draw']) {
    assertError(await post(app, ann.token, `/api/bot/game/${gameId}/${action}`), 'FORBIDDEN');
  }
  assertError(await post(app, ann.token, `/api/bot/game/${gameId}/chat`, { room: 'player', text: 'hi' }), 'FORBIDDEN');
  t.assert.deepEqual((await gameOf(app, gameId)).state.moves, ['e2e4']);
  t.assert.equal((await app.as(ann.token, `/api/bot/game/${gameId}/chat`)).statusCode, 200);
  t.assert.equal((await post(app, ann.token, `/api/board/game/${gameId}/move/e7e5`)).statusCode, 200);
  // A service token acts for any side, on either API.
  ok(t, await post(app, SERVICE_TOKEN, `/api/bot/game/${gameId}/move/g1f3`));
  // A person still becomes a bot through the Bot API.
  const cid = await app.player('Cid');
  ok(t, await post(app, cid.token, '/api/%62ot/account/upgrade'));
});

test("a JSON null is an absent field in the lichess dialect's bodies (berserk's challenges, seeks, chat)", async (t: TestContext) => {
  const app = await start(t, { engine: new FirstMoveEngine() });
  const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
  // berserk's challenges.create, create_open and create_ai, as it sends them (every parameter, null when not given).
  const given = { variant: null, fen: null, color: null };
  const created = await post(app, ann.token, `/api/challenge/${bob.id}`, {
    rated: false,
    'clock.limit': 300,
    'clock.increment': 3,
    days: null,
    ...given,
  });
  t.assert.equal(created.statusCode, 200, created.body);
  assertLichess('ChallengeJson', json(created));
  t.assert.deepEqual(json(created).timeControl, { type: 'clock', limit: 300, increment: 3, show: '5+3' });
  const days = await post(app, ann.token, `/api/challenge/${bob.id}`, {
    rated: false,
    'clock.limit': null,
    'clock.increment': null,
    days: 3,
    ...given,
  });
  t.assert.equal(days.statusCode, 200, days.body);
  t.assert.deepEqual(json(days).timeControl, { type: 'correspondence', daysPerTurn: 3 });
  const open = await post(app, ann.token, '/api/challenge/open', {
    'clock.limit': null,
    'clock.increment': null,
    variant: null,
    fen: null,
    rated: null,
    name: null,
  });
  t.assert.equal(open.statusCode, 200, open.body);
  assertLichess('ChallengeJson', json(open));
  const ai = await post(app, ann.token, '/api/challenge/ai', {
    level: 2,
    'clock.limit': null,
    'clock.increment': null,
    days: null,
    ...given,
  });
  t.assert.equal(ai.statusCode, 201, ai.body);
  // The others: a decline without its reason, a seek, a chat line.
  ok(t, await post(app, bob.token, `/api/challenge/${json(days).id}/decline`, { reason: null }));
  t.assert.equal((await post(app, ann.token, '/api/board/seek', { days: 3, color: null })).statusCode, 200);
  const gameId = await challengeGame(app, ann, bob);
  ok(t, await post(app, ann.token, `/api/board/game/${gameId}/chat`, { room: 'player', text: 'hi', extra: null }));
  // A null where a value is required is still missing; the seed's own bodies keep their rules.
  assertError(
    await post(app, ann.token, `/api/board/game/${gameId}/chat`, { room: 'player', text: null }),
    'INVALID_BODY',
    'text',
  );
  assertError(await post(app, SERVICE_TOKEN, '/api/board/game', { white: null }), 'INVALID_BODY', 'white');
});

test("the game paths as lichess's clients write them: a trailing slash, and yes/true/1, no/false/0", async (t: TestContext) => {
  const app = await start(t);
  const [ann, robo] = [await app.player('Ann'), await app.player('Robo', { bot: true })];
  const gameId = await challengeGame(app, robo, ann); // Robo white (Bot API), Ann black (Board API)
  const bot = (action: string) => post(app, robo.token, `/api/bot/game/${gameId}/${action}`);
  const board = (action: string) => post(app, ann.token, `/api/board/game/${gameId}/${action}`);
  const offers = async () => {
    const { state } = await gameOf(app, gameId);
    return [state.drawOfferedBy, state.takebackOfferedBy];
  };
  ok(t, await bot('move/e2e4/'));
  ok(t, await board('draw/true')); // berserk's handle_draw_offer(id, True)
  t.assert.deepEqual(await offers(), ['black', null]);
  ok(t, await bot('draw/0/'));
  t.assert.deepEqual(await offers(), [null, null]);
  t.assert.deepEqual(json(await board('move/e7e5/')).moves, ['e2e4', 'e7e5']);
  ok(t, await bot('takeback/1'));
  t.assert.deepEqual(await offers(), [null, 'white']);
  ok(t, await board('takeback/false/'));
  ok(t, await bot('draw/yes/'));
  ok(t, await board('draw/no'));
  ok(t, await board('takeback/true'));
  ok(t, await bot('takeback/false'));
  t.assert.deepEqual(await offers(), [null, null]);
  // Other words are what they were: the seed's action on the Board API, no such path on the Bot API.
  assertError(await board('draw/2'), 'INVALID_ACTION', 'action');
  assertError(await bot('draw/maybe'), 'NOT_FOUND');
  // berserk's claim-victory/: the route is found (the claim is judged: the opponent is there).
  assertError(await bot('claim-victory/'), 'CLAIM_NOT_AVAILABLE');
  ok(t, await bot('resign/'));
  t.assert.equal((await gameOf(app, gameId)).state.status, 'resign');
});

/** Ann and Bob seek 3 days per move and are paired: the game's id, after the checks of `source: "lobby"`. */
async function lobbyGame(t: TestContext, app: ClientsApp, url?: string): Promise<{ gameId: string; ann: Player }> {
  const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
  const events = url
    ? await openStream(`${url}/api/stream/event`, { headers: { authorization: `Bearer ${bob.token}` } })
    : undefined;
  t.after(() => events?.close());
  await events?.waitFor(() => events.status === 200, 'the stream opened');
  for (const seeker of [ann, bob]) {
    const seek = await post(app, seeker.token, '/api/board/seek', { days: 3 });
    t.assert.equal(seek.statusCode, 200, seek.body);
  }
  const playing = json(await app.as(ann.token, '/api/account/playing'));
  assertLichess('AccountPlaying', playing);
  t.assert.deepEqual(
    playing.nowPlaying.map((game: { source: string }) => game.source),
    ['lobby'],
  );
  if (events) {
    await events.waitFor(() => events.events.some(line => line.type === 'gameStart'), 'gameStart');
    const started = events.events.find(line => line.type === 'gameStart');
    assertLichess('GameStartEvent', started);
    t.assert.equal(started.game.source, 'lobby');
  }
  return { gameId: playing.nowPlaying[0].gameId, ann };
}

test('a game paired from seeks has source "lobby" (a challenge\'s "friend"), also as another instance reads it', async (t: TestContext) => {
  const store = SqliteGameStore.open(':memory:');
  t.after(() => store.close());
  const app = await start(t, { store });
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.app.server.address() as { port: number }).port}`;
  const { gameId, ann } = await lobbyGame(t, app, url);
  // Another instance on the store reads the game from it: its source is kept with it.
  const other = await start(t, { store, sharedStore: true, playerTokens: app.playerTokens });
  const there = json(await other.as(ann.token, '/api/account/playing'));
  t.assert.deepEqual(
    there.nowPlaying.map((game: { gameId: string; source: string }) => [game.gameId, game.source]),
    [[gameId, 'lobby']],
  );
  const cid = await app.player('Cid');
  await challengeGame(app, cid, ann);
  const friends = json(await app.as(cid.token, '/api/account/playing'));
  t.assert.deepEqual(
    friends.nowPlaying.map((game: { source: string }) => game.source),
    ['friend'],
  );
});

const pg = await databaseOfFile();

suite('on PostgreSQL', { skip: pg.skip }, () => {
  test('a seek-paired game keeps source "lobby" in the database: another instance reads it so', async (t: TestContext) => {
    const stores: GameStore[] = [await PostgresGameStore.open(pg.url()), await PostgresGameStore.open(pg.url())];
    t.after(() => Promise.all(stores.map(store => store.close())));
    const a = await start(t, { store: stores[0], sharedStore: true });
    const { gameId, ann } = await lobbyGame(t, a);
    const b = await start(t, { store: stores[1], sharedStore: true });
    const there = json(await b.as(ann.token, '/api/account/playing'));
    assertLichess('AccountPlaying', there);
    t.assert.deepEqual(
      there.nowPlaying.map((game: { gameId: string; source: string }) => [game.gameId, game.source]),
      [[gameId, 'lobby']],
    );
  });
});

test('the document lists what each operation answers: a constrained parameter can be refused (400)', async (t: TestContext) => {
  const app = await start(t);
  const ann = await app.player('Ann');
  // A challenge id longer than any: 400, which the document lists (the checker refuses an undeclared status).
  const tooLong = await app.as(ann.token, `/api/challenge/${'x'.repeat(65)}/show`);
  t.assert.equal(tooLong.statusCode, 400, tooLong.body);
  const doc = json(await app.as(undefined, '/openapi.json'));
  const missing: string[] = [];
  for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      const constrained = (op.parameters ?? []).some((parameter: { schema?: Record<string, unknown> }) =>
        ['pattern', 'minLength', 'maxLength', 'enum', 'minimum', 'maximum'].some(
          key => key in (parameter.schema ?? {}),
        ),
      );
      if (constrained && !op.responses['400']) missing.push(`${method.toUpperCase()} ${path}`);
    }
  }
  t.assert.deepEqual(missing, []);
});
