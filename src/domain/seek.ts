/**
 * Seeks (DECISIONS §16): a player asks to be paired with anyone who wants the same time control, in lichess's
 * terms (`POST /api/board/seek`). A seek is a value: who seeks, the time control (a real-time clock, or days per
 * turn), the colour wanted, and its pool (the time control as a key: only seeks of one pool are paired). It is
 * `open` until it is paired with another player's seek or withdrawn.
 *
 * A new seek is paired with the oldest compatible open seek of another player (same pool, colours that fit); the
 * pairing is a claim of both seeks in the store, so that each seek is paired at most once across all instances.
 * A real-time seek lives while its request is open: its instance keeps it alive (`aliveUntil`), so that one whose
 * instance died is not paired either.
 *
 * ```ts
 * const request = parseSeekRequest({ time: '5', increment: '3' }); // ok: 300 s + 3 s, any colour
 * const seek = newSeek({ id, player: ann, request: request.value, now, aliveUntil: now + 15_000 });
 * if (canPair(older, seek, now)) pairSeeks(older, seek, gameId, now, Math.random); // both paired, and the game
 * ```
 */
import type { PlayerInfo } from '../contract/shapes.ts';
import {
  integerOf,
  clockOfChallenge,
  colorOf,
  ratedOf,
  timeControlOf,
  type ChallengeColor,
  type ClockFields,
} from './challenge.ts';
import type { TimeControl } from './clock.ts';
import type { Color } from '../contract/vocabulary.ts';
import { DomainError, err, ok, type Result } from './errors.ts';

export type SeekTimeControl =
  | { type: 'clock'; limit: number; increment: number } // seconds
  | { type: 'correspondence'; daysPerTurn: number };

export type SeekStatus = 'open' | 'paired' | 'withdrawn';

export interface SeekRequest {
  timeControl: SeekTimeControl;
  color: ChallengeColor;
  rated?: boolean; // DECISIONS §21; absent: casual
  ratingRange?: RatingRange; // a rated seek's: the opponents' ratings it takes; absent: any
}

/** lichess's `ratingRange`, `"1500-1800"`: the lowest and the highest rating taken, both included. */
export type RatingRange = readonly [number, number];

export interface Seek {
  id: string;
  player: PlayerInfo;
  timeControl: SeekTimeControl;
  color: ChallengeColor;
  pool: string; // the time control as a key: '300+3', '3d'
  status: SeekStatus;
  createdAt: number; // ms since the epoch
  aliveUntil: number; // ms since the epoch: a real-time seek not kept alive until then is not paired
  gameId: string | null; // the game it was paired into
  pairedAt: number | null;
  gameColor: Color | null; // the colour it plays in that game
  rated?: boolean; // a rated seek (DECISIONS §21); absent: casual
  ratingRange?: RatingRange; // a rated seek's range of opponents' ratings; absent: any
  rating?: number; // a rated seek's player's rating in its perf when seeking: what the other's range is held to
}

/** What a pairing makes: the game's seats and clock. */
export interface SeekGame {
  white: PlayerInfo;
  black: PlayerInfo;
  clock: TimeControl;
  rated?: boolean;
}

/** A correspondence seek lives until it is paired or withdrawn. */
export const FOREVER = Number.MAX_SAFE_INTEGER;

const invalid = (field: string, message: string) => err(new DomainError('INVALID_BODY', message, field));

/** A seek's clock is lichess's `time` in minutes (whole seconds) and `increment` in seconds. */
const SEEK_CLOCK_FIELDS: ClockFields = {
  limit: 'time',
  increment: 'increment',
  units: { limit: ' (minutes)', increment: ' (seconds)' },
  limitRange: 'time must be 0.25-180 minutes, in whole seconds',
};

/** Minutes from JSON or a form: a number, or digits with an optional fraction; undefined when absent. */
function minutesOf(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? value : NaN;
  if (typeof value === 'string' && /^[0-9]{1,4}(\.[0-9]{1,6})?$/.test(value)) return Number(value);
  return NaN;
}

/**
 * Checks a seek request, lichess's fields: `time` (minutes, 0.25-180, whole seconds) with `increment` (seconds,
 * 0-180) for a real-time seek, or `days` (1, 2, 3, 5, 7, 10, 14) for a correspondence one; `color` (random by
 * default); `rated` (false by default) with its `ratingRange` (`"1500-1800"`; empty: any); `variant` (standard
 * only). A bad one is INVALID_BODY naming it.
 */
export function parseSeekRequest(body: Readonly<Record<string, unknown>>): Result<SeekRequest> {
  const time = minutesOf(body.time);
  const timed = timeControlOf(
    time === undefined ? undefined : time * 60,
    integerOf(body.increment),
    integerOf(body.days),
    SEEK_CLOCK_FIELDS,
  );
  if (!timed.ok) return timed;
  const timeControl: SeekTimeControl | undefined = timed.value;
  if (timeControl === undefined) return invalid('time', 'a seek needs time (minutes) and increment (seconds), or days');
  const color = colorOf(body);
  if (!color.ok) return color;
  const rated = ratedOf(body);
  if (!rated.ok) return rated;
  const range = ratingRangeOf(body.ratingRange);
  if (!range.ok) return range;
  const request: SeekRequest = { timeControl, color: color.value };
  if (rated.value) request.rated = true;
  if (rated.value && range.value) request.ratingRange = range.value;
  return ok(request);
}

