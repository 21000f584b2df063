/**
 * Accounts (DECISIONS §20): sign-up, sign-in with its failure limits, sessions, password changes and closing.
 *
 * A session's id lives only in the person's cookie; the store keeps its SHA-256, so that every instance knows it and
 * none can give it away. Sessions are read from the store at every request (no instance remembers one), so that a
 * session ended on one instance is refused on all at once. Failed sign-ins are counted in the store too, per account
 * and per address: beyond the limit every sign-in is refused, the right password included, until the window passes.
 *
 * ```ts
 * const accounts = new Accounts({ store, tokens, passwords, now: Date.now });
 * await accounts.signUp('Ann', 'correct horse battery');     // { id: 'ann', displayName: 'Ann' }
 * const { sessionId } = await accounts.signIn('ann', 'correct horse battery', '127.0.0.1');
 * await accounts.session(sessionId);                           // { account, hash }
 * ```
 */
import type { PlayerInfo } from '../contract/shapes.ts';
import { accountId, passwordProblem, usernameProblem } from '../domain/accounts.ts';
import { DomainError } from '../domain/errors.ts';
import type { AccountStore, StoredAccount } from '../store/accounts.ts';
import type { TokenStore } from '../store/tokens.ts';
import { newAccountSecret } from './ids.ts';
import type { PasswordHasher } from './passwords.ts';
import { tokenHash, type PlayerTokens } from './tokens.ts';

/** 30 days idle end a session. */
export const SESSION_IDLE_MS = 30 * 24 * 60 * 60 * 1000;
/** How stale a session's "last seen" may be before a request writes it again. */
const SEEN_GRAIN_MS = 60_000;

/** The limits of failed sign-ins (DECISIONS §20): per account, per address, in one window. */
export const SIGN_IN_LIMITS = { perAccount: 5, perAddress: 20, windowMs: 15 * 60 * 1000 } as const;

export interface AccountsDeps {
  store: AccountStore & Pick<TokenStore, 'knownPlayer'>;
  tokens: PlayerTokens;
  passwords: PasswordHasher;
  now: () => number;
  signup?: 'open' | 'closed';
}

/** A sign-in refused for too many failures: retry after `retryAfterS`. */
export class SignInLimited extends DomainError {
  constructor(readonly retryAfterS: number) {
    super('RATE_LIMITED', `too many failed sign-ins: retry in ${retryAfterS} s`);
  }
}

export interface SignedIn {
  sessionId: string;
  account: StoredAccount;
}

export interface Session {
  account: StoredAccount;
  hash: string;
}

const WRONG = 'wrong username or password';

export class Accounts {
  readonly signupOpen: boolean;

  constructor(private readonly deps: AccountsDeps) {
    this.signupOpen = deps.signup !== 'closed';
  }

  /**
   * Makes an account (refused when sign-up is closed, unless `operator`); the problem is an INVALID_BODY naming the
   * field. The id must not be held by an account (closed ones too) or a player the operator gave a token to.
   */
  async signUp(username: string, password: string, { operator = false } = {}): Promise<PlayerInfo> {
    if (!this.signupOpen && !operator) throw new DomainError('FORBIDDEN', 'sign-up is closed on this service');
    const nameProblem = usernameProblem(username);
    if (nameProblem) throw new DomainError('INVALID_BODY', nameProblem, 'username');
    this.checkPassword(password, username);
    const id = accountId(username);
    if (await this.deps.store.knownPlayer(id)) throw taken(username);
    const passwordHash = await this.deps.passwords.hash(password);
    const made = await this.deps.store.insertAccount({
      id,
      displayName: username,
      passwordHash,
      createdAt: this.deps.now(),
    });
    if (!made) throw taken(username);
    this.deps.tokens.onIssued(); // authentication is on from now on
    return { id, displayName: username };
  }

  private checkPassword(password: string, username: string): void {
    const problem = passwordProblem(password, username);
    if (problem) throw new DomainError('INVALID_BODY', problem, 'password');
  }

