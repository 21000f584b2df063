/**
 * The "Play someone" panel's challenges, as plain data (DECISIONS §16): the page's player's pending challenges,
 * received and made, kept from their event stream's lines and the list answers; which game start is the game of a
 * challenge (an accepted challenge's game has the challenge's id, as on lichess); the rows in words; and the bodies
 * of a challenge, of a seek and of a game against the computer (DECISIONS §18) from the forms' fields. Pure, like state.ts; challenges.ts brings the traffic,
 * playPanel.ts draws the rows. Tested under Node (test/web/challengesState.test.ts).
 *
 * ```ts
 * const challenges = newChallenges();
 * openChallenges(challenges);                           // the event stream connected
 * applyChallengeLine(challenges, line);                 // challenge, challengeCanceled, challengeDeclined
 * applyChallengeList(challenges, list, epochAtSend);    // GET /api/challenge
 * if (claimChallengeGame(challenges, game.gameId)) open(game.gameId); // a gameStart, or our accept's answer
 * challengeBodyOf(timeControlOf(fields), 'random');     // { 'clock.limit': 300, 'clock.increment': 3, color: 'random' }
 * computerBodyOf('2', timeControlOf(fields), 'white');   // { level: 2, 'clock.limit': 300, 'clock.increment': 3, ... }
 * ```
 */
import type { ChallengeJson, ChallengeList } from '../contract/challenges.ts';
import type { ChallengeLine } from '../contract/events.ts';
import type { DeclineReason } from '../contract/vocabulary.ts';
import { ENGINE_LEVELS, type EngineLevel } from '../contract/vocabulary.ts';
import { colorName, otherColor } from './notation.ts';

export type { ChallengeJson, ChallengeList } from '../contract/challenges.ts';
export type { ChallengeLine } from '../contract/events.ts';

export interface Challenges {
  incoming: ChallengeJson[]; // received, pending, oldest first
  outgoing: ChallengeJson[]; // made, pending, oldest first
  /**
   * The challenges seen pending (or accepted) here whose game has not started yet: when a game of one of these ids
   * starts, the page opens it. Kept across reconnections, since a challenge accepted while the stream was down
   * shows only as its game's start.
   */
  awaited: Set<string>;
  /** The challenges that ended (answered, canceled, their game started): a late line or answer lists none again. */
  ended: Set<string>;
  notice: string | undefined; // the last challenge that ended elsewhere, in words: 'Bob declined your challenge: ...'
  epoch: number; // connections and lines applied so far: a list answer asked for before the last one is stale
}

export const newChallenges = (): Challenges => ({
  incoming: [],
  outgoing: [],
  awaited: new Set(),
  ended: new Set(),
  notice: undefined,
  epoch: 0,
});

/** A new connection of the event stream: it sends a `challenge` line for each pending challenge again. */
export function openChallenges(challenges: Challenges): void {
  challenges.incoming = [];
  challenges.outgoing = [];
  challenges.epoch += 1;
}

const without = (list: readonly ChallengeJson[], id: string) => list.filter(challenge => challenge.id !== id);

/** Adds or replaces a pending challenge in the list of its direction (a challenge of no direction is not ours). */
function keep(challenges: Challenges, challenge: ChallengeJson): void {
  if (challenge.direction === undefined || challenge.status !== 'created' || challenges.ended.has(challenge.id)) return;
  const key = challenge.direction === 'in' ? 'incoming' : 'outgoing';
  const list = challenges[key];
  const index = list.findIndex(known => known.id === challenge.id);
  challenges[key] =
    index < 0 ? [...list, challenge] : list.map(known => (known.id === challenge.id ? challenge : known));
  challenges.awaited.add(challenge.id);
}

/** Drops a challenge from both lists for good; answers whether it was listed. */
function drop(challenges: Challenges, id: string): boolean {
  challenges.ended.add(id);
  const listed = [...challenges.incoming, ...challenges.outgoing].some(challenge => challenge.id === id);
  challenges.incoming = without(challenges.incoming, id);
  challenges.outgoing = without(challenges.outgoing, id);
  return listed;
}

/**
 * A challenge line: `challenge` lists a pending challenge, `challengeCanceled` and `challengeDeclined` drop it, and
 * say so in `notice` when it was listed (an answer given on this page has dropped it already).
 */
