/**
 * Bearer tokens (DECISIONS §10): off by default; when configured, every `/api/` request (streams and unknown
 * API paths included) needs `Authorization: Bearer <token>` matching one, else 401 UNAUTHORIZED with
 * `WWW-Authenticate: Bearer`; health, readiness, docs, metrics and the board page stay open. Tokens never
 * appear in the logs (DECISIONS §12).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test, type TestContext } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { BearerTokens } from '../../src/http/auth.ts';
import type { GameStore } from '../../src/store/store.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import { assertError, json, makeCheckedApp, makeTestApp, snapshotGame, type Inject } from '../helpers/app.ts';
import { startServer, within } from '../helpers/server.ts';

const TOKEN = 'board-ui-token-3f9a1c';
const OTHER = 'ops-token-77be02';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const game = (id: string) => `/api/board/game/${id}`;

/** Every API operation, as a request that succeeds on game `id` when authorized. */
const OPERATIONS = (id: string): Array<{ method: 'GET' | 'POST'; url: string; payload?: object }> => [
  { method: 'POST', url: '/api/board/game' },
  { method: 'POST', url: '/api/board/game/import/fen', payload: { fen: '4k3/8/8/8/8/8/8/4K2R w K - 0 1' } },
  { method: 'POST', url: '/api/board/game/import/pgn', payload: { pgn: '1. e4 e5 *' } },
  { method: 'GET', url: game(id) },
  { method: 'GET', url: `${game(id)}/moves?square=e2` },
  { method: 'GET', url: `${game(id)}/export/fen` },
  { method: 'GET', url: `${game(id)}/export/pgn` },
  { method: 'POST', url: `${game(id)}/move/e2e4` },
  { method: 'POST', url: `${game(id)}/undo` },
  { method: 'POST', url: `${game(id)}/redo` },
  { method: 'POST', url: `${game(id)}/draw/offer` },
  { method: 'POST', url: `${game(id)}/draw/decline` },
  { method: 'POST', url: `${game(id)}/resign` },
];

/** The game's full readable state and stored version, to show that a refused request changed nothing. */
async function stateOf(call: Inject, store: GameStore, id: string) {
  const authorized: Inject = request =>
    call(typeof request === 'string' ? { url: request, headers: bearer(TOKEN) } : request);
  return { views: await snapshotGame(authorized, id), version: (await store.get(id))!.version };
}

test('without tokens configured the API is open, whatever Authorization says', async (t: TestContext) => {
  const { call } = await makeCheckedApp(t);
  for (const headers of [{}, bearer('anything'), { authorization: 'Basic dXNlcjpwYXNz' }]) {
    const res = await call({ method: 'POST', url: '/api/board/game', headers });
    t.assert.equal(res.statusCode, 201, res.body);
    t.assert.equal(res.headers['www-authenticate'], undefined);
  }
});

