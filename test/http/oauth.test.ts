/**
 * OAuth 2 with PKCE over HTTP (DECISIONS §20): the consent page (sign in first, then back), Allow and Deny, the code
 * exchanged once within 60 s for a token bound to its client, redirect and verifier; a stolen code without its
 * verifier gets nothing; a replay revokes the token; DELETE /api/token. Also the failed sign-in limits.
 */
import { createHash, randomBytes } from 'node:crypto';
import { after, before, test, type TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { json, makeTestApp, type TestApp } from '../helpers/app.ts';
import { Browser, exchangeCode, hiddenFields } from '../helpers/pages.ts';

let made: TestApp;
let app: FastifyInstance;
let clock = Date.UTC(2026, 5, 1);
before(async () => {
  made = await makeTestApp({ accounts: true, now: () => clock });
  app = made.app;
});
after(() => app.close());

let counter = 0;
const fresh = () => `oauth${process.pid % 1000}x${++counter}`;
const PASSWORD = 'correct horse battery';
const REDIRECT = 'http://127.0.0.1:9999/callback';

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

const authorizeUrl = (challenge: string, extra: Record<string, string> = {}) =>
  `/oauth?${new URLSearchParams({
    response_type: 'code',
    client_id: 'example-app',
    redirect_uri: REDIRECT,
    code_challenge_method: 'S256',
    code_challenge: challenge,
    scope: 'board:play',
    state: 'st4te',
    ...extra,
  })}`;

/** Signs a new person in, loads the consent page and answers it; the redirect's parameters. */
async function consent(t: TestContext, challenge: string, decision = 'allow') {
  const browser = new Browser(app);
  await browser.submit('/signup', { username: fresh(), password: PASSWORD });
  const page = await browser.get(authorizeUrl(challenge));
  t.assert.equal(page.statusCode, 200);
  t.assert.match(page.body, /data-testid="oauth-client">example-app</);
  t.assert.match(page.body, /http:\/\/127\.0\.0\.1:9999/);
  t.assert.match(String(page.headers['content-security-policy']), /form-action 'self' http:\/\/127\.0\.0\.1:9999;/);
  t.assert.match(page.body, /<code>board:play<\/code>/);
  const fields = hiddenFields(page.body);
  const answer = await browser.submit('/oauth', { ...fields, decision });
  t.assert.equal(answer.statusCode, 302);
  const location = new URL(String(answer.headers.location));
  t.assert.equal(`${location.origin}${location.pathname}`, REDIRECT);
  return { params: location.searchParams, browser };
}

const exchange = (body: Record<string, string>) =>
  exchangeCode(app, { client_id: 'example-app', redirect_uri: REDIRECT, ...body });

test('consent asked of a signed-out person sends them to sign in first, then back', async (t: TestContext) => {
  const { challenge } = pkce();
  const res = await new Browser(app).get(authorizeUrl(challenge));
  t.assert.equal(res.statusCode, 303);
  t.assert.equal(res.headers.location, `/login?next=${encodeURIComponent(authorizeUrl(challenge))}`);
});

test('Allow: a code and the state; the code and its verifier give a token once, with the scopes allowed', async (t: TestContext) => {
  const { verifier, challenge } = pkce();
  const { params } = await consent(t, challenge);
  t.assert.equal(params.get('state'), 'st4te');
  const code = params.get('code')!;
  t.assert.match(code, /^[A-Za-z0-9_]+$/);
  const res = await exchange({ code, code_verifier: verifier });
  t.assert.equal(res.statusCode, 200);
  const token = json<{ token_type: string; access_token: string; expires_in: number }>(res);
  t.assert.equal(token.token_type, 'Bearer');
  t.assert.equal(token.expires_in, 365 * 24 * 3600);
  t.assert.match(token.access_token, /^lio_[A-Za-z0-9]+$/);
  const bearer = { authorization: `Bearer ${token.access_token}` };
  t.assert.equal((await app.inject({ method: 'GET', url: '/api/account', headers: bearer })).statusCode, 200);
  const tested = json(await app.inject({ method: 'POST', url: '/api/token/test', payload: token.access_token }));
  t.assert.deepEqual(tested[token.access_token], {
    userId: json(await app.inject({ method: 'GET', url: '/api/account', headers: bearer })).id,
    scopes: 'board:play',
    expires: clock + 365 * 24 * 3600 * 1000,
  });
  const challengeRead = await app.inject({ method: 'GET', url: '/api/challenge', headers: bearer });
  t.assert.equal(challengeRead.statusCode, 403, 'only the scopes allowed');
  t.assert.equal(json(challengeRead).code, 'MISSING_SCOPE');
  // The code again: refused, and the token it gave is revoked.
  const replay = await exchange({ code, code_verifier: verifier });
  t.assert.equal(replay.statusCode, 400);
  t.assert.equal(json(replay).error, 'invalid_grant');
  t.assert.equal((await app.inject({ method: 'GET', url: '/api/account', headers: bearer })).statusCode, 401);
});

test('a stolen code gets nothing without its verifier, client_id and redirect_uri; a code lives 60 s', async (t: TestContext) => {
  const cases: Array<[string, Record<string, string>]> = [
    ['no verifier', { code_verifier: '' }],
    ['another verifier', { code_verifier: pkce().verifier }],
    ['another client', { client_id: 'thief' }],
    ['another redirect', { redirect_uri: 'http://127.0.0.1:9999/other' }],
  ];
  for (const [name, change] of cases) {
    const { verifier, challenge } = pkce();
    const code = (await consent(t, challenge)).params.get('code')!;
    const res = await exchange({ code, code_verifier: verifier, ...change });
    t.assert.equal(res.statusCode, 400, name);
    t.assert.ok(['invalid_grant', 'invalid_request'].includes(json(res).error), name);
    t.assert.doesNotMatch(res.body, new RegExp(code), `${name}: no secret in the error`);
  }
  const { verifier, challenge } = pkce();
  const code = (await consent(t, challenge)).params.get('code')!;
  clock += 60_000;
  const late = await exchange({ code, code_verifier: verifier });
  t.assert.deepEqual(json(late), { error: 'invalid_grant', error_description: 'the code has expired' });
  t.assert.equal((await exchange({ grant_type: 'password', code, code_verifier: verifier })).statusCode, 400);
});

test('Deny: access_denied and the state, no code', async (t: TestContext) => {
  const { params } = await consent(t, pkce().challenge, 'deny');
  t.assert.equal(params.get('error'), 'access_denied');
  t.assert.equal(params.get('state'), 'st4te');
  t.assert.equal(params.get('code'), null);
});

test('a bad request: shown when redirect_uri is at fault, else sent back with the error', async (t: TestContext) => {
  const browser = new Browser(app);
  const shown = await browser.get(authorizeUrl(pkce().challenge, { redirect_uri: 'javascript:alert(1)' }));
  t.assert.equal(shown.statusCode, 400);
  t.assert.equal(shown.headers.location, undefined);
  const plain = await browser.get(authorizeUrl(pkce().challenge, { code_challenge_method: 'plain' }));
  t.assert.equal(plain.statusCode, 302);
  const back = new URL(String(plain.headers.location));
  t.assert.equal(back.searchParams.get('error'), 'invalid_request');
  t.assert.equal(back.searchParams.get('state'), 'st4te');
});

test('DELETE /api/token revokes the token it is called with', async (t: TestContext) => {
  const { verifier, challenge } = pkce();
  const code = (await consent(t, challenge)).params.get('code')!;
  const token = json(await exchange({ code, code_verifier: verifier })).access_token as string;
  const bearer = { authorization: `Bearer ${token}` };
  t.assert.equal((await app.inject({ method: 'DELETE', url: '/api/token', headers: bearer })).statusCode, 204);
  t.assert.equal((await app.inject({ method: 'GET', url: '/api/account', headers: bearer })).statusCode, 401);
});

test('failed sign-ins: 5 per account in 15 minutes, then 429 with Retry-After, the right password included', async (t: TestContext) => {
  const name = fresh();
  await made.accounts!.accounts.signUp(name, PASSWORD);
  const browser = new Browser(app);
  for (let i = 0; i < 5; i++) {
    t.assert.equal(
      (await browser.submit('/login', { username: name, password: `wrong ${i} password` })).statusCode,
      401,
    );
  }
  const limited = await browser.submit('/login', { username: name, password: PASSWORD });
  t.assert.equal(limited.statusCode, 429);
  t.assert.equal(limited.headers['retry-after'], String(15 * 60));
  clock += 15 * 60 * 1000;
  t.assert.equal(
    (await browser.submit('/login', { username: name, password: PASSWORD })).statusCode,
    303,
    'the window passed',
  );
});
