/**
 * Response headers and input limits: CORS only for the origins of CORS_ORIGINS; `X-Content-Type-Options:
 * nosniff` and no `X-Powered-By` on every answer; the body limit (413), non-JSON bodies (415), the PGN ply
 * limit and the player and id bounds of DECISIONS §2.
 */
import { test, type TestContext } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { assertError, gameWithMoves, makeCheckedApp, makeTestApp } from '../helpers/app.ts';
import { assertRawAnswer, rawExchange } from './fuzzKit.ts';

const ALLOWED = 'https://board.example.org';
const OTHER_ALLOWED = 'http://localhost:5173';
const DISALLOWED = 'https://evil.example.net';
const TOKEN = 'cors-token-9e1b7c';

const corsHeaders = (res: LightMyRequestResponse) =>
  Object.keys(res.headers).filter(name => name.startsWith('access-control-'));

const preflight = (origin: string, url = '/api/board/game') => ({
  method: 'OPTIONS' as const,
  url,
  headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
});

test('without CORS_ORIGINS there are no CORS headers, and a preflight is METHOD_NOT_ALLOWED', async (t: TestContext) => {
  const { call } = await makeCheckedApp(t);
  const res = await call({ method: 'POST', url: '/api/board/game', headers: { origin: ALLOWED } });
  t.assert.equal(res.statusCode, 201);
  t.assert.deepEqual(corsHeaders(res), []);
  const options = await call(preflight(ALLOWED));
  assertError(options, 'METHOD_NOT_ALLOWED'); // no OPTIONS is served (DECISIONS §19)
  t.assert.equal(options.headers.allow, 'GET, HEAD, POST');
  t.assert.deepEqual(corsHeaders(options), []);
});

test('CORS: listed origins get the headers and a preflight; others get none', async (t: TestContext) => {
  const { call } = await makeCheckedApp(t, { corsOrigins: [ALLOWED, OTHER_ALLOWED], tokens: [TOKEN] });
  const auth = { authorization: `Bearer ${TOKEN}` };
  for (const origin of [ALLOWED, OTHER_ALLOWED]) {
    const res = await call({ method: 'POST', url: '/api/board/game', headers: { origin, ...auth } });
    t.assert.equal(res.statusCode, 201);
    t.assert.equal(res.headers['access-control-allow-origin'], origin);
    t.assert.match(String(res.headers.vary), /Origin/i);
    t.assert.match(String(res.headers['access-control-expose-headers']), /retry-after/);
    t.assert.equal(res.headers['access-control-allow-credentials'], undefined, 'tokens, not cookies');
    // The preflight carries no token and must not need one.
    const options = await call(preflight(origin, '/api/board/game/AbCd1234/move/e2e4'));
    t.assert.equal(options.statusCode, 204, options.body);
    t.assert.equal(options.headers['access-control-allow-origin'], origin);
    t.assert.match(String(options.headers['access-control-allow-methods']), /POST/);
    t.assert.match(String(options.headers['access-control-allow-headers']), /authorization/i);
    t.assert.equal(options.headers['x-content-type-options'], 'nosniff');
  }
  // An error answer to an allowed origin is readable by it too.
  const refused = await call({ method: 'POST', url: '/api/board/game', headers: { origin: ALLOWED } });
  assertError(refused, 'UNAUTHORIZED');
  t.assert.equal(refused.headers['access-control-allow-origin'], ALLOWED);

  for (const origin of [DISALLOWED, `${ALLOWED}.evil.example`, ALLOWED.replace('https', 'http'), 'null']) {
    const res = await call({ method: 'POST', url: '/api/board/game', headers: { origin, ...auth } });
    t.assert.equal(res.statusCode, 201, 'CORS does not refuse requests; the browser does');
    t.assert.deepEqual(corsHeaders(res), [], origin);
    const options = await call(preflight(origin));
    assertError(options, 'NOT_FOUND');
    t.assert.deepEqual(corsHeaders(options), [], origin);
  }
  // Same-origin requests (no Origin header) are unaffected.
  t.assert.deepEqual(corsHeaders(await call({ method: 'POST', url: '/api/board/game', headers: auth })), []);
});

