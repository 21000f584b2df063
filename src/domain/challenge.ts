/**
 * Challenges (DECISIONS §16): how two players agree on a game, in lichess's shapes. A challenge is a value: who
 * challenges whom (nobody in particular for an open challenge), the time control, the challenger's colour and an
 * optional position; it is `created` (pending) until it is accepted, declined, canceled, or expires. Each change is
 * a pure function of the challenge, the actor and the time, answering the new challenge or the refusal; the
 * service stores it with a claim (a conditional update) so that each pending challenge changes once, whatever the
 * number of instances and racing requests.
 *
 * A random colour is drawn with a fair coin when the challenge is made (lichess shows it as `finalColor` from then
 * on), so that accepting it is the same on every instance.
 *
 * ```ts
 * const request = parseChallengeRequest({ 'clock.limit': '300', 'clock.increment': '2', color: 'random' });
 * const made = newChallenge({ id, challenger: ann, destUser: bob, request: request.value, now, coin: Math.random });
 * const accepted = acceptChallenge(made, playerActor(bob), now); // ok({ challenge, game: { white, black, clock } })
 * ```
 */
import type { PlayerInfo } from '../contract/shapes.ts';
import { DECLINE_REASONS, type Color, type DeclineReason } from '../contract/vocabulary.ts';
import { DAY_MS, type TimeControl } from './clock.ts';
import { DomainError, err, ok, type Result } from './errors.ts';
import { makeFen, parseStrictFen } from './notation.ts';
import type { SeatRating } from './game.ts';
import type { Actor } from './seats.ts';

export type ChallengeTimeControl =
  | { type: 'clock'; limit: number; increment: number } // seconds
  | { type: 'correspondence'; daysPerTurn: number }
  | { type: 'unlimited' };

export type ChallengeColor = 'random' | 'white' | 'black';
export type ChallengeStatus = 'created' | 'accepted' | 'declined' | 'canceled';

/** lichess's decline reasons: a vocabulary of the API's, declared in the contract. */
export { DECLINE_REASONS, type DeclineReason };

/** The days per turn a correspondence challenge may have (lichess's). */
export const CHALLENGE_DAYS = [1, 2, 3, 5, 7, 10, 14] as const;
/** Pending challenges one player may have made at once. */
export const MAX_PENDING_CHALLENGES = 20;
/** How long a correspondence or unlimited challenge waits for an answer. */
export const LONG_CHALLENGE_TTL_MS = 7 * DAY_MS;

/** What a challenge request asks for, checked. */
export interface ChallengeRequest {
  timeControl: ChallengeTimeControl;
  color: ChallengeColor;
  initialFen: string | null; // null: the initial position
  rated?: boolean; // DECISIONS §21; absent: casual
}

export interface Challenge {
  id: string; // 8 letters or digits, like a game id
  version: number; // 1 when made; each change raises it
  challenger: PlayerInfo;
  destUser: PlayerInfo | null; // null: an open challenge, for any other player
  timeControl: ChallengeTimeControl;
  color: ChallengeColor; // as asked
  finalColor: Color; // the challenger's colour in the game (a random colour drawn when the challenge was made)
  initialFen: string | null;
  status: ChallengeStatus;
  createdAt: number; // ms since the epoch
  expiresAt: number; // ms since the epoch: a challenge still pending then is canceled
  declineReason: DeclineReason | null;
  acceptedBy: PlayerInfo | null; // who accepted it (an open challenge's opponent)
  gameId: string | null; // the game it became
  rated?: boolean; // a rated challenge (DECISIONS §21); absent: casual
  ratings?: ChallengeRatings; // the players' ratings in its perf when it was made
}

/** The ratings a challenge shows: its players' when it was made (an open challenge has no one to rate). */
export interface ChallengeRatings {
  challenger: SeatRating;
  destUser?: SeatRating;
}

/** The game an accepted challenge starts: its seats, clock and position. */
export interface ChallengeGame {
  white: PlayerInfo;
  black: PlayerInfo;
  clock: TimeControl | undefined;
  fen: string | null;
  rated?: boolean;
}

const invalid = (field: string, message: string) => err(new DomainError('INVALID_BODY', message, field));

