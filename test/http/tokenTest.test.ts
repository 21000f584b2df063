/**
 * `POST /api/token/test` (DECISIONS §16a, §20), lichess's token test, which lichess-bot calls before anything else:
 * up to 1,000 comma-separated tokens in a text body (text/plain, a form, or no media type at all), each answered
 * with its player, its scopes and `expires: null`, or `null` (unknown, revoked, a service token); no token needed,
 * even with authentication on. Every answer is checked against the OpenAPI document and lichess's own schema
 * (`TokenTest`, from `tags/oauth/api-token-test.yaml`).
 */
import { request as httpRequest } from 'node:http';
import { test, type TestContext } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { assertError, json, makeCheckedApp } from '../helpers/app.ts';
import { assertLichess } from '../helpers/lichess.ts';

const SERVICE_TOKEN = 'service-token-for-token-tests';
const ALL = 'board:play,challenge:read,challenge:write';
const BOT = 'board:play,bot:play,challenge:read,challenge:write';

/** The answer's body, checked against lichess's schema. */
function tested(t: TestContext, res: LightMyRequestResponse): Record<string, unknown> {
  t.assert.equal(res.statusCode, 200, res.body);
  const body = json<Record<string, unknown>>(res);
  assertLichess('TokenTest', body);
  return body;
}

test("each token's player, scopes and expiry, or null: unknown, revoked and service tokens; no token needed", async (t: TestContext) => {
  const app = await makeCheckedApp(t, { tokens: [SERVICE_TOKEN] });
  const ann = await app.playerTokens.issue({ id: 'ann', displayName: 'Ann' });
  const robo = await app.playerTokens.issue({ id: 'robo', displayName: 'Robo' }, { bot: true });
  const gone = await app.playerTokens.issue({ id: 'ann', displayName: 'Ann' });
  await app.playerTokens.revoke(gone.id);
  const body = [ann.token, robo.token, SERVICE_TOKEN, 'cpt_nobody', gone.token].join(',');
  const expected = {
    [ann.token]: { userId: 'ann', scopes: ALL, expires: null },
    [robo.token]: { userId: 'robo', scopes: BOT, expires: null },
    [SERVICE_TOKEN]: null,
    cpt_nobody: null,
    [gone.token]: null,
  };
  // Authentication is on, and no token is given (or a bad one): lichess-bot's first request.
  const plain = await app.call({
    method: 'POST',
    url: '/api/token/test',
    headers: { 'content-type': 'text/plain' },
    payload: body,
  });
  t.assert.deepEqual(tested(t, plain), expected);
  const withBadToken = await app.call({
    method: 'POST',
    url: '/api/token/test',
    headers: { 'content-type': 'text/plain; charset=utf-8', authorization: 'Bearer cpt_nobody' },
    payload: body,
  });
  t.assert.deepEqual(tested(t, withBadToken), expected);
  // A form (what `curl --data` sends) is the same text.
  const form = await app.call({
    method: 'POST',
    url: '/api/token/test',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: body,
  });
  t.assert.deepEqual(tested(t, form), expected);
  // Other paths still need a token.
  assertError(await app.call({ url: '/api/account' }), 'UNAUTHORIZED');
});

test('the list: spaces and repeats, an empty body, any text as a key, at most 1000 tokens', async (t: TestContext) => {
  const app = await makeCheckedApp(t, { tokens: [SERVICE_TOKEN] });
  const ann = await app.playerTokens.issue({ id: 'ann', displayName: 'Ann' });
  const send = (payload: string) =>
    app.call({ method: 'POST', url: '/api/token/test', headers: { 'content-type': 'text/plain' }, payload });
  t.assert.deepEqual(tested(t, await send(` ${ann.token} ,, ${ann.token},`)), {
    [ann.token]: { userId: 'ann', scopes: ALL, expires: null },
  });
  t.assert.deepEqual(tested(t, await send('')), {});
  t.assert.deepEqual(tested(t, await app.call({ method: 'POST', url: '/api/token/test' })), {});
  const odd = tested(t, await send('__proto__,constructor'));
  t.assert.deepEqual(Object.entries(odd), [
    ['__proto__', null],
    ['constructor', null],
  ]);
  const many = Array.from({ length: 1000 }, (_, i) => `cpt_${i}`);
  t.assert.equal(Object.keys(tested(t, await send([...many, ann.token].slice(1).join(',')))).length, 1000);
  assertError(await send([...many, ann.token].join(',')), 'INVALID_BODY');
});

test('over a socket, as lichess-bot sends it: a body with no media type', async (t: TestContext) => {
  const app = await makeCheckedApp(t, { tokens: [SERVICE_TOKEN] });
  const robo = await app.playerTokens.issue({ id: 'robo', displayName: 'Robo' }, { bot: true });
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.app.server.address() as { port: number };
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/api/token/test' }, res => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.setHeader('content-length', Buffer.byteLength(robo.token));
    request.end(robo.token);
  });
  t.assert.equal(answer.status, 200, answer.body);
  const body: unknown = JSON.parse(answer.body);
  assertLichess('TokenTest', body);
  t.assert.deepEqual(body, { [robo.token]: { userId: 'robo', scopes: BOT, expires: null } });
  t.assert.equal(app.checker.schemaErrors(app.checker.schema('TokenTest'), body), undefined, 'the document says so');
});
