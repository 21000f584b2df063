/**
 * The embedded store's accounts, sessions, failed sign-ins and OAuth codes (sqlite.ts, ../accounts.ts): the SQL of
 * ../accounts.ts as SQLite takes it (params.ts), and lists of keys read as JSON.
 *
 * ```ts
 * const accounts = new SqliteAccounts(connection);
 * await accounts.sessionByHash(hash, now - SESSION_IDLE_MS);
 * ```
 */
import * as accounts from '../accounts.ts';
import type { SqliteConnection } from './connection.ts';
import { params } from './params.ts';

const { ACCOUNT_SQL: SQL, FAILURES_KEPT_MS, accountOf, codeOf, sessionOf } = accounts;
const FAILURES_SQL = SQL.failures.replace('$LIST', 'IN (SELECT value FROM json_each($1))');

export class SqliteAccounts implements accounts.AccountStore {
  constructor(private readonly connection: SqliteConnection<unknown>) {}

  /** One write of `sql` with these values; resolves with the rows it changed. */
  private write(sql: string, values: unknown[]): Promise<number> {
    let changes = 0;
    return this.connection
      .enqueue(() => (changes = this.connection.statement(sql).run(params(values)).changes) > 0)
      .then(() => changes);
  }

  async insertAccount(account: Omit<accounts.StoredAccount, 'closedAt'>): Promise<boolean> {
    const { id, displayName, passwordHash, createdAt } = account;
    return (await this.write(SQL.insertAccount, [id, displayName, passwordHash, createdAt])) === 1;
  }

  account(id: string): Promise<accounts.StoredAccount | undefined> {
    return this.connection.read(() => {
      const row = this.connection.statement<accounts.AccountRow>(SQL.account).get(params([id]));
      return row && accountOf(row);
    });
  }

  async setPasswordHash(id: string, passwordHash: string): Promise<boolean> {
    return (await this.write(SQL.setPassword, [id, passwordHash])) === 1;
  }

  closeAccount(id: string, at: number): Promise<string[] | undefined> {
    let ended: string[] | undefined;
    return this.connection
      .enqueue(() => {
        ended = undefined;
        if (this.connection.statement(SQL.close).run(params([id, at])).changes !== 1) return false;
        ended = this.endedOf(id, '');
        return true;
      })
      .then(() => ended);
  }

  private endedOf(accountId: string, except: string): string[] {
    return this.connection
      .statement<{ hash: string }>(SQL.endSessionsOf)
      .all(params([accountId, except]))
      .map(row => row.hash);
  }

  async insertSession(session: Omit<accounts.StoredSession, 'lastSeenAt'>): Promise<void> {
    await this.write(SQL.insertSession, [session.hash, session.accountId, session.createdAt]);
  }

  sessionByHash(hash: string, idleBefore: number): Promise<accounts.StoredSession | undefined> {
    return this.connection.read(() => {
      const row = this.connection.statement<accounts.SessionRow>(SQL.session).get(params([hash, idleBefore]));
      return row && sessionOf(row);
    });
  }

  async touchSession(hash: string, at: number): Promise<void> {
    await this.write(SQL.touchSession, [hash, at]);
  }

  async endSession(hash: string): Promise<boolean> {
    return (await this.write(SQL.endSession, [hash])) === 1;
  }

  endSessionsOf(accountId: string, except = ''): Promise<string[]> {
    let ended: string[] = [];
    return this.connection.enqueue(() => (ended = this.endedOf(accountId, except)).length > 0).then(() => ended);
  }

  recordSignInFailure(keys: readonly string[], at: number): Promise<void> {
    return this.connection
      .enqueue(() => {
        this.connection.statement(SQL.pruneFailures).run(params([at - FAILURES_KEPT_MS]));
        for (const key of keys) this.connection.statement(SQL.recordFailure).run(params([key, at]));
        return true;
      })
      .then(() => undefined);
  }

  signInFailures(keys: readonly string[], since: number): Promise<accounts.FailureCount[]> {
    return this.connection.read(() =>
      this.connection
        .statement<{ key: string; count: number; oldest: number }>(FAILURES_SQL)
        .all(params([JSON.stringify(keys), since]))
        .map(row => ({ key: row.key, count: Number(row.count), oldest: Number(row.oldest) })),
    );
  }

  async insertCode(code: Omit<accounts.StoredCode, 'usedAt' | 'tokenId'>): Promise<void> {
    const { hash, clientId, redirectUri, challenge, scopes, accountId, expiresAt } = code;
    await this.write(SQL.insertCode, [hash, clientId, redirectUri, challenge, scopes.join(','), accountId, expiresAt]);
  }

  useCode(hash: string, at: number): Promise<accounts.StoredCode | undefined> {
    let before: accounts.StoredCode | undefined;
    return this.connection
      .enqueue(() => {
        const row = this.connection.statement<accounts.CodeRow>(SQL.code).get(params([hash]));
        before = row && codeOf(row);
        return this.connection.statement(SQL.useCode).run(params([hash, at])).changes === 1;
      })
      .then(() => before);
  }

  async setCodeToken(hash: string, tokenId: string): Promise<void> {
    await this.write(SQL.setCodeToken, [hash, tokenId]);
  }
}
