/**
 * Accounts over HTTP (DECISIONS §20), on SQLite: the pages as plain forms (sign-up, sign-in, sign-out, the account
 * page), sessions (a new id at every sign-in, ended by sign-out), CSRF tokens and Origin checks, the API taking a
 * session only from the service's own pages, personal tokens with scopes and 403 MISSING_SCOPE.
 */
import { before, after, test, type TestContext } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { makeTestApp, json, type TestApp } from '../helpers/app.ts';
import { Browser, ORIGIN } from '../helpers/pages.ts';

let made: TestApp;
let app: FastifyInstance;
before(async () => {
  made = await makeTestApp({ accounts: true, logger: false });
  app = made.app;
});
after(() => app.close());

let counter = 0;
const fresh = () => `User${process.pid % 1000}x${++counter}`;
const PASSWORD = 'correct horse battery';

test('a person signs up with a form, is signed in, sees their account; sign-out ends the session', async (t: TestContext) => {
  const browser = new Browser(app);
  const name = fresh();
  const form = await browser.get('/signup');
  t.assert.equal(form.statusCode, 200);
  t.assert.match(form.body, /name="username"/);
  t.assert.match(form.body, /name="password"/);
  const res = await browser.submit('/signup', { username: name, password: PASSWORD });
  t.assert.equal(res.statusCode, 303);
  t.assert.equal(res.headers.location, '/account');
  const cookie = String(res.headers['set-cookie']);
  t.assert.match(cookie, /session=ses_[A-Za-z0-9]{43}; Path=\/; HttpOnly; SameSite=Lax/);
  const page = await browser.get('/account');
  t.assert.equal(page.statusCode, 200);
  t.assert.match(page.body, new RegExp(`Signed in as <a href="/account">${name}</a>`));
  t.assert.match(page.body, new RegExp(`<code data-testid="account-id">${name.toLowerCase()}</code>`));
  // The API takes the session from the service's own pages.
  const me = await browser.api('GET', '/api/account');
  t.assert.equal(me.statusCode, 200);
  t.assert.deepEqual(json(me).player, { id: name.toLowerCase(), displayName: name });
  const out = await browser.submit('/logout', {});
  t.assert.equal(out.statusCode, 303);
  const gone = await browser.get('/account');
  t.assert.equal(gone.statusCode, 303);
  t.assert.equal(gone.headers.location, '/login?next=%2Faccount');
  t.assert.equal((await browser.api('GET', '/api/account')).statusCode, 401, 'authentication is on: an account exists');
});

test('sign-in: a new session id every time (one set before is not kept); unknown user and wrong password answer alike', async (t: TestContext) => {
  const name = fresh();
  await made.accounts!.accounts.signUp(name, PASSWORD);
  const browser = new Browser(app);
  browser.cookies.set('session', 'ses_planted_by_someone_else');
  const wrong = await browser.submit('/login', { username: name, password: 'not the password' });
  const unknown = await browser.submit('/login', { username: `${name}zz`, password: 'not the password' });
  t.assert.equal(wrong.statusCode, 401);
  t.assert.equal(unknown.statusCode, 401);
  const message = (res: LightMyRequestResponse) => /data-testid="form-error">([^<]*)</.exec(res.body)?.[1];
  t.assert.equal(message(wrong), 'wrong username or password');
  t.assert.equal(message(unknown), message(wrong));
  t.assert.doesNotMatch(wrong.body, /not the password/, 'the password is never echoed');
  const first = await browser.submit('/login', {
    username: name.toUpperCase(),
    password: PASSWORD,
    next: '/game/abcd1234',
  });
  t.assert.equal(first.statusCode, 303);
  t.assert.equal(first.headers.location, '/game/abcd1234');
  const one = browser.cookies.get('session');
  t.assert.notEqual(one, 'ses_planted_by_someone_else');
  t.assert.equal(await made.accounts!.accounts.session('ses_planted_by_someone_else'), undefined);
  await browser.submit('/login', { username: name, password: PASSWORD, next: '//evil.example/' });
  t.assert.notEqual(browser.cookies.get('session'), one, 'a new id at every sign-in');
  t.assert.ok(await made.accounts!.accounts.session(one), 'the earlier session is another, still valid');
});

test('forms without their CSRF token, or sent from another origin, change nothing', async (t: TestContext) => {
  const browser = new Browser(app);
  const name = fresh();
  await browser.get('/signup');
  const noToken = await browser.submit('/signup', { username: name, password: PASSWORD }, { csrf: false });
  t.assert.equal(noToken.statusCode, 403);
  const crossSite = await browser.submit(
    '/signup',
    { username: name, password: PASSWORD },
    { origin: 'http://evil.example' },
  );
  t.assert.equal(crossSite.statusCode, 403);
  t.assert.match(crossSite.body, /another site/);
  t.assert.equal(await made.accounts!.accounts.account(name), undefined, 'no account was made');
});

