/**
 * Challenges over HTTP (DECISIONS §16): made to a player or open, as JSON (the form's keys or a nested clock) and as
 * forms; the validation and its codes; accept (the game with the challenge's clock, position and colours), decline
 * with lichess's reasons, cancel; the pending lists and the show; the tokens they need; the expiry on a fake clock;
 * the events on both players' streams; and ten players racing to accept one open challenge, on SQLite and on two
 * instances of one PostgreSQL database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite, test, type TestContext } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { ChallengeJson } from '../../src/contract/challenges.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import { PostgresGameStore } from '../../src/store/postgres.ts';
import type { GameStore } from '../../src/store/store.ts';
import { assertError, json, makeTestApp, type TestApp, requestsAs } from '../helpers/app.ts';
import { databaseOfFile } from '../helpers/postgres.ts';
import { openStream, type StreamClient } from '../stream/helpers.ts';
import { ChangeListener } from '../../src/bus/postgres.ts';
import { settle } from '../helpers/store.ts';

const SERVICE_TOKEN = 'service-token-for-challenges-01';
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let players = 0;

interface ChallengeApp extends TestApp {
  /** A request as `token` (none: no Authorization), its answer checked against the OpenAPI document. */
  as: (token: string | undefined, request: InjectOptions | string) => Promise<LightMyRequestResponse>;
  /** Issues a token for a new player (ids are unique per call). */
  player: (name: string) => Promise<{ id: string; name: string; token: string }>;
}

async function start(
  t: TestContext,
  options: { store?: GameStore; ttlMs?: number; sharedStore?: boolean } = {},
): Promise<ChallengeApp> {
  const testApp = await makeTestApp({
    tokens: [SERVICE_TOKEN],
    sharedStore: options.sharedStore ?? false,
    ...(options.store ? { store: options.store } : {}),
    ...(options.ttlMs ? { challengeTtlMs: options.ttlMs } : {}),
  });
  t.after(() => testApp.app.close());
  const as = await requestsAs(testApp.app);
  const player: ChallengeApp['player'] = async name => {
    const id = `${name}-${++players}`;
    const issued = await testApp.playerTokens.issue({ id, displayName: name });
    return { id, name, token: issued.token };
  };
  return { ...testApp, as, player };
}

const challenge = (app: ChallengeApp, token: string, to: string, payload?: object | string, form = false) =>
  app.as(token, {
    method: 'POST',
    url: `/api/challenge/${to}`,
    ...(payload === undefined ? {} : { payload }),
    ...(form ? { headers: FORM } : {}),
  });

const answer = (app: ChallengeApp, token: string, id: string, action: string, payload?: object | string) =>
  app.as(token, {
    method: 'POST',
    url: `/api/challenge/${id}/${action}`,
    ...(payload === undefined ? {} : { payload }),
    ...(typeof payload === 'string' ? { headers: FORM } : {}),
  });

/** Makes a challenge that must succeed: its ChallengeJson. */
async function made(app: ChallengeApp, token: string, to: string, payload?: object | string, form = false) {
  const res = await challenge(app, token, to, payload, form);
  if (res.statusCode !== 200) throw new Error(`challenge failed: ${res.statusCode} ${res.body}`);
  return json<ChallengeJson>(res);
}

