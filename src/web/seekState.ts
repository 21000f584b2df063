/**
 * The page's seek ("Find an opponent", DECISIONS §16), as plain data: what is sought, whether the page is
 * searching or has just been paired, and which game start is the seek's game. A real-time seek lasts as long as its
 * request (`POST /api/board/seek`, whose answer stays open and ends when paired); a correspondence seek is answered
 * with its id at once and withdrawn with `DELETE /api/board/seek/{id}`. Either way the game arrives as a gameStart
 * on the player's event stream: the first game that starts while searching, was not ongoing when the search began,
 * and has the time control sought. Pure, like state.ts; seek.ts brings the traffic. Tested under Node
 * (test/web/seekState.test.ts).
 *
 * ```ts
 * const seek = newSeek();
 * const serial = startSeek(seek, { time: 5, increment: 0, color: 'random' }, ongoingIds);
 * seekPaired(seek, serial);                // the real-time request ended: an opponent was found
 * if (seekGameOf(seek, game, player.id)) open(game.gameId);
 * ```
 */
import type { GameFull } from '../contract/shapes.ts';
import type { SeekBody } from './challengesState.ts';
import { isEnded } from './state.ts';

export type SeekPhase = 'idle' | 'searching' | 'paired';

export interface Seek {
  phase: SeekPhase; // searching: the seek is open; paired: the real-time request ended, its game is on its way
  body: SeekBody | undefined; // what is sought, while searching or paired
  id: string | undefined; // a correspondence seek's id, once the service answered it
  known: ReadonlySet<string>; // the games ongoing when the search began: none of them is the seek's game
  serial: number; // raised by each search and each stop: an answer for an earlier one is stale
}

export const newSeek = (): Seek => ({ phase: 'idle', body: undefined, id: undefined, known: new Set(), serial: 0 });

/** A search begins, the games in `ongoing` already being played; answers its serial, for its answers. */
export function startSeek(seek: Seek, body: SeekBody, ongoing: Iterable<string>): number {
  seek.serial += 1;
  seek.phase = 'searching';
  seek.body = body;
  seek.id = undefined;
  seek.known = new Set(ongoing);
  return seek.serial;
}

/**
 * A correspondence seek's answer: its id. False when the search it answers was stopped meanwhile: the seek is
 * then the caller's to withdraw.
 */
export function seekAnswered(seek: Seek, serial: number, id: string): boolean {
  if (serial !== seek.serial || seek.phase === 'idle') return false;
  seek.id = id;
  return true;
}

/** A real-time seek's request ended with no error: it was paired, and its game's start is on its way. */
export function seekPaired(seek: Seek, serial: number): boolean {
  if (serial !== seek.serial || seek.phase !== 'searching') return false;
  seek.phase = 'paired';
  return true;
}

/** The search ends: canceled, refused, failed, or its game opened. */
export function stopSeek(seek: Seek): void {
  seek.serial += 1;
  seek.phase = 'idle';
  seek.body = undefined;
  seek.id = undefined;
  seek.known = new Set();
}

/** Whether a game's clock is the time control a seek asked for. */
function sameTimeControl(body: SeekBody, clock: GameFull['clock']): boolean {
  if (clock === null) return false;
  if ('days' in body) return 'daysPerMove' in clock && clock.daysPerMove === body.days;
  return (
    'initial' in clock && clock.initial === Math.round(body.time * 60_000) && clock.increment === body.increment * 1000
  );
}

/**
 * Whether a game that started (a gameStart line) is the seek's: searching or just paired, a game not ongoing when
 * the search began, not over, between `playerId` and someone else, with the time control sought. The search then
 * ends, so that only the first such game opens.
 */
export function seekGameOf(seek: Seek, game: GameFull, playerId: string): boolean {
  if (seek.phase === 'idle' || !seek.body || seek.known.has(game.gameId) || isEnded(game.state)) return false;
  const seats = [game.white.id, game.black.id].filter(id => id === playerId).length;
  if (seats !== 1 || !sameTimeControl(seek.body, game.clock)) return false;
  stopSeek(seek);
  return true;
}

/** What the panel says of the seek: '' when idle. */
export function seekWordsOf(seek: Seek): string {
  if (seek.phase === 'idle' || !seek.body) return '';
  if (seek.phase === 'paired') return 'Opponent found: opening the game…';
  const body = seek.body;
  const control =
    'days' in body ? `${body.days} ${body.days === 1 ? 'day' : 'days'} per move` : `${body.time}+${body.increment}`;
  return `Searching for an opponent (${control})…`;
}
