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
 * Streams opened with a token end when it is revoked (DECISIONS §13a): each holds its token's hash (`hold`), and
 * the listeners of `onRevokedToken` hear of every revocation this instance makes or hears of. Announcements can be
 * lost, and on SQLite a revocation by another process (the command line) announces nothing, so while any token is
 * held the store is also asked every LOOKUP_TTL_MS which of the held tokens are still valid: a revoked token's
 * streams end on every instance within a second either way.
 *
 * ```ts
 * const tokens = new PlayerTokens({ store, now: Date.now });
 * const issued = await tokens.issue({ id: 'ann', displayName: 'Ann' }); // { id, token, player, createdAt }
 * const owner = await tokens.identify(issued.token); // the StoredToken, or undefined
 * const tested = await tokens.tokensOf([issued.token, 'nonsense']); // Map { secret → StoredToken | undefined }
 * await tokens.revoke(issued.id);
 * const release = tokens.hold(owner.hash); // a stream opened with it; release() when it closes
 * tokens.onRevokedToken(hash => endStreamsOf(hash));
 * ```
 */
import { createHash } from 'node:crypto';
import type { IssuedToken, PlayerInfo } from '../contract/shapes.ts';
import type { StoredToken, TokenStore } from '../store/tokens.ts';
import { newTokenId, newTokenSecret } from './ids.ts';
import { DomainError } from '../domain/errors.ts';
import { ENGINE_ID, isEngineLookalike } from '../domain/engineSeat.ts';

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

/**
 * The scopes a token has, in lichess's names (DECISIONS §20): a token the operator issues has every scope the
 * service knows, `bot:play` only for a bot's.
 */
export const scopesOf = (token: StoredToken): string[] =>
  token.scopes ??
  (token.bot
    ? ['board:play', 'bot:play', 'challenge:read', 'challenge:write']
    : ['board:play', 'challenge:read', 'challenge:write']);

/** What a token an account makes carries besides its player (DECISIONS §20): none of it for the operator's. */
export interface TokenTerms {
  scopes?: string[];
  description?: string;
  clientId?: string;
  expiresAt?: number; // ms since the epoch
}

