/**
 * The rate limit (DECISIONS §10): RATE_LIMIT_MAX `/api/` requests per RATE_LIMIT_WINDOW_MS per client, the
 * client being its token when it presents a valid one, else its address; 429 RATE_LIMITED beyond, with an
 * integer Retry-After >= 1 and the x-ratelimit-* headers; 0 turns it off; a stream counts once, when it opens.
 */
import { request as httpRequest, type ClientRequest } from 'node:http';
import { test, type TestContext } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/http/app.ts';
import { GameService } from '../../src/service/games.ts';
import { ChangeFeed } from '../../src/bus/feed.ts';
import { newGameId } from '../../src/service/ids.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import { assertError, makeCheckedApp } from '../helpers/app.ts';
import { within } from '../helpers/server.ts';

const TOKEN_A = 'token-a-5c1e9d';
const TOKEN_B = 'token-b-0f42aa';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

const remaining = (res: LightMyRequestResponse) => Number(res.headers['x-ratelimit-remaining']);

/** Asserts a 429 as DECISIONS §10 and SPEC §Errors want it; returns its Retry-After in seconds. */
function assertLimited(t: TestContext, res: LightMyRequestResponse, max: number): number {
  assertError(res, 'RATE_LIMITED');
  const retryAfter = String(res.headers['retry-after']);
  t.assert.match(retryAfter, /^[1-9]\d*$/, `Retry-After must be an integer >= 1, got '${retryAfter}'`);
  t.assert.equal(res.headers['x-ratelimit-limit'], String(max));
  t.assert.equal(res.headers['x-ratelimit-remaining'], '0');
  t.assert.match(String(res.headers['x-ratelimit-reset']), /^\d+$/);
  return Number(retryAfter);
}

test('beyond RATE_LIMIT_MAX in the window: 429 RATE_LIMITED with Retry-After and the x-ratelimit headers', async (t: TestContext) => {
  const { call } = await makeCheckedApp(t, { rateLimit: { max: 5, windowMs: 60_000 } });
  const seen: number[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await call({ method: 'POST', url: '/api/board/game' });
    t.assert.equal(res.statusCode, 201, res.body);
    t.assert.equal(res.headers['x-ratelimit-limit'], '5');
    t.assert.match(String(res.headers['x-ratelimit-reset']), /^\d+$/);
    t.assert.equal(res.headers['retry-after'], undefined, 'Retry-After only on a 429');
    seen.push(remaining(res));
  }
  t.assert.deepEqual(seen, [4, 3, 2, 1, 0]);
  // Every kind of API request counts, errors included; each answer beyond is a 429.
  for (const url of ['/api/board/game', '/api/board/game/ZZZZ9999', '/api/board/game/bad', '/api/nothing']) {
    const retryAfter = assertLimited(t, await call({ method: url === '/api/board/game' ? 'POST' : 'GET', url }), 5);
    t.assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  }
  // Outside /api/ nothing is limited or counted.
  for (let i = 0; i < 20; i++) {
    for (const url of ['/healthz', '/readyz', '/openapi.json', '/metrics']) {
      const res = await call(url);
      t.assert.equal(res.statusCode, 200, url);
      t.assert.equal(res.headers['x-ratelimit-limit'], undefined, url);
    }
  }
});

test('the budget comes back after the window', async (t: TestContext) => {
  const windowMs = 400;
  const { call } = await makeCheckedApp(t, { rateLimit: { max: 2, windowMs } });
  const started = Date.now();
  t.assert.equal((await call({ method: 'POST', url: '/api/board/game' })).statusCode, 201);
  t.assert.equal((await call({ method: 'POST', url: '/api/board/game' })).statusCode, 201);
  const limited = await call({ method: 'POST', url: '/api/board/game' });
  // A window shorter than a second still says to wait 1 s: Retry-After is a whole number of seconds.
  t.assert.equal(assertLimited(t, limited, 2), 1);
  await sleep(windowMs - (Date.now() - started) + 50);
  const again = await call({ method: 'POST', url: '/api/board/game' });
  t.assert.equal(again.statusCode, 201, again.body);
  t.assert.equal(remaining(again), 1, 'a new window starts with the full budget');
});

