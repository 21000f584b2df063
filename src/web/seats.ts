/**
 * Who the page acts for, and what it offers them (DECISIONS §13): the sides the page holds in a game (its seats),
 * from the account the token acts as, and the controls shown and enabled for those seats in a state. The computer's
 * seat (DECISIONS §18) is never the page's: the engine plays it by itself. Pure, like state.ts; tested under Node
 * (test/web/seats.test.ts).
 *
 * ```ts
 * const seats = seatsOf(session.game, account);  // the sides this page holds: GET /api/account's player
 * controlsOf(game.state, seats, game.clock, computerSideOf(game)); // which buttons are shown and enabled
 * orientationFor(seats);                         // the player's own side at the bottom
 * ```
 */
import type { Account, GameFull, GameState } from '../contract/shapes.ts';
import { ENGINE_ID, type Color } from '../contract/vocabulary.ts';
import { clockStarted } from './clocks.ts';
import { halfmoveClock } from './notation.ts';
import { isEnded } from './state.ts';

/** Both sides: what a service token or no authentication acts for, and the seats of a practice board. */
export const BOTH_SIDES: readonly Color[] = ['white', 'black'];

/**
 * The sides the page acts for in `game` (DECISIONS §13): both for an account without a player (a service token,
 * or no authentication), else the seats holding the player's id; none (watching) without a game, and while the
 * account is not known yet, so that nothing is offered that the service would refuse. The computer's seat is never
 * one of them: against the engine, an account that acts for any side plays the other.
 */
export function seatsOf(game: Pick<GameFull, 'white' | 'black'> | undefined, account: Account | undefined): Color[] {
  if (!game || !account) return [];
  const player = account.player;
  return BOTH_SIDES.filter(color => game[color].id !== ENGINE_ID && (!player || game[color].id === player.id));
}

/** The side the computer plays in `game` (DECISIONS §18), if it plays one. */
export function computerSideOf(game: Pick<GameFull, 'white' | 'black'> | undefined): Color | undefined {
  return game ? BOTH_SIDES.find(color => game[color].id === ENGINE_ID) : undefined;
}

/**
 * Which side the page's person sits at, in words: a player's seats, or the side left to an account that acts for
 * any side in a game against the computer; nothing when such an account acts for both sides.
 */
export function seatWordsOf(game: Pick<GameFull, 'white' | 'black'> | undefined, account: Account | undefined): string {
  if (!game || !account) return '';
  const seats = seatsOf(game, account);
  if (!account.player && seats.length !== 1) return '';
  if (seats.length === 2) return 'You play both sides';
  return seats[0] ? `You play ${seats[0]}` : 'You are watching';
}

/** The sides whose rows say "you": a player's seats, and the one side left to anyone in a game against the computer. */
export function ownSeatsOf(seats: readonly Color[], account: Account | undefined): readonly Color[] {
  return account?.player || seats.length === 1 ? seats : [];
}

/** The orientation that puts the page's own side at the bottom: none to choose for both sides or none. */
export const orientationFor = (seats: readonly Color[]): Color | undefined =>
  seats.length === 1 ? seats[0] : undefined;

/** Whether `side` has a move that a takeback would take back: its last one, with the reply since if any. */
export function hasMoveToTakeBack(state: GameState, side: Color): boolean {
  return state.moves.length >= (side === state.turn ? 2 : 1);
}

/** A control is shown and enabled, shown but not usable now, or hidden because it does not apply. */
export type Control = 'enabled' | 'disabled' | 'hidden';

export interface Controls {
  undo: Control; // undo and redo: for a page that holds both sides; between two players, takebacks
  redo: Control;
  resign: Control;
  drawOffer: Control;
  drawAccept: Control;
  drawDecline: Control;
  drawClaim: Control;
  takebackOffer: Control;
  takebackAccept: Control;
  takebackDecline: Control;
  abort: Control; // a clocked game before both sides have moved
  move: Control; // the typed-move field and its button (and the board's pieces)
  export: Control; // copy and download of FEN and PGN, copy of the link
}

const shown = (applies: boolean): Control => (applies ? 'enabled' : 'hidden');

/**
 * The controls for a state and the sides the page holds (`seats`, from seatsOf), as the service judges actions
 * (DECISIONS §13): a page with no seat acts on nothing; one holding a single side moves and claims on its turn,
 * resigns and offers for its side on either turn, answers only the other side's offers, and asks for takebacks
 * instead of undoing; one holding both acts as the service does, for whichever side an action needs. Any seat may
 * abort a clocked game (`clock`: GameFull's) until both sides have moved (DECISIONS §14). Against the computer
 * (`computer`: its side), no draw or takeback is offered: the engine answers none (DECISIONS §18).
 */
export function controlsOf(
  state: GameState | undefined,
  seats: readonly Color[],
  clock: GameFull['clock'] = null,
  computer?: Color,
): Controls {
  const playing = !!state && !isEnded(state) && seats.length > 0;
  const offers = playing && computer === undefined; // someone who could answer an offer
  const both = seats.length === 2;
  const onTurn = playing && seats.includes(state.turn);
  const answers = (offeredBy: Color | null) => playing && offeredBy !== null && (both || seats[0] !== offeredBy);
  const rewind = (available: boolean | undefined): Control =>
    !state || !both ? 'hidden' : available ? 'enabled' : 'disabled';
  return {
    undo: rewind(state?.undoAvailable),
    redo: rewind(state?.redoAvailable),
    resign: shown(playing),
    drawOffer: shown(offers && state.drawOfferedBy === null),
    drawAccept: shown(answers(state?.drawOfferedBy ?? null)),
    drawDecline: shown(answers(state?.drawOfferedBy ?? null)),
    drawClaim: shown(onTurn && halfmoveClock(state.fen) >= 100),
    takebackOffer: shown(offers && !both && state.takebackOfferedBy === null && hasMoveToTakeBack(state, seats[0]!)),
    takebackAccept: shown(answers(state?.takebackOfferedBy ?? null)),
    takebackDecline: shown(answers(state?.takebackOfferedBy ?? null)),
    abort: shown(playing && clock !== null && !clockStarted(state, clock)),
    move: !state || seats.length === 0 ? 'hidden' : onTurn ? 'enabled' : 'disabled',
    export: state ? 'enabled' : 'disabled',
  };
}
