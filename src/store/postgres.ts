/**
 * The shared store: PostgreSQL through a connection pool, for several instances serving the same games.
 * An update is one statement (version-checked UPDATE, change-log INSERT and NOTIFY), so it commits or not
 * as a whole and the announcement goes out exactly when the change is visible. Migrations in
 * `sql/postgres/NNNN_name.sql` run at open under an advisory lock, so instances may start together.
 * Errors that mean "the database cannot be reached" become UNAVAILABLE (503); nothing waits forever.
 * The statements of every request (insert, select, update) are named, so that each connection has the server
 * parse and plan them once instead of on every call.
 *
 * ```ts
 * const store = await PostgresGameStore.open('postgres://user@127.0.0.1:5432/chess');
 * ```
 */
import pg from 'pg';
import { restoreGame, type GameRecord } from '../domain/game.ts';
import { indexOfGame } from '../domain/transitions.ts';
import { DomainError } from '../domain/errors.ts';
import {
  CHANGE_LOG_RETENTION_MS,
  dataOf,
  listGamesSql,
  loggedVersionError,
  NO_INDEX,
  recordOf,
  type ClockedGame,
  type GameIndex,
  type ListedGame,
  type ListQuery,
  type GameData,
  type GameStore,
  type StateEvent,
  type StoredChange,
} from './store.ts';
import { CHANGES_CHANNEL, notificationSql, TOKEN_ISSUED, TOKENS_CHANNEL, tokenRevokedSql } from './notifications.ts';
import { TOKEN_COLUMNS, tokenOf, type StoredToken, type TokenRow, type TokenStore } from './tokens.ts';
import { migrations } from './migrations.ts';

/** Any constant shared by all instances: the advisory lock that serializes migrations. */
const MIGRATION_LOCK = 4_224_242;
const PRUNE_EVERY = 1000;

export interface PostgresOptions {
  poolSize?: number; // connections per instance, 10
  connectTimeoutMs?: number; // wait for a connection at most this long, 3000
  queryTimeoutMs?: number; // a query that takes longer fails, 10000
  onError?: (error: Error) => void; // errors of idle connections, for the log
}

/**
 * A change: the version-checked update (its new seq, index columns and data), its change-log entry and its
 * announcement, which says whether the change started the game again or ended it (comparing `ended` before and
 * after, as the statement's snapshot saw it before the update).
 */
const UPDATE_SQL = `
WITH prior AS (
  SELECT ended FROM games WHERE id = $1 AND version = $4
), updated AS (
  UPDATE games SET version = $2, updated_at = now(), data = $3, deadline = $6, ended = $7, seq = nextval('games_seq')
  WHERE id = $1 AND version = $4 RETURNING id, white_id, black_id
), logged AS (
  INSERT INTO game_changes (game_id, version, event)
  SELECT id, $2, $5 FROM updated WHERE $5::text IS NOT NULL
)
SELECT pg_notify('${CHANGES_CHANNEL}', ${notificationSql({
  id: 'id',
  version: '$2',
  deadline: '$6',
  transition: `CASE WHEN (SELECT ended FROM prior) = $7 THEN NULL WHEN $7 = 1 THEN 'f' ELSE 's' END`,
})}) FROM updated`;

/** A new game, its creation logged (version 1, for other instances' players' streams) and announced. */
const INSERT_SQL = `
WITH inserted AS (
  INSERT INTO games (id, version, created_at, data, deadline, white_id, black_id, ended, seq)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, nextval('games_seq')) ON CONFLICT (id) DO NOTHING
  RETURNING id, white_id, black_id
), logged AS (
  INSERT INTO game_changes (game_id, version, event) SELECT id, $2, $9 FROM inserted WHERE $9::text IS NOT NULL
)
SELECT pg_notify('${CHANGES_CHANNEL}', ${notificationSql({
  id: 'id',
  version: '$2',
  deadline: '$5',
  transition: `CASE WHEN $8 = 1 THEN NULL ELSE 's' END`,
})}) FROM inserted`;

