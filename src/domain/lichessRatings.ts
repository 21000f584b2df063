/**
 * Ratings in lichess's shapes (DECISIONS §21): a player's perfs (Perf: `{games, rating, rd, prog, prov}`), a User,
 * the rating history (one `[year, month, day, rating]` point per UTC day, months from 0) and a leaderboard. Views of
 * what the store keeps, read at `now` (a deviation grows with the time since the last rated game).
 *
 * ```ts
 * lichessPerfsOf(await store.perfsOf([id]), id, now); // { ultraBullet: {...}, bullet: {...}, ..., correspondence }
 * ```
 */
import type { LichessPerf, LichessPerfs, PlayerInfo } from '../contract/shapes.ts';
import type { Leaderboard, LichessUser, RatingHistory } from '../contract/ratings.ts';
import { intRating, isProvisional, perfAt, progress, type Perf } from './glicko.ts';
import { PERF_NAMES } from './lichess.ts';
import { PERF_TYPES, perfIn, type PlayerPerf, type RatingPoint } from './ratings.ts';

/** A perf as lichess's Perf at `now`. */
export function lichessPerfOf(perf: Perf, now: number): LichessPerf {
  const live = perfAt(perf, now).glicko;
  const shown: LichessPerf = {
    games: perf.games,
    rating: intRating(perf.glicko),
    rd: Math.trunc(live.deviation),
    prog: progress(perf),
  };
  return isProvisional(live) ? { ...shown, prov: true } : shown;
}

/** Every perf of a player, from the perfs stored (theirs), a new player's where none is. */
export const lichessPerfsOf = (stored: readonly PlayerPerf[], playerId: string, now: number): LichessPerfs =>
  Object.fromEntries(
    PERF_TYPES.map(perfType => [perfType, lichessPerfOf(perfIn(stored, playerId, perfType), now)]),
  ) as LichessPerfs;

/** A player as lichess's User. */
export function lichessUserOf(
  player: PlayerInfo,
  stored: readonly PlayerPerf[],
  now: number,
  bot: boolean,
): LichessUser {
  const user: LichessUser = {
    id: player.id,
    username: player.displayName,
    perfs: lichessPerfsOf(stored, player.id, now),
  };
  return bot ? { ...user, title: 'BOT' } : user;
}

/** A rating history as lichess's: every perf listed, in lichess's order, its points oldest first. */
export function lichessRatingHistory(points: readonly RatingPoint[]): RatingHistory {
  return PERF_TYPES.map(perfType => ({
    name: PERF_NAMES[perfType],
    points: points
      .filter(point => point.perfType === perfType)
      .map(({ day, rating }) => {
        const [year, month, date] = day.split('-').map(Number) as [number, number, number];
        return [year, month - 1, date, rating];
      }),
  }));
}

/** A leaderboard of one perf, as lichess's. */
export const lichessLeaderboard = (top: readonly PlayerPerf[]): Leaderboard => ({
  users: top.map(({ player, perfType, perf }) => ({
    id: player.id,
    username: player.displayName,
    perfs: { [perfType]: { rating: intRating(perf.glicko), progress: progress(perf) } },
  })),
});