/** `ratingRange`: two whole ratings, low-high; undefined when absent or empty. */
function ratingRangeOf(value: unknown): Result<RatingRange | undefined> {
  if (value === undefined || value === null || value === '') return ok(undefined);
  const match = typeof value === 'string' ? /^([0-9]{3,4})-([0-9]{3,4})$/.exec(value) : null;
  const [low, high] = match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
  if (!(low <= high)) return invalid('ratingRange', 'ratingRange must be two ratings, low-high, e.g. 1500-1800');
  return ok([low, high]);
}

/** Whether a seek takes an opponent of `rating` (a rated seek's range; any rating without one). */
const takes = (seek: Seek, rating: number | undefined): boolean =>
  seek.ratingRange === undefined ||
  (rating !== undefined && rating >= seek.ratingRange[0] && rating <= seek.ratingRange[1]);

/** The pool of a time control, rated or casual: only seeks of one pool are paired ('300+3', '3d', rated '300+3r'). */
export const poolOf = (timeControl: SeekTimeControl, rated = false): string =>
  (timeControl.type === 'clock' ? `${timeControl.limit}+${timeControl.increment}` : `${timeControl.daysPerTurn}d`) +
  (rated ? 'r' : '');

/** Whether a seek is real-time: it lives while its request is open. */
export const isRealTime = (seek: Pick<Seek, 'timeControl'>): boolean => seek.timeControl.type === 'clock';

export interface NewSeekInput {
  id: string;
  player: PlayerInfo;
  request: SeekRequest;
  now: number;
  aliveUntil: number; // a real-time seek's first lease; FOREVER for a correspondence one
  rating?: number | undefined; // a rated seek's: its player's rating in its perf now
}

export function newSeek({ id, player, request, now, aliveUntil, rating }: NewSeekInput): Seek {
  const rated = request.rated === true;
  return {
    id,
    player,
    timeControl: request.timeControl,
    color: request.color,
    pool: poolOf(request.timeControl, rated),
    status: 'open',
    createdAt: now,
    aliveUntil: request.timeControl.type === 'clock' ? aliveUntil : FOREVER,
    gameId: null,
    pairedAt: null,
    gameColor: null,
    ...(rated ? { rated, rating: rating ?? 1500 } : {}),
    ...(rated && request.ratingRange ? { ratingRange: request.ratingRange } : {}),
  };
}

/**
 * Whether two seeks may be paired: both open and alive, of two players, one pool (rated or casual alike), colours
 * that fit and, rated, each player's rating in the other's range (DECISIONS §21).
 */
export function canPair(a: Seek, b: Seek, now: number): boolean {
  const fits = a.color === 'random' || b.color === 'random' || a.color !== b.color;
  const ratingsFit = (a.rated ?? false) === (b.rated ?? false) && takes(a, b.rating) && takes(b, a.rating);
  return (
    ratingsFit &&
    a.id !== b.id &&
    a.player.id !== b.player.id &&
    a.pool === b.pool &&
    a.status === 'open' &&
    b.status === 'open' &&
    a.aliveUntil > now &&
    b.aliveUntil > now &&
    fits
  );
}

/**
 * Pairs two seeks into a game: each gets the colour it asked for, two random ones draw with a fair coin. Answers
 * both seeks as paired (each with the game and its colour in it) and the game to make.
 */
export function pairSeeks(
  older: Seek,
  newer: Seek,
  gameId: string,
  now: number,
  coin: () => number,
): { older: Seek; newer: Seek; game: SeekGame } {
  let olderColor: Color;
  if (older.color !== 'random') olderColor = older.color;
  else if (newer.color !== 'random') olderColor = newer.color === 'white' ? 'black' : 'white';
  else olderColor = coin() < 0.5 ? 'white' : 'black';
  const newerColor: Color = olderColor === 'white' ? 'black' : 'white';
  const paired = (seek: Seek, gameColor: Color): Seek => ({
    ...seek,
    status: 'paired',
    gameId,
    pairedAt: now,
    gameColor,
  });
  const pairedOlder = paired(older, olderColor);
  const pairedNewer = paired(newer, newerColor);
  return { older: pairedOlder, newer: pairedNewer, game: gameOfSeeks(pairedOlder, pairedNewer) };
}

/** The game two paired seeks make (as when they were paired: seats by their recorded colours, the clock). */
export function gameOfSeeks(a: Seek, b: Seek): SeekGame {
  const [white, black] = a.gameColor === 'white' ? [a.player, b.player] : [b.player, a.player];
  const game: SeekGame = { white, black, clock: clockOfChallenge(a.timeControl)! };
  return a.rated && b.rated ? { ...game, rated: true } : game;
}

/** Oldest first, then by id: the order in which open seeks are offered. */
export const bySeekAge = (a: Seek, b: Seek): number =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
