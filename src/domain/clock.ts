/**
 * Clocks (DECISIONS §14), as values with timestamps, never timers: every function takes the time it is asked
 * about (`now`, milliseconds since the epoch). The service keeps the timers (service/clocks.ts).
 *
 * A clock is a time control (real time `{initial, increment}` in ms, or correspondence `{daysPerMove}`), the time
 * each side had left when the side to move's clock last started (`since`), its phase: 0 before any move, 1
 * after the first mover's first move, 2 once both sides have moved once, and `timedFrom`, the first of the game's
 * moves that earned an increment. Only in phase 2 does a clock run; until then a game can be aborted, and is
 * aborted by the service when the side to move has not made its first move within FIRST_MOVE_MS (correspondence:
 * `daysPerMove` days) of `since`.
 *
 * A move takes from the mover what passed since `since`, then adds the increment (correspondence: the next side
 * gets `daysPerMove` days); a redo is that move made again, and does the same. An undo or a takeback takes what
 * passed from the side that was to move, gives nothing of it back, and takes back the increment each move taken
 * back earned (DECISIONS §13a), so that no sequence of moves and takebacks raises a clock above its initial time
 * plus the increments of the moves on the board; the new side to move runs from then. Back before both sides'
 * first moves, the clock stops again as at the start: phase 0 or 1, the first-move timeout counted from then.
 *
 * ```ts
 * const clock = newClock({ initial: 300_000, increment: 2_000 }, now);
 * timesAt(clock, 'white', later);   // { white: 300000, black: 300000 }: no clock runs before both sides moved
 * deadlineOf(clock, 'white', false); // when the service must act: an abort now, a flag in phase 2
 * ```
 */
import type { Color } from '../contract/vocabulary.ts';
import { DomainError, err, ok, type Result } from './errors.ts';

export interface RealTime {
  readonly initial: number; // ms, e.g. 300000
  readonly increment: number; // ms added after each move, e.g. 2000
}
export interface Correspondence {
  readonly daysPerMove: number; // e.g. 3
}
export type TimeControl = RealTime | Correspondence;

export interface Clock {
  readonly control: TimeControl;
  readonly white: number; // ms left when the side to move's clock last started (or stopped for good)
  readonly black: number;
  readonly since: number; // ms since the epoch: when the side to move's period started
  readonly phase: 0 | 1 | 2; // 0: no move yet; 1: the first mover has moved; 2: both have, the clock runs
  // The first of the game's moves (an index of its record's moves) that earned an increment: every move on the
  // board from it did, none before it (the first moves, and the moves an import replayed), e.g. 2.
  readonly timedFrom: number;
}

/** How long a side has for its first move in a real-time game before the service aborts the game. */
export const FIRST_MOVE_MS = 60_000;
export const DAY_MS = 86_400_000;

export const isCorrespondence = (control: TimeControl): control is Correspondence => 'daysPerMove' in control;

/** Each side's time at the start: the initial time, or a whole period of days. */
const fullTime = (control: TimeControl): number =>
  isCorrespondence(control) ? control.daysPerMove * DAY_MS : control.initial;

/** A new game's clock; `plies` moves already played (a PGN import counts them toward the phase). */
export function newClock(control: TimeControl, now: number, plies = 0): Clock {
  const time = fullTime(control);
  const phase = plies >= 2 ? 2 : plies === 1 ? 1 : 0;
  return { control, white: time, black: time, since: now, phase, timedFrom: Math.max(2, plies) };
}

/** Each side's time left at `now`: the side to move's clock runs in phase 2 until the game is over. */
export function timesAt(clock: Clock, turn: Color, now: number, over: boolean): { white: number; black: number } {
  if (clock.phase < 2 || over) return { white: clock.white, black: clock.black };
  const left = Math.max(0, clock[turn] - Math.max(0, now - clock.since));
  return turn === 'white' ? { white: left, black: clock.black } : { white: clock.white, black: left };
}

/**
 * When the service must act, or undefined: in phase 2 the side to move's flag; before, the abort of a game whose
 * side to move has not made its first move in time.
 */