test('a challenge in JSON with the form keys: lichess ChallengeJson, shown to both, listed in and out', async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
  const res = await challenge(app, ann.token, bob.id, { 'clock.limit': 300, 'clock.increment': 2, color: 'white' });
  t.assert.equal(res.statusCode, 200);
  const body = json<ChallengeJson>(res);
  t.assert.match(body.id, /^[A-Za-z0-9]{8}$/);
  t.assert.deepEqual(
    { ...body, id: undefined },
    {
      id: undefined,
      url: `http://localhost:80/api/challenge/${body.id}/show`, // the request's own origin, without PUBLIC_URL
      status: 'created',
      // Their ratings in the challenge's perf (DECISIONS §21): new players'.
      challenger: { id: ann.id, name: 'Ann', rating: 1500, provisional: true },
      destUser: { id: bob.id, name: 'Bob', rating: 1500, provisional: true },
      variant: { key: 'standard', name: 'Standard', short: 'Std' },
      rated: false,
      speed: 'blitz',
      timeControl: { type: 'clock', limit: 300, increment: 2, show: '5+2' },
      color: 'white',
      finalColor: 'white',
      perf: { icon: '', name: 'Blitz' },
      direction: 'out',
    },
  );
  const shown = json<ChallengeJson>(await app.as(bob.token, `/api/challenge/${body.id}/show`));
  t.assert.equal(shown.direction, 'in');
  t.assert.equal(shown.status, 'created');
  const bobs = json(await app.as(bob.token, '/api/challenge'));
  t.assert.deepEqual(
    bobs.in.map((c: ChallengeJson) => [c.id, c.direction]),
    [[body.id, 'in']],
  );
  t.assert.deepEqual(bobs.out, []);
  const anns = json(await app.as(ann.token, '/api/challenge'));
  t.assert.deepEqual(
    anns.out.map((c: ChallengeJson) => [c.id, c.direction]),
    [[body.id, 'out']],
  );
  t.assert.deepEqual(anns.in, []);
  assertError(await app.as(ann.token, '/api/challenge/Zz999999/show'), 'CHALLENGE_NOT_FOUND');
});

test('forms and JSON alike: form fields, a nested clock, days, nothing (unlimited); speeds by lichess estimate', async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
  const form = await made(app, ann.token, bob.id, 'clock.limit=60&clock.increment=1&color=black&rated=false', true);
  t.assert.deepEqual(
    [form.timeControl, form.color, form.finalColor, form.speed],
    [{ type: 'clock', limit: 60, increment: 1, show: '1+1' }, 'black', 'black', 'bullet'],
  );
  const nested = await made(app, ann.token, bob.id, { clock: { limit: 15, increment: 0 } });
  t.assert.deepEqual(
    [nested.timeControl, nested.speed],
    [{ type: 'clock', limit: 15, increment: 0, show: '¼+0' }, 'ultraBullet'],
  );
  t.assert.ok(['white', 'black'].includes(nested.finalColor), 'a random colour is drawn when it is made');
  t.assert.equal(nested.color, 'random');
  const rapid = await made(app, ann.token, bob.id, 'clock.limit=600&clock.increment=5', true);
  t.assert.equal(rapid.speed, 'rapid');
  const classical = await made(app, ann.token, bob.id, { 'clock.limit': 1800, 'clock.increment': 0 });
  t.assert.equal(classical.speed, 'classical');
  const days = await made(app, ann.token, bob.id, 'days=3', true);
  t.assert.deepEqual([days.timeControl, days.speed], [{ type: 'correspondence', daysPerTurn: 3 }, 'correspondence']);
  const unlimited = await made(app, ann.token, bob.id);
  t.assert.deepEqual([unlimited.timeControl, unlimited.speed], [{ type: 'unlimited' }, 'correspondence']);
  const fen = '4k3/8/8/8/8/8/8/4K2R w K - 0 1';
  const fromPosition = await made(app, ann.token, bob.id, `fen=${encodeURIComponent(fen)}`, true);
  t.assert.equal(fromPosition.initialFen, fen);
  t.assert.equal(fromPosition.variant.key, 'fromPosition');
  // Forms are the challenges' own: the other operations still take JSON only.
  const game = await app.as(ann.token, { method: 'POST', url: '/api/board/game', payload: 'clock=1', headers: FORM });
  assertError(game, 'UNSUPPORTED_MEDIA_TYPE');
});

