/// <reference lib="dom" />
// (the functions given to page.evaluate run in the browser)
/**
 * Another origin cannot act with a person's session (DECISIONS §20): a page served by a second local server (same
 * host, another port: another origin, but the same site, so that the browser does send the SameSite=Lax cookie)
 * posts forms to the service's pages and calls its API with `fetch`. The person is signed in in the same browser;
 * nothing changes (no token made, no game created, not signed out) and nothing is read.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { findExecutable, skipReason } from '../helpers/external.ts';
import { byTestId, startBrowserEnv, waitForText, type BrowserEnv } from './harness.ts';

const chromiumPath = findExecutable('chromium');
const skip = skipReason('chromium', chromiumPath);
const PASSWORD = 'correct horse battery';

let env: BrowserEnv;
let evil: Server;
let evilUrl = '';
before(async () => {
  if (skip) return;
  env = await startBrowserEnv(chromiumPath!, { withAccounts: true });
  const service = env.url;
  const page = (action: string, fields: Record<string, string>) => `<!doctype html><html><body>
<form id="f" method="post" action="${service}${action}">${Object.entries(fields)
    .map(([name, value]) => `<input name="${name}" value="${value}">`)
    .join('')}<button>go</button></form></body></html>`;
  const script = `<!doctype html><html><body><script>
const results = {};
const note = (name, value) => { results[name] = value; document.title = JSON.stringify(results); };
fetch('${service}/api/account', { credentials: 'include' }).then(r => r.text()).then(t => note('read', t), () => note('read', 'blocked'));
fetch('${service}/api/board/game', { method: 'POST', credentials: 'include', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{}' })
  .then(r => note('create', r.type), () => note('create', 'blocked'));
fetch('${service}/api/board/game', { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: '{}' })
  .then(r => note('createCors', r.status), () => note('createCors', 'blocked'));
</script></body></html>`;
  evil = createServer((request, response) => {
    response.setHeader('content-type', 'text/html');
    if (request.url === '/token')
      response.end(page('/account/tokens', { description: 'stolen', scopes: 'board:play' }));
    else if (request.url === '/logout') response.end(page('/logout', {}));
    else if (request.url === '/close') response.end(page('/account/close', { closePassword: PASSWORD }));
    else response.end(script);
  });
  await new Promise<void>(resolve => evil.listen(0, '127.0.0.1', resolve));
  evilUrl = `http://127.0.0.1:${(evil.address() as { port: number }).port}`;
});
after(async () => {
  if (skip) return;
  await new Promise(resolve => evil.close(resolve));
  await env.close();
});

test('a page on another origin can neither change nor read anything with the session, by form or fetch', { skip }, t =>
  env.run(t, async () => {
    // A context of its own, not the harness's: the other origin's page logs the browser's CORS refusals, as it should.
    const context = await env.browser.newContext();
    t.after(() => context.close());
    const page = await context.newPage();
    await page.goto(`${env.url}/signup`);
    await page.fill('#username', 'Dora');
    await page.fill('#password', PASSWORD);
    await page.click(byTestId('sign-up'));
    await page.waitForURL(`${env.url}/account`);

    for (const path of ['/token', '/logout', '/close']) {
      await page.goto(`${evilUrl}${path}`);
      await page.click('#f button');
      await page.waitForLoadState();
      assert.match((await page.textContent('body')) ?? '', /another site/, `${path}: refused`);
    }
    await page.goto(`${evilUrl}/fetch`);
    await page.waitForFunction(() => Object.keys(JSON.parse(document.title || '{}') as object).length === 3);
    const results = JSON.parse(await page.title()) as Record<string, unknown>;
    assert.equal(results.read, 'blocked', 'no CORS for another origin: nothing is read');
    assert.equal(results.createCors, 'blocked', 'a JSON POST needs a preflight, which is refused');

    // Nothing changed: no token, no game, still signed in, the account open.
    assert.deepEqual(await env.playerTokens!.list('dora'), []);
    assert.deepEqual(await env.store.listGames({ player: 'dora', status: 'all', limit: 10 }), []);
    await page.goto(`${env.url}/account`);
    await waitForText(page, 'signed-in', 'Signed in as Dora');
    assert.equal((await env.store.account('dora'))?.closedAt, null);
  }),
);
