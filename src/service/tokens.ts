/**
 * Player tokens (DECISIONS §13): issued, listed and revoked here, and looked up for every request that presents
 * one. The store keeps only each secret's SHA-256 digest.
 *
 * A lookup is remembered for at most LOOKUP_TTL_MS, so that a player's requests cost no store read each, and
 * forgotten at once when this instance revokes the token or hears that another did (PostgreSQL NOTIFY): a revoked
 * token is refused on every instance within that bound even when an announcement is lost. Likewise "some player
 * token exists" (which turns authentication on) is asked of the store at most every LOOKUP_TTL_MS until it is
 * true, and then for good: revoking every token does not open the service again.
 *
 * ```ts
 * const tokens = new PlayerTokens({ store, now: Date.now });
 * const issued = await tokens.issue({ id: 'ann', displayName: 'Ann' }); // { id, token, player, createdAt }
 * const owner = await tokens.identify(issued.token); // the StoredToken, or undefined
 * await tokens.revoke(issued.id);
 * ```
 */
import { createHash } from 'node:crypto';
import type { IssuedToken, PlayerInfo } from '../contract/shapes.ts';
import type { StoredToken, TokenStore } from '../store/tokens.ts';
import { newTokenId, newTokenSecret } from './ids.ts';

/** How long a lookup (or "no token was ever issued") is believed without asking the store again. */
export const LOOKUP_TTL_MS = 500;
/** Lookups remembered at most; the oldest go first. */
const MAX_REMEMBERED = 10_000;

export interface PlayerTokensDeps {
  store: TokenStore;
  now: () => number; // ms since the epoch
  newId?: () => string;
  newSecret?: () => string;
}

/** The SHA-256 digest of a secret, hex: what the store keeps. */
export const tokenHash = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

export class PlayerTokens {
  private readonly store: TokenStore;
  private readonly now: () => number;
  private readonly newId: () => string;
  private readonly newSecret: () => string;
  private readonly remembered = new Map<string, { token: StoredToken; at: number }>();
  private issued = false;
  private issuedCheckedAt = -Infinity;
  private issuedCheck: Promise<boolean> | undefined;

  constructor(deps: PlayerTokensDeps) {
    this.store = deps.store;
    this.now = deps.now;
    this.newId = deps.newId ?? newTokenId;
    this.newSecret = deps.newSecret ?? newTokenSecret;
  }

  async issue(player: PlayerInfo): Promise<IssuedToken> {
    const secret = this.newSecret();
    const token: StoredToken = {
      id: this.newId(),
      hash: tokenHash(secret),
      player,
      createdAt: new Date(this.now()).toISOString(),
    };
    await this.store.insertToken(token);
    this.issued = true;
    return { id: token.id, token: secret, player, createdAt: token.createdAt };
  }

  list(playerId?: string): Promise<StoredToken[]> {
    return this.store.listTokens(playerId);
  }

  /** Revokes a token; resolves false when there is no such token (or it was revoked already). */
  async revoke(id: string): Promise<boolean> {
    const hash = await this.store.revokeToken(id);
    if (hash !== undefined) this.remembered.delete(hash);
    return hash !== undefined;
  }

  /** The token a secret belongs to, unless revoked; at once when it was looked up within LOOKUP_TTL_MS. */
  identify(secret: string): StoredToken | undefined | Promise<StoredToken | undefined> {
    const hash = tokenHash(secret);
    const entry = this.remembered.get(hash);
    if (entry && this.now() - entry.at < LOOKUP_TTL_MS) return entry.token;
    return this.store.tokenByHash(hash).then(token => {
      this.remembered.delete(hash);
      if (token) {
        this.remembered.set(hash, { token, at: this.now() });
        if (this.remembered.size > MAX_REMEMBERED) this.remembered.delete(this.remembered.keys().next().value!);
      }
      return token;
    });
  }

  /** Whether any player token was ever issued, so that every `/api/` request needs a token. */
  issuedAny(): boolean | Promise<boolean> {
    if (this.issued) return true;
    if (this.now() - this.issuedCheckedAt < LOOKUP_TTL_MS) return false;
    this.issuedCheck ??= this.store.tokensIssued().then(
      found => {
        this.issued ||= found;
        this.issuedCheckedAt = this.now();
        this.issuedCheck = undefined;
        return this.issued;
      },
      (error: unknown) => {
        this.issuedCheck = undefined;
        throw error;
      },
    );
    return this.issuedCheck;
  }

  /** Another instance issued a token. */
  onIssued(): void {
    this.issued = true;
  }

  /** Another instance revoked the token of this hash. */
  onRevoked(hash: string): void {
    this.remembered.delete(hash);
  }

  /** Announcements may have been missed: ask the store again. */
  onResync(): void {
    this.remembered.clear();
    this.issuedCheckedAt = -Infinity;
  }
}
