/**
 * The shared store's player tokens and bots (postgres.ts, ../tokens.ts), and the players known by their tokens. A token
 * issued or revoked is announced to every instance (TOKENS_CHANNEL) by the statement that writes it.
 *
 * ```ts
 * const tokens = new PostgresTokens(pool);
 * await tokens.revokeToken(id); // its hash; every instance stops accepting it
 * ```
 */
import type pg from 'pg';
import type { PlayerInfo } from '../../contract/shapes.ts';
import { TOKEN_ISSUED, TOKENS_CHANNEL, tokenRevokedSql } from '../notifications.ts';
import { run } from '../postgresTransaction.ts';
import { BOT_SQL, ISSUED_SQL, KNOWN_PLAYER_SQL, TOKEN_COLUMNS, TOKEN_SQL, tokenOf, tokenValues } from '../tokens.ts';
import type { StoredToken, TokenRow, TokenStore } from '../tokens.ts';

/** Revokes the tokens whose `column` is $1, announcing each (TOKENS_CHANNEL); selects their hashes. */
const revokeSql = (column: 'id' | 'player_id') => `WITH revoked AS (
  UPDATE player_tokens SET revoked_at = now() WHERE ${column} = $1 AND revoked_at IS NULL RETURNING hash
) SELECT hash, pg_notify('${TOKENS_CHANNEL}', ${tokenRevokedSql('hash')}) FROM revoked`;

export class PostgresTokens implements TokenStore {
  constructor(private readonly pool: pg.Pool) {}

  insertToken(token: StoredToken): Promise<void> {
    return run(async () => {
      await this.pool.query({
        name: 'chess-insert-token',
        text: `WITH inserted AS (
  ${TOKEN_SQL.insert} RETURNING id
) SELECT pg_notify('${TOKENS_CHANNEL}', '${TOKEN_ISSUED}') FROM inserted`,
        values: tokenValues(token),
      });
    });
  }

  touchToken(hash: string, at: number): Promise<void> {
    return run(async () => {
      await this.pool.query(TOKEN_SQL.touch, [hash, at]);
    });
  }

  revokeTokensOf(playerId: string): Promise<string[]> {
    return run(async () => {
      const result = await this.pool.query<{ hash: string }>(revokeSql('player_id'), [playerId]);
      return result.rows.map(row => row.hash);
    });
  }

  tokenByHash(hash: string): Promise<StoredToken | undefined> {
    return run(async () => {
      const result = await this.pool.query<TokenRow>({
        name: 'chess-select-token',
        text: `SELECT ${TOKEN_COLUMNS} FROM player_tokens WHERE hash = $1 AND revoked_at IS NULL`,
        values: [hash],
      });
      const row = result.rows[0];
      return row && tokenOf(row);
    });
  }

  listTokens(playerId?: string): Promise<StoredToken[]> {
    return run(async () => {
      const result = await this.pool.query<TokenRow>(
        `SELECT ${TOKEN_COLUMNS} FROM player_tokens WHERE revoked_at IS NULL AND ($1::text IS NULL OR player_id = $1)
         ORDER BY created_at, id`,
        [playerId ?? null],
      );
      return result.rows.map(tokenOf);
    });
  }

  revokeToken(id: string): Promise<string | undefined> {
    return run(async () => {
      const result = await this.pool.query<{ hash: string }>(revokeSql('id'), [id]);
      return result.rows[0]?.hash;
    });
  }

  validTokenHashes(hashes: readonly string[]): Promise<string[]> {
    return run(async () => {
      const result = await this.pool.query<{ hash: string }>({
        name: 'chess-valid-tokens',
        text:
          'SELECT hash FROM player_tokens WHERE hash = ANY($1::text[]) AND revoked_at IS NULL ' +
          'UNION SELECT hash FROM account_sessions WHERE hash = ANY($1::text[]) AND ended = 0',
        values: [hashes],
      });
      return result.rows.map(row => row.hash);
    });
  }

  tokensIssued(): Promise<boolean> {
    return run(async () => (await this.pool.query(ISSUED_SQL)).rowCount === 1);
  }

  knownPlayer(playerId: string): Promise<PlayerInfo | undefined> {
    return run(async () => {
      const { rows } = await this.pool.query<{ player_id: string; display_name: string }>(KNOWN_PLAYER_SQL, [playerId]);
      const row = rows[0];
      return row && { id: row.player_id, displayName: row.display_name };
    });
  }

  makeBot(playerId: string, since: string): Promise<boolean> {
    return run(async () => (await this.pool.query(BOT_SQL.insert, [playerId, since])).rowCount === 1);
  }

  botsAmong(playerIds: readonly string[]): Promise<string[]> {
    return run(async () =>
      (
        await this.pool.query<{ player_id: string }>('SELECT player_id FROM bots WHERE player_id = ANY($1)', [
          [...playerIds],
        ])
      ).rows.map(row => row.player_id),
    );
  }
}