test('every answer has X-Content-Type-Options: nosniff and no X-Powered-By', async (t: TestContext) => {
  const { app } = await makeTestApp({ tokens: [TOKEN], rateLimit: { max: 30, windowMs: 60_000 } });
  t.after(() => app.close());
  const auth = { authorization: `Bearer ${TOKEN}` };
  const id = await (async () => {
    const res = await app.inject({ method: 'POST', url: '/api/board/game', headers: auth });
    return (JSON.parse(res.body) as { gameId: string }).gameId;
  })();
  const requests = [
    { url: '/api/board/game', method: 'POST', headers: auth }, // 201
    { url: `/api/board/game/${id}`, headers: auth }, // 200 JSON
    { url: `/api/board/game/${id}/export/fen`, headers: auth }, // text/plain
    { url: `/api/board/game/${id}/export/pgn`, headers: auth }, // PGN
    { url: `/api/board/game/${id}/move/e2e5`, method: 'POST', headers: auth }, // 400
    { url: '/api/board/game/ZZZZ9999', headers: auth }, // 404
    { url: '/api/board/game' }, // 401
    { url: '/api/board/game/%zz', headers: auth }, // a router error
    { url: '/api/board/game/import/fen', method: 'POST', headers: { ...auth, 'content-type': 'text/plain' } }, // 415
    { url: '/healthz' },
    { url: '/openapi.json' },
    { url: '/docs' },
    { url: '/metrics' },
    { url: '/no/such/page' },
  ] as const;
  const statuses = new Set<number>();
  for (const request of requests) {
    const res = await app.inject(request);
    statuses.add(res.statusCode);
    t.assert.equal(res.headers['x-content-type-options'], 'nosniff', `${request.url} -> ${res.statusCode}`);
    t.assert.equal(res.headers['x-powered-by'], undefined, request.url);
  }
  // Rate-limited answers too.
  let limited: LightMyRequestResponse | undefined;
  for (let i = 0; i < 40 && limited === undefined; i++) {
    const res = await app.inject({ url: '/api/board/game/ZZZZ9999', headers: auth });
    if (res.statusCode === 429) limited = res;
  }
  t.assert.ok(limited, 'the limit was reached');
  t.assert.equal(limited.headers['x-content-type-options'], 'nosniff');
  for (const status of [200, 201, 302, 400, 401, 404, 415]) {
    if (status !== 302) t.assert.ok(statuses.has(status), `no answer with status ${status}: ${[...statuses].join()}`);
  }
});

test('bodies: at most 1 MiB (413 BODY_TOO_LARGE), JSON only (415 UNSUPPORTED_MEDIA_TYPE)', async (t: TestContext) => {
  const { call } = await makeCheckedApp(t);
  const big = JSON.stringify({ pgn: `1. e4 ${' '.repeat(1024 * 1024)}` });
  const tooLarge = await call({
    method: 'POST',
    url: '/api/board/game/import/pgn',
    payload: big,
    headers: { 'content-type': 'application/json' },
  });
  assertError(tooLarge, 'BODY_TOO_LARGE');
  // Just below the limit is read (and judged on its content).
  const justBelow = JSON.stringify({ pgn: `1. e4 e5 *${' '.repeat(1024 * 1024 - 40)}` });
  t.assert.ok(Buffer.byteLength(justBelow) <= 1024 * 1024);
  const read = await call({
    method: 'POST',
    url: '/api/board/game/import/pgn',
    payload: justBelow,
    headers: { 'content-type': 'application/json' },
  });
  t.assert.equal(read.statusCode, 201, read.body);
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'x/y']) {
    const res = await call({
      method: 'POST',
      url: '/api/board/game/import/fen',
      payload: '{"fen":"8/8/8/8/8/8/8/K6k w - - 0 1"}',
      headers: { 'content-type': type },
    });
    assertError(res, 'UNSUPPORTED_MEDIA_TYPE');
  }
});