export function applyChallengeLine(challenges: Challenges, line: ChallengeLine): void {
  challenges.epoch += 1;
  const { challenge } = line;
  if (line.type === 'challenge') {
    keep(challenges, challenge);
    return;
  }
  challenges.awaited.delete(challenge.id);
  if (drop(challenges, challenge.id)) challenges.notice = endedWordsOf(line);
}

/** What a challenge's end says to the reader of the line. */
export function endedWordsOf(line: ChallengeLine): string {
  const { challenge } = line;
  const dest = challenge.destUser?.name ?? 'anyone';
  const challenger = challenge.challenger.name;
  if (line.type === 'challengeDeclined') {
    const reason = challenge.declineReason ? `: ${challenge.declineReason}` : '';
    return challenge.direction === 'in'
      ? `You declined ${challenger}'s challenge`
      : `${dest} declined your challenge${reason}`;
  }
  return challenge.direction === 'in'
    ? `${challenger}'s challenge was withdrawn`
    : `Your challenge to ${dest} was canceled`;
}

/**
 * A list answer (GET /api/challenge), asked for at `epochAtSend`, replaces the lists unless a connection or a line
 * came since (the stream is then newer). Answers whether it was applied.
 */
export function applyChallengeList(challenges: Challenges, list: ChallengeList, epochAtSend: number): boolean {
  if (challenges.epoch !== epochAtSend) return false;
  challenges.incoming = [];
  challenges.outgoing = [];
  for (const challenge of list.in) keep(challenges, { ...challenge, direction: 'in' });
  for (const challenge of list.out) keep(challenges, { ...challenge, direction: 'out' });
  return true;
}

/** This page answered a challenge (declined or canceled it): it is gone, and so is its game. */
export function challengeAnswered(challenges: Challenges, id: string): void {
  drop(challenges, id);
  challenges.awaited.delete(id);
  challenges.epoch += 1;
}

/**
 * A game of this id started (a gameStart line), or this page's accept was answered: whether the page should open
 * it, once. A challenge's game has the challenge's id; the first of the two to come opens it, and the challenge
 * leaves the lists.
 */
export function claimChallengeGame(challenges: Challenges, gameId: string): boolean {
  if (!challenges.awaited.delete(gameId)) return false;
  drop(challenges, gameId);
  challenges.epoch += 1;
  return true;
}

/** A pending challenge of the panel, in words. */
export interface ChallengeRow {
  id: string;
  direction: 'in' | 'out';
  title: string; // 'Ann challenges you', 'You challenge Bob', 'Open challenge'
  timeControl: string; // '5+3 · Blitz', '3 days per move', 'Unlimited'
  side: string; // 'You play black', 'You play white (random)'
}

/** The panel's rows: received challenges first, then those made, each oldest first. */
export function challengeRowsOf(challenges: Challenges): ChallengeRow[] {
  return [...challenges.incoming, ...challenges.outgoing].map(challenge => {
    const incoming = challenge.direction === 'in';
    const mine = incoming ? otherColor(challenge.finalColor) : challenge.finalColor;
    return {
      id: challenge.id,
      direction: incoming ? 'in' : 'out',
      title: incoming
        ? `${challenge.challenger.name} challenges you`
        : challenge.destUser
          ? `You challenge ${challenge.destUser.name}`
          : 'Open challenge',
      timeControl: timeControlWordsOf(challenge),
      side: `You play ${colorName(mine).toLowerCase()}${challenge.color === 'random' ? ' (random)' : ''}`,
    };
  });
}

export function timeControlWordsOf(challenge: Pick<ChallengeJson, 'timeControl' | 'perf'>): string {
  const control = challenge.timeControl;
  switch (control.type) {
    case 'clock':
      return `${control.show} · ${challenge.perf.name}`;
    case 'correspondence':
      return `${control.daysPerTurn} ${control.daysPerTurn === 1 ? 'day' : 'days'} per move`;
    default:
      return 'Unlimited';
  }
}

// ---------------------------------------------------------------------------------------------- forms

/** The reasons the page offers for a decline: lichess's keys and its own words (the service sends its sentence). */
export const DECLINE_CHOICES: ReadonlyArray<{ key: DeclineReason; label: string }> = [
  { key: 'generic', label: 'No reason given' },
  { key: 'later', label: 'Not now, ask later' },
  { key: 'toofast', label: 'Too fast for me' },
  { key: 'tooslow', label: 'Too slow for me' },
  { key: 'timecontrol', label: 'Not this time control' },
];