test('with tokens, every API operation needs a valid one: 401 UNAUTHORIZED and WWW-Authenticate: Bearer', async (t: TestContext) => {
  const store = SqliteGameStore.open(':memory:');
  const createdIds: string[] = [];
  const create = store.create.bind(store);
  store.create = async record => {
    createdIds.push(record.id);
    return create(record);
  };
  const { call } = await makeCheckedApp(t, { store, tokens: [TOKEN, OTHER] });
  const created = await call({ method: 'POST', url: '/api/board/game', headers: bearer(TOKEN) });
  t.assert.equal(created.statusCode, 201);
  const id = json(created).gameId as string;
  const before = await stateOf(call, store, id);

  const refusals: Array<[string, Record<string, string>, RegExp]> = [
    ['missing', {}, /needs an Authorization: Bearer/],
    ['empty', { authorization: '' }, /needs an Authorization: Bearer/],
    ['another scheme', { authorization: `Basic ${Buffer.from(`u:${TOKEN}`).toString('base64')}` }, /needs/],
    ['scheme only', { authorization: 'Bearer' }, /needs/],
    ['token without scheme', { authorization: TOKEN }, /needs/],
    ['wrong token', bearer('not-the-token'), /not valid/],
    ['prefix of a token', bearer(TOKEN.slice(0, -1)), /not valid/],
    ['token with a suffix', bearer(`${TOKEN}x`), /not valid/],
    ['token in another case', bearer(TOKEN.toUpperCase()), /not valid/],
    ['two tokens', { authorization: `Bearer ${TOKEN} ${OTHER}` }, /needs/],
    ['token in the query', {}, /needs/],
  ];
  for (const operation of OPERATIONS(id)) {
    for (const [what, headers, message] of refusals) {
      const url = what === 'token in the query' ? `${operation.url}?access_token=${TOKEN}` : operation.url;
      const res = await call({ ...operation, url, headers });
      const body = assertError(res, 'UNAUTHORIZED');
      t.assert.match(body.message, message, `${what}: ${operation.method} ${url}`);
      t.assert.equal(res.headers['www-authenticate'], 'Bearer', `${what}: ${operation.method} ${url}`);
      t.assert.ok(!res.body.includes(TOKEN) && !res.body.includes(OTHER), 'a 401 must not echo a token');
    }
  }
  // Nothing was changed, and no game was created by a refused request.
  t.assert.deepEqual(await stateOf(call, store, id), before);
  t.assert.deepEqual(createdIds, [id]);

  // Each configured token works on every operation; the scheme is case-insensitive.
  for (const operation of OPERATIONS(id)) {
    for (const header of [`Bearer ${TOKEN}`, `bearer ${OTHER}`, `BEARER  ${TOKEN}`]) {
      const res = await call({ ...operation, headers: { authorization: header } });
      t.assert.ok(res.statusCode < 300 || [400].includes(res.statusCode), `${operation.url}: ${res.body}`);
      t.assert.notEqual(res.statusCode, 401, `${header}: ${operation.method} ${operation.url}`);
    }
  }
});

test('auth is judged before anything else: ids, routes and bodies are not revealed without a token', async (t: TestContext) => {
  const { app } = await makeCheckedApp(t, { tokens: [TOKEN] });
  const requests: Array<{ method: 'GET' | 'POST' | 'HEAD' | 'PUT' | 'DELETE'; url: string; payload?: string }> = [
    { method: 'GET', url: game('not-an-id') },
    { method: 'GET', url: game('ZZZZ9999') },
    { method: 'POST', url: `${game('ZZZZ9999')}/move/zz` },
    { method: 'GET', url: '/api/board/game/ZZZZ9999/stream' },
    { method: 'GET', url: '/api/no/such/route' },
    { method: 'GET', url: '/api' },
    { method: 'DELETE', url: '/api/board/game/ZZZZ9999' },
    { method: 'HEAD', url: game('ZZZZ9999') },
    { method: 'POST', url: '/api/board/game/import/fen', payload: '{not json' },
    { method: 'POST', url: '/%61pi/board/game' }, // the router decodes the path: still the API
  ];
  for (const request of requests) {
    const res = await app.inject({
      ...request,
      ...(request.payload ? { headers: { 'content-type': 'application/json' } } : {}),
    });
    t.assert.equal(res.statusCode, 401, `${request.method} ${request.url}: ${res.body}`);
    t.assert.equal(res.headers['www-authenticate'], 'Bearer');
    if (request.method !== 'HEAD') assertError(res, 'UNAUTHORIZED'); // a HEAD answer has no body
  }
});

test('health, readiness, docs, the OpenAPI document, metrics and the board page stay open', async (t: TestContext) => {
  const { call } = await makeCheckedApp(t, { tokens: [TOKEN] });
  for (const url of ['/healthz', '/readyz', '/openapi.json', '/docs', '/docs/', '/metrics']) {
    const res = await call(url);
    t.assert.ok(
      res.statusCode === 200 || res.statusCode === 302,
      `${url}: ${res.statusCode} ${res.body.slice(0, 200)}`,
    );
  }
  // The board page may or may not be built into this app; either way it is never behind the token.
  for (const url of ['/', '/game/AbCd1234', '/assets/app.js', '/favicon.svg']) {
    const res = await call(url);
    t.assert.notEqual(res.statusCode, 401, url);
    t.assert.ok(res.statusCode < 500, `${url}: ${res.statusCode}`);
  }
});

