/**
 * The shared store's accounts, sessions, failed sign-ins and OAuth codes (postgres.ts, ../accounts.ts): every
 * instance reads them from the database, so that a session ended or a failure counted on one is known to all.
 *
 * ```ts
 * const accounts = new PostgresAccounts(pool);
 * await accounts.useCode(hash, now); // the code as it was before this use
 * ```
 */
import type pg from 'pg';
import * as accounts from '../accounts.ts';
import { run, transaction } from '../postgresTransaction.ts';

const { ACCOUNT_SQL: SQL, FAILURES_KEPT_MS, accountOf, codeOf, sessionOf } = accounts;
const FAILURES_SQL = SQL.failures.replace('$LIST', '= ANY($1::text[])');

export class PostgresAccounts implements accounts.AccountStore {
  constructor(private readonly pool: pg.Pool) {}

  private query<Row extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<pg.QueryResult<Row>> {
    return run(() => this.pool.query<Row>(sql, values));
  }

  async insertAccount(account: Omit<accounts.StoredAccount, 'closedAt'>): Promise<boolean> {
    const { id, displayName, passwordHash, createdAt } = account;
    return (await this.query(SQL.insertAccount, [id, displayName, passwordHash, createdAt])).rowCount === 1;
  }

  async account(id: string): Promise<accounts.StoredAccount | undefined> {
    const row = (await this.query<accounts.AccountRow>(SQL.account, [id])).rows[0];
    return row && accountOf(row);
  }

  async setPasswordHash(id: string, passwordHash: string): Promise<boolean> {
    return (await this.query(SQL.setPassword, [id, passwordHash])).rowCount === 1;
  }

  closeAccount(id: string, at: number): Promise<string[] | undefined> {
    return run(() =>
      transaction(this.pool, async client => {
        if ((await client.query(SQL.close, [id, at])).rowCount !== 1) return undefined;
        const ended = await client.query<{ hash: string }>(SQL.endSessionsOf, [id, '']);
        return ended.rows.map(row => row.hash);
      }),
    );
  }

  async insertSession(session: Omit<accounts.StoredSession, 'lastSeenAt'>): Promise<void> {
    await this.query(SQL.insertSession, [session.hash, session.accountId, session.createdAt]);
  }

  async sessionByHash(hash: string, idleBefore: number): Promise<accounts.StoredSession | undefined> {
    const row = (await this.query<accounts.SessionRow>(SQL.session, [hash, idleBefore])).rows[0];
    return row && sessionOf(row);
  }

  async touchSession(hash: string, at: number): Promise<void> {
    await this.query(SQL.touchSession, [hash, at]);
  }

  async endSession(hash: string): Promise<boolean> {
    return (await this.query(SQL.endSession, [hash])).rowCount === 1;
  }

  async endSessionsOf(accountId: string, except = ''): Promise<string[]> {
    return (await this.query<{ hash: string }>(SQL.endSessionsOf, [accountId, except])).rows.map(row => row.hash);
  }

  recordSignInFailure(keys: readonly string[], at: number): Promise<void> {
    return run(() =>
      transaction(this.pool, async client => {
        await client.query(SQL.pruneFailures, [at - FAILURES_KEPT_MS]);
        for (const key of keys) await client.query(SQL.recordFailure, [key, at]);
      }),
    );
  }

  async signInFailures(keys: readonly string[], since: number): Promise<accounts.FailureCount[]> {
    const { rows } = await this.query<{ key: string; count: string; oldest: string }>(FAILURES_SQL, [[...keys], since]);
    return rows.map(row => ({ key: row.key, count: Number(row.count), oldest: Number(row.oldest) }));
  }

  async insertCode(code: Omit<accounts.StoredCode, 'usedAt' | 'tokenId'>): Promise<void> {
    const { hash, clientId, redirectUri, challenge, scopes, accountId, expiresAt } = code;
    await this.query(SQL.insertCode, [hash, clientId, redirectUri, challenge, scopes.join(','), accountId, expiresAt]);
  }

  useCode(hash: string, at: number): Promise<accounts.StoredCode | undefined> {
    return run(() =>
      transaction(this.pool, async client => {
        // The row locked first, so that of two uses racing the second sees the first's mark.
        const row = (await client.query<accounts.CodeRow>(`${SQL.code} FOR UPDATE`, [hash])).rows[0];
        if (row) await client.query(SQL.useCode, [hash, at]);
        return row && codeOf(row);
      }),
    );
  }

  async setCodeToken(hash: string, tokenId: string): Promise<void> {
    await this.query(SQL.setCodeToken, [hash, tokenId]);
  }
}
