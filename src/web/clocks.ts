/**
 * The clocks of the board page (DECISIONS §14), as plain data: the time controls the forms offer, when a game's
 * clock starts, both clocks as shown at the service's time now, and the page's estimate of that time from the
 * states' `serverTime`. Pure, like state.ts; clockTicker.ts redraws them while one runs. Tested under Node
 * (test/web/clocks.test.ts).
 *
 * ```ts
 * clockRequestOf('5+3');                                         // { initial: 300000, increment: 3000 }
 * offset = serviceOffsetAfter(offset, state.serverTime, performance.now());
 * clockDisplayOf(game, performance.now() + offset);              // both clocks at the service's time now
 * ```
 */
import type { ClockRequest, GameFull, GameState } from '../contract/shapes.ts';
import type { Color } from '../contract/vocabulary.ts';
import { isEnded } from './state.ts';

type TimeControl = NonNullable<GameFull['clock']>;

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** A time control the forms offer (DECISIONS §14): its label and the `clock` a request carries (none: untimed). */
export interface TimeControlChoice {
  value: string; // the option's value, e.g. '5+3' or '3d'
  label: string; // e.g. '5+3 · Blitz'
  clock: ClockRequest | undefined; // e.g. { initial: 300000, increment: 3000 }
}

const realTime = (minutes: number, seconds: number, kind: string): TimeControlChoice => ({
  value: `${minutes}+${seconds}`,
  label: `${minutes}+${seconds} · ${kind}`,
  clock: { initial: minutes * MINUTE_MS, increment: seconds * SECOND_MS },
});

const correspondence = (days: number): TimeControlChoice => ({
  value: `${days}d`,
  label: `${plural(days, 'day')} per move`,
  clock: { daysPerMove: days },
});

/** No clock first (the default), then common presets (minutes + seconds of increment, as on lichess) and days. */
export const TIME_CONTROLS: readonly TimeControlChoice[] = [
  { value: '', label: 'No clock', clock: undefined },
  realTime(1, 0, 'Bullet'),
  realTime(3, 2, 'Blitz'),
  realTime(5, 3, 'Blitz'),
  realTime(10, 5, 'Rapid'),
  realTime(15, 10, 'Rapid'),
  correspondence(1),
  correspondence(3),
  correspondence(7),
];

/** The `clock` of a create or import request for a choice's value; none for no clock. */
export const clockRequestOf = (value: string): ClockRequest | undefined =>
  TIME_CONTROLS.find(choice => choice.value === value)?.clock;

/**
 * Whether both sides have made their first move, from which on the side to move's clock runs until the end
 * (DECISIONS §14). No field says so: a correspondence game has a deadline from then on; in a real-time game two
 * moves have been played, or a time is no longer the initial one (before, no time is taken; a takeback after may
 * leave fewer than two moves).
 */
export function clockStarted(state: GameState, clock: TimeControl | null): boolean {
  if (!clock) return false;
  if (state.moves.length >= 2) return true;
  if ('daysPerMove' in clock) return typeof state.deadline === 'string';
  return (state.wtime ?? clock.initial) !== clock.initial || (state.btime ?? clock.initial) !== clock.initial;
}

/** One side's clock as shown. */
export interface ClockFace {
  text: string; // e.g. '4:59', '0:09.3' under ten seconds, '2 days 3 h left' (correspondence)
  running: boolean; // counting down now
  active: boolean; // the side to move's, in a game not over
  low: boolean; // little time left
}

export interface ClockDisplay {
  white: ClockFace;
  black: ClockFace;
  running: Color | undefined; // whose clock runs: the page redraws the clocks while one does
}

/** Time left that is shown as low: a tenth of the initial time, at least 10 s and at most a minute. */
export const lowTimeOf = (initial: number): number => Math.min(MINUTE_MS, Math.max(10 * SECOND_MS, initial / 10));

/**
 * Both clocks of a clocked game (none for an untimed one) at `serviceNow`, the service's time in milliseconds since
 * the epoch as the page estimates it (serviceOffsetAfter). A real-time state holds each side's time at its
 * `serverTime`; the side to move's runs on from then once both sides have moved, and nothing runs after the end.
 * A correspondence game shows the time to the side to move's deadline.
 */
export function clockDisplayOf(
  game: Pick<GameFull, 'state' | 'clock'> | undefined,
  serviceNow: number,
): ClockDisplay | undefined {
  if (!game?.clock) return undefined;
  const { state, clock } = game;
  const over = isEnded(state);
  const running = clockStarted(state, clock) && !over ? state.turn : undefined;
  const face = (color: Color): ClockFace => {
    const active = !over && state.turn === color;
    if ('daysPerMove' in clock) {
      if (running === color && state.deadline) {
        const left = Math.max(0, Date.parse(state.deadline) - serviceNow);
        return {
          text: `${durationWords(left)} left`,
          running: true,
          active,
          low: left < (clock.daysPerMove * DAY_MS) / 10,
        };
      }
      const flagged = state.status === 'outOfTime' && state.turn === color;
      const text = flagged ? 'Out of time' : `${plural(clock.daysPerMove, 'day')} per move`;
      return { text, running: false, active, low: flagged };
    }
    const stored = (color === 'white' ? state.wtime : state.btime) ?? clock.initial;
    const elapsed =
      running === color && state.serverTime !== undefined ? Math.max(0, serviceNow - state.serverTime) : 0;
    const left = Math.max(0, stored - elapsed);
    return { text: formatClock(left), running: running === color, active, low: left < lowTimeOf(clock.initial) };
  };
  return { white: face('white'), black: face('black'), running };
}

/**
 * The estimate of the service's clock minus the page's after a state made at `serverTime` arrived at `receivedAt`
 * (the page's monotonic clock, performance.now(), so that a change of the computer's clock does not matter): the
 * largest difference seen, since a state always arrives after it was made and the quickest arrival is the closest.
 */
export const serviceOffsetAfter = (offset: number | undefined, serverTime: number, receivedAt: number): number =>
  offset === undefined ? serverTime - receivedAt : Math.max(offset, serverTime - receivedAt);

/** A real-time clock's text: 'h:mm:ss', 'm:ss', and tenths under ten seconds ('0:09.3'); always rounded down. */
export function formatClock(ms: number): string {
  const left = Math.max(0, ms);
  if (left < 10 * SECOND_MS) {
    const tenths = Math.floor(left / 100);
    return `0:0${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  const seconds = Math.floor(left / SECOND_MS);
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const ss = String(seconds % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${ss}` : `${minutes}:${ss}`;
}

/** A long time in words, to its two largest units, rounded down: '2 days 3 h', '5 h 12 min', '12 min', '45 s'. */
export function durationWords(ms: number): string {
  const left = Math.max(0, ms);
  const days = Math.floor(left / DAY_MS);
  const hours = Math.floor((left % DAY_MS) / HOUR_MS);
  const minutes = Math.floor((left % HOUR_MS) / MINUTE_MS);
  if (days > 0) return hours > 0 ? `${plural(days, 'day')} ${hours} h` : plural(days, 'day');
  if (hours > 0) return minutes > 0 ? `${hours} h ${minutes} min` : `${hours} h`;
  if (minutes > 0) return `${minutes} min`;
  return `${Math.floor(left / SECOND_MS)} s`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
