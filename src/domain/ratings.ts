/**
 * Ratings around the games (DECISIONS §21): a player's perf per speed, what a rated game's end changes, and the
 * sides' ratings a game records. The algorithm is glicko.ts's; this file decides which games it rates and how.
 *
 * A rated game is rated once, at the change that ends it with a result: aborted games and games ended before both
 * sides moved are not rated. The end records each side's `ratingDiff` in the game's record and writes both perfs in
 * the same store transaction (`RatedEnd`), judged against the perfs it was computed from, so that a game is rated
 * exactly once and on the perfs as they stood.
 *
 * ```ts
 * const rated = ratedEndOf(ended, { white: annBlitz, black: bobBlitz }, now);
 * if (rated) await store.update(rated.game.record, previous.version, event, index, previous.record, rated.end);
 * ```
 */
import type { PlayerInfo } from '../contract/shapes.ts';
import type { Speed } from '../contract/lichess.ts';
import type { TimeControl } from './clock.ts';
import type { Game, GameRatings, GameRecord, SeatRating } from './game.ts';
import { intRating, isProvisional, newPerf, perfAt, ratedGame, ratingDiff, type Perf } from './glicko.ts';
import { PERF_NAMES, speedOfControl } from './lichess.ts';
import { isOver, winnerOf } from './status.ts';

/** The perfs a player is rated in: lichess's speeds. */
export type PerfType = Speed;
export const PERF_TYPES: readonly PerfType[] = Object.freeze([
  'ultraBullet',
  'bullet',
  'blitz',
  'rapid',
  'classical',
  'correspondence',
]);

/** A player's perf in one perf type, as stored. */
export interface PlayerPerf {
  readonly player: PlayerInfo;
  readonly perfType: PerfType;
  readonly perf: Perf;
}

/** One point of a player's rating history: the last rating of a UTC day in a perf. */
export interface RatingPoint {
  readonly perfType: PerfType;
  readonly day: string; // 'YYYY-MM-DD', UTC
  readonly rating: number; // truncated
}

/**
 * What a rated game's end writes beside the game, in the same transaction: each side's perf after it, written only
 * if the stored perf is still `before` (its games count: every rated game adds one), and the day's history point.
 */
export interface RatedEnd {
  readonly perfType: PerfType;
  readonly day: string; // the UTC day of the end
  readonly sides: readonly [RatedSide, RatedSide]; // white, black
}

export interface RatedSide {
  readonly player: PlayerInfo;
  readonly before: Perf;
  readonly after: Perf;
}

/** The perf type of a game's time control (none: correspondence, though a game without a clock is never rated). */
export const perfTypeOf = (control: TimeControl | null | undefined): PerfType => speedOfControl(control);

/** A player's perf of `perfType` among `perfs` (theirs, as stored), a new player's when none is stored. */
export function perfIn(perfs: readonly PlayerPerf[], playerId: string, perfType: PerfType): Perf {
  return perfs.find(p => p.player.id === playerId && p.perfType === perfType)?.perf ?? newPerf();
}

/** A side's rating as a game records it at `now`: truncated, provisional by its live deviation. */
export const seatRatingOf = (perf: Perf, now: number): SeatRating => ({
  rating: intRating(perf.glicko),
  provisional: isProvisional(perfAt(perf, now).glicko),
});

/** Both sides' ratings as a new game records them. */
export const gameRatingsOf = (perfs: { white: Perf; black: Perf }, now: number): GameRatings => ({
  white: seatRatingOf(perfs.white, now),
  black: seatRatingOf(perfs.black, now),
});

/** Whether a change from `previous` to `next` ends a rated game in a way that rates it. */
export function ratesGame(previous: Game, next: Game): boolean {
  const { record } = next;
  if (!record.rated || isOver(previous) || !isOver(next)) return false;
  if (record.result?.kind === 'aborted') return false;
  return record.moves.length >= 2 && record.ratings?.white.ratingDiff === undefined;
}

/**
 * A rated game that just ended, rated at `at` from the sides' perfs as stored: the game with each side's
 * `ratingDiff` recorded, and what its end writes beside it. Undefined when the end rates nothing (`ratesGame`).
 */
export function ratedEndOf(
  previous: Game,
  next: Game,
  perfs: { white: Perf; black: Perf },
  at: number,
): { game: Game; end: RatedEnd } | undefined {
  if (!ratesGame(previous, next)) return undefined;
  const { record } = next;
  const after = ratedGame(perfs, winnerOf(next) ?? undefined, at);
  const started = record.ratings ?? gameRatingsOf(perfs, at);
  const ratings: GameRatings = {
    white: { ...started.white, ratingDiff: ratingDiff(perfs.white, after.white) },
    black: { ...started.black, ratingDiff: ratingDiff(perfs.black, after.black) },
    ratedAt: at,
  };
  const rated: GameRecord = { ...record, ratings };
  const end: RatedEnd = {
    perfType: perfTypeOf(record.clock?.control),
    day: utcDay(at),
    sides: [
      { player: record.white, before: perfs.white, after: after.white },
      { player: record.black, before: perfs.black, after: after.black },
    ],
  };
  return { game: { ...next, record: rated }, end };
}

/**
 * A rated game's PGN tags as lichess writes them (DECISIONS §21): its Event (`Rated Blitz game`, the speed's name)
 * and, after the seven, each side's Elo and, once rated, its signed rating change. A casual game: none.
 */
export function ratingTags(record: GameRecord): { event: string; tags: Array<[string, string]> } | undefined {
  if (!record.rated || !record.ratings) return undefined;
  const { white, black } = record.ratings;
  const signed = (diff: number) => (diff >= 0 ? `+${diff}` : String(diff));
  const tags: Array<[string, string]> = [
    ['WhiteElo', String(white.rating)],
    ['BlackElo', String(black.rating)],
  ];
  if (white.ratingDiff !== undefined) tags.push(['WhiteRatingDiff', signed(white.ratingDiff)]);
  if (black.ratingDiff !== undefined) tags.push(['BlackRatingDiff', signed(black.ratingDiff)]);
  return { event: `Rated ${PERF_NAMES[perfTypeOf(record.clock?.control)]} game`, tags };
}

/** The UTC day of a time, 'YYYY-MM-DD'. */
export const utcDay = (at: number): string => new Date(at).toISOString().slice(0, 10);