test('per client: each valid token has its own budget, other requests count against their address', async (t: TestContext) => {
  const { call } = await makeCheckedApp(t, { tokens: [TOKEN_A, TOKEN_B], rateLimit: { max: 3, windowMs: 60_000 } });
  const from = (address: string, headers: Record<string, string> = {}) =>
    call({ method: 'POST', url: '/api/board/game', remoteAddress: address, headers });

  // Token A spends its budget from one address...
  for (let i = 0; i < 3; i++) t.assert.equal((await from('10.0.0.1', bearer(TOKEN_A))).statusCode, 201);
  assertLimited(t, await from('10.0.0.1', bearer(TOKEN_A)), 3);
  // ...and stays limited from any other address: the key is the token, not where it comes from.
  assertLimited(t, await from('10.0.0.2', bearer(TOKEN_A)), 3);
  // Token B from the same address has its own budget.
  const b = await from('10.0.0.1', bearer(TOKEN_B));
  t.assert.equal(b.statusCode, 201);
  t.assert.equal(remaining(b), 2);

  // Wrong tokens do not get a budget of their own: they count against the address, so that guessing is limited.
  for (let i = 0; i < 3; i++) assertError(await from('10.0.0.3', bearer(`guess-${i}`)), 'UNAUTHORIZED');
  assertLimited(t, await from('10.0.0.3', bearer('guess-4')), 3);
  assertLimited(t, await from('10.0.0.3'), 3);
  // The valid token from that address is still served, and another address is untouched.
  t.assert.equal((await from('10.0.0.3', bearer(TOKEN_B))).statusCode, 201);
  assertError(await from('10.0.0.4'), 'UNAUTHORIZED');
});

test('without tokens the key is the address: made-up tokens do not buy a new budget', async (t: TestContext) => {
  const { call } = await makeCheckedApp(t, { rateLimit: { max: 3, windowMs: 60_000 } });
  const from = (address: string, token: string) =>
    call({ method: 'GET', url: '/api/board/game/ZZZZ9999', remoteAddress: address, headers: bearer(token) });
  for (let i = 0; i < 3; i++) assertError(await from('192.0.2.10', `made-up-${i}`), 'GAME_NOT_FOUND');
  assertLimited(t, await from('192.0.2.10', 'made-up-3'), 3);
  assertError(await from('192.0.2.11', 'made-up-3'), 'GAME_NOT_FOUND');
  // IPv6 clients are keyed by their /64, as one host usually holds a whole one.
  for (let i = 0; i < 3; i++) assertError(await from(`2001:db8::${i + 1}`, 'x'), 'GAME_NOT_FOUND');
  assertLimited(t, await from('2001:db8::ff', 'x'), 3);
  assertError(await from('2001:db8:0:1::1', 'x'), 'GAME_NOT_FOUND');
});

test('behind a trusted proxy the key is the forwarded client address; otherwise X-Forwarded-For is ignored', async (t: TestContext) => {
  const send = (call: (typeof proxied)['call'], forwardedFor: string) =>
    call({
      method: 'GET',
      url: '/api/board/game/ZZZZ9999',
      remoteAddress: '10.0.0.1', // the proxy
      headers: { 'x-forwarded-for': forwardedFor },
    });
  const proxied = await makeCheckedApp(t, { rateLimit: { max: 2, windowMs: 60_000 }, trustProxy: ['10.0.0.1'] });
  for (let i = 0; i < 2; i++) assertError(await send(proxied.call, '203.0.113.5'), 'GAME_NOT_FOUND');
  assertLimited(t, await send(proxied.call, '203.0.113.5'), 2);
  assertError(await send(proxied.call, '203.0.113.6'), 'GAME_NOT_FOUND'); // another client behind the proxy
  // Without TRUST_PROXY a forged header buys nothing: the key stays the peer's address.
  const direct = await makeCheckedApp(t, { rateLimit: { max: 2, windowMs: 60_000 } });
  for (let i = 0; i < 2; i++) assertError(await send(direct.call, `198.51.100.${i}`), 'GAME_NOT_FOUND');
  assertLimited(t, await send(direct.call, '198.51.100.9'), 2);
});