export class PostgresGameStore implements GameStore, TokenStore {
  private updates = 0;

  private constructor(private readonly pool: pg.Pool) {}

  static async open(url: string, options: PostgresOptions = {}): Promise<PostgresGameStore> {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 3000,
      query_timeout: options.queryTimeoutMs ?? 10_000,
      idleTimeoutMillis: 30_000,
    });
    // An idle connection that dies (database restart) must not take the process with it.
    pool.on('error', error => options.onError?.(error));
    const store = new PostgresGameStore(pool);
    try {
      await store.run(() => migrate(pool));
    } catch (error) {
      await pool.end();
      throw error;
    }
    return store;
  }

  create(record: GameRecord, index: GameIndex = NO_INDEX, event?: StateEvent): Promise<boolean> {
    return this.run(async () => {
      const result = await this.pool.query({
        name: 'chess-insert-game',
        text: INSERT_SQL,
        values: [
          record.id,
          record.version,
          record.createdAt,
          JSON.stringify(dataOf(record)),
          index.deadline,
          record.white.id,
          record.black.id,
          +index.ended,
          event ? JSON.stringify(event) : null,
        ],
      });
      return result.rowCount === 1;
    });
  }

  get(id: string): Promise<GameRecord | undefined> {
    return this.run(async () => {
      const result = await this.pool.query<{ id: string; version: number; created_at: string; data: string }>({
        name: 'chess-select-game',
        text: 'SELECT id, version, created_at, data FROM games WHERE id = $1',
        values: [id],
      });
      const row = result.rows[0];
      return row && recordOf(row.id, row.version, row.created_at, JSON.parse(row.data) as GameData);
    });
  }

  update(record: GameRecord, expectedVersion: number, event?: StateEvent, index = NO_INDEX): Promise<boolean> {
    const refused = loggedVersionError(record, expectedVersion, event);
    if (refused) return Promise.reject(refused);
    return this.run(async () => {
      const result = await this.pool.query({
        name: 'chess-update-game',
        text: UPDATE_SQL,
        values: [
          record.id,
          record.version,
          JSON.stringify(dataOf(record)),
          expectedVersion,
          event ? JSON.stringify(event) : null,
          index.deadline,
          +index.ended,
        ],
      });
      const saved = result.rowCount === 1;
      if (saved && ++this.updates % PRUNE_EVERY === 0) void this.prune();
      return saved;
    });
  }

  listGames(query: ListQuery): Promise<ListedGame[]> {
    const given = { player: query.player, before: query.before ?? Number.MAX_SAFE_INTEGER, limit: query.limit };
    const names: Array<keyof typeof given> = []; // in the order the statement numbers its parameters
    const text = listGamesSql(query, name => {
      if (!names.includes(name)) names.push(name);
      return `$${names.indexOf(name) + 1}`;
    });
    return this.run(async () => {
      const result = await this.pool.query<{
        id: string;
        version: number;
        created_at: string;
        data: string;
        seq: string;
      }>({
        name: `chess-list-${query.player === undefined ? 'all' : 'player'}-${query.status}`,
        text,
        values: names.map(name => given[name]),
      });
      return result.rows.map(row => ({
        record: recordOf(row.id, row.version, row.created_at, JSON.parse(row.data) as GameData),
        seq: Number(row.seq),
      }));
    });
  }

  clockedGames(): Promise<ClockedGame[]> {
    return this.run(async () => {
      const result = await this.pool.query<{ id: string; deadline: string }>(
        'SELECT id, deadline FROM games WHERE deadline IS NOT NULL',
      );
      return result.rows.map(row => ({ id: row.id, deadline: Number(row.deadline) }));
    });
  }

  changesSince(id: string, afterVersion: number): Promise<StoredChange[]> {
    return this.run(async () => {
      const result = await this.pool.query<{ version: number; event: string }>(
        'SELECT version, event FROM game_changes WHERE game_id = $1 AND version > $2 ORDER BY version',
        [id, afterVersion],
      );
      return result.rows.map(row => ({ gameId: id, version: row.version, event: JSON.parse(row.event) as StateEvent }));
    });
  }

  insertToken(token: StoredToken): Promise<void> {
    return this.run(async () => {
      await this.pool.query({
        name: 'chess-insert-token',
        text: `WITH inserted AS (
  INSERT INTO player_tokens (id, hash, player_id, display_name, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id
) SELECT pg_notify('${TOKENS_CHANNEL}', '${TOKEN_ISSUED}') FROM inserted`,
        values: [token.id, token.hash, token.player.id, token.player.displayName, token.createdAt],
      });
    });
  }

  tokenByHash(hash: string): Promise<StoredToken | undefined> {
    return this.run(async () => {
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
    return this.run(async () => {
      const result = await this.pool.query<TokenRow>(
        `SELECT ${TOKEN_COLUMNS} FROM player_tokens WHERE revoked_at IS NULL AND ($1::text IS NULL OR player_id = $1)
         ORDER BY created_at, id`,
        [playerId ?? null],
      );
      return result.rows.map(tokenOf);
    });
  }

  revokeToken(id: string): Promise<string | undefined> {
    return this.run(async () => {
      const result = await this.pool.query<{ hash: string }>(
        `WITH revoked AS (
  UPDATE player_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING hash
) SELECT hash, pg_notify('${TOKENS_CHANNEL}', ${tokenRevokedSql('hash')}) FROM revoked`,
        [id],
      );
      return result.rows[0]?.hash;
    });
  }

  tokensIssued(): Promise<boolean> {
    return this.run(async () => (await this.pool.query('SELECT 1 FROM player_tokens LIMIT 1')).rowCount === 1);
  }

  ping(): Promise<void> {
    return this.run(async () => {
      await this.pool.query('SELECT 1');
    });
  }

  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }

  private async prune(): Promise<void> {
    try {
      await this.pool.query("DELETE FROM game_changes WHERE created_at < now() - $1 * interval '1 millisecond'", [
        CHANGE_LOG_RETENTION_MS,
      ]);
    } catch {
      // The next prune tries again.
    }
  }

  /** Runs a database call, turning "cannot reach the database" into UNAVAILABLE. */
  private async run<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      const code = (error as { code?: unknown }).code;
      throw new DomainError(
        'UNAVAILABLE',
        code === '53100'
          ? "the database server's disk is full; try again once space is freed"
          : typeof code === 'string' && code.startsWith('53')
            ? `the database server is out of resources (${code}); try again shortly`
            : 'the database is unreachable; try again shortly',
      );
    }
  }
}

/**
 * Connection-level failures: no SQLSTATE (sockets, timeouts, a pool that cannot connect), or a SQLSTATE of
 * class 08 (connection exception), 53 (insufficient resources) or 57P (the server is shutting down).
 */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return /^(08|53|57P)/.test(code);
  return true;
}

async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    );
    const applied = new Set(
      (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map(row => row.version),
    );
    for (const { version, name, sql } of migrations('postgres')) {
      if (applied.has(version)) continue;
      await client.query(sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [version, name]);
    }
    await reindexGames(client);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Works out `ended` and `deadline` of the games stored before those columns were filled (migration 0005), from
 * each game itself: whether a game is over depends on its position. Runs under the migration lock.
 */
async function reindexGames(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ id: string; version: number; created_at: string; data: string }>(
    'SELECT id, version, created_at, data FROM games WHERE ended IS NULL',
  );
  for (const row of rows) {
    const record = recordOf(row.id, row.version, row.created_at, JSON.parse(row.data) as GameData);
    const { ended, deadline } = indexOfGame(restoreGame(record));
    await client.query('UPDATE games SET ended = $2, deadline = $3 WHERE id = $1', [row.id, +ended, deadline]);
  }
}