test('a bad request is 400 naming its field; oneself INVALID_CHALLENGE; an unknown player 404; 21 pending 429', async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
  const rows: Array<[object | string, string]> = [
    [{ rated: 'yes' }, 'rated'],
    ['rated=maybe', 'rated'],
    [{ 'clock.limit': 10, 'clock.increment': 0 }, 'clock.limit'],
    ['clock.limit=0&clock.increment=3', 'clock.limit'],
    [{ 'clock.limit': 300, 'clock.increment': 181 }, 'clock.increment'],
    [{ 'clock.limit': 300 }, 'clock.increment'],
    [{ days: 4 }, 'days'],
    [{ days: 3, 'clock.limit': 300, 'clock.increment': 0 }, 'days'],
    [{ color: 'green' }, 'color'],
    [{ variant: 'chess960' }, 'variant'],
    [{ fen: 'not a fen' }, 'fen'],
  ];
  for (const [payload, field] of rows) {
    assertError(await challenge(app, ann.token, bob.id, payload, typeof payload === 'string'), 'INVALID_BODY', field);
  }
  assertError(await challenge(app, ann.token, ann.id, {}), 'INVALID_CHALLENGE');
  // Rated without a clock (DECISIONS §21): INVALID_CHALLENGE naming the reason.
  assertError(await challenge(app, ann.token, bob.id, { rated: true }), 'INVALID_CHALLENGE', 'rated');
  assertError(await challenge(app, ann.token, bob.id, 'rated=true', true), 'INVALID_CHALLENGE', 'rated');
  assertError(await challenge(app, ann.token, 'nobody-known', {}), 'PLAYER_NOT_FOUND');
  t.assert.deepEqual(json(await app.as(ann.token, '/api/challenge')).out, [], 'nothing was made');
  // A player becomes known with a token, and stays known once it is revoked.
  const cat = await app.player('Cat');
  const catTokens = await app.playerTokens.list(cat.id);
  for (const token of catTokens) await app.playerTokens.revoke(token.id);
  t.assert.equal((await challenge(app, ann.token, cat.id, {})).statusCode, 200);
  for (let i = 1; i < 20; i++) await made(app, ann.token, bob.id);
  t.assert.equal(json(await app.as(ann.token, '/api/challenge')).out.length, 20);
  assertError(await challenge(app, ann.token, bob.id, {}), 'RATE_LIMITED');
  assertError(await app.as(ann.token, { method: 'POST', url: '/api/challenge/open' }), 'RATE_LIMITED');
  // One answered: room for one more.
  const first = json(await app.as(ann.token, '/api/challenge')).out[0] as ChallengeJson;
  t.assert.equal((await answer(app, ann.token, first.id, 'cancel')).statusCode, 200);
  t.assert.equal((await challenge(app, ann.token, bob.id, {})).statusCode, 200);
});

test('without a player token: 401 when authentication is on, 403 FORBIDDEN for a service token or with it off', async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
  const pending = await made(app, ann.token, bob.id);
  const requests: InjectOptions[] = [
    { method: 'POST', url: `/api/challenge/${bob.id}` },
    { method: 'POST', url: '/api/challenge/open' },
    { method: 'GET', url: '/api/challenge' },
    { method: 'GET', url: `/api/challenge/${pending.id}/show` },
    ...['accept', 'decline', 'cancel'].map(action => ({
      method: 'POST' as const,
      url: `/api/challenge/${pending.id}/${action}`,
    })),
  ];
  for (const request of requests) {
    assertError(await app.as(undefined, request), 'UNAUTHORIZED');
    assertError(await app.as(SERVICE_TOKEN, request), 'FORBIDDEN');
  }
  const open = await makeTestApp();
  t.after(() => open.app.close());
  for (const request of requests) assertError(await open.app.inject(request), 'FORBIDDEN');
  t.assert.equal(json<ChallengeJson>(await app.as(bob.token, `/api/challenge/${pending.id}/show`)).status, 'created');
});

test('accept: the challenged player only; the game has the challenge clock, position and colours; then 404', async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob, cat] = [await app.player('Ann'), await app.player('Bob'), await app.player('Cat')];
  const fen = '4k3/8/8/8/8/8/8/4K2R b K - 0 1';
  const made1 = await made(app, ann.token, bob.id, { 'clock.limit': 180, 'clock.increment': 2, color: 'black', fen });
  assertError(await answer(app, cat.token, made1.id, 'accept'), 'FORBIDDEN');
  assertError(await answer(app, ann.token, made1.id, 'accept'), 'FORBIDDEN');
  const accepted = await answer(app, bob.token, made1.id, 'accept');
  t.assert.equal(accepted.statusCode, 200);
  t.assert.deepEqual(json(accepted), { ok: true });
  const shown = json<ChallengeJson>(await app.as(ann.token, `/api/challenge/${made1.id}/show`));
  t.assert.equal(shown.status, 'accepted');
  const stored = await app.challenges!.find(made1.id);
  t.assert.equal(stored.gameId, made1.id, "the game has the challenge's id, as on lichess");
  const game = json(await app.as(bob.token, `/api/board/game/${stored.gameId}`));
  t.assert.deepEqual([game.white.id, game.black.id], [bob.id, ann.id], 'ann asked for black');
  t.assert.deepEqual(game.clock.initial, 180_000);
  t.assert.deepEqual(game.clock.increment, 2000);
  t.assert.equal(game.state.fen, fen);
  for (const action of ['accept', 'decline', 'cancel']) {
    assertError(await answer(app, cat.token, made1.id, action), 'CHALLENGE_NOT_FOUND');
    assertError(await answer(app, ann.token, made1.id, action), 'CHALLENGE_NOT_FOUND');
  }
  t.assert.deepEqual(json(await app.as(bob.token, '/api/challenge')), { in: [], out: [] });
  // Correspondence: the game's clock has its days per move.
  const days = await made(app, ann.token, bob.id, 'days=2&color=white', true);
  t.assert.equal((await answer(app, bob.token, days.id, 'accept')).statusCode, 200);
  const corr = json(await app.as(ann.token, `/api/board/game/${(await app.challenges!.find(days.id)).gameId}`));
  t.assert.deepEqual([corr.white.id, corr.clock.daysPerMove], [ann.id, 2]);
});

