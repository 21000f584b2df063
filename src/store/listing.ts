/**
 * The listing of games, the SQL both stores share (store.ts, `listGames` and `ongoingGames`): a page of games in the
 * order of changes, and a page of a player's ongoing games in id order, each read from the indexes of the games'
 * seats and `ended` (sqlite/listing.ts and postgres/listing.ts prepare them, each with its placeholders).
 *
 * ```ts
 * listGamesSql({ player: 'ann', status: 'ongoing', limit: 51 }, name => `@${name}`); // SQLite's named parameters
 * playerShape('ann'); // 'player': the shape the statement is kept by
 * ```
 */
import { DEFAULT_BLACK, DEFAULT_WHITE } from '../domain/types.ts';
import type { ListQuery } from './store.ts';

export type Seat = 'white_id' | 'black_id';

/**
 * The player a seat holds when no one named it (DECISIONS §13): the seat indexes leave it out (sqlite migration 0016,
 * postgres 0015), so that a move of a game between unnamed players moves no entry of theirs.
 */
const UNNAMED: Record<Seat, string> = { white_id: DEFAULT_WHITE.id, black_id: DEFAULT_BLACK.id };

/**
 * The condition on a seat of a player's list. For a named player it also says that the seat is not the unnamed
 * one (true, since the player is not): the condition of the seat's index, which a database uses an index of part of
 * a table only when the query states. The unnamed player's own seat is read from the index of every game.
 */
export const seatIs = (seat: Seat, player: string, param: string): string =>
  player === UNNAMED[seat] ? `${seat} = ${param}` : `${seat} = ${param} AND ${seat} <> '${UNNAMED[seat]}'`;

/**
 * The shape of a list's SQL for a player, which its prepared statement is kept by: every game, a named player, or
 * one of the unnamed players (whose own seat is read without its index).
 */
export const playerShape = (player: string | undefined): string =>
  player === undefined ? 'all' : player === UNNAMED.white_id || player === UNNAMED.black_id ? player : 'player';

/** The SQL of a page of games (listGames), for both stores: `param(name)` writes a parameter's placeholder. */
export function listGamesSql(query: ListQuery, param: (name: 'player' | 'before' | 'limit') => string): string {
  const ended = query.status === 'all' ? [0, 1] : query.status === 'ended' ? [1] : [0];
  const { player } = query;
  const seats: Array<Seat | undefined> = player === undefined ? [undefined] : ['white_id', 'black_id'];
  // One branch per index range (seat column, ended): each reads at most `limit` rows in seq order from its index,
  // and the union of the few branches is sorted again. A game a player holds both seats of is one row.
  const branches = seats.flatMap((seat, i) =>
    ended.map(value => {
      const seated = seat === undefined ? '' : `${seatIs(seat, player!, param('player'))} AND `;
      return (
        `SELECT * FROM (SELECT id, version, created_at, data, seq FROM games WHERE ${seated}ended = ${value} ` +
        `AND seq < ${param('before')} ORDER BY seq DESC LIMIT ${param('limit')}) AS b${i}${value}`
      );
    }),
  );
  return `SELECT * FROM (${branches.join(' UNION ')}) AS page ORDER BY seq DESC LIMIT ${param('limit')}`;
}

/**
 * The SQL of a page of a player's ongoing games in id order (ongoingGames), for both stores: the ids from the index
 * of each seat (a game a player holds both seats of is one id), then their rows.
 */
export function ongoingGamesSql(player: string, param: (name: 'player' | 'after' | 'limit') => string): string {
  const ids = (seat: Seat) =>
    `SELECT id FROM games WHERE ${seatIs(seat, player, param('player'))} AND ended = 0 AND id > ${param('after')}`;
  return (
    `SELECT g.id, g.version, g.created_at, g.data FROM (${ids('white_id')} UNION ${ids('black_id')} ` +
    `ORDER BY id LIMIT ${param('limit')}) AS page JOIN games g ON g.id = page.id`
  );
}
