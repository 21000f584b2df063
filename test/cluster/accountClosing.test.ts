/**
 * Closing an account ends its sessions and tokens, with their streams, on every instance (DECISIONS §20): two
 * server processes on one PostgreSQL database; the person signs up on the first, opens an event stream with the
 * session on the second (from the service's own page: its Origin) and another with a personal token on the first,
 * then closes the account on the first. Both streams end with UNAUTHORIZED within a second; the session and the
 * token are refused by both instances; the games stay; the id is never given again.
 */
import { suite, test, type TestContext } from 'node:test';
import { within } from '../helpers/server.ts';
import { twoPostgresInstances } from '../helpers/server.ts';
import { postgresSkip } from '../helpers/postgres.ts';
import { openStream } from '../stream/helpers.ts';

const skip = await postgresSkip();
const SERVICE = 'cluster-accounts-service-token';
const PASSWORD = 'correct horse battery';

/** A browser's forms over fetch: its cookies, the CSRF token of the last page, the service's Origin. */
class FormClient {
  readonly cookies = new Map<string, string>();
  private csrf = '';
  constructor(private readonly base: string) {}

  private async send(path: string, init: RequestInit): Promise<Response> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(`${this.base}${path}`, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie, origin: this.base },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';', 1);
      const [name, value] = pair!.split('=') as [string, string];
      this.cookies.set(name, value);
    }
    return res;
  }

  async get(path: string): Promise<string> {
    const body = await (await this.send(path, {})).text();
    this.csrf = /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? this.csrf;
    return body;
  }

  async submit(path: string, fields: Record<string, string>): Promise<Response> {
    const body = new URLSearchParams({ _csrf: this.csrf, ...fields }).toString();
    return this.send(path, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  }
}

suite('closing an account on PostgreSQL instances', { skip, timeout: 90_000 }, () => {
  const instances = twoPostgresInstances(SERVICE);

  test('its session and token streams end on both instances within a second; its id is never given again', async (t: TestContext) => {
    const [a, b] = instances.urls();
    const person = new FormClient(a);
    await person.get('/signup');
    t.assert.equal((await person.submit('/signup', { username: 'Frida', password: PASSWORD })).status, 303);
    await person.get('/account');
    const page = await (await person.submit('/account/tokens', { description: 'bot', scopes: 'board:play' })).text();
    const token = /data-testid="new-token-secret">([A-Za-z0-9_]+)</.exec(page)![1]!;
    const session = person.cookies.get('session')!;
    const game = await fetch(`${a}/api/board/game`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    t.assert.equal(game.status, 201);
    const { gameId } = (await game.json()) as { gameId: string };

    const bySession = await openStream(`${b}/api/stream/event`, {
      headers: { cookie: `session=${session}`, origin: b },
    });
    const byToken = await openStream(`${a}/api/stream/event`, { headers: { authorization: `Bearer ${token}` } });
    t.after(() => {
      bySession.close();
      byToken.close();
    });
    for (const stream of [bySession, byToken]) {
      t.assert.equal(stream.status, 200, stream.body);
      await stream.waitForEvents(1); // the gameStart of the ongoing game
    }
    const ended = [bySession, byToken].map(stream => stream.finished.then(() => performance.now()));
    await person.get('/account');
    t.assert.equal((await person.submit('/account/close', { closePassword: PASSWORD })).status, 303);
    const since = performance.now();
    for (const [index, what] of ['the session’s stream on the other instance', 'the token’s stream'].entries()) {
      const at = await within(ended[index]!, 5000, what);
      t.diagnostic(`${what} ended ${(at - since).toFixed(0)} ms after the close was answered`);
      t.assert.ok(at - since < 1000, `${what}: ${(at - since).toFixed(0)} ms`);
      const stream = [bySession, byToken][index]!;
      t.assert.equal(stream.events.at(-1)?.type, 'error', what);
    }
    for (const base of [a, b]) {
      t.assert.equal(
        (await fetch(`${base}/api/account`, { headers: { authorization: `Bearer ${token}` } })).status,
        401,
      );
      const withSession = await fetch(`${base}/api/account`, {
        headers: { cookie: `session=${session}`, origin: base },
      });
      t.assert.equal(withSession.status, 401);
    }
    const kept = await fetch(`${b}/api/board/game/${gameId}`, { headers: { authorization: `Bearer ${SERVICE}` } });
    t.assert.equal(kept.status, 200, 'its games stay');
    const again = new FormClient(b);
    await again.get('/signup');
    t.assert.equal((await again.submit('/signup', { username: 'frida', password: PASSWORD })).status, 400);
  });
});