test('the API takes a session only with Sec-Fetch-Site: same-origin or the service’s Origin', async (t: TestContext) => {
  const browser = new Browser(app);
  await browser.submit('/signup', { username: fresh(), password: PASSWORD });
  const session = `session=${browser.cookies.get('session')}`;
  const ask = (headers: Record<string, string>) =>
    app.inject({ method: 'GET', url: '/api/account', headers: { cookie: session, ...headers } });
  t.assert.equal((await ask({ 'sec-fetch-site': 'same-origin' })).statusCode, 200);
  t.assert.equal((await ask({ origin: ORIGIN })).statusCode, 200);
  t.assert.equal((await ask({})).statusCode, 401, 'curl: the cookie is not taken');
  t.assert.equal((await ask({ 'sec-fetch-site': 'cross-site' })).statusCode, 401);
  t.assert.equal((await ask({ origin: 'http://evil.example', 'sec-fetch-site': 'same-origin' })).statusCode, 401);
  const move = await app.inject({
    method: 'POST',
    url: '/api/board/game',
    headers: { cookie: session, origin: 'http://evil.example', 'content-type': 'application/json' },
    payload: '{}',
  });
  t.assert.equal(move.statusCode, 401, 'another origin cannot act with the session');
});

test('personal tokens: made with scopes on /account, shown once, listed, refused without their scope, revoked', async (t: TestContext) => {
  const browser = new Browser(app);
  const name = fresh();
  await browser.submit('/signup', { username: name, password: PASSWORD });
  const made1 = await browser.submit('/account/tokens', { description: 'my script', scopes: ['challenge:read'] });
  t.assert.equal(made1.statusCode, 200);
  const secret = /data-testid="new-token-secret">(lip_[A-Za-z0-9]+)</.exec(made1.body)?.[1];
  t.assert.ok(secret, 'the token is shown');
  t.assert.match(made1.body, /<td>my script<\/td>\s*<td>challenge:read<\/td>/);
  t.assert.doesNotMatch((await browser.get('/account')).body, new RegExp(secret), 'shown once');
  const bearer = { authorization: `Bearer ${secret}` };
  t.assert.equal((await app.inject({ method: 'GET', url: '/api/challenge', headers: bearer })).statusCode, 200);
  const create = await app.inject({ method: 'POST', url: '/api/board/game', headers: bearer });
  t.assert.equal(create.statusCode, 403);
  t.assert.deepEqual(json(create), {
    code: 'MISSING_SCOPE',
    message: 'this token lacks the scope board:play, which this operation needs',
    field: 'board:play',
  });
  const tested = await app.inject({
    method: 'POST',
    url: '/api/token/test',
    payload: secret,
    headers: { 'content-type': 'text/plain' },
  });
  t.assert.deepEqual(json(tested), {
    [secret]: { userId: name.toLowerCase(), scopes: 'challenge:read', expires: null },
  });
  const id = /data-testid="revoke-([A-Za-z0-9]+)"/.exec(made1.body)?.[1];
  const revoked = await browser.submit('/account/tokens/revoke', { id: id! });
  t.assert.equal(revoked.statusCode, 200);
  t.assert.equal((await app.inject({ method: 'GET', url: '/api/challenge', headers: bearer })).statusCode, 401);
  // Another person cannot revoke it.
  const other = new Browser(app);
  await other.submit('/signup', { username: fresh(), password: PASSWORD });
  const token2 = /data-testid="revoke-([A-Za-z0-9]+)"/.exec(
    (await browser.submit('/account/tokens', { description: 'two', scopes: 'board:play' })).body,
  )?.[1];
  t.assert.equal((await other.submit('/account/tokens/revoke', { id: token2! })).statusCode, 404);
});

test('sign-up refuses taken, reserved and bad names and weak passwords, with the reason', async (t: TestContext) => {
  const browser = new Browser(app);
  const name = fresh();
  await browser.submit('/signup', { username: name, password: PASSWORD });
  const cases: Array<[string, string, RegExp]> = [
    [name.toUpperCase(), PASSWORD, /is taken/],
    ['stockfish', PASSWORD, /reserved/],
    ['a', PASSWORD, /2 to 20/],
    [fresh(), 'password1', /most common/],
    [fresh(), 'short', /at least 8/],
  ];
  for (const [username, password, expected] of cases) {
    const res = await new Browser(app).submit('/signup', { username, password });
    t.assert.equal(res.statusCode, 400, username);
    t.assert.match(res.body, expected, username);
  }
});

test('SIGNUP=closed: the page says so and the form makes no account; the operator still can', async (t: TestContext) => {
  const closed = await makeTestApp({ accounts: { signup: 'closed' } });
  t.after(() => closed.app.close());
  const browser = new Browser(closed.app);
  t.assert.match((await browser.get('/signup')).body, /Sign-up is closed/);
  const res = await browser.submit('/signup', { username: 'Gus', password: PASSWORD });
  t.assert.equal(res.statusCode, 403);
  t.assert.equal(await closed.accounts!.accounts.account('gus'), undefined);
  await closed.accounts!.accounts.signUp('Gus', PASSWORD, { operator: true });
  t.assert.equal((await browser.submit('/login', { username: 'gus', password: PASSWORD })).statusCode, 303);
});