test('decline with lichess reasons (JSON or form), cancel by the challenger, the challenged one cancel declines', async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
  const one = await made(app, ann.token, bob.id);
  assertError(await answer(app, ann.token, one.id, 'decline'), 'FORBIDDEN');
  assertError(await answer(app, bob.token, one.id, 'decline', { reason: 'busy' }), 'INVALID_BODY', 'reason');
  t.assert.equal((await answer(app, bob.token, one.id, 'decline', 'reason=tooFast')).statusCode, 200);
  const declined = json<ChallengeJson>(await app.as(ann.token, `/api/challenge/${one.id}/show`));
  t.assert.equal(declined.status, 'declined');
  t.assert.equal(declined.declineReasonKey, 'toofast');
  t.assert.match(declined.declineReason!, /too fast/);

  const two = await made(app, ann.token, bob.id);
  t.assert.equal((await answer(app, bob.token, two.id, 'decline', { reason: 'later' })).statusCode, 200);
  t.assert.equal(
    json<ChallengeJson>(await app.as(ann.token, `/api/challenge/${two.id}/show`)).declineReasonKey,
    'later',
  );

  const three = await made(app, ann.token, bob.id);
  t.assert.equal((await answer(app, bob.token, three.id, 'cancel')).statusCode, 200);
  const byBob = json<ChallengeJson>(await app.as(ann.token, `/api/challenge/${three.id}/show`));
  t.assert.deepEqual([byBob.status, byBob.declineReasonKey], ['declined', 'generic']);

  const four = await made(app, ann.token, bob.id);
  t.assert.equal((await answer(app, ann.token, four.id, 'cancel')).statusCode, 200);
  t.assert.equal(json<ChallengeJson>(await app.as(bob.token, `/api/challenge/${four.id}/show`)).status, 'canceled');
  assertError(await answer(app, bob.token, four.id, 'accept'), 'CHALLENGE_NOT_FOUND');
  assertError(await answer(app, bob.token, four.id, 'decline'), 'CHALLENGE_NOT_FOUND');
});

test('an open challenge: no destUser, any other player accepts it, first accept wins', async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob, cat] = [await app.player('Ann'), await app.player('Bob'), await app.player('Cat')];
  const res = await app.as(ann.token, {
    method: 'POST',
    url: '/api/challenge/open',
    payload: 'clock.limit=300&clock.increment=0&color=white',
    headers: FORM,
  });
  t.assert.equal(res.statusCode, 200);
  const open = json<ChallengeJson>(res);
  t.assert.equal(open.destUser, null);
  assertError(await answer(app, ann.token, open.id, 'accept'), 'FORBIDDEN');
  assertError(await answer(app, cat.token, open.id, 'decline'), 'FORBIDDEN');
  t.assert.equal((await answer(app, cat.token, open.id, 'accept')).statusCode, 200);
  assertError(await answer(app, bob.token, open.id, 'accept'), 'CHALLENGE_NOT_FOUND');
  const game = json(await app.as(cat.token, `/api/board/game/${(await app.challenges!.find(open.id)).gameId}`));
  t.assert.deepEqual([game.white.id, game.black.id], [ann.id, cat.id]);
});