/** An integer from JSON or a form (digits only); undefined when absent, NaN when not an integer. */
export function integerOf(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'number') return Number.isInteger(value) ? value : NaN;
  if (typeof value === 'string' && /^[0-9]{1,9}$/.test(value)) return Number(value);
  return NaN;
}

/** A boolean from JSON or a form ('true'/'false'); undefined when absent, null when neither. */
export function booleanOf(value: unknown): boolean | undefined | null {
  if (value === undefined) return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  return null;
}

/**
 * Checks a challenge request: a form's fields, or JSON with the form's keys (`{"clock.limit": 300}`) or a nested
 * clock (`{"clock": {"limit": 300, "increment": 2}}`). Fields: `clock.limit` (seconds, 15-10800) with
 * `clock.increment` (seconds, 0-180), or `days`, or neither (unlimited); `color`; `rated`; `variant` (standard
 * only); `fen`. A bad one is INVALID_BODY naming it; a rated one that cannot be rated (unlimited, or from a
 * position) is INVALID_CHALLENGE saying why (DECISIONS §21).
 */
export function parseChallengeRequest(body: Readonly<Record<string, unknown>>): Result<ChallengeRequest> {
  const nested = typeof body.clock === 'object' && body.clock !== null ? (body.clock as Record<string, unknown>) : {};
  const limit = integerOf(body['clock.limit'] ?? nested.limit);
  const increment = integerOf(body['clock.increment'] ?? nested.increment);
  const timed = timeControlOf(limit, increment, integerOf(body.days), CHALLENGE_CLOCK_FIELDS);
  if (!timed.ok) return timed;
  // Neither a clock nor days: an unlimited game.
  const timeControl: ChallengeTimeControl = timed.value ?? { type: 'unlimited' };

  const color = colorOf(body);
  if (!color.ok) return color;
  const rated = ratedOf(body);
  if (!rated.ok) return rated;

  let initialFen: string | null = null;
  if (body.fen !== undefined && body.fen !== '') {
    if (typeof body.fen !== 'string') return invalid('fen', 'fen must be a string');
    const position = parseStrictFen(body.fen);
    if (!position.ok) return invalid('fen', position.error.message);
    initialFen = makeFen(position.value);
  }
  if (rated.value && timeControl.type === 'unlimited') {
    return refusedRated(
      'a rated game needs a clock (clock.limit and clock.increment, or days): unlimited games are never rated',
    );
  }
  if (rated.value && initialFen !== null) {
    return refusedRated('a rated game starts from the standard position: a rated challenge takes no fen');
  }
  return ok({ timeControl, color: color.value, initialFen, ...(rated.value ? { rated: true } : {}) });
}

/** A challenge to the computer (`POST /api/challenge/ai`): as any challenge, but never rated (DECISIONS §21). */
export function parseComputerChallengeRequest(body: Readonly<Record<string, unknown>>): Result<ChallengeRequest> {
  if (booleanOf(body.rated) === true) return refusedRated("the computer's games are never rated");
  return parseChallengeRequest(body);
}

/** A rated request that cannot be rated (DECISIONS §21): INVALID_CHALLENGE, naming the reason. */
export const refusedRated = (reason: string) => err(new DomainError('INVALID_CHALLENGE', reason, 'rated'));

/** `rated` of a challenge or a seek: false by default. */
export function ratedOf(body: Readonly<Record<string, unknown>>): Result<boolean> {
  const rated = booleanOf(body.rated);
  if (rated === null) return invalid('rated', 'rated must be true or false');
  return ok(rated ?? false);
}

/**
 * The fields a challenge and a seek share beside their time controls and `rated` (`ratedOf`): `color` (random by
 * default) and `variant` (standard only). Answers the colour asked for.
 */
export function colorOf(body: Readonly<Record<string, unknown>>): Result<ChallengeColor> {
  const color = body.color ?? 'random';
  if (color !== 'random' && color !== 'white' && color !== 'black') {
    return invalid('color', 'color must be random, white or black');
  }
  const variant = body.variant ?? 'standard';
  if (variant !== 'standard') return invalid('variant', 'only the standard variant is offered');
  return ok(color);
}

