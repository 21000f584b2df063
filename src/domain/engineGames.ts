/**
 * Games against the computer (DECISIONS §18, §16a), as facts of a game's record: which side the person holds, and
 * whether a new game counts toward the person's bound of ongoing real-time games against it.
 *
 * ```ts
 * personSideOf(game.record); // 'black' when the engine plays white; undefined in a game without it
 * cappedEngineGameOf(record); // { player: 'ann', max: 5 } for Ann's new 5+3 game against the computer
 * ```
 */
import type { Color } from '../contract/vocabulary.ts';
import { ENGINE_ID } from '../contract/vocabulary.ts';
import { isCorrespondence } from './clock.ts';
import type { GameRecord } from './game.ts';

/** A player has at most this many ongoing real-time games against the computer (DECISIONS §16a). */
export const MAX_REAL_TIME_ENGINE_GAMES = 5;

/** The side of the person in a game against the computer (the seat that is not the engine's), or undefined. */
export function personSideOf(record: Pick<GameRecord, 'white' | 'black'>): Color | undefined {
  const white = record.white.id === ENGINE_ID;
  const black = record.black.id === ENGINE_ID;
  if (white === black) return undefined;
  return white ? 'black' : 'white';
}

/** Whether a game has a real-time clock (not correspondence, not unlimited). */
export const isRealTime = (record: Pick<GameRecord, 'clock'>): boolean =>
  record.clock !== null && !isCorrespondence(record.clock.control);

/**
 * The bound a new game counts toward, if any: a real-time game against the computer counts toward its person's
 * MAX_REAL_TIME_ENGINE_GAMES ongoing ones. The store counts them and inserts the game as one step.
 */
export function cappedEngineGameOf(
  record: Pick<GameRecord, 'white' | 'black' | 'clock'>,
): { player: string; max: number } | undefined {
  const person = personSideOf(record);
  if (person === undefined || !isRealTime(record)) return undefined;
  return { player: record[person].id, max: MAX_REAL_TIME_ENGINE_GAMES };
}

/** Whether an ongoing game is one that `cappedEngineGameOf` counts for `player`. */
export const countsTowardEngineCap = (record: Pick<GameRecord, 'white' | 'black' | 'clock'>, player: string): boolean =>
  cappedEngineGameOf(record)?.player === player;