test('an accept whose game was not made (a crash after the claim) makes it when the accepter tries again', async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
  const pending = await made(app, ann.token, bob.id, { color: 'white' });
  const store = app.store as SqliteGameStore;
  // What a crash between the claim and the game leaves: the challenge accepted, with its game id, and no game.
  const stored = (await store.challenge(pending.id))!;
  const claimed = {
    ...stored,
    version: 2,
    status: 'accepted' as const,
    acceptedBy: { id: bob.id, displayName: 'Bob' },
    gameId: 'Crash001',
  };
  t.assert.equal(await store.claimChallenge(claimed, 1), true);
  assertError(await app.as(bob.token, '/api/board/game/Crash001'), 'GAME_NOT_FOUND');
  assertError(await answer(app, ann.token, pending.id, 'accept'), 'CHALLENGE_NOT_FOUND', undefined);
  t.assert.equal((await answer(app, bob.token, pending.id, 'accept')).statusCode, 200);
  const game = json(await app.as(bob.token, '/api/board/game/Crash001'));
  t.assert.deepEqual([game.white.id, game.black.id], [ann.id, bob.id]);
  // Again: the same game, not another.
  t.assert.equal((await answer(app, bob.token, pending.id, 'accept')).statusCode, 200);
  const listed = json(await app.as(bob.token, `/api/board/game?player=${bob.id}`));
  t.assert.deepEqual(
    listed.games.map((g: { gameId: string }) => g.gameId),
    ['Crash001'],
  );
});

test('a pending challenge expires after CHALLENGE_TTL_S on its own (fake clock): canceled; long ones last 7 days', async (t: TestContext) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: T0 });
  const app = await start(t, { ttlMs: 60_000 });
  const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
  const real = await made(app, ann.token, bob.id, { 'clock.limit': 300, 'clock.increment': 0 });
  const corr = await made(app, ann.token, bob.id, { days: 1 });
  t.mock.timers.tick(59_999);
  await settle();
  t.assert.equal((await app.challenges!.find(real.id)).status, 'created');
  t.mock.timers.tick(1);
  await settle();
  t.assert.equal((await app.challenges!.find(real.id)).status, 'canceled', 'recorded by the timer, no request');
  t.assert.equal(json<ChallengeJson>(await app.as(bob.token, `/api/challenge/${real.id}/show`)).status, 'canceled');
  assertError(await answer(app, bob.token, real.id, 'accept'), 'CHALLENGE_NOT_FOUND');
  t.assert.deepEqual(
    json(await app.as(bob.token, '/api/challenge')).in.map((c: ChallengeJson) => c.id),
    [corr.id],
  );
  t.mock.timers.tick(7 * 86_400_000 - 60_001);
  await settle();
  t.assert.equal((await app.challenges!.find(corr.id)).status, 'created');
  t.mock.timers.tick(1);
  await settle();
  t.assert.equal((await app.challenges!.find(corr.id)).status, 'canceled');
});

test('expiries are armed at start from the store: one due while no service ran is canceled at once', async (t: TestContext) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: T0 });
  const store = SqliteGameStore.open(':memory:');
  t.after(() => store.close());
  const first = await start(t, { store, ttlMs: 60_000 });
  const [ann, bob] = [await first.player('Ann'), await first.player('Bob')];
  const pending = await made(first, ann.token, bob.id, { 'clock.limit': 300, 'clock.increment': 0 });
  first.challenges!.close(); // the first service stops: no timer of its own any more
  t.mock.timers.tick(120_000);
  await settle();
  t.assert.equal((await store.challenge(pending.id))!.status, 'created');
  const second = await start(t, { store, ttlMs: 60_000 });
  t.assert.equal(await second.challenges!.armExpiries(), 1);
  t.mock.timers.tick(0);
  await settle();
  t.assert.equal((await store.challenge(pending.id))!.status, 'canceled');
});

