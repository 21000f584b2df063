/**
 * A PostgreSQL connection lost in the middle of a request is a 503 for that request, never a crash of the process
 * (DECISIONS §16a). The requests that hold a client of the pool in a transaction (chat lines, challenges under the
 * pending cap, seek pairings) are made to wait inside it: the test holds, on a connection of its own, the lock their
 * transactions take next (a player's advisory lock, a seek's row). With forty such requests in flight and every pool
 * client waiting, a TCP proxy between the server process and PostgreSQL drops all its connections: each request
 * answers 503 UNAVAILABLE, the process lives on, and once the database is reachable again the same requests succeed.
 * A player's event stream opened during the outage ends with an UNAVAILABLE error line after its head.
 */
import { after, before, describe, test, type TestContext } from 'node:test';
import pg from 'pg';
import { startServer, type ServerProcess } from '../helpers/server.ts';
import { createTestDatabase, postgresSkip, type TestDatabase } from '../helpers/postgres.ts';
import { Outage } from '../helpers/outage.ts';
import { openStream, WAIT_MS } from '../stream/helpers.ts';
import { CHALLENGER_LOCK, CHAT_WRITER_LOCK } from '../../src/store/postgres.ts';

const skip = await postgresSkip();
const SERVICE = 'pool-outage-service-token';
const IN_FLIGHT = 40;
const POOL_SIZE = 10; // the store's default: every client of the pool waits in a transaction

