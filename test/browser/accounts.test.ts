/// <reference lib="dom" />
// (the functions given to page.evaluate run in the browser)
/**
 * Accounts in Chromium (DECISIONS §20): two people sign up on the service's own pages, each in a window of their
 * own; the board page names who is signed in and plays with the session (no token pasted): Ann challenges Bob, Bob
 * accepts, they play a few moves; then they sign out. And an app gets a token the standard way: a real PKCE client
 * (oauth4webapi) sends the person to /oauth, where they sign in and allow it in the browser, then exchanges the code
 * and calls the API with the token.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import * as oauth from 'oauth4webapi';
import { findExecutable, skipReason } from '../helpers/external.ts';
import {
  byTestId,
  clickMove,
  startBrowserEnv,
  waitForFen,
  waitForText,
  type BrowserEnv,
  type RunContext,
} from './harness.ts';

const chromiumPath = findExecutable('chromium');
const skip = skipReason('chromium', chromiumPath);
const PASSWORD = 'correct horse battery';

let env: BrowserEnv;
before(async () => {
  if (!skip) env = await startBrowserEnv(chromiumPath!, { withAccounts: true });
});
after(async () => {
  if (!skip) await env.close();
});

const AFTER_E4 = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';
const AFTER_E4_E5 = 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2';

/** Signs up through the form, then opens the board page, signed in. */
async function signUp(open: RunContext['open'], username: string): Promise<Page> {
  const page = await open('/signup');
  await page.fill('#username', username);
  await page.fill('#password', PASSWORD);
  await page.click(byTestId('sign-up'));
  await page.waitForURL(`${env.url}/account`);
  await page.goto(`${env.url}/`);
  await waitForText(page, 'signed-in', `Signed in as ${username}`);
  await page.waitForSelector(`${byTestId('my-games-connection')}[data-state="live"]`);
  return page;
}

test('sign up, sign in, challenge another account and play from the page, sign out', { skip }, t =>
  env.run(t, async ({ open }) => {
    const ann = await signUp(open, 'Ann');
    const bob = await signUp(open, 'Bob');
    await ann.fill(byTestId('challenge-player'), 'bob');
    await ann.selectOption(byTestId('challenge-kind'), 'unlimited');
    await ann.selectOption(byTestId('challenge-color'), 'white');
    await ann.click(byTestId('challenge-submit'));
    await bob.waitForSelector(byTestId('challenge-accept'));
    await bob.click(byTestId('challenge-accept'));
    await ann.waitForURL(/\/game\/[A-Za-z0-9]{8}$/);
    await bob.waitForURL(/\/game\/[A-Za-z0-9]{8}$/);
    await waitForText(ann, 'seat', 'You play white');
    await clickMove(ann, 'e2', 'e4', 'white');
    await waitForFen(bob, AFTER_E4);
    await clickMove(bob, 'e7', 'e5', 'black');
    await waitForFen(ann, AFTER_E4_E5);

    // Sign out from the page's header: the page is nobody's again, and the session is gone.
    await ann.click(byTestId('sign-out-link'));
    await ann.click(byTestId('confirm-sign-out'));
    await ann.waitForURL(`${env.url}/`);
    await ann.waitForSelector(byTestId('sign-in-link'));
    const status = await ann.evaluate(async () => (await fetch('/api/account')).status);
    assert.equal(status, 401);

    // Sign in again with the form: the page is Ann's again.
    await ann.goto(`${env.url}/login`);
    await ann.fill('#username', 'ann');
    await ann.fill('#password', PASSWORD);
    await ann.click(byTestId('sign-in'));
    await ann.waitForURL(`${env.url}/`);
    await waitForText(ann, 'signed-in', 'Signed in as Ann');
  }),
);

test(
  'a real OAuth client (oauth4webapi) gets a token with the person’s sign-in and consent in the browser',
  { skip },
  t =>
    env.run(t, async ({ open }) => {
      // The app's redirect target: a local server that records the callback.
      let callback: (url: URL) => void = () => undefined;
      const called = new Promise<URL>(resolve => (callback = resolve));
      const appServer: Server = createServer((request, response) => {
        callback(new URL(request.url ?? '/', 'http://127.0.0.1'));
        response.end('ok');
      });
      await new Promise<void>(resolve => appServer.listen(0, '127.0.0.1', resolve));
      t.after(() => appServer.close());
      const redirectUri = `http://127.0.0.1:${(appServer.address() as { port: number }).port}/callback`;

      const issuer = new URL(env.url);
      const as: oauth.AuthorizationServer = {
        issuer: issuer.href,
        authorization_endpoint: new URL('/oauth', issuer).href,
        token_endpoint: new URL('/api/token', issuer).href,
      };
      const client: oauth.Client = { client_id: 'example-app' };
      const verifier = oauth.generateRandomCodeVerifier();
      const challenge = await oauth.calculatePKCECodeChallenge(verifier);
      const state = oauth.generateRandomState();
      const authorize = new URL(as.authorization_endpoint!);
      for (const [name, value] of Object.entries({
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: redirectUri,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        scope: 'board:play',
        state,
      }))
        authorize.searchParams.set(name, value);

      // The person: not signed in yet, so signed in first, then asked.
      const signUpPage = await open('/signup');
      await signUpPage.fill('#username', 'Carol');
      await signUpPage.fill('#password', PASSWORD);
      await signUpPage.click(byTestId('sign-up'));
      await signUpPage.waitForURL(`${env.url}/account`);
      await signUpPage.click(byTestId('sign-out'));
      await signUpPage.goto(authorize.href);
      await signUpPage.waitForURL(/\/login\?next=/);
      await signUpPage.fill('#username', 'carol');
      await signUpPage.fill('#password', PASSWORD);
      await signUpPage.click(byTestId('sign-in'));
      await signUpPage.waitForSelector(byTestId('oauth-allow'));
      assert.equal(await signUpPage.textContent(byTestId('oauth-client')), 'example-app');
      await signUpPage.click(byTestId('oauth-allow'));
      const back = await called;

      const params = oauth.validateAuthResponse(as, client, back, state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.None(),
        params,
        redirectUri,
        verifier,
        {
          [oauth.allowInsecureRequests]: true,
        },
      );
      const result = await oauth.processAuthorizationCodeResponse(as, client, response);
      assert.equal(result.token_type, 'bearer');
      assert.equal(result.expires_in, 365 * 24 * 3600);
      const me = await env.api('GET', '/api/account', undefined, result.access_token);
      assert.equal(me.statusCode, 200);
      assert.equal(JSON.parse(me.body).player.id, 'carol');
    }),
);
