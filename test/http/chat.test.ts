/**
 * Games' chat over HTTP (DECISIONS §17): `POST .../chat` and `GET .../chat` under both lichess prefixes, forms and
 * JSON; who writes and reads which room; the text's limits; the rate limit per player (on a fake clock); the
 * chatLine lines of the lichess game streams, the players' room only on the players' streams and nothing on the
 * seed's own stream; a line written on one instance of a PostgreSQL database reaching the streams of another. Every
 * answer and stream line of the lichess paths is validated against lichess's own schema (test/fixtures/lichess).
 */
import { suite, test, type TestContext } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { assertError, json, makeTestApp, type TestApp, type TestAppOptions, requestsAs } from '../helpers/app.ts';
import { assertLichess } from '../helpers/lichess.ts';
import { openStream, type StreamClient } from '../stream/helpers.ts';
import { databaseOfFile } from '../helpers/postgres.ts';
import { PostgresGameStore } from '../../src/store/postgres.ts';
import { ChangeListener } from '../../src/bus/postgres.ts';
import { CHAT_LIMIT } from '../../src/domain/chat.ts';
import type { ChatStore } from '../../src/store/chat.ts';

const SERVICE_TOKEN = 'service-token-for-chat-0001';
let players = 0;

interface Player {
  id: string;
  name: string;
  token: string;
}

interface ChatApp extends TestApp {
  as: (token: string | undefined, request: InjectOptions | string) => Promise<LightMyRequestResponse>;
  /** A player with a token of their own; `bot`: a bot's, which writes on the Bot API's paths (DECISIONS §16a). */
  player: (name: string, options?: { bot?: boolean }) => Promise<Player>;
  url: string;
  stream: (path: string, token?: string) => Promise<StreamClient>;
}