  /**
   * Signs in: a new session, whose id is for the cookie. Unknown user and wrong password are one answer, after the
   * same work; beyond the failure limits a SignInLimited, whatever the password.
   */
  async signIn(username: string, password: string, address: string): Promise<SignedIn> {
    const id = accountId(username.trim());
    const keys = [`account:${id}`, `address:${address}`];
    const now = this.deps.now();
    const since = now - SIGN_IN_LIMITS.windowMs;
    const counts = await this.deps.store.signInFailures(keys, since);
    const over = counts.filter(
      ({ key, count }) => count >= (key.startsWith('account:') ? SIGN_IN_LIMITS.perAccount : SIGN_IN_LIMITS.perAddress),
    );
    if (over.length > 0) {
      const until = Math.max(...over.map(count => count.oldest + SIGN_IN_LIMITS.windowMs));
      throw new SignInLimited(Math.max(1, Math.ceil((until - now) / 1000)));
    }
    const found = await this.deps.store.account(id);
    const open = found && found.closedAt === null ? found : undefined;
    const verified = await this.deps.passwords.verify(password, open?.passwordHash);
    if (!open || !verified.ok) {
      // An unknown user's failure counts for the address only: it is nobody's account.
      await this.deps.store.recordSignInFailure(open ? keys : keys.slice(1), now);
      throw new DomainError('UNAUTHORIZED', WRONG);
    }
    if (verified.outdated) await this.deps.store.setPasswordHash(id, await this.deps.passwords.hash(password));
    return { sessionId: await this.newSession(id), account: open };
  }

  private async newSession(accountId: string): Promise<string> {
    const sessionId = newAccountSecret('ses_');
    await this.deps.store.insertSession({ hash: tokenHash(sessionId), accountId, createdAt: this.deps.now() });
    return sessionId;
  }

  /** The session of a cookie's id, unless ended, idle 30 days or its account closed; notes it seen. */
  async session(sessionId: string | undefined): Promise<Session | undefined> {
    if (!sessionId || sessionId.length > 100) return undefined;
    const hash = tokenHash(sessionId);
    const now = this.deps.now();
    const session = await this.deps.store.sessionByHash(hash, now - SESSION_IDLE_MS);
    if (!session) return undefined;
    const account = await this.deps.store.account(session.accountId);
    if (!account || account.closedAt !== null) return undefined;
    if (now - session.lastSeenAt >= SEEN_GRAIN_MS) await this.deps.store.touchSession(hash, now);
    return { account, hash };
  }

  /** Ends a session (sign-out); its streams end with it. */
  async signOut(sessionId: string | undefined): Promise<void> {
    if (!sessionId) return;
    const hash = tokenHash(sessionId);
    if (await this.deps.store.endSession(hash)) this.deps.tokens.ended([hash]);
  }

  /** Changes a password, the current one checked first; every other session of the account ends. */
  async changePassword(session: Session, current: string, next: string): Promise<void> {
    const { account } = session;
    const verified = await this.deps.passwords.verify(current, account.passwordHash);
    if (!verified.ok) throw new DomainError('FORBIDDEN', 'the current password is wrong', 'password');
    this.checkPassword(next, account.displayName);
    await this.deps.store.setPasswordHash(account.id, await this.deps.passwords.hash(next));
    this.deps.tokens.ended(await this.deps.store.endSessionsOf(account.id, session.hash));
  }

  /** The operator sets a password (the command line); every session of the account ends. */
  async resetPassword(id: string, password: string): Promise<void> {
    const account = await this.deps.store.account(accountId(id));
    if (!account || account.closedAt !== null) throw new DomainError('NOT_FOUND', `no open account ${id}`);
    this.checkPassword(password, account.displayName);
    await this.deps.store.setPasswordHash(account.id, await this.deps.passwords.hash(password));
    this.deps.tokens.ended(await this.deps.store.endSessionsOf(account.id));
  }

  /**
   * Closes an account for good: its sessions and tokens end at once, with their streams, on every instance; its
   * games stay; its id is never given again. `password`: its owner's, checked (the operator gives none).
   */
  async close(id: string, password?: string): Promise<void> {
    const account = await this.deps.store.account(accountId(id));
    if (!account || account.closedAt !== null) throw new DomainError('NOT_FOUND', `no open account ${id}`);
    if (password !== undefined && !(await this.deps.passwords.verify(password, account.passwordHash)).ok) {
      throw new DomainError('FORBIDDEN', 'the password is wrong', 'password');
    }
    const ended = (await this.deps.store.closeAccount(account.id, this.deps.now())) ?? [];
    this.deps.tokens.ended(ended);
    await this.deps.tokens.revokeAllOf(account.id);
  }

  account(id: string): Promise<StoredAccount | undefined> {
    return this.deps.store.account(accountId(id));
  }
}

const taken = (username: string) =>
  new DomainError('INVALID_BODY', `the name ${username} is taken: choose another`, 'username');
