/**
 * Challenges on real server processes (DECISIONS §16): pending challenges survive a restart, and one whose time ran
 * out while the server was down expires as it starts (SQLite); a challenge made on one instance is seen on the
 * challenged player's stream on another, its answer on the challenger's, and the accepted game's gameStart on both
 * (two instances on one PostgreSQL database).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, suite, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, twoPostgresInstances, type ServerProcess } from '../helpers/server.ts';
import { clientOf } from '../helpers/client.ts';
import { postgresSkip } from '../helpers/postgres.ts';
import { openStream, type StreamClient } from './helpers.ts';

const SERVICE = 'challenge-events-service-token';

const issue = async (base: string, id: string) => {
  const service = clientOf(base, SERVICE);
  return service.unwrap(service.api.POST('/api/tokens', { body: { player: { id, displayName: id } } }));
};

/** A challenge sent as a form, as lichess clients send it (raw: the typed client sends JSON). */
async function challengeByForm(base: string, token: string, to: string, form: string) {
  const res = await fetch(`${base}/api/challenge/${to}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  if (res.status !== 200) throw new Error(`challenge: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string };
}

suite('challenges on SQLite survive a restart', { timeout: 60_000 }, () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'chess-challenges-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('pending ones are kept; a real-time one due while the server was down expires as it starts', async (t: TestContext) => {
    const env = { DATABASE_URL: join(dir, 'chess.sqlite'), API_TOKENS: SERVICE, CHALLENGE_TTL_S: '2' };
    let server: ServerProcess = await startServer(env);
    t.after(() => server.stop('SIGTERM'));
    const [ann, bob] = [await issue(server.url, 'ann'), await issue(server.url, 'bob')];
    const realTime = await challengeByForm(server.url, ann.token, 'bob', 'clock.limit=180&clock.increment=0');
    const corr = await challengeByForm(server.url, ann.token, 'bob', 'days=1');
    t.assert.equal(await server.stop('SIGTERM'), 0);
    await sleep(2100);
    server = await startServer(env);
    const asBob = clientOf(server.url, bob.token);
    const shown = await asBob.unwrap(
      asBob.api.GET('/api/challenge/{id}/show', { params: { path: { id: realTime.id } } }),
    );
    t.assert.equal(shown.status, 'canceled');
    const pending = await asBob.unwrap(asBob.api.GET('/api/challenge'));
    t.assert.deepEqual(
      pending.in.map(c => c.id),
      [corr.id],
    );
    const accepted = await asBob.api.POST('/api/challenge/{id}/accept', { params: { path: { id: corr.id } } });
    t.assert.equal(accepted.response.status, 200);
  });
});

const skip = await postgresSkip();

suite('challenges across two instances on PostgreSQL', { skip, timeout: 60_000 }, () => {
  const instances = twoPostgresInstances(SERVICE);

  test("a challenge made on one instance reaches the challenged player's stream on the other", async (t: TestContext) => {
    const [a, b] = instances.urls();
    const [ann, bob] = [await issue(a, 'ann-pg'), await issue(a, 'bob-pg')];
    const streams: StreamClient[] = [];
    t.after(() => streams.forEach(stream => stream.close()));
    const open = async (base: string, token: string) => {
      const stream = await openStream(`${base}/api/stream/event`, { headers: { authorization: `Bearer ${token}` } });
      streams.push(stream);
      return stream;
    };
    const [annStream, bobStream] = [await open(a, ann.token), await open(b, bob.token)];
    const declined = await challengeByForm(a, ann.token, 'bob-pg', 'clock.limit=300&clock.increment=3');
    await bobStream.waitForEvents(1);
    t.assert.equal(bobStream.events[0].challenge.direction, 'in');
    const bobAtB = clientOf(b, bob.token);
    await bobAtB.unwrap(
      bobAtB.api.POST('/api/challenge/{id}/decline', {
        params: { path: { id: declined.id } },
        body: { reason: 'toofast' },
      }),
    );
    const accepted = await challengeByForm(a, ann.token, 'bob-pg', 'days=3&color=black');
    await bobStream.waitForEvents(3);
    await bobAtB.unwrap(bobAtB.api.POST('/api/challenge/{id}/accept', { params: { path: { id: accepted.id } } }));
    const expected = [
      ['challenge', declined.id],
      ['challengeDeclined', declined.id],
      ['challenge', accepted.id],
      ['gameStart', 'white bob-pg'],
    ];
    for (const stream of [annStream, bobStream]) {
      await stream.waitForEvents(expected.length);
      await sleep(300); // a line sent twice would be here by now
      t.assert.deepEqual(
        stream.events.map(event => [event.type, event.challenge?.id ?? `white ${event.game?.white.id}`]),
        expected,
      );
    }
    t.assert.equal(annStream.events[1].challenge.declineReasonKey, 'toofast');
  });
});