test("events on both players' streams: challenge, challengeDeclined, challengeCanceled, then gameStart once", async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
  const before = await made(app, ann.token, bob.id, { days: 3 });
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.app.server.address() as { port: number };
  const streams: StreamClient[] = [];
  const open = async (token: string) => {
    const stream = await openStream(`http://127.0.0.1:${address.port}/api/stream/event`, {
      headers: { authorization: `Bearer ${token}` },
    });
    streams.push(stream);
    return stream;
  };
  t.after(() => streams.forEach(stream => stream.close()));
  const [annStream, bobStream] = [await open(ann.token), await open(bob.token)];
  // The pending challenge first.
  await bobStream.waitForEvents(1);
  await annStream.waitForEvents(1);
  t.assert.deepEqual(
    [bobStream.events[0].type, bobStream.events[0].challenge.id, bobStream.events[0].challenge.direction],
    ['challenge', before.id, 'in'],
  );
  t.assert.equal(annStream.events[0].challenge.direction, 'out');

  const declined = await made(app, ann.token, bob.id);
  await answer(app, bob.token, declined.id, 'decline', { reason: 'casual' });
  const canceled = await made(app, ann.token, bob.id);
  await answer(app, ann.token, canceled.id, 'cancel');
  await answer(app, bob.token, before.id, 'accept');
  const gameId = (await app.challenges!.find(before.id)).gameId;
  const expected = [
    ['challenge', before.id],
    ['challenge', declined.id],
    ['challengeDeclined', declined.id],
    ['challenge', canceled.id],
    ['challengeCanceled', canceled.id],
    ['gameStart', gameId],
  ];
  for (const stream of [annStream, bobStream]) {
    await stream.waitForEvents(expected.length);
    await new Promise(resolve => setTimeout(resolve, 100)); // a second gameStart would be here by now
    t.assert.deepEqual(
      stream.events.map(event => [event.type, event.challenge?.id ?? event.game?.gameId]),
      expected,
    );
  }
  const declinedLine = bobStream.events[2].challenge as ChallengeJson;
  t.assert.deepEqual(
    [declinedLine.status, declinedLine.declineReasonKey, declinedLine.direction],
    ['declined', 'casual', 'in'],
  );
  t.assert.equal(declinedLine.declineReason, 'Please send me a casual challenge instead.');
  t.assert.equal(annStream.events[4].challenge.status, 'canceled');
});

