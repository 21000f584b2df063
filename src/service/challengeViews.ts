/**
 * What a challenge looks like to a client: lichess's ChallengeJson (DECISIONS §16), from the point of view of the
 * player who reads it (`direction`). Speed is lichess's estimate: the limit plus 40 increments, in seconds.
 *
 * ```ts
 * challengeJsonOf(challenge, { viewer: 'bob', now, baseUrl: 'https://chess.example.org' }); // direction 'in'
 * ```
 */
import type { ChallengeJson } from '../contract/challenges.ts';
import { DECLINE_REASONS, type Challenge, type ChallengeTimeControl } from '../domain/challenge.ts';
import { PERF_NAMES, speedOfClock } from '../domain/lichess.ts';
import type { Speed } from '../contract/lichess.ts';
import type { SeatRating } from '../domain/game.ts';

/** lichess's speed of a challenge's time control (see domain/lichess.ts). */
export const speedOf = (timeControl: ChallengeTimeControl): Speed =>
  speedOfClock(
    timeControl.type === 'clock' ? timeControl.limit : null,
    timeControl.type === 'clock' ? timeControl.increment : 0,
  );

/** lichess's short form of a limit in minutes: ¼, ½, ¾, 1.5, else the minutes. */
const MINUTES: Record<number, string> = { 15: '¼', 30: '½', 45: '¾', 90: '1.5' };
const minutesOf = (limit: number): string => MINUTES[limit] ?? String(Math.round((limit / 60) * 10) / 10);

function timeControlJson(timeControl: ChallengeTimeControl): ChallengeJson['timeControl'] {
  if (timeControl.type === 'clock') {
    const { limit, increment } = timeControl;
    return { type: 'clock', limit, increment, show: `${minutesOf(limit)}+${increment}` };
  }
  return timeControl.type === 'correspondence'
    ? { type: 'correspondence', daysPerTurn: timeControl.daysPerTurn }
    : { type: 'unlimited' };
}

/**
 * A challenge line's `url` made absolute with `origin` (the request's own, e.g. 'http://127.0.0.1:8080') when it is
 * relative to the service (no PUBLIC_URL): lichess's schema wants a URI (DECISIONS §17).
 */
export const withOrigin = <T extends { url: string }>(json: T, origin: string): T =>
  json.url.startsWith('/') ? { ...json, url: `${origin}${json.url}` } : json;

export interface ViewOptions {
  viewer: string | undefined; // the player who reads it: sets `direction`
  now: number; // a challenge still `created` whose time has run out shows as canceled
  baseUrl: string; // PUBLIC_URL, or '' for URLs relative to the service
}

export function challengeJsonOf(challenge: Challenge, { viewer, now, baseUrl }: ViewOptions): ChallengeJson {
  const user = (player: { id: string; displayName: string }, rating: SeatRating | undefined) => ({
    id: player.id,
    name: player.displayName,
    ...rating,
  });
  const speed = speedOf(challenge.timeControl);
  const status = challenge.status === 'created' && now >= challenge.expiresAt ? 'canceled' : challenge.status;
  const json: ChallengeJson = {
    id: challenge.id,
    url: `${baseUrl}/api/challenge/${challenge.id}/show`,
    status,
    challenger: user(challenge.challenger, challenge.ratings?.challenger),
    destUser: challenge.destUser && user(challenge.destUser, challenge.ratings?.destUser),
    // lichess names a standard game from a position of one's own "From Position".
    variant:
      challenge.initialFen === null
        ? { key: 'standard', name: 'Standard', short: 'Std' }
        : { key: 'fromPosition', name: 'From Position', short: 'FEN' },
    rated: challenge.rated ?? false,
    speed,
    timeControl: timeControlJson(challenge.timeControl),
    color: challenge.color,
    finalColor: challenge.finalColor,
    perf: { icon: '', name: PERF_NAMES[speed] },
  };
  if (viewer === challenge.challenger.id) json.direction = 'out';
  else if (viewer !== undefined && viewer === challenge.destUser?.id) json.direction = 'in';
  if (challenge.initialFen !== null) json.initialFen = challenge.initialFen;
  if (challenge.status === 'declined') {
    const key = challenge.declineReason ?? 'generic';
    json.declineReason = DECLINE_REASONS[key];
    json.declineReasonKey = key;
  }
  return json;
}
