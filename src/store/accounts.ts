/**
 * Where accounts live (DECISIONS §20): people who signed up, their sessions, their failed sign-ins and the OAuth codes
 * they granted, beside the games in the same store, so that every instance of a shared store knows them at once.
 * Nothing secret is stored as given: a password only as its memory-hard hash (with its parameters), a session id and
 * an OAuth code only as their SHA-256 digests. Times are ms since the epoch.
 *
 * ```ts
 * await store.insertAccount({ id: 'ann', displayName: 'Ann', passwordHash, createdAt: now }); // false: id taken
 * await store.insertSession({ hash, accountId: 'ann', createdAt: now });
 * await store.sessionByHash(hash, now - SESSION_IDLE_MS); // its account, unless ended, idle or closed
 * await store.recordSignInFailure(['account:ann', 'address:1.2.3.4'], now);
 * ```
 */

export interface StoredAccount {
  id: string; // the username in lower case: the player id
  displayName: string; // the username as written at sign-up
  passwordHash: string; // 'scrypt$N$r$p$salt$hash' (domain/passwords.ts)
  createdAt: number;
  closedAt: number | null; // a closed account keeps its row, so that its id is never given again
}

export interface StoredSession {
  hash: string; // SHA-256 of the cookie's id, hex
  accountId: string;
  createdAt: number;
  lastSeenAt: number;
}

/** Failed sign-ins of one key (`account:<id>` or `address:<ip>`) within a window. */
export interface FailureCount {
  key: string;
  count: number;
  oldest: number; // the earliest failure counted: the window passes at oldest + window
}

export interface StoredCode {
  hash: string; // SHA-256 of the code, hex
  clientId: string;
  redirectUri: string;
  challenge: string; // the S256 code challenge
  scopes: string[];
  accountId: string;
  expiresAt: number;
  usedAt: number | null;
  tokenId: string | null; // the token its first use gave
}

export interface AccountStore {
  /** Adds an account; false when its id is held already (by any account, closed ones included). */
  insertAccount(account: Omit<StoredAccount, 'closedAt'>): Promise<boolean>;
  /** The account of this id, closed ones included. */
  account(id: string): Promise<StoredAccount | undefined>;
  /** Replaces an open account's password hash; false when there is no such open account. */
  setPasswordHash(id: string, passwordHash: string): Promise<boolean>;
  /**
   * Closes an account for good and ends its sessions; resolves with the hashes of the sessions ended, or undefined
   * when there is no such open account. Its tokens are revoked by the token store (revokeTokensOf).
   */
  closeAccount(id: string, at: number): Promise<string[] | undefined>;

  insertSession(session: Omit<StoredSession, 'lastSeenAt'>): Promise<void>;
  /** The session of this hash, unless ended, idle since before `idleBefore`, or its account closed. */
  sessionByHash(hash: string, idleBefore: number): Promise<StoredSession | undefined>;
  /** Marks a session seen at `at`. */
  touchSession(hash: string, at: number): Promise<void>;
  /** Ends one session; false when it had ended already. */
  endSession(hash: string): Promise<boolean>;
  /** Ends every session of an account but `except` (a hash); resolves with the hashes ended. */
  endSessionsOf(accountId: string, except?: string): Promise<string[]>;

  /** Counts one failed sign-in against each key. */
  recordSignInFailure(keys: readonly string[], at: number): Promise<void>;
  /** The failures of these keys since `since` (keys without any are left out); older ones may be forgotten. */
  signInFailures(keys: readonly string[], since: number): Promise<FailureCount[]>;

  insertCode(code: Omit<StoredCode, 'usedAt' | 'tokenId'>): Promise<void>;
  /**
   * Uses a code: resolves with it as it was before this use (`usedAt` null the first time), marking it used at `at`;
   * undefined for an unknown code. One use of many racing is the first.
   */
  useCode(hash: string, at: number): Promise<StoredCode | undefined>;
  /** Records the token a code's first use gave, so that a replay can revoke it. */
  setCodeToken(hash: string, tokenId: string): Promise<void>;
}

/** Rows as the adapters' SQL selects them (PostgreSQL's BIGINT comes as a string). */
export interface AccountRow {
  id: string;
  display_name: string;
  password_hash: string;
  created_at: number | string;
  closed_at: number | string | null;
}