/** How a request names its clock's fields, for its errors: a challenge's `clock.limit`, a seek's `time`. */
export interface ClockFields {
  limit: string; // e.g. 'clock.limit'
  increment: string; // e.g. 'clock.increment'
  units: { limit: string; increment: string }; // after the name where it is required, e.g. ' (minutes)'
  limitRange: string; // the error of a limit out of range, e.g. 'clock.limit must be 15-10800 seconds'
}

const CHALLENGE_CLOCK_FIELDS: ClockFields = {
  limit: 'clock.limit',
  increment: 'clock.increment',
  units: { limit: '', increment: '' },
  limitRange: 'clock.limit must be 15-10800 seconds',
};

/**
 * The time control a challenge and a seek share the rules of: a real-time clock of `limit` seconds (15-10800,
 * whole) and `increment` seconds (0-180), or `days` per turn (CHALLENGE_DAYS), never both; undefined when neither is
 * given (the caller's rule: a challenge is then unlimited, a seek is refused). A bad field is INVALID_BODY naming it
 * as the request does (`fields`).
 */
export function timeControlOf(
  limit: number | undefined,
  increment: number | undefined,
  days: number | undefined,
  fields: ClockFields,
): Result<Exclude<ChallengeTimeControl, { type: 'unlimited' }> | undefined> {
  const { units } = fields;
  if (limit !== undefined || increment !== undefined) {
    if (days !== undefined) return invalid('days', `days cannot go with ${fields.limit} and ${fields.increment}`);
    if (limit === undefined) {
      return invalid(fields.limit, `${fields.limit}${units.limit} is required with ${fields.increment}`);
    }
    if (increment === undefined) {
      return invalid(fields.increment, `${fields.increment}${units.increment} is required with ${fields.limit}`);
    }
    if (!(Number.isInteger(limit) && limit >= 15 && limit <= 10800)) return invalid(fields.limit, fields.limitRange);
    if (!(increment >= 0 && increment <= 180)) {
      return invalid(fields.increment, `${fields.increment} must be 0-180 seconds`);
    }
    return ok({ type: 'clock', limit, increment });
  }
  if (days === undefined) return ok(undefined);
  if (!(CHALLENGE_DAYS as readonly number[]).includes(days)) {
    return invalid('days', `days must be one of ${CHALLENGE_DAYS.join(', ')}`);
  }
  return ok({ type: 'correspondence', daysPerTurn: days });
}

/** How long a challenge waits for an answer: `realTimeTtlMs` for a real-time one, 7 days for the others. */
export const challengeTtlMs = (timeControl: ChallengeTimeControl, realTimeTtlMs: number): number =>
  timeControl.type === 'clock' ? realTimeTtlMs : LONG_CHALLENGE_TTL_MS;

export interface NewChallengeInput {
  id: string;
  challenger: PlayerInfo;
  destUser: PlayerInfo | null;
  request: ChallengeRequest;
  now: number;
  ttlMs: number; // for a real-time challenge (CHALLENGE_TTL_S); the others wait 7 days
  coin: () => number; // [0, 1): draws a random colour
  ratings?: ChallengeRatings | undefined;
}

/** A new pending challenge. Challenging oneself is INVALID_CHALLENGE. */
export function newChallenge(input: NewChallengeInput): Result<Challenge> {
  const { id, challenger, destUser, request, now, ttlMs, coin, ratings } = input;
  if (destUser !== null && destUser.id === challenger.id) {
    return err(new DomainError('INVALID_CHALLENGE', 'a player cannot challenge themselves'));
  }
  const finalColor: Color = request.color === 'random' ? (coin() < 0.5 ? 'white' : 'black') : request.color;
  return ok({
    id,
    version: 1,
    challenger,
    destUser,
    timeControl: request.timeControl,
    color: request.color,
    finalColor,
    initialFen: request.initialFen,
    status: 'created',
    createdAt: now,
    expiresAt: now + challengeTtlMs(request.timeControl, ttlMs),
    declineReason: null,
    acceptedBy: null,
    gameId: null,
    ...(request.rated ? { rated: true } : {}),
    ...(ratings ? { ratings } : {}),
  });
}

