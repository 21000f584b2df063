/**
 * Where player tokens live (DECISIONS §13): beside the games, in the same store, so that every instance of a
 * shared store knows them. A token's secret is never stored, only its SHA-256 digest (`hash`, 64 hex digits): a
 * secret carries 256 random bits, so a fast digest is as good as a slow one and costs a lookup nothing.
 *
 * ```ts
 * await store.insertToken({ id, hash, player, createdAt });
 * await store.tokenByHash(hash); // the token, unless revoked
 * await store.revokeToken(id);   // its hash, or undefined when there is no such token
 * await store.validTokenHashes([hash]); // [] once it is revoked
 * ```
 */
import type { PlayerInfo } from '../contract/shapes.ts';

export interface StoredToken {
  id: string; // public id, e.g. 'Xk3pQ9aB27cd'
  hash: string; // SHA-256 of the secret, hex
  player: PlayerInfo;
  createdAt: string; // ISO 8601
  bot?: boolean; // its player is a bot (DECISIONS §17); read with the token, not stored with it
  /** Its scopes (DECISIONS §20), lichess's names; absent: every scope (the operator's tokens). */
  scopes?: string[];
  description?: string; // a personal token's, as its owner wrote it
  clientId?: string; // the OAuth client that holds it
  expiresAt?: number; // ms since the epoch; absent: never
  lastUsedAt?: number; // ms since the epoch, to the minute or so; absent: never used
}

export interface TokenStore {
  /** Adds a token (durably). Stores shared by instances announce it (every instance turns authentication on). */
  insertToken(token: StoredToken): Promise<void>;
  /** The token with this hash, unless it was revoked. */
  tokenByHash(hash: string): Promise<StoredToken | undefined>;
  /** The tokens not revoked, of one player or of all, oldest first. */
  listTokens(playerId?: string): Promise<StoredToken[]>;
  /**
   * Revokes a token (durably); resolves with its hash, or undefined when there is no such token not yet revoked.
   * Stores shared by instances announce it, so that every instance stops accepting it at once.
   */
  revokeToken(id: string): Promise<string | undefined>;
  /**
   * The hashes among `hashes` whose tokens are not revoked, or whose sessions (accounts.ts) have not ended: one read
   * for the credentials of every open stream.
   */
  validTokenHashes(hashes: readonly string[]): Promise<string[]>;
  /**
   * Whether any player token was ever issued (revoked ones included) or any account made: authentication is on from
   * then on.
   */
  tokensIssued(): Promise<boolean>;
  /**
   * The player of an account, or one a token was ever issued for (revoked ones included), as its account or latest
   * token names it: a player is known to the service from its account or first token on (DECISIONS §16, §20).
   * Undefined for a player never given one.
   */
  knownPlayer(playerId: string): Promise<PlayerInfo | undefined>;
  /** Notes that a token was used at `at` (ms since the epoch). */
  touchToken(hash: string, at: number): Promise<void>;
  /** Revokes every token of a player (durably, announced as revokeToken's); resolves with their hashes. */
  revokeTokensOf(playerId: string): Promise<string[]>;
  /** Makes a player a bot, for good (DECISIONS §17); resolves false when it was one already. */
  makeBot(playerId: string, since: string): Promise<boolean>;
  /** The bots among these players. */
  botsAmong(playerIds: readonly string[]): Promise<string[]>;
}

/** The SQL of knownPlayer, with `$1` for the player's id (SQLite takes it as `?1`). */
export const KNOWN_PLAYER_SQL =
  'SELECT player_id, display_name FROM (' +
  "SELECT id AS player_id, display_name, 1 AS pri, '' AS created_at, '' AS id FROM accounts WHERE id = $1 " +
  'UNION ALL SELECT player_id, display_name, 2, created_at, id FROM player_tokens WHERE player_id = $1' +
  ') known ORDER BY pri, created_at DESC, id DESC LIMIT 1';

/** The SQL of tokensIssued: a player token or an account turns authentication on (DECISIONS §13, §20). */
export const ISSUED_SQL =
  'SELECT 1 AS one WHERE EXISTS (SELECT 1 FROM player_tokens) OR EXISTS (SELECT 1 FROM accounts)';

/** A token as the adapters' SQL selects it (TOKEN_COLUMNS). */
export interface TokenRow {
  id: string;
  hash: string;
  player_id: string;
  display_name: string;
  created_at: string;
  bot: number | boolean; // SQLite: 0 or 1
  scopes: string | null;
  description: string | null;
  client_id: string | null;
  expires_at: number | string | null;
  last_used_at: number | string | null;
}

export const TOKEN_COLUMNS =
  'id, hash, player_id, display_name, created_at, scopes, description, client_id, expires_at, last_used_at, ' +
  'EXISTS (SELECT 1 FROM bots WHERE bots.player_id = player_tokens.player_id) AS bot';

/** The SQL of makeBot and botsAmong (SQLite takes `$n` as `?n`; botsAmong's list differs per adapter). */
export const BOT_SQL = {
  insert: 'INSERT INTO bots (player_id, since) VALUES ($1, $2) ON CONFLICT (player_id) DO NOTHING',
} as const;

/** The SQL of a token's insert, its use and its player's revocation, with `$n` (SQLite takes it as `@pn`). */
export const TOKEN_SQL = {
  insert:
    'INSERT INTO player_tokens (id, hash, player_id, display_name, created_at, scopes, description, client_id, ' +
    'expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
  touch: 'UPDATE player_tokens SET last_used_at = $2 WHERE hash = $1',
} as const;

/** A token's values in TOKEN_SQL.insert's order. */
export const tokenValues = (token: StoredToken): unknown[] => [
  token.id,
  token.hash,
  token.player.id,
  token.player.displayName,
  token.createdAt,
  token.scopes?.join(',') ?? null,
  token.description ?? null,
  token.clientId ?? null,
  token.expiresAt ?? null,
];

export const tokenOf = (row: TokenRow): StoredToken => ({
  id: row.id,
  hash: row.hash,
  player: { id: row.player_id, displayName: row.display_name },
  createdAt: row.created_at,
  ...(row.bot ? { bot: true } : {}),
  ...(row.scopes !== null ? { scopes: row.scopes === '' ? [] : row.scopes.split(',') } : {}),
  ...(row.description !== null ? { description: row.description } : {}),
  ...(row.client_id !== null ? { clientId: row.client_id } : {}),
  ...(row.expires_at !== null ? { expiresAt: Number(row.expires_at) } : {}),
  ...(row.last_used_at !== null ? { lastUsedAt: Number(row.last_used_at) } : {}),
});