/** Resolves once `check` resolves true (asked every 50 ms); fails after WAIT_MS naming `what`. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = performance.now() + WAIT_MS;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${WAIT_MS} ms waiting for ${what}`);
    await new Promise(resolve => setTimeout(resolve, 50));
  }
}

interface Answer {
  status: number;
  body: { code?: string } | undefined;
}

describe('a PostgreSQL connection lost in the middle of requests', { skip, timeout: 180_000 }, () => {
  let db: TestDatabase;
  const outage = new Outage();
  let server: ServerProcess;
  // Straight to PostgreSQL, not through the proxy: one connection holds the lock in a transaction, another watches
  // (a transaction reads pg_stat_activity once).
  let admin: pg.Client;
  let observer: pg.Client;
  const tokens = new Map<string, string>();

  const call = async (token: string, method: string, path: string, body?: object): Promise<Answer> => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as Answer['body']) };
  };
  const player = async (id: string): Promise<string> => {
    const known = tokens.get(id);
    if (known) return known;
    const issued = await call(SERVICE, 'POST', '/api/tokens', { player: { id, displayName: id } });
    if (issued.status !== 201) throw new Error(`token for ${id}: ${issued.status}`);
    const token = (issued.body as { token: string }).token;
    tokens.set(id, token);
    return token;
  };

  /** The server's connections waiting for a lock in this database. */
  const waiting = async (): Promise<number> =>
    Number(
      (
        await observer.query<{ n: string }>(
          "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'",
          [db.name],
        )
      ).rows[0]!.n,
    );

  /**
   * Holds `lock` (SQL run in a transaction of the test's own connection), sends the requests, waits until every
   * client of the server's pool waits in its transaction, and cuts the proxy: every answer is 503 UNAVAILABLE and the
   * process lives. Then the lock is let go, the proxy restored, and the server ready again.
   */
  const cutWhileWaiting = async (t: TestContext, lock: string, requests: () => Promise<Answer>[]) => {
    await admin.query('BEGIN');
    await admin.query(lock);
    const answers = requests();
    await eventually(
      async () => (await waiting()) >= POOL_SIZE,
      `${POOL_SIZE} of the server's connections waiting for the lock`,
    );
    outage.cut();
    const settled = await Promise.all(answers);
    await admin.query('ROLLBACK');
    t.assert.deepEqual(
      settled.filter(answer => answer.status !== 503 || answer.body?.code !== 'UNAVAILABLE'),
      [],
      'every request in flight answers 503 UNAVAILABLE',
    );
    t.assert.equal(server.proc.exitCode, null, 'the process lives');
    t.assert.equal(server.proc.signalCode, null);
    t.assert.ok(!server.logs.some(line => line.includes('Unhandled')), 'no unhandled error');
    t.assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    outage.restore();
    await eventually(async () => (await fetch(`${server.url}/readyz`)).status === 200, 'the server ready again');
  };

  before(async () => {
    db = await createTestDatabase();
    await outage.start();
    server = await startServer({
      DATABASE_URL: outage.url(db.url),
      API_TOKENS: SERVICE,
      RATE_LIMIT_MAX: '0',
      MAX_STREAMS_PER_CLIENT: '0',
    });
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    observer = new pg.Client({ connectionString: db.url });
    await observer.connect();
  });
  after(async () => {
    await admin.end().catch(() => undefined);
    await observer.end().catch(() => undefined);
    await server.stop('SIGKILL');
    await outage.close();
    await db.drop();
  });

  test(`${IN_FLIGHT} chat lines of one player waiting in their transactions when the connections drop`, async (t: TestContext) => {
    const [ann] = [await player('ann'), await player('bob')];
    const created = await call(SERVICE, 'POST', '/api/board/game', {
      white: { id: 'ann', displayName: 'ann' },
      black: { id: 'bob', displayName: 'bob' },
    });
    const gameId = (created.body as { gameId: string }).gameId;
    const line = (i: number) =>
      call(ann, 'POST', `/api/board/game/${gameId}/chat`, { room: 'player', text: `hi ${i}` });
    await cutWhileWaiting(t, `SELECT pg_advisory_xact_lock(${CHAT_WRITER_LOCK}, hashtext('ann'))`, () =>
      Array.from({ length: IN_FLIGHT }, (_, i) => line(i)),
    );
    t.assert.equal((await line(IN_FLIGHT)).status, 200, 'a line is written once the database is back');
  });

  test(`${IN_FLIGHT} challenges of one player under the pending cap when the connections drop`, async (t: TestContext) => {
    const [cat] = [await player('cat'), await player('dan')];
    const challenge = () => call(cat, 'POST', '/api/challenge/dan', { days: 3 });
    await cutWhileWaiting(t, `SELECT pg_advisory_xact_lock(${CHALLENGER_LOCK}, hashtext('cat'))`, () =>
      Array.from({ length: IN_FLIGHT }, challenge),
    );
    t.assert.equal((await challenge()).status, 200, 'a challenge is made once the database is back');
  });

  test(`${IN_FLIGHT} seek pairings with one seek when the connections drop`, async (t: TestContext) => {
    const target = await player('eve');
    const made = await call(target, 'POST', '/api/board/seek', { days: 5, color: 'white' });
    t.assert.equal(made.status, 200);
    const seekId = (made.body as { id: string }).id;
    const seekers = await Promise.all(Array.from({ length: IN_FLIGHT + 1 }, (_, i) => player(`seeker${i}`)));
    const seek = (token: string) => call(token, 'POST', '/api/board/seek', { days: 5, color: 'black' });
    // The pairings lock Eve's seek's row: the test's own lock on it keeps them waiting there.
    await cutWhileWaiting(t, `SELECT id FROM seeks WHERE id = '${seekId}' FOR UPDATE`, () =>
      seekers.slice(0, IN_FLIGHT).map(seek),
    );
    t.assert.equal((await seek(seekers[IN_FLIGHT]!)).status, 200, 'a seek is made once the database is back');
    const games = await call(SERVICE, 'GET', '/api/board/game?player=eve');
    t.assert.equal((games.body as unknown as { games: unknown[] }).games.length, 1, "Eve's seek is paired, once");
  });

  test("a player's event stream opened during the outage: its head, an UNAVAILABLE error line, the end", async (t: TestContext) => {
    outage.cut();
    t.after(() => outage.restore());
    const stream = await openStream(`${server.url}/api/stream/event?player=ann`, {
      headers: { authorization: `Bearer ${SERVICE}` },
    });
    t.after(() => stream.close());
    t.assert.equal(stream.status, 200);
    t.assert.equal(await stream.finished, 'end');
    t.assert.deepEqual(
      stream.events.map(event => [event.type, event.error?.code]),
      [['error', 'UNAVAILABLE']],
    );
  });
});