export interface SessionRow {
  hash: string;
  account_id: string;
  created_at: number | string;
  last_seen_at: number | string;
}

export interface CodeRow {
  hash: string;
  client_id: string;
  redirect_uri: string;
  challenge: string;
  scopes: string;
  account_id: string;
  expires_at: number | string;
  used_at: number | string | null;
  token_id: string | null;
}

const numberOrNull = (value: number | string | null): number | null => (value === null ? null : Number(value));

export const accountOf = (row: AccountRow): StoredAccount => ({
  id: row.id,
  displayName: row.display_name,
  passwordHash: row.password_hash,
  createdAt: Number(row.created_at),
  closedAt: numberOrNull(row.closed_at),
});

export const sessionOf = (row: SessionRow): StoredSession => ({
  hash: row.hash,
  accountId: row.account_id,
  createdAt: Number(row.created_at),
  lastSeenAt: Number(row.last_seen_at),
});

export const codeOf = (row: CodeRow): StoredCode => ({
  hash: row.hash,
  clientId: row.client_id,
  redirectUri: row.redirect_uri,
  challenge: row.challenge,
  scopes: row.scopes === '' ? [] : row.scopes.split(','),
  accountId: row.account_id,
  expiresAt: Number(row.expires_at),
  usedAt: numberOrNull(row.used_at),
  tokenId: row.token_id,
});

/**
 * The SQL both adapters run, with `$n` placeholders (SQLite takes them as `@pn`, sqlite/params.ts); lists of keys
 * differ per adapter (`$LIST` below: `= ANY($1)` on PostgreSQL, `IN (SELECT value FROM json_each(@p1))` on SQLite).
 */
export const ACCOUNT_SQL = {
  insertAccount:
    'INSERT INTO accounts (id, display_name, password_hash, created_at) VALUES ($1, $2, $3, $4) ' +
    'ON CONFLICT (id) DO NOTHING',
  account: 'SELECT id, display_name, password_hash, created_at, closed_at FROM accounts WHERE id = $1',
  setPassword: 'UPDATE accounts SET password_hash = $2 WHERE id = $1 AND closed_at IS NULL',
  close: 'UPDATE accounts SET closed_at = $2 WHERE id = $1 AND closed_at IS NULL',
  insertSession:
    'INSERT INTO account_sessions (hash, account_id, created_at, last_seen_at) VALUES ($1, $2, $3, $3) ' +
    'ON CONFLICT (hash) DO NOTHING',
  session:
    'SELECT s.hash, s.account_id, s.created_at, s.last_seen_at FROM account_sessions s ' +
    'JOIN accounts a ON a.id = s.account_id ' +
    'WHERE s.hash = $1 AND s.ended = 0 AND s.last_seen_at >= $2 AND a.closed_at IS NULL',
  touchSession: 'UPDATE account_sessions SET last_seen_at = $2 WHERE hash = $1 AND last_seen_at < $2',
  endSession: 'UPDATE account_sessions SET ended = 1 WHERE hash = $1 AND ended = 0',
  endSessionsOf:
    'UPDATE account_sessions SET ended = 1 WHERE account_id = $1 AND ended = 0 AND hash <> $2 RETURNING hash',
  recordFailure: 'INSERT INTO sign_in_failures (key, at) VALUES ($1, $2)',
  pruneFailures: 'DELETE FROM sign_in_failures WHERE at < $1',
  failures:
    'SELECT key, count(*) AS count, min(at) AS oldest FROM sign_in_failures WHERE key $LIST AND at > $2 GROUP BY key',
  insertCode:
    'INSERT INTO oauth_codes (hash, client_id, redirect_uri, challenge, scopes, account_id, expires_at) ' +
    'VALUES ($1, $2, $3, $4, $5, $6, $7)',
  code:
    'SELECT hash, client_id, redirect_uri, challenge, scopes, account_id, expires_at, used_at, token_id ' +
    'FROM oauth_codes WHERE hash = $1',
  useCode: 'UPDATE oauth_codes SET used_at = $2 WHERE hash = $1 AND used_at IS NULL',
  setCodeToken: 'UPDATE oauth_codes SET token_id = $2 WHERE hash = $1',
} as const;

/** How long failed sign-ins are kept: longer than any window they are counted in (DECISIONS §20: 15 minutes). */
export const FAILURES_KEPT_MS = 60 * 60 * 1000;
