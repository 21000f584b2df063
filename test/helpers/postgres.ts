/**
 * PostgreSQL for tests: the machine's server (TEST_POSTGRES_URL, by default the `postgres` database on
 * 127.0.0.1:5432) and a fresh database per test file, dropped at the end. Tests skip loudly when the server
 * cannot be reached, and fail instead when CI requires it (CI_REQUIRE_EXTERNAL=1).
 *
 * ```ts
 * const skip = await postgresSkip();
 * test('...', { skip }, async t => { const db = await createTestDatabase(); t.after(db.drop); // after closing its connections ... db.url ... });
 * ```
 */
import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import pg from 'pg';
import { skipReason } from './external.ts';

export const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Whether PostgreSQL answers. A refused connection is an answer at once (none runs here); a slow one, or one refused
 * for too many clients, is tried again: on a loaded machine a running server may take seconds to let a client in.
 */
async function reachable(): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 10_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ECONNREFUSED' || attempt === 3) return false;
      await new Promise(resolve => setTimeout(resolve, 1_000));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

/** `false` when PostgreSQL is reachable; a skip message (or a throw, in CI) otherwise. */
export async function postgresSkip(): Promise<string | false> {
  return skipReason(`PostgreSQL at ${new URL(ADMIN_URL).host}`, await reachable());
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  url: string;
  name: string;
  /** Drops the database, ending any connection still open to it. */
  drop(): Promise<void>;
}

/** A new empty database. Register `drop` in an `after` hook of the suite or test that uses it. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `chess_test_${randomBytes(6).toString('hex')}`;
  await admin(client => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const drop = async () => {
    await admin(client => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  };
  return { url: url.toString(), name, drop };
}

/**
 * A fresh database for a whole test file: created before its tests and dropped after them, when PostgreSQL is
 * reachable. `skip` for the suites that need it; `url()` once the file's tests run.
 */
export async function databaseOfFile(): Promise<{ skip: string | false; url: () => string }> {
  const skip = await postgresSkip();
  let database: TestDatabase | undefined;
  if (!skip) {
    before(async () => {
      database = await createTestDatabase();
    });
    after(async () => database?.drop());
  }
  return {
    skip,
    url: () => {
      if (!database) throw new Error('the test database is not created yet');
      return database.url;
    },
  };
}
