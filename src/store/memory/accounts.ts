/**
 * The memory store's accounts, sessions, failed sign-ins and OAuth codes (memory.ts, ../accounts.ts).
 *
 * ```ts
 * const accounts = new MemoryAccounts();
 * await accounts.insertAccount({ id: 'ann', displayName: 'Ann', passwordHash, createdAt: now });
 * ```
 */
import type { AccountStore, FailureCount, StoredAccount, StoredCode, StoredSession } from '../accounts.ts';

export class MemoryAccounts implements AccountStore {
  private readonly accounts = new Map<string, StoredAccount>();
  private readonly sessions = new Map<string, StoredSession & { ended: boolean }>();
  private failures: Array<{ key: string; at: number }> = [];
  private readonly codes = new Map<string, StoredCode>();

  insertAccount(account: Omit<StoredAccount, 'closedAt'>): Promise<boolean> {
    if (this.accounts.has(account.id)) return Promise.resolve(false);
    this.accounts.set(account.id, { ...account, closedAt: null });
    return Promise.resolve(true);
  }

  account(id: string): Promise<StoredAccount | undefined> {
    const found = this.accounts.get(id);
    return Promise.resolve(found && { ...found });
  }

  setPasswordHash(id: string, passwordHash: string): Promise<boolean> {
    const found = this.accounts.get(id);
    if (!found || found.closedAt !== null) return Promise.resolve(false);
    found.passwordHash = passwordHash;
    return Promise.resolve(true);
  }

  async closeAccount(id: string, at: number): Promise<string[] | undefined> {
    const found = this.accounts.get(id);
    if (!found || found.closedAt !== null) return undefined;
    found.closedAt = at;
    return this.endSessionsOf(id);
  }

  insertSession(session: Omit<StoredSession, 'lastSeenAt'>): Promise<void> {
    if (!this.sessions.has(session.hash))
      this.sessions.set(session.hash, { ...session, lastSeenAt: session.createdAt, ended: false });
    return Promise.resolve();
  }

  sessionByHash(hash: string, idleBefore: number): Promise<StoredSession | undefined> {
    const found = this.sessions.get(hash);
    const live = found && !found.ended && found.lastSeenAt >= idleBefore;
    const open = live && this.accounts.get(found.accountId)?.closedAt === null;
    if (!open) return Promise.resolve(undefined);
    const { ended: _ended, ...session } = found;
    return Promise.resolve(session);
  }

  touchSession(hash: string, at: number): Promise<void> {
    const found = this.sessions.get(hash);
    if (found && found.lastSeenAt < at) found.lastSeenAt = at;
    return Promise.resolve();
  }

  endSession(hash: string): Promise<boolean> {
    const found = this.sessions.get(hash);
    if (!found || found.ended) return Promise.resolve(false);
    found.ended = true;
    return Promise.resolve(true);
  }

  endSessionsOf(accountId: string, except = ''): Promise<string[]> {
    const ended: string[] = [];
    for (const session of this.sessions.values()) {
      if (session.accountId !== accountId || session.ended || session.hash === except) continue;
      session.ended = true;
      ended.push(session.hash);
    }
    return Promise.resolve(ended);
  }

  /** Whether any account was made. */
  any(): boolean {
    return this.accounts.size > 0;
  }

  /** The hashes among these of sessions not ended: what MemoryTokens' validTokenHashes adds. */
  liveSessions(hashes: readonly string[]): string[] {
    return hashes.filter(hash => this.sessions.get(hash)?.ended === false);
  }

  recordSignInFailure(keys: readonly string[], at: number): Promise<void> {
    for (const key of keys) this.failures.push({ key, at });
    return Promise.resolve();
  }

  signInFailures(keys: readonly string[], since: number): Promise<FailureCount[]> {
    this.failures = this.failures.filter(failure => failure.at > since - 60 * 60 * 1000);
    const counts = new Map<string, FailureCount>();
    for (const { key, at } of this.failures) {
      if (at <= since || !keys.includes(key)) continue;
      const count = counts.get(key);
      if (count) {
        count.count++;
        count.oldest = Math.min(count.oldest, at);
      } else counts.set(key, { key, count: 1, oldest: at });
    }
    return Promise.resolve([...counts.values()]);
  }

  insertCode(code: Omit<StoredCode, 'usedAt' | 'tokenId'>): Promise<void> {
    this.codes.set(code.hash, { ...code, scopes: [...code.scopes], usedAt: null, tokenId: null });
    return Promise.resolve();
  }

  useCode(hash: string, at: number): Promise<StoredCode | undefined> {
    const found = this.codes.get(hash);
    if (!found) return Promise.resolve(undefined);
    const before = { ...found, scopes: [...found.scopes] };
    found.usedAt ??= at;
    return Promise.resolve(before);
  }

  setCodeToken(hash: string, tokenId: string): Promise<void> {
    const found = this.codes.get(hash);
    if (found) found.tokenId = tokenId;
    return Promise.resolve();
  }
}