test('tokens from API_TOKENS_FILE (with comments) work like API_TOKENS', async (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'chess-auth-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'tokens.txt');
  writeFileSync(file, `# board page\n${TOKEN}   # rotated monthly\n\n# OTHER is disabled:\n# ${OTHER}\n`);
  const config = loadConfig({ API_TOKENS_FILE: file });
  const { call } = await makeCheckedApp(t, { tokens: config.apiTokens });
  t.assert.equal((await call({ method: 'POST', url: '/api/board/game', headers: bearer(TOKEN) })).statusCode, 201);
  assertError(await call({ method: 'POST', url: '/api/board/game', headers: bearer(OTHER) }), 'UNAUTHORIZED');
  assertError(await call({ method: 'POST', url: '/api/board/game', headers: bearer('#') }), 'UNAUTHORIZED');
});

test('BearerTokens compares digests: equal tokens match, every other string does not', (t: TestContext) => {
  const tokens = new BearerTokens([TOKEN, OTHER]);
  t.assert.ok(tokens.enabled);
  t.assert.equal(new BearerTokens([]).enabled, false);
  const a = tokens.identify(`Bearer ${TOKEN}`);
  const b = tokens.identify(`Bearer ${OTHER}`);
  t.assert.ok(a?.startsWith('token:') && b?.startsWith('token:') && a !== b);
  t.assert.ok(a !== undefined && !a.includes(TOKEN), 'the client key must not hold the token');
  for (const header of [undefined, '', 'Bearer ', `Bearer ${TOKEN}\u0000`, `Bearer ${TOKEN.slice(1)}`, 'Bearer x']) {
    t.assert.equal(tokens.identify(header), undefined, String(header));
  }
});

/** Collects every log line an app writes. */
function logSink(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, stream };
}

test('tokens never reach the logs: request lines, rejections, internal errors and logged headers', async (t: TestContext) => {
  const sink = logSink();
  const store = SqliteGameStore.open(':memory:');
  const { app } = await makeTestApp({
    store,
    tokens: [TOKEN],
    rateLimit: { max: 1000, windowMs: 60_000 },
    logger: { level: 'trace', stream: sink.stream },
  });
  t.after(() => app.close());
  // A route that logs what careless code would log: the request and its headers.
  app.get('/api/test/log-headers', async request => {
    request.log.info({ req: request, headers: request.headers }, 'headers');
    request.log.info({ req: { headers: request.headers } }, 'request headers');
    return { ok: true };
  });
  // A store failure, to see the error log of a 500.
  const original = store.get.bind(store);
  store.get = async (id: string) => {
    if (id === 'Fail0000') throw new Error('disk on fire');
    return original(id);
  };

  const requests = [
    { method: 'POST' as const, url: '/api/board/game', headers: bearer(TOKEN) },
    { method: 'GET' as const, url: '/api/test/log-headers', headers: bearer(TOKEN) },
    { method: 'GET' as const, url: game('Fail0000'), headers: bearer(TOKEN) },
    { method: 'GET' as const, url: game('ZZZZ9999'), headers: bearer(`${TOKEN}-wrong`) },
    { method: 'GET' as const, url: '/healthz', headers: bearer(TOKEN) },
    // A token in a query string, where clients used to other services put it: not read, never logged.
    { method: 'GET' as const, url: `${game('ZZZZ9999')}/moves?square=e2&token=${TOKEN}`, headers: bearer(TOKEN) },
    { method: 'GET' as const, url: `${game('Fail0000')}?access_token=${encodeURIComponent(TOKEN)}` },
    { method: 'GET' as const, url: `/api/test/log-headers?x=1&api_key=${TOKEN}&${TOKEN}`, headers: bearer(TOKEN) },
  ];
  const statuses = [];
  for (const request of requests) statuses.push((await app.inject(request)).statusCode);
  t.assert.deepEqual(statuses, [201, 200, 500, 401, 200, 404, 401, 200]);

  const text = sink.lines.join('\n');
  t.assert.ok(!text.includes(TOKEN), `a token was logged:\n${text}`);
  t.assert.match(text, /"authorization":"\[redacted\]"/, 'logged headers show the authorization as redacted');
  // The one-line-per-request log is still there, with the status, for each request.
  const requestLines = sink.lines.map(line => JSON.parse(line)).filter(entry => entry.msg === 'request');
  t.assert.deepEqual(
    requestLines.map(entry => entry.statusCode),
    [201, 200, 500, 401, 200, 404, 401, 200],
  );
  // The query's own parameters are kept; any other value is redacted, whatever its name.
  t.assert.deepEqual(
    requestLines.slice(5).map(entry => entry.url),
    [
      `${game('ZZZZ9999')}/moves?square=e2&token=[redacted]`,
      `${game('Fail0000')}?access_token=[redacted]`,
      '/api/test/log-headers?x=[redacted]&api_key=[redacted]&[redacted]',
    ],
  );
  // A request logged whole shows its URL redacted too.
  const whole = sink.lines.map(line => JSON.parse(line)).filter(entry => entry.msg === 'headers');
  t.assert.deepEqual(
    whole.map(entry => entry.req.url),
    ['/api/test/log-headers', '/api/test/log-headers?x=[redacted]&api_key=[redacted]&[redacted]'],
  );
  t.assert.ok(
    sink.lines.some(line => line.includes('disk on fire')),
    'the 500 is logged with its cause',
  );
});