test('announcements missed (a lost connection): a second look sends the challenges made and ended meanwhile, once', async (t: TestContext) => {
  // A shared store with nobody listening to its announcements: only the second look tells the streams.
  const app = await start(t, { sharedStore: true });
  const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
  const declined = await made(app, ann.token, bob.id);
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.app.server.address() as { port: number }).port}/api/stream/event`;
  const stream = await openStream(url, { headers: { authorization: `Bearer ${bob.token}` } });
  t.after(() => stream.close());
  await stream.waitForEvents(1);
  const later = await made(app, ann.token, bob.id);
  const canceled = await made(app, ann.token, bob.id);
  await answer(app, bob.token, declined.id, 'decline', { reason: 'rated' });
  await answer(app, ann.token, canceled.id, 'cancel');
  await new Promise(resolve => setTimeout(resolve, 100));
  t.assert.equal(stream.events.length, 1, 'nothing announced, nothing sent');
  app.players.resync();
  await stream.waitForEvents(3);
  app.players.resync(); // a second look finds nothing new
  await new Promise(resolve => setTimeout(resolve, 200));
  t.assert.deepEqual(
    stream.events.map(event => [event.type, event.challenge.id]),
    [
      ['challenge', declined.id],
      ['challenge', later.id],
      ['challengeDeclined', declined.id],
    ],
    'the one made and canceled meanwhile was never shown pending: nothing to end',
  );
  t.assert.equal(stream.events[2].challenge.declineReasonKey, 'rated');
});

/** Ten players accept one open challenge at once, through `apps` in turn: one game, nine 404. */
async function race(t: TestContext, apps: ChallengeApp[]): Promise<void> {
  const [first] = apps;
  const ann = await first!.player('Ann');
  const others = await Promise.all(Array.from({ length: 10 }, (_, i) => first!.player(`P${i}`)));
  const open = json<ChallengeJson>(
    await first!.as(ann.token, { method: 'POST', url: '/api/challenge/open', payload: { days: 1, color: 'white' } }),
  );
  const answers = await Promise.all(
    others.map((player, i) => answer(apps[i % apps.length]!, player.token, open.id, 'accept')),
  );
  const codes = answers.map(res => res.statusCode).sort();
  t.assert.deepEqual(codes, [200, ...Array<number>(9).fill(404)]);
  for (const res of answers.filter(res => res.statusCode === 404)) assertError(res, 'CHALLENGE_NOT_FOUND');
  const games = json(await first!.as(ann.token, `/api/board/game?player=${ann.id}`)).games as Array<{
    gameId: string;
    black: { id: string };
  }>;
  t.assert.equal(games.length, 1, 'exactly one game');
  const winner = others[answers.findIndex(res => res.statusCode === 200)]!;
  t.assert.equal(games[0]!.black.id, winner.id);
  t.assert.equal(games[0]!.gameId, (await first!.challenges!.find(open.id)).gameId);
}

test('ten players accepting one open challenge at once on SQLite: exactly one game, nine 404', async (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'chess-challenges-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // Two stores (two connections) on one file: each its own service, as two processes would be.
  const path = join(dir, 'race.sqlite');
  const [one, two] = [SqliteGameStore.open(path), SqliteGameStore.open(path)];
  t.after(() => Promise.all([one.close(), two.close()]));
  await race(t, [await start(t, { store: one }), await start(t, { store: two })]);
});

const pg = await databaseOfFile();

suite('on PostgreSQL', { skip: pg.skip }, () => {
  test('ten players accepting one open challenge at once over two instances: one game, nine 404', async (t: TestContext) => {
    const stores = await Promise.all([PostgresGameStore.open(pg.url()), PostgresGameStore.open(pg.url())]);
    t.after(() => Promise.all(stores.map(store => store.close())));
    await race(t, await Promise.all(stores.map(store => start(t, { store }))));
  });

  test("two instances: a challenge made or answered on one reaches the players' streams on both, once", async (t: TestContext) => {
    const stores = await Promise.all([PostgresGameStore.open(pg.url()), PostgresGameStore.open(pg.url())]);
    t.after(() => Promise.all(stores.map(store => store.close())));
    const [a, b] = await Promise.all(stores.map(store => start(t, { store, sharedStore: true })));
    const streams: StreamClient[] = [];
    t.after(() => streams.forEach(stream => stream.close()));
    const urls: string[] = [];
    for (const instance of [a!, b!]) {
      const listener = new ChangeListener(pg.url(), {
        feed: { announce: () => undefined, publish: () => undefined, resync: () => undefined },
        players: instance.players,
        challenges: instance.challenges!,
      });
      await listener.start();
      t.after(() => listener.close());
      await instance.app.listen({ port: 0, host: '127.0.0.1' });
      urls.push(`http://127.0.0.1:${(instance.app.server.address() as { port: number }).port}`);
    }
    const [ann, bob] = [await a!.player('Ann'), await a!.player('Bob')];
    const open = async (url: string, token: string) => {
      const stream = await openStream(`${url}/api/stream/event`, { headers: { authorization: `Bearer ${token}` } });
      streams.push(stream);
      return stream;
    };
    const [annStream, bobStream] = [await open(urls[0]!, ann.token), await open(urls[1]!, bob.token)];
    const declined = await made(a!, ann.token, bob.id, { days: 2 });
    await bobStream.waitForEvents(1);
    t.assert.deepEqual(
      [bobStream.events[0].type, bobStream.events[0].challenge.id, bobStream.events[0].challenge.direction],
      ['challenge', declined.id, 'in'],
    );
    t.assert.equal((await answer(b!, bob.token, declined.id, 'decline', { reason: 'later' })).statusCode, 200);
    const accepted = await made(a!, ann.token, bob.id, { days: 2 });
    t.assert.equal((await answer(b!, bob.token, accepted.id, 'accept')).statusCode, 200);
    const gameId = (await a!.challenges!.find(accepted.id)).gameId;
    const expected = [
      ['challenge', declined.id],
      ['challengeDeclined', declined.id],
      ['challenge', accepted.id],
      ['gameStart', gameId],
    ];
    for (const stream of [annStream, bobStream]) {
      await stream.waitForEvents(expected.length);
      await new Promise(resolve => setTimeout(resolve, 200)); // a line sent twice would be here by now
      t.assert.deepEqual(
        stream.events.map(event => [event.type, event.challenge?.id ?? event.game?.gameId]),
        expected,
      );
    }
    t.assert.equal(annStream.events[1].challenge.declineReasonKey, 'later');
    t.assert.equal(annStream.events[1].challenge.direction, 'out');
  });
});
