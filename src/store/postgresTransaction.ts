/**
 * The one way the PostgreSQL store checks a client out of its pool: a transaction. A client checked out is the
 * caller's to watch: the pool stops listening to its errors while it is out, and a connection lost then (a database
 * restart, a failover, a network cut) makes the client emit `error`, which with nobody listening ends the process.
 * Here a listener is attached for the whole checkout, the work runs between BEGIN and COMMIT (ROLLBACK when it
 * throws), and a client whose connection failed is released with its error, so that the pool discards it instead
 * of lending it again. The work's own failure is what the caller sees: a lost connection rejects its pending query,
 * which `run` turns into UNAVAILABLE (503).
 *
 * The rest of the PostgreSQL store is in postgres/; this file stays here, where test/store/postgresTransaction.test.ts
 * finds it as the only file of the service that checks a client out (`pool.connect`).
 *
 * ```ts
 * const count = await transaction(pool, async client => {
 *   await client.query('SELECT pg_advisory_xact_lock($1)', [42]);
 *   return (await client.query('SELECT count(*) AS n FROM seeks')).rows[0].n;
 * });
 * ```
 */
import type pg from 'pg';
import { DomainError } from '../domain/errors.ts';

/**
 * Connection-level failures: no SQLSTATE (sockets, timeouts, a pool that cannot connect), or a SQLSTATE of
 * class 08 (connection exception), 53 (insufficient resources) or 57P (the server is shutting down).
 */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return /^(08|53|57P)/.test(code);
  return true;
}

/** Runs a database call (a query, or a transaction), turning "cannot reach the database" into UNAVAILABLE. */
export async function run<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!isUnavailable(error)) throw error;
    const code = (error as { code?: unknown }).code;
    throw new DomainError(
      'UNAVAILABLE',
      code === '53100'
        ? "the database server's disk is full; try again once space is freed"
        : typeof code === 'string' && code.startsWith('53')
          ? `the database server is out of resources (${code}); try again shortly`
          : 'the database is unreachable; try again shortly',
    );
  }
}

/** Thrown by `work` to end the transaction with a ROLLBACK and answer `value`: a refusal that changes nothing. */
export class Rollback<T> extends Error {
  constructor(readonly value: T) {
    super('rolled back');
    this.name = 'Rollback';
  }
}

/**
 * Runs `work` in a transaction on a client of `pool`: COMMIT when it resolves, ROLLBACK when it rejects (or throws
 * a `Rollback`, whose value is then the answer). Every error of the client while it is checked out is listened to,
 * and a client whose connection failed goes back to the pool as broken (discarded).
 */
export async function transaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // What the connection says while the client is out (its pending query, if any, is rejected with it too).
  const onError = (error: Error) => {
    broken ??= error;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    const refused = error instanceof Rollback;
    if (broken === undefined && (refused || !isUnavailable(error))) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackFailed) {
        broken = asError(rollbackFailed);
      }
    } else {
      // A connection that failed or timed out may still be running the statement: it is not lent again.
      broken ??= asError(error);
    }
    if (!refused) throw error;
    if (broken !== undefined) throw broken;
    return (error as Rollback<T>).value;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
