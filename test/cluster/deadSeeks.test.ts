/**
 * A real-time seek whose holder died is never paired, not even before its lease lapses (DECISIONS §16a). Its holder
 * is the process that keeps its request open: SIGKILLed, it can neither answer the request nor tell anyone. On two
 * instances of one PostgreSQL database, the other instance does not pair it once the database has seen the killed
 * process's connections go; on a single server with its SQLite file, the server started again does not pair the
 * seek its previous process held. In both, the next seeker waits instead (its answer's head is out, so its look for
 * a partner is over), and is paired with the one after.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import pg from 'pg';
import { startServer, type ServerProcess } from '../helpers/server.ts';
import { createTestDatabase, postgresSkip, type TestDatabase } from '../helpers/postgres.ts';
import { WAIT_MS } from '../stream/helpers.ts';
import { INSTANCE_APPLICATION } from '../../src/store/postgres/instance.ts';

const skip = await postgresSkip();
const SERVICE = 'dead-seeks-service-token';
const env = { API_TOKENS: SERVICE, RATE_LIMIT_MAX: '0', MAX_STREAMS_PER_CLIENT: '0' };

/** Resolves once `check` resolves true (asked every 50 ms); fails after WAIT_MS naming `what`. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = performance.now() + WAIT_MS;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${WAIT_MS} ms waiting for ${what}`);
    await new Promise(resolve => setTimeout(resolve, 50));
  }
}

async function call(base: string, token: string, method: string, path: string, body?: object) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as Record<string, any>) };
}

async function tokenOf(base: string, id: string): Promise<string> {
  const issued = await call(base, SERVICE, 'POST', '/api/tokens', { player: { id, displayName: id } });
  if (issued.status !== 201) throw new Error(`token for ${id}: ${issued.status}`);
  return issued.body!.token as string;
}

const gamesOf = async (base: string, player: string): Promise<string[]> =>
  ((await call(base, SERVICE, 'GET', `/api/board/game?player=${player}`)).body!.games as Array<{ gameId: string }>).map(
    game => game.gameId,
  );

/** A real-time seek held on its own socket: resolves with the answer's head (its look for a partner is over). */
function holdSeek(
  t: TestContext,
  base: string,
  token: string,
): Promise<{ response: IncomingMessage; ended: () => boolean }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}/api/board/seek`, {
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    t.after(() => req.destroy());
    req.on('error', reject);
    req.on('response', response => {
      let ended = false;
      response.on('data', () => undefined);
      response.on('end', () => (ended = true));
      response.on('error', () => undefined);
      resolve({ response, ended: () => ended });
    });
    req.end(JSON.stringify({ time: 3, increment: 2 }));
  });
}

/**
 * Ann's seek was held by a process now dead: Bob seeks on `live` and waits (Ann gets no game), then Cat's seek
 * pairs with Bob's, which ends his answer.
 */
async function deadSeekIsNotPaired(t: TestContext, live: string): Promise<void> {
  const [bob, cat] = [await tokenOf(live, 'bob'), await tokenOf(live, 'cat')];
  const bobHeld = await holdSeek(t, live, bob);
  t.assert.equal(bobHeld.response.statusCode, 200);
  t.assert.deepEqual(await gamesOf(live, 'ann'), [], "the dead process's seek is not paired");
  t.assert.equal(bobHeld.ended(), false, 'Bob waits');
  const catHeld = await holdSeek(t, live, cat);
  t.assert.equal(catHeld.response.statusCode, 200);
  await eventually(async () => bobHeld.ended() && catHeld.ended(), "Bob and Cat's answers ending, paired");
  const [game] = await gamesOf(live, 'bob');
  t.assert.deepEqual(await gamesOf(live, 'cat'), [game]);
}

describe('a real-time seek of a SIGKILLed instance of a PostgreSQL database', { skip, timeout: 120_000 }, () => {
  let db: TestDatabase;
  let observer: pg.Client;
  const servers: ServerProcess[] = [];

  before(async () => {
    db = await createTestDatabase();
    servers.push(
      ...(await Promise.all([
        startServer({ ...env, DATABASE_URL: db.url }),
        startServer({ ...env, DATABASE_URL: db.url }),
      ])),
    );
    observer = new pg.Client({ connectionString: db.url });
    await observer.connect();
  });
  after(async () => {
    await observer.end().catch(() => undefined);
    await Promise.all(servers.map(server => server.stop('SIGKILL')));
    await db.drop();
  });

  test('is not paired by the other instance, long before its lease lapses', async (t: TestContext) => {
    const [dead, live] = servers as [ServerProcess, ServerProcess];
    const ann = await tokenOf(dead.url, 'ann');
    const annHeld = await holdSeek(t, dead.url, ann);
    t.assert.equal(annHeld.response.statusCode, 200);
    const killedAt = performance.now();
    t.assert.equal(await dead.stop('SIGKILL'), 'SIGKILL');
    // PostgreSQL ends a killed process's sessions as soon as it reads their sockets' end (a few milliseconds): then
    // only the live instance's presence is left.
    await eventually(
      async () =>
        (
          await observer.query(
            'SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND starts_with(application_name, $2)',
            [db.name, INSTANCE_APPLICATION],
          )
        ).rows.length <= 1,
      "the killed process's connections gone",
    );
    await deadSeekIsNotPaired(t, live.url);
    t.assert.ok(performance.now() - killedAt < 15_000, 'all within the seek lease');
  });
});

describe(
  "a real-time seek of a single server's previous process (SQLite), killed and started again",
  { timeout: 120_000 },
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'chess-dead-seeks-'));
    const servers: ServerProcess[] = [];
    after(async () => {
      await Promise.all(servers.map(server => server.stop('SIGKILL')));
      rmSync(dir, { recursive: true, force: true });
    });

    test('is not paired by the server started again, long before its lease lapses', async (t: TestContext) => {
      const settings = { ...env, DATABASE_URL: join(dir, 'chess.sqlite') };
      const first = await startServer(settings);
      servers.push(first);
      const ann = await tokenOf(first.url, 'ann');
      const annHeld = await holdSeek(t, first.url, ann);
      t.assert.equal(annHeld.response.statusCode, 200);
      const killedAt = performance.now();
      t.assert.equal(await first.stop('SIGKILL'), 'SIGKILL');
      const again = await startServer(settings);
      servers.push(again);
      await deadSeekIsNotPaired(t, again.url);
      t.assert.ok(performance.now() - killedAt < 15_000, 'all within the seek lease');
    });
  },
);
