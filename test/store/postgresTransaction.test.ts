/**
 * The PostgreSQL store's one way to check a client out of its pool (src/store/postgresTransaction.ts): COMMIT or
 * ROLLBACK around the work, a refusal that rolls back with an answer, and a connection lost while the client is out
 * (its backend terminated mid-transaction) rejecting the work's query instead of ending the process with an unheard
 * `error`, the broken client discarded by the pool. And no other code of the store checks a client out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test, type TestContext } from 'node:test';
import pg from 'pg';
import { isUnavailable, Rollback, transaction } from '../../src/store/postgresTransaction.ts';
import { createTestDatabase, postgresSkip, type TestDatabase } from '../helpers/postgres.ts';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

test("no code of the service checks a client out of a pool but the store's transaction", (t: TestContext) => {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter(name => name.endsWith('.ts'));
  const checkouts = files.filter(name =>
    /\bpool\.connect\(|\.pool\.connect\(/.test(readFileSync(join(SRC, name), 'utf8')),
  );
  t.assert.deepEqual(checkouts, [join('store', 'postgresTransaction.ts')]);
});

const skip = await postgresSkip();

describe('transaction', { skip }, () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let admin: pg.Client;
  const poolErrors: Error[] = [];

  before(async () => {
    db = await createTestDatabase();
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
    pool.on('error', error => poolErrors.push(error));
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    await admin.query('CREATE TABLE t (n INTEGER)');
  });
  after(async () => {
    await admin.end();
    await pool.end();
    await db.drop();
  });

  const count = async () => Number((await admin.query<{ n: string }>('SELECT count(*) AS n FROM t')).rows[0]!.n);

  test('commits what the work wrote; rolls it back when the work throws, or refuses with an answer', async (t: TestContext) => {
    const before = await count();
    t.assert.equal(
      await transaction(pool, async client => {
        await client.query('INSERT INTO t VALUES (1)');
        return 'done';
      }),
      'done',
    );
    t.assert.equal(await count(), before + 1);
    await t.assert.rejects(
      transaction(pool, async client => {
        await client.query('INSERT INTO t VALUES (2)');
        throw new Error('changed its mind');
      }),
      /changed its mind/,
    );
    t.assert.equal(
      await transaction(pool, async client => {
        await client.query('INSERT INTO t VALUES (3)');
        throw new Rollback('refused');
      }),
      'refused',
    );
    await t.assert.rejects(
      transaction(pool, client => client.query('SELECT * FROM no_such_table')),
      (error: unknown) => !isUnavailable(error),
    );
    t.assert.equal(await count(), before + 1);
    t.assert.equal(pool.totalCount, pool.idleCount, 'every client back in the pool');
  });

  test("a connection lost while its client is out: the work's query rejects, the client is discarded, nothing unheard", async (t: TestContext) => {
    const before = await count();
    const unheard: unknown[] = [];
    const onUncaught = (error: unknown) => unheard.push(error);
    process.on('uncaughtException', onUncaught);
    t.after(() => process.off('uncaughtException', onUncaught));
    const lost = transaction(pool, async client => {
      await client.query('INSERT INTO t VALUES (4)');
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // The database ends this session (as a restart or a failover does) while the client is out, between queries.
      const ended = new Promise(resolve => client.once('end', resolve));
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      await ended;
      await client.query('INSERT INTO t VALUES (5)');
    });
    await t.assert.rejects(lost, (error: unknown) => isUnavailable(error));
    t.assert.deepEqual(unheard, []);
    t.assert.equal(await count(), before, 'nothing of the transaction committed');
    t.assert.equal(pool.totalCount, pool.idleCount, 'the broken client is not lent again');
    t.assert.equal(
      await transaction(pool, async client => (await client.query('SELECT 1 AS one')).rows[0].one),
      1,
      'the pool serves again',
    );
    t.assert.deepEqual(poolErrors, []);
  });
});