export const CHALLENGE_COLORS = ['random', 'white', 'black'] as const;
export type ChallengeColor = (typeof CHALLENGE_COLORS)[number];

/** The days per move a correspondence challenge or seek may have (lichess's). */
export const CORRESPONDENCE_DAYS = [1, 2, 3, 5, 7, 10, 14] as const;

/** The time control fields of the challenge and seek forms, as typed. */
export interface TimeControlFields {
  kind: string; // 'realtime', 'correspondence' or 'unlimited'
  minutes: string; // real time: the clock's minutes, e.g. '5' or '0.5'
  increment: string; // real time: seconds added per move
  days: string; // correspondence: days per move
}

/** A time control chosen in a form. */
export type ChosenTimeControl =
  | { type: 'clock'; minutes: number; increment: number }
  | { type: 'correspondence'; days: number }
  | { type: 'unlimited' };

/** The fields' time control, or what is wrong with them (the service judges the ranges). */
export function timeControlOf(fields: TimeControlFields): ChosenTimeControl | { error: string } {
  switch (fields.kind) {
    case 'realtime': {
      const minutes = Number(fields.minutes);
      const increment = Number(fields.increment === '' ? '0' : fields.increment);
      if (fields.minutes.trim() === '' || !Number.isFinite(minutes) || minutes <= 0) {
        return { error: 'Enter the clock in minutes, e.g. 5.' };
      }
      if (!Number.isInteger(increment) || increment < 0) {
        return { error: 'Enter the increment in whole seconds, e.g. 3 (0 for none).' };
      }
      return { type: 'clock', minutes, increment };
    }
    case 'correspondence': {
      const days = Number(fields.days);
      if (!Number.isInteger(days) || days < 1) return { error: 'Choose the days per move.' };
      return { type: 'correspondence', days };
    }
    case 'unlimited':
      return { type: 'unlimited' };
    default:
      return { error: 'Choose a time control.' };
  }
}

/** A challenge's body, with the form's keys (DECISIONS §16): the clock in seconds, or days, or neither. */
export type ChallengeBody = (
  | { 'clock.limit': number; 'clock.increment': number; color: ChallengeColor }
  | { days: number; color: ChallengeColor }
  | { color: ChallengeColor }
) & { rated?: true };

export function challengeBodyOf(control: ChosenTimeControl, color: ChallengeColor): ChallengeBody {
  switch (control.type) {
    case 'clock':
      return { 'clock.limit': Math.round(control.minutes * 60), 'clock.increment': control.increment, color };
    case 'correspondence':
      return { days: control.days, color };
    default:
      return { color };
  }
}

/** A seek's body (`POST /api/board/seek`): real time in minutes and seconds, or correspondence in days. */
export type SeekBody = (
  { time: number; increment: number; color: ChallengeColor } | { days: number; color: ChallengeColor }
) & { rated?: true };

/** A body asking for a rated game when `rated` (DECISIONS §21); casual, lichess's default, otherwise. */
export const withRated = <T extends object>(body: T, rated: boolean): T & { rated?: true } =>
  rated ? { ...body, rated: true } : body;

/** A seek's body, or why there is none: a seek needs a clock or days. */
export function seekBodyOf(control: ChosenTimeControl, color: ChallengeColor = 'random'): SeekBody | { error: string } {
  switch (control.type) {
    case 'clock':
      return { time: control.minutes, increment: control.increment, color };
    case 'correspondence':
      return { days: control.days, color };
    default:
      return { error: 'A seek needs a clock or days per move.' };
  }
}

/** A game against the computer's body (`POST /api/challenge/ai`): a level and a challenge's time control and colour. */
export type ComputerBody = ChallengeBody & { level: EngineLevel };

/** The body of a game against the computer at the level chosen (`level`, as the form has it), or what is wrong. */
export function computerBodyOf(
  level: string,
  control: ChosenTimeControl,
  color: ChallengeColor,
): ComputerBody | { error: string } {
  const chosen = ENGINE_LEVELS.find(known => String(known) === level.trim());
  if (chosen === undefined) return { error: 'Choose a level from 1 to 8.' };
  return { level: chosen, ...challengeBodyOf(control, color) };
}