export function deadlineOf(clock: Clock, turn: Color, over: boolean): number | undefined {
  if (over) return undefined;
  if (clock.phase === 2) return clock.since + clock[turn];
  return clock.since + (isCorrespondence(clock.control) ? clock.control.daysPerMove * DAY_MS : FIRST_MOVE_MS);
}

/** The clock stopped at `now` for good (the game ended): the side to move is charged up to then. */
export function stopped(clock: Clock, turn: Color, now: number): Clock {
  if (clock.phase < 2) return clock;
  return { ...clock, ...timesAt(clock, turn, now, false), since: now };
}

/**
 * The clock after a move by `mover` at `now`: phase 2 charges the mover and adds the increment (correspondence:
 * the next side gets a whole period); the first moves take no time and add nothing, and the second side's first
 * move starts the clock.
 */
export function afterMove(clock: Clock, mover: Color, now: number, firstMover: Color): Clock {
  const next: Color = mover === 'white' ? 'black' : 'white';
  if (clock.phase < 2) {
    const phase = clock.phase === 0 ? 1 : mover === firstMover ? 1 : 2;
    return { ...clock, since: now, phase };
  }
  const left = timesAt(clock, mover, now, false)[mover];
  const { control } = clock;
  const times = isCorrespondence(control)
    ? { [mover]: left, [next]: fullTime(control) }
    : { [mover]: left + control.increment, [next]: clock[next] };
  return { ...clock, white: times.white!, black: times.black!, since: now };
}

/**
 * The clock after the last `count` of the game's `played` moves are taken back at `now` (an undo, a takeback):
 * the side that was to move (`turn`) is charged what passed while its clock ran (`running`: false after an end of
 * the position, which stopped it), each move taken back takes its increment with it (never below zero), and the
 * side to move after it runs from `now`. Taken back before both sides' first moves, the clock stops again: the
 * phase of the moves left, the first-move timeout from `now`, and a correspondence clock's whole periods back
 * (its days are per move, so it holds nothing a move earned). `firstMover`: the side that moves first from the
 * game's start.
 */
export function afterTakeBack(
  clock: Clock,
  turn: Color,
  now: number,
  taken: { played: number; count: number; firstMover: Color },
  running = true,
): Clock {
  const { control, timedFrom } = clock;
  const times = running ? timesAt(clock, turn, now, false) : { white: clock.white, black: clock.black };
  const left = taken.played - taken.count;
  if (!isCorrespondence(control)) {
    for (let i = Math.max(left, timedFrom); i < taken.played; i++) {
      const mover: Color = i % 2 === 0 ? taken.firstMover : taken.firstMover === 'white' ? 'black' : 'white';
      times[mover] = Math.max(0, times[mover] - control.increment);
    }
  }
  if (left >= 2) return { ...clock, ...times, since: now, timedFrom: Math.max(2, Math.min(timedFrom, left)) };
  const full = fullTime(control);
  const stoppedTimes = isCorrespondence(control) ? { white: full, black: full } : times;
  return { ...clock, ...stoppedTimes, since: now, phase: left === 1 ? 1 : 0, timedFrom: 2 };
}

/** A requested time control (fields checked one by one by the schema): which of them go together. */
export function parseTimeControl(input: {
  initial?: number | undefined;
  increment?: number | undefined;
  daysPerMove?: number | undefined;
}): Result<TimeControl> {
  const { initial, increment, daysPerMove } = input;
  const invalid = (field: string, message: string) => err(new DomainError('INVALID_BODY', message, field));
  if (daysPerMove !== undefined) {
    if (initial !== undefined || increment !== undefined) {
      return invalid('clock', 'clock is either {initial, increment} (real time) or {daysPerMove} (correspondence)');
    }
    return ok({ daysPerMove });
  }
  if (initial === undefined && increment === undefined) {
    return invalid('clock', 'clock needs {initial, increment} (real time, ms) or {daysPerMove} (correspondence)');
  }
  if (initial === undefined) return invalid('clock.initial', 'clock.initial is required with clock.increment');
  if (increment === undefined) return invalid('clock.increment', 'clock.increment is required with clock.initial');
  return ok({ initial, increment });
}