/** Whether a challenge waits for an answer at `now`: made, not answered, not expired. */
export const isPending = (challenge: Challenge, now: number): boolean =>
  challenge.status === 'created' && now < challenge.expiresAt;

const notFound = (challenge: Challenge) =>
  err(new DomainError('CHALLENGE_NOT_FOUND', `challenge ${challenge.id} is not pending`));
const forbidden = (message: string) => err(new DomainError('FORBIDDEN', message));

/** The player an actor is; challenges are answered by players only. */
function playerOf(actor: Actor): Result<PlayerInfo> {
  return actor.kind === 'player' ? ok(actor.player) : forbidden('challenges are answered with a player token');
}

const changed = (challenge: Challenge, fields: Partial<Challenge>): Challenge => ({
  ...challenge,
  ...fields,
  version: challenge.version + 1,
});

/** What a challenge's time control makes of the game's clock (seconds to milliseconds). */
export function clockOfChallenge(timeControl: ChallengeTimeControl): TimeControl | undefined {
  if (timeControl.type === 'clock') {
    return { initial: timeControl.limit * 1000, increment: timeControl.increment * 1000 };
  }
  return timeControl.type === 'correspondence' ? { daysPerMove: timeControl.daysPerTurn } : undefined;
}

/**
 * Accepts a pending challenge: the challenged player (anyone but the challenger, for an open challenge). Answers
 * the accepted challenge, with `gameId` set, and the game to create.
 */
export function acceptChallenge(
  challenge: Challenge,
  actor: Actor,
  now: number,
  gameId: string,
): Result<{ challenge: Challenge; game: ChallengeGame }> {
  if (!isPending(challenge, now)) return notFound(challenge);
  const player = playerOf(actor);
  if (!player.ok) return player;
  const accepter = player.value;
  if (challenge.destUser !== null && challenge.destUser.id !== accepter.id) {
    return forbidden('only the challenged player can accept this challenge');
  }
  if (challenge.destUser === null && challenge.challenger.id === accepter.id) {
    return forbidden('a player cannot accept their own open challenge');
  }
  const challenger = challenge.challenger;
  const [white, black] = challenge.finalColor === 'white' ? [challenger, accepter] : [accepter, challenger];
  return ok({
    challenge: changed(challenge, { status: 'accepted', acceptedBy: accepter, gameId }),
    game: {
      white,
      black,
      clock: clockOfChallenge(challenge.timeControl),
      fen: challenge.initialFen,
      ...(challenge.rated ? { rated: true } : {}),
    },
  });
}

/** Declines a pending challenge: the challenged player only, with one of lichess's reasons (generic by default). */
export function declineChallenge(
  challenge: Challenge,
  actor: Actor,
  now: number,
  reason: DeclineReason = 'generic',
): Result<Challenge> {
  if (!isPending(challenge, now)) return notFound(challenge);
  const player = playerOf(actor);
  if (!player.ok) return player;
  if (challenge.destUser?.id !== player.value.id) return forbidden('only the challenged player can decline it');
  return ok(changed(challenge, { status: 'declined', declineReason: reason }));
}

/** Cancels a pending challenge: the challenger cancels it; the challenged player's cancel declines it (generic). */
export function cancelChallenge(challenge: Challenge, actor: Actor, now: number): Result<Challenge> {
  if (!isPending(challenge, now)) return notFound(challenge);
  const player = playerOf(actor);
  if (!player.ok) return player;
  if (challenge.challenger.id === player.value.id) return ok(changed(challenge, { status: 'canceled' }));
  if (challenge.destUser?.id === player.value.id) return declineChallenge(challenge, actor, now);
  return forbidden('only the challenger can cancel a challenge');
}

/** Cancels a challenge whose time has run out; undefined when it is not due (answered, or not expired yet). */
export function expireChallenge(challenge: Challenge, now: number): Challenge | undefined {
  if (challenge.status !== 'created' || now < challenge.expiresAt) return undefined;
  return changed(challenge, { status: 'canceled' });
}

/** The key of a decline reason as sent (any case), or undefined when it is none of lichess's. */
export function declineReasonOf(text: string): DeclineReason | undefined {
  const key = text.toLowerCase();
  return Object.hasOwn(DECLINE_REASONS, key) ? (key as DeclineReason) : undefined;
}