test('a PGN of more than 10,000 plies is INVALID_PGN before any move is replayed', async (t: TestContext) => {
  const { call } = await makeCheckedApp(t);
  const shuffle = ['Nf3', 'Nf6', 'Ng1', 'Ng8'];
  const plies = Array.from({ length: 10_001 }, (_, i) => shuffle[i % 4]!);
  const movetext = plies.map((san, i) => (i % 2 === 0 ? `${i / 2 + 1}. ${san}` : san)).join(' ');
  const started = Date.now();
  const res = await call({ method: 'POST', url: '/api/board/game/import/pgn', payload: { pgn: `${movetext} *` } });
  const body = assertError(res, 'INVALID_PGN', 'pgn');
  t.assert.match(body.message, /more than 10000 moves/);
  t.assert.ok(Date.now() - started < 5000, 'refused quickly');
});

test('players and ids within the bounds of DECISIONS §2', async (t: TestContext) => {
  const { call, app } = await makeCheckedApp(t);
  const create = (white: unknown) => call({ method: 'POST', url: '/api/board/game', payload: { white } });
  t.assert.equal((await create({ id: 'x'.repeat(64), displayName: 'é'.repeat(100) })).statusCode, 201);
  assertError(await create({ id: 'x'.repeat(65), displayName: 'A' }), 'INVALID_BODY', 'white.id');
  assertError(await create({ id: 'a', displayName: 'é'.repeat(101) }), 'INVALID_BODY', 'white.displayName');
  assertError(await create({ id: '', displayName: 'A' }), 'INVALID_BODY', 'white.id');
  assertError(await create({ id: 'a', displayName: 'Tab\there' }), 'INVALID_BODY', 'white.displayName');
  assertError(await create({ id: 'a\u007f', displayName: 'A' }), 'INVALID_BODY', 'white.id');
  const id = await gameWithMoves(app);
  assertError(await call(`/api/board/game/${id}x`), 'INVALID_GAME_ID', 'gameId');
  assertError(await call(`/api/board/game/${'A'.repeat(5000)}`), 'INVALID_GAME_ID', 'gameId');
});

test('requests that are not valid HTTP get an ApiError too, not the bare answers of Node', async (t: TestContext) => {
  const { app } = await makeTestApp();
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.after(() => app.close());
  const { port } = app.server.address() as { port: number };
  const cases: Array<[string, string, RegExp]> = [
    ['not HTTP', 'GARBAGE\r\n\r\n', /not valid HTTP/],
    ['binary', '\u0000\u0001\u0002\u00ff', /not valid HTTP/],
    ['a space in a header name', 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n', /not valid HTTP/],
    ['headers over 16 KiB', `GET /healthz HTTP/1.1\r\nHost: x\r\nX: ${'a'.repeat(20_000)}\r\n\r\n`, /too large/],
    ['a length that is no number', 'POST /api/board/game HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', /HTTP/],
    [
      'both Transfer-Encoding and Content-Length',
      'POST /api/board/game HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n',
      /not valid HTTP/,
    ],
    [
      'a body shorter than its length',
      'POST /api/board/game HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n{}',
      /HTTP/,
    ],
    ['HTTP/1.1 without Host', 'GET /healthz HTTP/1.1\r\n\r\n', /Host header/],
  ];
  for (const [what, bytes, message] of cases) {
    const res = assertRawAnswer(await rawExchange(port, bytes), what);
    t.assert.ok(res, `${what}: no answer`);
    t.assert.equal(res.status, 400, what);
    t.assert.equal(JSON.parse(res.body).code, 'INVALID_BODY', what);
    t.assert.match(JSON.parse(res.body).message, message, what);
  }
  // An expectation Node does not know is ignored, not answered with a bare 417; HTTP/1.0 needs no Host.
  const expect = assertRawAnswer(
    await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: the-unexpected\r\n\r\n'),
    'Expect',
  );
  t.assert.equal(expect?.status, 200);
  t.assert.equal(assertRawAnswer(await rawExchange(port, 'GET /healthz HTTP/1.0\r\n\r\n'), 'HTTP/1.0')?.status, 200);
});