async function start(t: TestContext, options: TestAppOptions = { tokens: [SERVICE_TOKEN] }): Promise<ChatApp> {
  const testApp = await makeTestApp(options);
  t.after(() => testApp.app.close());
  const as = await requestsAs(testApp.app);
  const player: ChatApp['player'] = async (name, { bot = false } = {}) => {
    const id = `${name.toLowerCase()}-${++players}`;
    const issued = await testApp.playerTokens.issue({ id, displayName: name }, { bot });
    return { id, name, token: issued.token };
  };
  await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(testApp.app.server.address() as { port: number }).port}`;
  const streams: StreamClient[] = [];
  t.after(() => streams.forEach(stream => stream.close()));
  const stream: ChatApp['stream'] = async (path, token) => {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const opened = await openStream(`${url}${path}`, { headers });
    t.assert.equal(opened.status, 200, opened.body);
    streams.push(opened);
    await opened.waitForEvents(1); // gameFull: the stream follows the game from here
    return opened;
  };
  return { ...testApp, as, player, url, stream };
}

/** Ann challenges Bob (Ann white, correspondence), Bob accepts: the game's id. */
async function challengeGame(app: ChatApp, ann: Player, bob: Player): Promise<string> {
  const made = await app.as(ann.token, {
    method: 'POST',
    url: `/api/challenge/${bob.id}`,
    payload: { days: 3, color: 'white' },
  });
  const { id } = json<{ id: string }>(made);
  const accepted = await app.as(bob.token, { method: 'POST', url: `/api/challenge/${id}/accept` });
  if (accepted.statusCode !== 200) throw new Error(accepted.body);
  return id;
}

const say = (app: ChatApp, token: string | undefined, path: string, body: Record<string, string>, form = false) =>
  app.as(token, {
    method: 'POST',
    url: path,
    ...(form
      ? {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams(body).toString(),
        }
      : { payload: body }),
  });

const ok = (t: TestContext, res: LightMyRequestResponse) => {
  t.assert.equal(res.statusCode, 200, res.body);
  t.assert.deepEqual(json(res), { ok: true });
  assertLichess('Ok', json(res));
};

/** The chatLine lines a stream got so far, each checked against lichess's ChatLineEvent. */
const chatLines = (stream: StreamClient) =>
  stream.events
    .filter(event => event.type === 'chatLine')
    .map(event => {
      assertLichess('ChatLineEvent', event);
      return [event.room, event.username, event.text];
    });

const settle = () => new Promise(resolve => setTimeout(resolve, 150)); // a line sent where it should not be is here by now

test("the players' room reaches the players' lichess streams only; the spectators' room every lichess stream", async (t: TestContext) => {
  const app = await start(t);
  const ann = await app.player('Ann', { bot: true });
  const [bob, carol] = [await app.player('Bob'), await app.player('Carol')];
  const gameId = await challengeGame(app, ann, bob);
  const annStream = await app.stream(`/api/bot/game/stream/${gameId}`, ann.token);
  const bobStream = await app.stream(`/api/board/game/stream/${gameId}?cb=1`, bob.token);
  const carolStream = await app.stream(`/api/board/game/stream/${gameId}`, carol.token);
  const seedStream = await app.stream(`/api/board/game/${gameId}/stream`, ann.token);
  const serviceStream = await app.stream(`/api/bot/game/stream/${gameId}`, SERVICE_TOKEN);

  // 1. Ann (a bot: JSON, Bot API) and Bob (a form, Board API, a cache-buster) in the players' room.
  ok(t, await say(app, ann.token, `/api/bot/game/${gameId}/chat`, { room: 'player', text: 'good luck, Bob ♞' }));
  ok(t, await say(app, bob.token, `/api/board/game/${gameId}/chat?cb=7`, { room: 'player', text: 'you too' }, true));
  // 2. Carol watches: the spectators' room is hers, the players' room is not.
  ok(t, await say(app, carol.token, `/api/board/game/${gameId}/chat`, { room: 'spectator', text: 'hi all' }, true));
  const refused = await say(app, carol.token, `/api/board/game/${gameId}/chat`, { room: 'player', text: 'psst' });
  t.assert.equal(assertError(refused, 'FORBIDDEN').error, json(refused).message);
  // 3. A player writes to the spectators too; a move in between keeps its place among the lines.
  t.assert.equal(
    (await app.as(ann.token, { method: 'POST', url: `/api/bot/game/${gameId}/move/e2e4` })).statusCode,
    200,
  );
  ok(t, await say(app, ann.token, `/api/bot/game/${gameId}/chat`, { room: 'spectator', text: 'welcome' }));

  const everything = [
    ['player', 'Ann', 'good luck, Bob ♞'],
    ['player', 'Bob', 'you too'],
    ['spectator', 'Carol', 'hi all'],
    ['spectator', 'Ann', 'welcome'],
  ];
  for (const stream of [annStream, bobStream, serviceStream]) {
    await stream.waitFor(() => chatLines(stream).length >= 4, 'four chat lines');
  }
  await carolStream.waitFor(() => chatLines(carolStream).length >= 2, 'two chat lines');
  await settle();
  for (const stream of [annStream, bobStream, serviceStream]) {
    t.assert.deepEqual(chatLines(stream), everything);
    t.assert.deepEqual(
      stream.events.map(event => event.type),
      ['gameFull', 'chatLine', 'chatLine', 'chatLine', 'gameState', 'chatLine'],
    );
  }
  t.assert.deepEqual(
    chatLines(carolStream),
    everything.filter(([room]) => room === 'spectator'),
  );
  t.assert.deepEqual(
    seedStream.events.map(event => event.type),
    ['gameFull', 'gameState'],
    "the seed's own stream carries no chat",
  );

  // 4. GET: the players' room in lichess's shape, for the players (and a service token); not for Carol.
  for (const [token, path] of [
    [ann.token, `/api/bot/game/${gameId}/chat`],
    [bob.token, `/api/board/game/${gameId}/chat?cb=2`],
    [SERVICE_TOKEN, `/api/board/game/${gameId}/chat`],
  ] as const) {
    const res = await app.as(token, path);
    t.assert.equal(res.statusCode, 200, res.body);
    assertLichess('PlayerGameChat', json(res));
    t.assert.deepEqual(json(res), [
      { text: 'good luck, Bob ♞', user: 'Ann' },
      { text: 'you too', user: 'Bob' },
    ]);
  }
  assertError(await app.as(carol.token, `/api/board/game/${gameId}/chat`), 'FORBIDDEN');
});

test('what a line may be: a room, 1-140 characters, no control characters, a visible one; a game that exists', async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
  const gameId = await challengeGame(app, ann, bob);
  const path = `/api/board/game/${gameId}/chat`;
  const cases: Array<[Record<string, string>, string]> = [
    [{ text: 'hello' }, 'room'],
    [{ room: 'lobby', text: 'hello' }, 'room'],
    [{ room: 'player' }, 'text'],
    [{ room: 'player', text: '' }, 'text'],
    [{ room: 'player', text: 'x'.repeat(141) }, 'text'],
    [{ room: 'player', text: 'two\nlines' }, 'text'],
    [{ room: 'spectator', text: 'bell\u0007' }, 'text'],
    [{ room: 'spectator', text: 'c1\u0085' }, 'text'],
    // Nothing to see (DECISIONS §16a): blanks, a byte-order mark, zero-width characters, fillers.
    [{ room: 'player', text: '   ' }, 'text'],
    [{ room: 'player', text: '\u00a0\u2003\u3000' }, 'text'],
    [{ room: 'player', text: '\ufeff' }, 'text'],
    [{ room: 'spectator', text: '\u200b\u200c\u200d\u2060' }, 'text'],
    [{ room: 'spectator', text: ' \u3164\u2800\ufe0f ' }, 'text'],
  ];
  for (const [body, field] of cases) {
    for (const form of [false, true]) {
      const res = await say(app, ann.token, path, body, form);
      const error = assertError(res, 'INVALID_BODY', field);
      t.assert.equal(error.error, error.message, 'lichess error field');
    }
  }
  // JSON only: a form cannot carry an unpaired surrogate (its UTF-8 encoding makes it U+FFFD).
  assertError(await say(app, ann.token, path, { room: 'player', text: 'half \uD83D pair' }), 'INVALID_BODY', 'text');
  assertError(await app.as(ann.token, { method: 'POST', url: path }), 'INVALID_BODY', 'room');
  // 140 characters are counted as characters, not UTF-16 units: 140 knights are 140 characters.
  ok(t, await say(app, ann.token, path, { room: 'player', text: 'x'.repeat(140) }));
  ok(t, await say(app, ann.token, path, { room: 'player', text: '🐴'.repeat(140) }, true));
  ok(t, await say(app, ann.token, path, { room: 'player', text: 'tab\u00a0space — “quotes”' }));
  ok(t, await say(app, ann.token, path, { room: 'player', text: '\ufeff \u200b.' }, true)); // one visible: enough
  t.assert.deepEqual(
    json(await app.as(bob.token, path)).map((line: { text: string }) => [...line.text].length),
    [140, 140, 20, 4],
  );
  assertError(
    await app.as(ann.token, {
      method: 'POST',
      url: path,
      headers: { 'content-type': 'text/plain' },
      payload: 'hello',
    }),
    'UNSUPPORTED_MEDIA_TYPE',
  );
  assertError(
    await say(app, ann.token, '/api/board/game/Zz999999/chat', { room: 'player', text: 'hi' }),
    'GAME_NOT_FOUND',
  );
  assertError(await app.as(ann.token, '/api/bot/game/Zz999999/chat'), 'GAME_NOT_FOUND');
  assertError(
    await say(app, ann.token, '/api/board/game/bad-id/chat', { room: 'player', text: 'hi' }),
    'INVALID_GAME_ID',
    'gameId',
  );
  assertError(await say(app, undefined, path, { room: 'player', text: 'hi' }), 'UNAUTHORIZED');
});

test('at most 20 lines a minute per player, across games and rooms: then 429 with Retry-After, on a fake clock', async (t: TestContext) => {
  const start0 = Date.UTC(2026, 2, 1, 12);
  t.mock.timers.enable({ apis: ['Date'], now: start0 });
  const app = await start(t);
  const [ann, bob, carol] = [await app.player('Ann'), await app.player('Bob'), await app.player('Carol')];
  const one = await challengeGame(app, ann, bob);
  const two = await challengeGame(app, ann, carol);
  t.assert.equal(CHAT_LIMIT.lines, 20);
  for (let i = 0; i < 20; i++) {
    if (i === 10) t.mock.timers.tick(15_000); // the second half 15 s later
    const [game, room] = i % 2 === 0 ? [one, 'player'] : [two, 'spectator'];
    ok(t, await say(app, ann.token, `/api/board/game/${game}/chat`, { room, text: `line ${i}` }, i % 3 === 0));
  }
  t.mock.timers.tick(5_000); // 20 s after the first line
  const limited = await say(app, ann.token, `/api/board/game/${one}/chat`, { room: 'player', text: 'one more' });
  const error = assertError(limited, 'RATE_LIMITED');
  t.assert.equal(error.error, error.message);
  t.assert.equal(limited.headers['retry-after'], '40', 'the first line leaves the minute in 40 s');
  // Others write on.
  ok(t, await say(app, bob.token, `/api/board/game/${one}/chat`, { room: 'player', text: 'slow down' }));
  t.mock.timers.tick(39_999);
  assertError(
    await say(app, ann.token, `/api/board/game/${one}/chat`, { room: 'player', text: 'now?' }),
    'RATE_LIMITED',
  );
  t.mock.timers.tick(1);
  // The first ten lines have left the minute: ten more, and the refused ones were not kept.
  for (let i = 0; i < 10; i++) {
    ok(t, await say(app, ann.token, `/api/board/game/${one}/chat`, { room: 'player', text: `again ${i}` }));
  }
  const refused = await say(app, ann.token, `/api/board/game/${one}/chat`, { room: 'player', text: 'too many' });
  assertError(refused, 'RATE_LIMITED');
  t.assert.equal(refused.headers['retry-after'], '15');
  const kept = json<Array<{ text: string }>>(await app.as(bob.token, `/api/board/game/${one}/chat`));
  t.assert.equal(kept.length, 10 + 1 + 10);
  t.assert.ok(!kept.some(line => ['one more', 'now?', 'too many'].includes(line.text)));
});

test("a game keeps its room's latest 200 lines, whatever is written", async (t: TestContext) => {
  t.mock.timers.enable({ apis: ['Date'], now: Date.UTC(2026, 2, 1, 12) });
  const app = await start(t);
  const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
  const gameId = await challengeGame(app, ann, bob);
  const path = `/api/board/game/${gameId}/chat`;
  ok(t, await say(app, bob.token, path, { room: 'spectator', text: 'the other room' }));
  for (let i = 0; i < 205; i++) {
    if (i % 20 === 0) t.mock.timers.tick(60_000); // within the rate: 20 lines a minute
    ok(t, await say(app, ann.token, path, { room: 'player', text: `line ${i}` }));
  }
  const kept = json<Array<{ text: string }>>(await app.as(bob.token, path));
  t.assert.equal(kept.length, CHAT_LIMIT.kept);
  t.assert.deepEqual([kept[0]!.text, kept.at(-1)!.text], ['line 5', 'line 204']);
  const spectators = await (app.store as unknown as ChatStore).chatLines(gameId, 'spectator');
  t.assert.deepEqual(
    spectators.map(line => line.text),
    ['the other room'],
  );
});

test('authentication off: a line is written in the name of the side to move, and every stream reads both rooms', async (t: TestContext) => {
  const app = await start(t, {});
  const created = await app.as(undefined, {
    method: 'POST',
    url: '/api/board/game',
    payload: { white: { id: 'ann', displayName: 'Ann' }, black: { id: 'bob', displayName: 'Bob' } },
  });
  const { gameId } = json<{ gameId: string }>(created);
  const stream = await app.stream(`/api/board/game/stream/${gameId}`);
  ok(t, await say(app, undefined, `/api/board/game/${gameId}/chat`, { room: 'player', text: 'white speaks' }));
  t.assert.equal(
    (await app.as(undefined, { method: 'POST', url: `/api/board/game/${gameId}/move/e2e4` })).statusCode,
    200,
  );
  ok(t, await say(app, undefined, `/api/bot/game/${gameId}/chat`, { room: 'spectator', text: 'black speaks' }, true));
  await stream.waitFor(() => chatLines(stream).length >= 2, 'two chat lines');
  t.assert.deepEqual(chatLines(stream), [
    ['player', 'Ann', 'white speaks'],
    ['spectator', 'Bob', 'black speaks'],
  ]);
  const read = await app.as(undefined, `/api/board/game/${gameId}/chat`);
  assertLichess('PlayerGameChat', json(read));
  t.assert.deepEqual(json(read), [{ text: 'white speaks', user: 'Ann' }]);
});

const pg = await databaseOfFile();

suite('on PostgreSQL', { skip: pg.skip }, () => {
  test('two instances: a line written on one reaches the lichess streams on both, once each', async (t: TestContext) => {
    const stores = await Promise.all([PostgresGameStore.open(pg.url()), PostgresGameStore.open(pg.url())]);
    t.after(() => Promise.all(stores.map(store => store.close())));
    const [a, b] = await Promise.all(
      stores.map(store => start(t, { store, sharedStore: true, tokens: [SERVICE_TOKEN] })),
    );
    for (const instance of [a!, b!]) {
      const listener = new ChangeListener(pg.url(), {
        feed: { announce: () => undefined, publish: () => undefined, resync: () => undefined },
        players: instance.players,
        challenges: instance.challenges!,
        chat: instance.chat!,
      });
      await listener.start();
      t.after(() => listener.close());
    }
    const ann = await a!.player('Ann', { bot: true });
    const [bob, carol] = [await a!.player('Bob'), await a!.player('Carol')];
    const gameId = await challengeGame(a!, ann, bob);
    const bobOnB = await b!.stream(`/api/board/game/stream/${gameId}`, bob.token);
    const carolOnB = await b!.stream(`/api/bot/game/stream/${gameId}`, carol.token);
    const annOnA = await a!.stream(`/api/bot/game/stream/${gameId}`, ann.token);
    ok(t, await say(a!, ann.token, `/api/bot/game/${gameId}/chat`, { room: 'player', text: 'from A' }, true));
    ok(t, await say(b!, carol.token, `/api/board/game/${gameId}/chat`, { room: 'spectator', text: 'from B' }));
    const both = [
      ['player', 'Ann', 'from A'],
      ['spectator', 'Carol', 'from B'],
    ];
    for (const stream of [bobOnB, annOnA]) {
      await stream.waitFor(() => chatLines(stream).length >= 2, 'two chat lines');
    }
    await carolOnB.waitFor(() => chatLines(carolOnB).length >= 1, 'one chat line');
    await settle();
    t.assert.deepEqual(chatLines(bobOnB), both);
    t.assert.deepEqual(chatLines(annOnA), both);
    t.assert.deepEqual(chatLines(carolOnB), [both[1]]);
    // Kept in the one database: either instance reads it.
    t.assert.deepEqual(json(await b!.as(bob.token, `/api/bot/game/${gameId}/chat`)), [{ text: 'from A', user: 'Ann' }]);
  });
});
