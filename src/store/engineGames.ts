/**
 * The bound on a player's ongoing real-time games against the computer (DECISIONS §16a), kept by every store's
 * `create`: a new game that counts toward it (domain/engineGames.ts, `cappedEngineGameOf`) is inserted only if its
 * person has fewer than the bound, counted and inserted as one step, so that requests racing on any instances never
 * pass it; beyond, `create` rejects with RATE_LIMITED. SQLite counts inside the write transaction that inserts (one
 * writer at a time); PostgreSQL in a transaction holding an advisory lock of the player, which every instance takes.
 *
 * ```ts
 * const count = engineGamesOf(rows, 'ann'); // rows of `engineGamesSql('ann')`: Ann's ongoing real-time ones
 * if (count >= cap.max) throw engineGamesLimited(cap.max);
 * ```
 */
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { transaction } from './postgresTransaction.ts';
import { ENGINE_ID } from '../contract/vocabulary.ts';
import { countsTowardEngineCap } from '../domain/engineGames.ts';
import { DomainError } from '../domain/errors.ts';
import type { GameData } from './rows.ts';
import { DEFAULT_BLACK, DEFAULT_WHITE } from '../domain/types.ts';

/** The first key of the advisory locks of players making games against the computer (the second: the player's). */
export const ENGINE_GAMES_LOCK = 4_224_246;

/** What a creation beyond the bound rejects with. */
export const engineGamesLimited = (max: number): DomainError =>
  new DomainError(
    'RATE_LIMITED',
    `a player may have at most ${max} ongoing real-time games against the computer: finish one first`,
  );

/**
 * The SQL of the data of a player's ongoing games against the computer (`$1`: the player), for both stores. Each
 * seat is read from its index of a player's games, which leaves out the unnamed player of that seat (store.ts): the
 * condition says so, except for that player, whose own seat is read without it.
 */
export function engineGamesSql(player: string): string {
  const seat = (column: string, unnamed: string, engineColumn: string) =>
    `SELECT data FROM games WHERE ${column} = $1${player === unnamed ? '' : ` AND ${column} <> '${unnamed}'`} ` +
    `AND ended = 0 AND ${engineColumn} = '${ENGINE_ID}'`;
  return `${seat('white_id', DEFAULT_WHITE.id, 'black_id')} UNION ALL ${seat('black_id', DEFAULT_BLACK.id, 'white_id')}`;
}

/** How many of these games (rows of `engineGamesSql`) count toward `player`'s bound: the real-time ones. */
export const engineGamesOf = (rows: readonly { data: string }[], player: string): number =>
  rows.filter(row => countsTowardEngineCap(JSON.parse(row.data) as GameData, player)).length;

/** The statements of `engineGamesSql` of each connection, by the shape of their SQL. */
const prepared = new WeakMap<Database.Database, Map<string, Database.Statement<[Record<string, unknown>]>>>();

/** SQLite: the player's ongoing real-time games against the computer, read on `db` (inside its write transaction). */
export function countEngineGamesSqlite(db: Database.Database, player: string): number {
  const sql = engineGamesSql(player).replace(/\$1/g, '@p1');
  let statements = prepared.get(db);
  if (!statements) {
    statements = new Map<string, Database.Statement<[Record<string, unknown>]>>();
    prepared.set(db, statements);
  }
  let statement = statements.get(sql);
  if (!statement) statements.set(sql, (statement = db.prepare<[Record<string, unknown>]>(sql)));
  return engineGamesOf(statement.all({ p1: player }) as { data: string }[], player);
}

/**
 * PostgreSQL: counts the player's ongoing real-time games against the computer and, below `max`, inserts the game
 * with `insert` on the same connection, in one transaction under the player's advisory lock: 'limit' when the bound
 * is reached, else whether the game was inserted (false: its id is taken).
 */
export function createEngineGamePostgres(
  pool: pg.Pool,
  cap: { player: string; max: number },
  insert: (client: pg.PoolClient) => Promise<boolean>,
): Promise<boolean | 'limit'> {
  return transaction(pool, async client => {
    // One player's creations one at a time, on every instance: each counts what the one before committed.
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [ENGINE_GAMES_LOCK, cap.player]);
    const { rows } = await client.query<{ data: string }>(engineGamesSql(cap.player), [cap.player]);
    return engineGamesOf(rows, cap.player) >= cap.max ? 'limit' : await insert(client);
  });
}
