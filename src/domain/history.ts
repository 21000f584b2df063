/**
 * A player's games as lichess exports them (DECISIONS §22): what the store indexes each game by for its players, and
 * the query of one page. A game has one entry per player in it (one for a practice board, whose player holds both
 * seats), written with the game and never changed: the seats, the time control, whether it is rated and its
 * creation time are fixed when it is made. Whether it is over is the game's own (`ended`), read beside it.
 *
 * ```ts
 * historyEntriesOf(record); // [{ player: 'ann', color: 'white', opponent: 'bob', perf: 'blitz', rated: false }, ...]
 * ```
 */
import type { Speed } from '../contract/lichess.ts';
import type { Color } from '../contract/vocabulary.ts';
import type { GameRecord } from './game.ts';
import { speedOfControl } from './lichess.ts';

/** The seat a player holds in a game: one colour, or both (a practice board). */
export type HistoryColor = Color | 'both';

export interface HistoryEntry {
  readonly player: string;
  readonly color: HistoryColor;
  readonly opponent: string; // the other seat's id; a practice board's player is its own opponent
  readonly perf: Speed; // the game's speed; unlimited games are correspondence, as on lichess
  readonly rated: boolean;
}

/** The entries of a game, one per player in it. */
export function historyEntriesOf(record: GameRecord): HistoryEntry[] {
  const perf = speedOfControl(record.clock?.control);
  const rated = record.rated === true;
  const { white, black } = record;
  if (white.id === black.id) return [{ player: white.id, color: 'both', opponent: white.id, perf, rated }];
  return [
    { player: white.id, color: 'white', opponent: black.id, perf, rated },
    { player: black.id, color: 'black', opponent: white.id, perf, rated },
  ];
}

/** Where a page of a player's games starts: after this game, in the query's order. */
export interface HistoryPosition {
  readonly createdAt: string;
  readonly id: string;
}

/**
 * A page of a player's games: those `player` holds a seat in, filtered, in the order of their creation (ties by id),
 * newest first unless `order` is 'asc'. Every filter left undefined lets every game through.
 */
export interface HistoryQuery {
  readonly player: string;
  readonly since?: string | undefined; // ISO 8601: created at or after it
  readonly until?: string | undefined; // ISO 8601: created at or before it
  readonly vs?: string | undefined; // the other seat's id
  readonly rated?: boolean | undefined;
  readonly perfs?: readonly Speed[] | undefined; // one of these speeds; an empty list: no game
  readonly color?: Color | undefined; // a seat the player holds (a practice board holds both)
  readonly ended?: boolean | undefined; // over (true) or not (false)
  readonly order: 'asc' | 'desc';
  readonly after?: HistoryPosition | undefined; // the last game of the previous page
  readonly limit: number;
}

/** Whether a game's entry for a player passes a query's filters, but `ended` (the game's own). */
export function entryMatches(entry: HistoryEntry, createdAt: string, query: HistoryQuery): boolean {
  if (entry.player !== query.player) return false;
  if (query.since !== undefined && createdAt < query.since) return false;
  if (query.until !== undefined && createdAt > query.until) return false;
  if (query.vs !== undefined && entry.opponent !== query.vs) return false;
  if (query.rated !== undefined && entry.rated !== query.rated) return false;
  if (query.perfs !== undefined && !query.perfs.includes(entry.perf)) return false;
  if (query.color !== undefined && entry.color !== 'both' && entry.color !== query.color) return false;
  return true;
}

/** The order of a player's games: by creation time, then id. */
export const comparePositions = (a: HistoryPosition, b: HistoryPosition): number =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