test('RATE_LIMIT_MAX 0 turns the limit off: no 429 and no rate-limit headers', async (t: TestContext) => {
  const { call } = await makeCheckedApp(t, { rateLimit: { max: 0, windowMs: 1000 } });
  for (let i = 0; i < 400; i++) {
    const res = await call({ method: 'GET', url: '/api/board/game/ZZZZ9999' });
    t.assert.equal(res.statusCode, 404);
    t.assert.equal(res.headers['x-ratelimit-limit'], undefined);
  }
});

test("streams per client are counted per token too: one token cannot hold another client's streams", async (t: TestContext) => {
  const store = SqliteGameStore.open(':memory:');
  const bus = new ChangeFeed(store);
  const games = new GameService({ store, bus, newId: newGameId, clock: () => new Date() });
  const app = await buildApp({ games, store, bus, tokens: [TOKEN_A, TOKEN_B], maxStreamsPerClient: 1 });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const requests: ClientRequest[] = [];
  t.after(async () => {
    for (const request of requests) request.destroy();
    await app.close();
  });
  const { port } = app.server.address() as { port: number };
  const base = `http://127.0.0.1:${port}`;
  const created = await fetch(`${base}/api/board/game`, { method: 'POST', headers: bearer(TOKEN_A) });
  const id = ((await created.json()) as { gameId: string }).gameId;
  const status = (token: string) =>
    within(
      new Promise<number>((resolve, reject) => {
        const request = httpRequest(`${base}/api/board/game/${id}/stream`, { headers: bearer(token) }, res => {
          resolve(res.statusCode ?? 0);
          res.resume();
        });
        requests.push(request);
        request.on('error', reject);
        request.end();
      }),
      10_000,
      'stream status',
    );
  t.assert.equal(await status(TOKEN_A), 200);
  t.assert.equal(await status(TOKEN_A), 429, 'the second stream of the same token');
  t.assert.equal(await status(TOKEN_B), 200, 'another token from the same address has its own');
});

test('a stream counts as one request, however long it stays open', async (t: TestContext) => {
  const store = SqliteGameStore.open(':memory:');
  const bus = new ChangeFeed(store);
  const games = new GameService({ store, bus, newId: newGameId, clock: () => new Date() });
  const app = await buildApp({ games, store, bus, heartbeatMs: 20, rateLimit: { max: 10, windowMs: 60_000 } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const requests: ClientRequest[] = [];
  t.after(async () => {
    for (const request of requests) request.destroy();
    await app.close();
  });
  const { port } = app.server.address() as { port: number };
  const base = `http://127.0.0.1:${port}`;

  const created = await fetch(`${base}/api/board/game`, { method: 'POST' }); // 1
  t.assert.equal(created.headers.get('x-ratelimit-remaining'), '9');
  const id = ((await created.json()) as { gameId: string }).gameId;

  // Opens the stream and resolves once `lines` lines (events or heartbeats) have arrived.
  const remainingOnStreams: unknown[] = [];
  const openStream = (lines: number) =>
    within(
      new Promise<string[]>((resolve, reject) => {
        const request = httpRequest(`${base}/api/board/game/${id}/stream`, res => {
          remainingOnStreams.push(res.headers['x-ratelimit-remaining']);
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
            const got = text.split('\n');
            if (got.length > lines) resolve(got.slice(0, lines));
          });
        });
        requests.push(request);
        request.on('error', reject);
        request.end();
      }),
      10_000,
      'stream lines',
    );
  // A stream stays open through a gameFull, a change and several heartbeats...
  const first = openStream(1); // 2
  t.assert.equal(JSON.parse((await first)[0]!).type, 'gameFull');
  const moved = await fetch(`${base}/api/board/game/${id}/move/e2e4`, { method: 'POST' }); // 3
  t.assert.equal(moved.headers.get('x-ratelimit-remaining'), '7');
  const lines = await openStream(8); // 4: a second stream, read through heartbeats
  t.assert.ok(lines.filter(line => line === '').length >= 5, `heartbeats expected: ${JSON.stringify(lines)}`);
  await sleep(100); // more heartbeats on both streams
  // ...and each stream took one request from the budget: 4 requests so far, this is the 5th.
  const after = await fetch(`${base}/api/board/game/${id}`);
  t.assert.equal(after.status, 200);
  t.assert.equal(after.headers.get('x-ratelimit-remaining'), '5');
  // The streams' own heads said what each took.
  t.assert.deepEqual(remainingOnStreams, ['8', '6']);
});