/** How stale a token's "last used" may be before a use writes it again. */
const LAST_USED_GRAIN_MS = 60_000;

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
  /** The tokens open streams were opened with: hash → how many hold it. */
  private readonly held = new Map<string, number>();
  private readonly revokedListeners = new Set<(hash: string) => void>();
  private sweeper: NodeJS.Timeout | undefined;
  private sweeping = false;

  constructor(deps: PlayerTokensDeps) {
    this.store = deps.store;
    this.now = deps.now;
    this.newId = deps.newId ?? newTokenId;
    this.newSecret = deps.newSecret ?? newTokenSecret;
  }

  /**
   * Issues a token for `player`; `bot`: the player becomes a bot first, for good (DECISIONS §17). `terms`: a
   * personal or OAuth token's scopes, description, client and expiry (none: the operator's, with every scope);
   * `tokenSecret`: the secret to give, made by the caller in its own form.
   */
  async issue(
    player: PlayerInfo,
    { bot = false, tokenSecret, ...terms }: { bot?: boolean; tokenSecret?: string } & TokenTerms = {},
  ): Promise<IssuedToken> {
    if (isEngineLookalike(player.id)) {
      throw new DomainError(
        'INVALID_BODY',
        `'${player.id}' is, or looks like, the computer's id (${ENGINE_ID}): no token is issued for it`,
        'player.id',
      );
    }
    if (bot) await this.store.makeBot(player.id, new Date(this.now()).toISOString());
    const secret = tokenSecret ?? this.newSecret();
    const token: StoredToken = {
      id: this.newId(),
      hash: tokenHash(secret),
      player,
      createdAt: new Date(this.now()).toISOString(),
      ...terms,
    };
    await this.store.insertToken(token);
    this.issued = true;
    return { id: token.id, token: secret, player, createdAt: token.createdAt };
  }

  /** Makes the player a bot, for good; false when it was one already. */
  async makeBot(playerId: string): Promise<boolean> {
    const made = await this.store.makeBot(playerId, new Date(this.now()).toISOString());
    // Its tokens read as a bot's from now on here; other instances see it within a lookup's life (LOOKUP_TTL_MS).
    for (const [key, { token }] of this.remembered) if (token.player.id === playerId) this.remembered.delete(key);
    return made;
  }

  /** A player known to the service (a token was issued for it), by its latest name. */
  player(playerId: string): Promise<PlayerInfo | undefined> {
    return this.store.knownPlayer(playerId);
  }

  /** The bots among these players. */
  botsAmong(playerIds: readonly string[]): Promise<string[]> {
    return playerIds.length === 0 ? Promise.resolve([]) : this.store.botsAmong(playerIds);
  }

  list(playerId?: string): Promise<StoredToken[]> {
    return this.store.listTokens(playerId);
  }

  /** Revokes a token; resolves false when there is no such token (or it was revoked already). */
  async revoke(id: string): Promise<boolean> {
    const hash = await this.store.revokeToken(id);
    if (hash !== undefined) this.revoked(hash);
    return hash !== undefined;
  }

  /** Revokes every token of a player (an account closed); resolves with how many. */
  async revokeAllOf(playerId: string): Promise<number> {
    const hashes = await this.store.revokeTokensOf(playerId);
    for (const hash of hashes) this.revoked(hash);
    return hashes.length;
  }

  /** Credentials ended here that streams may hold (sessions): their streams end as a revoked token's do. */
  ended(hashes: readonly string[]): void {
    for (const hash of hashes) this.revoked(hash);
  }

  /**
   * The token a secret belongs to, unless revoked or expired; at once when it was looked up within LOOKUP_TTL_MS. A
   * lookup from the store also notes the token's use, when the last noted is a minute old.
   */
  identify(secret: string): StoredToken | undefined | Promise<StoredToken | undefined> {
    const hash = tokenHash(secret);
    const entry = this.remembered.get(hash);
    if (entry && this.now() - entry.at < LOOKUP_TTL_MS) return this.unexpired(entry.token);
    return this.store.tokenByHash(hash).then(found => {
      this.remembered.delete(hash);
      const token = found && this.unexpired(found);
      if (token) {
        const now = this.now();
        if (token.lastUsedAt === undefined || now - token.lastUsedAt >= LAST_USED_GRAIN_MS) {
          this.store.touchToken(hash, now).catch(() => undefined); // a note only: a failed one waits for the next use
        }
        this.remembered.set(hash, { token, at: this.now() });
        if (this.remembered.size > MAX_REMEMBERED) this.remembered.delete(this.remembered.keys().next().value!);
      }
      return token;
    });
  }

  /**
   * The tokens these secrets belong to (lichess's token test, DECISIONS §16a and §20), each undefined when it is
   * unknown or revoked: one store read for them all, then a lookup of each valid one (remembered as `identify`'s).
   */
  async tokensOf(secrets: readonly string[]): Promise<Map<string, StoredToken | undefined>> {
    const hashes = new Map(secrets.map(secret => [secret, tokenHash(secret)]));
    const valid = new Set(hashes.size === 0 ? [] : await this.store.validTokenHashes([...new Set(hashes.values())]));
    const found = await Promise.all(
      [...hashes].map(
        async ([secret, hash]) => [secret, valid.has(hash) ? await this.identify(secret) : undefined] as const,
      ),
    );
    return new Map(found);
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
    this.revoked(hash);
  }

  /** Announcements may have been missed: ask the store again, also about the tokens held. */
  onResync(): void {
    this.remembered.clear();
    this.issuedCheckedAt = -Infinity;
    void this.sweep();
  }

  /** Calls `listener` with the hash of each token found revoked; returns how to stop. */
  onRevokedToken(listener: (hash: string) => void): () => void {
    this.revokedListeners.add(listener);
    return () => this.revokedListeners.delete(listener);
  }

  /**
   * Marks the token of `hash` as held (by an open stream) until the returned function is called: while any token is
   * held, the store is asked every LOOKUP_TTL_MS which held tokens are revoked.
   */
  hold(hash: string): () => void {
    this.held.set(hash, (this.held.get(hash) ?? 0) + 1);
    if (!this.sweeper) {
      this.sweeper = setInterval(() => void this.sweep(), LOOKUP_TTL_MS);
      this.sweeper.unref();
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(hash) ?? 1) - 1;
      if (left > 0) this.held.set(hash, left);
      else this.held.delete(hash);
      if (this.held.size === 0 && this.sweeper) {
        clearInterval(this.sweeper);
        this.sweeper = undefined;
      }
    };
  }

  private unexpired(token: StoredToken): StoredToken | undefined {
    return token.expiresAt === undefined || token.expiresAt > this.now() ? token : undefined;
  }

  /** A token is revoked: forget its lookup and tell the listeners. */
  private revoked(hash: string): void {
    this.remembered.delete(hash);
    for (const listener of [...this.revokedListeners]) listener(hash);
  }

  /** Asks the store which held tokens are still valid; the others are revoked. A failed read waits for the next. */
  private async sweep(): Promise<void> {
    if (this.sweeping || this.held.size === 0) return;
    this.sweeping = true;
    try {
      const asked = [...this.held.keys()];
      const valid = new Set(await this.store.validTokenHashes(asked));
      for (const hash of asked) if (!valid.has(hash) && this.held.has(hash)) this.revoked(hash);
    } catch {
      // The store is unavailable for a moment: the next sweep asks again.
    } finally {
      this.sweeping = false;
    }
  }
}
