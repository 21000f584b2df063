/**
 * The embedded store's player tokens and bots (sqlite.ts, ../tokens.ts), and the players known by their tokens.
 *
 * ```ts
 * const tokens = new SqliteTokens(connection);
 * await tokens.tokenByHash(hash); // the token, unless revoked
 * ```
 */
import type Database from 'better-sqlite3';
import type { PlayerInfo } from '../../contract/shapes.ts';
import {
  BOT_SQL,
  ISSUED_SQL,
  KNOWN_PLAYER_SQL,
  TOKEN_COLUMNS,
  TOKEN_SQL,
  tokenValues,
  tokenOf,
  type StoredToken,
  type TokenRow,
  type TokenStore,
} from '../tokens.ts';
import type { SqliteConnection } from './connection.ts';
import { params } from './params.ts';

export function prepareTokenStatements(db: Database.Database) {
  return {
    makeBot: db.prepare<[string, string]>(BOT_SQL.insert.replace('$1', '?').replace('$2', '?')),
    botsAmong: db.prepare<[string], { player_id: string }>(
      'SELECT player_id FROM bots WHERE player_id IN (SELECT value FROM json_each(?))',
    ),
    byHash: db.prepare<[string], TokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM player_tokens WHERE hash = ? AND revoked_at IS NULL`,
    ),
    all: db.prepare<[], TokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM player_tokens WHERE revoked_at IS NULL ORDER BY created_at, id`,
    ),
    ofPlayer: db.prepare<[string], TokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM player_tokens WHERE player_id = ? AND revoked_at IS NULL ORDER BY created_at, id`,
    ),
    revoke: db.prepare<[string, string], { hash: string }>(
      'UPDATE player_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING hash',
    ),
    revokeOf: db.prepare<[string, string], { hash: string }>(
      'UPDATE player_tokens SET revoked_at = ? WHERE player_id = ? AND revoked_at IS NULL RETURNING hash',
    ),
    valid: db.prepare<[string, string], { hash: string }>(
      'SELECT hash FROM player_tokens WHERE hash IN (SELECT value FROM json_each(?)) AND revoked_at IS NULL ' +
        'UNION SELECT hash FROM account_sessions WHERE hash IN (SELECT value FROM json_each(?)) AND ended = 0',
    ),
    any: db.prepare<[], { one: number }>(ISSUED_SQL),
  };
}

export type TokenStatements = ReturnType<typeof prepareTokenStatements>;

export class SqliteTokens implements TokenStore {
  constructor(private readonly connection: SqliteConnection<{ tokens: TokenStatements }>) {}

  private get stmts(): TokenStatements {
    return this.connection.statements.tokens;
  }

  insertToken(token: StoredToken): Promise<void> {
    const values = params(tokenValues(token));
    return this.connection
      .enqueue(() => this.connection.statement(TOKEN_SQL.insert).run(values).changes === 1)
      .then(() => undefined);
  }

  touchToken(hash: string, at: number): Promise<void> {
    return this.connection
      .enqueue(() => this.connection.statement(TOKEN_SQL.touch).run(params([hash, at])).changes === 1)
      .then(() => undefined);
  }

  revokeTokensOf(playerId: string): Promise<string[]> {
    let hashes: string[] = [];
    return this.connection
      .enqueue(() => {
        hashes = this.stmts.revokeOf.all(new Date().toISOString(), playerId).map(row => row.hash);
        return hashes.length > 0;
      })
      .then(() => hashes);
  }

  tokenByHash(hash: string): Promise<StoredToken | undefined> {
    return this.connection.read(() => {
      const row = this.stmts.byHash.get(hash);
      return row && tokenOf(row);
    });
  }

  listTokens(playerId?: string): Promise<StoredToken[]> {
    return this.connection.read(() =>
      (playerId === undefined ? this.stmts.all.all() : this.stmts.ofPlayer.all(playerId)).map(tokenOf),
    );
  }

  revokeToken(id: string): Promise<string | undefined> {
    let hash: string | undefined;
    return this.connection
      .enqueue(() => {
        hash = this.stmts.revoke.get(new Date().toISOString(), id)?.hash;
        return hash !== undefined;
      })
      .then(() => hash);
  }

  validTokenHashes(hashes: readonly string[]): Promise<string[]> {
    return this.connection.read(() =>
      this.stmts.valid.all(JSON.stringify(hashes), JSON.stringify(hashes)).map(row => row.hash),
    );
  }

  tokensIssued(): Promise<boolean> {
    return this.connection.read(() => this.stmts.any.get() !== undefined);
  }

  knownPlayer(playerId: string): Promise<PlayerInfo | undefined> {
    return this.connection.read(() => {
      const row = this.connection
        .statement<{ player_id: string; display_name: string }>(KNOWN_PLAYER_SQL)
        .get(params([playerId]));
      return row && { id: row.player_id, displayName: row.display_name };
    });
  }

  makeBot(playerId: string, since: string): Promise<boolean> {
    return this.connection.enqueue(() => this.stmts.makeBot.run(playerId, since).changes === 1);
  }

  botsAmong(playerIds: readonly string[]): Promise<string[]> {
    return this.connection.read(() => this.stmts.botsAmong.all(JSON.stringify(playerIds)).map(row => row.player_id));
  }
}
