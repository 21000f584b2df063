/**
 * No secret leaves the service (DECISIONS §20): through a sign-up, sign-ins right and wrong, a password change, a
 * personal token made and used, and an OAuth flow with its failures, no password, password hash, session id, token
 * or code appears in any log line (every level) or any answer's body but the one that hands it out.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { test, type TestContext } from 'node:test';
import { makeTestApp } from '../helpers/app.ts';
import { Browser, exchangeCode, hiddenFields } from '../helpers/pages.ts';

test('no password, hash, session id, token or code in logs or error bodies', async (t: TestContext) => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const made = await makeTestApp({ accounts: true, logger: { level: 'trace', stream } });
  const { app } = made;
  t.after(() => app.close());
  const password = 'Secret-Pass-Phrase-1';
  const newPassword = 'Another-Secret-Phrase-2';
  const browser = new Browser(app);
  const bodies: string[] = [];
  const keep = <T extends { body: string }>(res: T) => (bodies.push(res.body), res);
  keep(await browser.submit('/signup', { username: 'Eve', password }));
  const session = browser.cookies.get('session')!;
  keep(await new Browser(app).submit('/login', { username: 'eve', password: `${password}x` }));
  keep(await new Browser(app).submit('/login', { username: 'nobody', password }));
  keep(await browser.submit('/account/password', { password: 'wrong current one', newPassword }));
  const created = await browser.submit('/account/tokens', { description: 'mine', scopes: 'board:play' });
  const token = /data-testid="new-token-secret">([A-Za-z0-9_]+)</.exec(created.body)![1]!;
  keep(await app.inject({ method: 'POST', url: '/api/challenge', headers: { authorization: `Bearer ${token}` } }));
  keep(
    await app.inject({ method: 'GET', url: `/api/account?token=${token}`, headers: { cookie: `session=${session}` } }),
  );
  // OAuth: a code granted, then exchanged wrongly and rightly and again.
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'app',
    redirect_uri: 'http://127.0.0.1:1/cb',
    code_challenge_method: 'S256',
    code_challenge: challenge,
    state: 's',
  });
  const consent = await browser.get(`/oauth?${query}`);
  const fields = hiddenFields(consent.body);
  const allowed = await browser.submit('/oauth', { ...fields, decision: 'allow' });
  const code = new URL(String(allowed.headers.location)).searchParams.get('code')!;
  const exchange = (extra: Record<string, string>) =>
    exchangeCode(app, { code, redirect_uri: 'http://127.0.0.1:1/cb', client_id: 'app', ...extra });
  keep(await exchange({ code_verifier: 'x'.repeat(43) }));
  keep(await exchange({ code_verifier: verifier }));
  const hash = (await made.accounts!.accounts.account('eve'))!.passwordHash;
  const secrets = { password, newPassword, hash, salt: hash.split('$')[4]!, session, token, code, verifier };
  t.assert.ok(lines.length > 10, `the log was written (${lines.length} lines)`);
  for (const [name, secret] of Object.entries(secrets)) {
    for (const line of lines) t.assert.ok(!line.includes(secret), `the ${name} is in a log line: ${line}`);
    for (const body of bodies)
      t.assert.ok(!body.includes(secret), `the ${name} is in an answer: ${body.slice(0, 200)}`);
  }
});
