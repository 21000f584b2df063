/**
 * Where ratings live (DECISIONS §21), beside the games in the same store: each player's perf per perf type and the
 * rating history (one point per player, perf and UTC day: the last rating of the day). A perf changes only with the
 * end of a rated game, written by the game's update in the same transaction (GameStore `update` with a `RatedEnd`):
 * the update commits only if each side's stored perf still has the games count the end was computed from, so that a
 * game is rated once, on the perfs as they stood, whatever the number of instances.
 *
 * ```ts
 * const perfs = await store.perfsOf(['ann', 'bob']); // the perfs they have played in
 * await store.topPlayers('blitz', 10); // the best ten established blitz players
 * ```
 */
import type { PerfType, PlayerPerf, RatedEnd, RatingPoint } from '../domain/ratings.ts';
import { GLICKO } from '../domain/glicko.ts';

export interface RatingStore {
  /** Every stored perf of these players; a perf never played is not stored (a new player's). */
  perfsOf(playerIds: readonly string[]): Promise<PlayerPerf[]>;
  /** A player's rating history, oldest day first. */
  ratingHistory(playerId: string): Promise<RatingPoint[]>;
  /** Up to `limit` players of a perf whose stored deviation is under the provisional one, best rating first. */
  topPlayers(perfType: PerfType, limit: number): Promise<PlayerPerf[]>;
}

/** A perfs row as the adapters select it. */
export interface PerfRow {
  player_id: string;
  name: string;
  perf: string;
  rating: number;
  deviation: number;
  volatility: number;
  games: number;
  latest: number | string | null; // PostgreSQL's BIGINT comes as a string
  recent: string; // JSON array of whole ratings
}

export const perfOfRow = (row: PerfRow): PlayerPerf => ({
  player: { id: row.player_id, displayName: row.name },
  perfType: row.perf as PerfType,
  perf: {
    glicko: { rating: row.rating, deviation: row.deviation, volatility: row.volatility },
    games: row.games,
    latest: row.latest === null ? null : Number(row.latest),
    recent: JSON.parse(row.recent) as number[],
  },
});

const PERF_COLUMNS = 'SELECT player_id, name, perf, rating, deviation, volatility, games, latest, recent FROM perfs';

/** The sides of a rated end in the order their rows are locked: by player id, so that two ends never deadlock. */
export const sidesInLockOrder = (end: RatedEnd) =>
  [...end.sides].sort((a, b) => (a.player.id < b.player.id ? -1 : a.player.id > b.player.id ? 1 : 0));

/** The SQL both adapters share, with `$n` placeholders (SQLite takes them through params.ts). */
export const RATING_SQL = {
  ofPlayer: `${PERF_COLUMNS} WHERE player_id = $1`,
  /** A perf's first rated game: inserted only if none is stored. */
  insert: `INSERT INTO perfs (player_id, perf, name, rating, deviation, volatility, games, latest, recent)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (player_id, perf) DO NOTHING`,
  /** A later one: written only if the stored games count is still the one before. */
  update: `UPDATE perfs SET name = $3, rating = $4, deviation = $5, volatility = $6, games = $7, latest = $8,
           recent = $9 WHERE player_id = $1 AND perf = $2 AND games = $10`,
  history: `INSERT INTO rating_history (player_id, perf, day, rating) VALUES ($1, $2, $3, $4)
            ON CONFLICT (player_id, perf, day) DO UPDATE SET rating = excluded.rating`,
  historyOf: 'SELECT perf, day, rating FROM rating_history WHERE player_id = $1 ORDER BY day, perf',
  top: `${PERF_COLUMNS} WHERE perf = $1 AND deviation < ${GLICKO.provisionalDeviation}
        ORDER BY rating DESC, player_id LIMIT $2`,
};

/** A side's perf write: an insert for a perf's first game, else an update checked on the games count before. */
export function perfWrite(end: RatedEnd, side: RatedEnd['sides'][number]): { sql: string; values: unknown[] } {
  const { player, before, after } = side;
  const { rating, deviation, volatility } = after.glicko;
  const values: unknown[] = [player.id, end.perfType, player.displayName, rating, deviation, volatility, after.games];
  values.push(after.latest, JSON.stringify(after.recent));
  return before.games === 0
    ? { sql: RATING_SQL.insert, values }
    : { sql: RATING_SQL.update, values: [...values, before.games] };
}

/** A side's history point: its rating after the game, the last of the day so far. */
export const historyValues = (end: RatedEnd, side: RatedEnd['sides'][number]): unknown[] => [
  side.player.id,
  end.perfType,
  end.day,
  Math.trunc(side.after.glicko.rating),
];

/** A history row as the adapters select it. */
export interface HistoryRow {
  perf: string;
  day: string;
  rating: number;
}

export const pointOfRow = (row: HistoryRow): RatingPoint => ({
  perfType: row.perf as PerfType,
  day: row.day,
  rating: row.rating,
});
