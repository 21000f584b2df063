/**
 * A player's games as lichess exports them (DECISIONS §22), the SQL both stores share: the `player_games` table
 * holds one entry per player of each game (domain/history.ts), written with the game and never changed, keyed by
 * (player, creation time, game id), with a second index that leads with the opponent for `vs`. A page reads the
 * player's entries in key order from the last game of the page before (a keyset, so that a page costs the same at
 * any depth of the archive), filtered on the entry's columns and on whether the game is over (its `ended`).
 *
 * ```ts
 * playerGamesSql({ player: 'ann', ended: true, order: 'desc', limit: 100 }, name => `@${name}`, 'CROSS JOIN');
 * ```
 */
import type { HistoryEntry, HistoryQuery } from '../domain/history.ts';
import type { GameRecord } from '../domain/game.ts';

/** The pages of a player's games (sqlite/, postgres/ and memory/ history.ts). */
export interface HistoryStore {
  /** A page of a player's games (domain/history.ts, HistoryQuery), each whole, in the query's order. */
  playerGames(query: HistoryQuery): Promise<GameRecord[]>;
}

/** The named parameters of a page's SQL. */
export type HistoryParam =
  'player' | 'since' | 'until' | 'vs' | 'rated' | 'afterAt' | 'afterId' | 'limit' | `perf${number}`;

/** The values of a page's parameters, by name. */
export function historyParams(query: HistoryQuery): Record<string, string | number> {
  const values: Record<string, string | number> = { player: query.player, limit: query.limit };
  if (query.since !== undefined) values.since = query.since;
  if (query.until !== undefined) values.until = query.until;
  if (query.vs !== undefined) values.vs = query.vs;
  if (query.rated !== undefined) values.rated = query.rated ? 1 : 0;
  if (query.after) {
    values.afterAt = query.after.createdAt;
    values.afterId = query.after.id;
  }
  query.perfs?.forEach((perf, i) => (values[`perf${i}`] = perf));
  return values;
}

/**
 * The SQL of a page of a player's games: `param(name)` writes a parameter's placeholder, `join` the join of entries to
 * games (SQLite's CROSS JOIN keeps the entries the outer loop, read in the index's order), `gameId` the entry's game
 * id as the games' key compares it (postgres/history.ts: in the games' collation, so that their key is used). Its shape (which filters,
 * the order) is what a prepared statement is kept by (`historyShape`).
 */
export function playerGamesSql(
  query: HistoryQuery,
  param: (name: HistoryParam) => string,
  join: string,
  gameId = 'p.game_id',
): string {
  const where = [`p.player_id = ${param('player')}`];
  if (query.since !== undefined) where.push(`p.created_at >= ${param('since')}`);
  if (query.until !== undefined) where.push(`p.created_at <= ${param('until')}`);
  if (query.vs !== undefined) where.push(`p.opponent_id = ${param('vs')}`);
  if (query.rated !== undefined) where.push(`p.rated = ${param('rated')}`);
  if (query.perfs !== undefined) {
    where.push(
      query.perfs.length === 0 ? '1 = 0' : `p.perf IN (${query.perfs.map((_, i) => param(`perf${i}`)).join(', ')})`,
    );
  }
  if (query.color !== undefined) where.push(`p.color <> '${query.color === 'white' ? 'black' : 'white'}'`);
  if (query.ended !== undefined) where.push(`g.ended = ${query.ended ? 1 : 0}`);
  const direction = query.order === 'asc' ? 'ASC' : 'DESC';
  if (query.after) {
    where.push(
      `(p.created_at, p.game_id) ${query.order === 'asc' ? '>' : '<'} (${param('afterAt')}, ${param('afterId')})`,
    );
  }
  return (
    `SELECT g.id, g.version, g.created_at, g.data FROM player_games p ${join} games g ON g.id = ${gameId} ` +
    `WHERE ${where.join(' AND ')} ORDER BY p.created_at ${direction}, p.game_id ${direction} LIMIT ${param('limit')}`
  );
}

/** The shape of a page's SQL, which its prepared statement is kept by. */
export const historyShape = (query: HistoryQuery): string =>
  [
    query.since !== undefined,
    query.until !== undefined,
    query.vs !== undefined,
    query.rated !== undefined,
    query.perfs?.length ?? '-',
    query.color ?? '-',
    query.ended ?? '-',
    query.order,
    query.after !== undefined,
  ].join(' ');

/** The columns of an entry as the stores write them, in the order of `player_games`'s insert. */
export const entryColumns = (entry: HistoryEntry, record: GameRecord) =>
  [entry.player, record.createdAt, record.id, entry.color, entry.opponent, entry.perf, entry.rated ? 1 : 0] as const;