test('a real server with API_TOKENS_FILE: streams need the token too, and the token is in no log line', async (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'chess-auth-server-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'tokens');
  writeFileSync(file, `# the only token\n${TOKEN}\n`);
  const server = await startServer({
    DATABASE_URL: join(dir, 'chess.sqlite'),
    API_TOKENS_FILE: file,
    LOG_LEVEL: 'trace',
    RATE_LIMIT_MAX: '0',
  });
  t.after(() => server.stop('SIGKILL'));

  const post = (path: string, headers: Record<string, string>) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers });
  const refused = await post('/api/board/game', {});
  t.assert.equal(refused.status, 401);
  t.assert.equal(refused.headers.get('www-authenticate'), 'Bearer');
  t.assert.equal(((await refused.json()) as { code: string }).code, 'UNAUTHORIZED');
  const created = await post('/api/board/game', bearer(TOKEN));
  t.assert.equal(created.status, 201);
  const id = ((await created.json()) as { gameId: string }).gameId;
  t.assert.equal((await fetch(`${server.url}/healthz`)).status, 200);

  // The stream: 401 without the token; with it, the gameFull line arrives.
  const streamStatus = (headers: Record<string, string>) =>
    within(
      new Promise<{ status: number; first: string }>((resolve, reject) => {
        const req = httpRequest(`${server.url}/api/board/game/${id}/stream`, { headers }, res => {
          let buffered = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buffered += chunk;
            if (res.statusCode !== 200 || buffered.includes('\n')) {
              resolve({ status: res.statusCode ?? 0, first: buffered.split('\n')[0]! });
              req.destroy();
            }
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, first: buffered }));
        });
        req.on('error', reject);
        req.end();
      }),
      10_000,
      'stream answer',
    );
  const withoutToken = await streamStatus({});
  t.assert.equal(withoutToken.status, 401);
  t.assert.equal(JSON.parse(withoutToken.first).code, 'UNAUTHORIZED');
  const withToken = await streamStatus(bearer(TOKEN));
  t.assert.equal(withToken.status, 200);
  t.assert.equal(JSON.parse(withToken.first).type, 'gameFull');
  t.assert.equal((await post(`${game(id)}/move/e2e4`, bearer(TOKEN))).status, 200);
  t.assert.equal((await post(`${game(id)}/move/e7e5`, bearer(`${TOKEN}0`))).status, 401);

  await server.stop('SIGTERM');
  const logs = server.logs.join('\n');
  t.assert.ok(
    server.logs.some(line => line.includes('"msg":"request"')),
    'request lines are logged',
  );
  t.assert.ok(!logs.includes(TOKEN), `the token appears in the server log:\n${logs}`);
});
