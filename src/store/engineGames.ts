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
import { ENGINE_ID } from '../contract/vocabulary.ts';
import { countsTowardEngineCap } from '../domain/engineGames.ts';
import { DomainError } from '../domain/errors.ts';
import { seatIs, type Seat } from './listing.ts';
import type { GameData } from './rows.ts';

/** What a creation beyond the bound rejects with. */
export const engineGamesLimited = (max: number): DomainError =>
  new DomainError(
    'RATE_LIMITED',
    `a player may have at most ${max} ongoing real-time games against the computer: finish one first`,
  );

/**
 * The SQL of the data of a player's ongoing games against the computer (`$1`: the player), for both stores. Each
 * seat is read from its index of a player's games, which leaves out the unnamed player of that seat (listing.ts): the
 * condition says so, except for that player, whose own seat is read without it.
 */
export function engineGamesSql(player: string): string {
  const seat = (column: Seat, engineColumn: string) =>
    `SELECT data FROM games WHERE ${seatIs(column, player, '$1')} AND ended = 0 AND ${engineColumn} = '${ENGINE_ID}'`;
  return `${seat('white_id', 'black_id')} UNION ALL ${seat('black_id', 'white_id')}`;
}

/** How many of these games (rows of `engineGamesSql`) count toward `player`'s bound: the real-time ones. */
export const engineGamesOf = (rows: readonly { data: string }[], player: string): number =>
  rows.filter(row => countsTowardEngineCap(JSON.parse(row.data) as GameData, player)).length;
