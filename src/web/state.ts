/**
 * The board page's state, with no DOM and no network (after chessground's state/board/render split): the game
 * on the page and the rules for what reaches it, its legal moves as the board takes them, and its status in words.
 * The other pure modules hold who the page acts for (seats.ts), the clocks (clocks.ts), the forms (forms.ts) and
 * the "My games" list (myGamesState.ts). The panels (gamePanel.ts, board.ts and the other …Panel.ts) draw them;
 * gameSession.ts and main.ts wire events to them. Tested under Node (test/web/state.test.ts).
 *
 * ```ts
 * const session = newSession('AbCd1234');
 * applyGame(session, game);             // from the stream's gameFull or a GET
 * if (needsLegal(session)) session.legal = await api.legalMoves(session.id);
 * destinations(session.legal);          // the board's destinations
 * statusWordsOf(session);               // the status line
 * ```
 */
import type { GameFull, GameState, LegalMove } from '../contract/shapes.ts';
import { ENDED_STATUSES, type Color } from '../contract/vocabulary.ts';
import { colorName, describe } from './notation.ts';

/** The game on the page. Replaced as a whole when another game is opened, so late answers can tell. */
export interface Session {
  id: string;
  game: GameFull | undefined;
  loadError: { code: string; message: string; status: number } | undefined;
  legal: LegalMove[];
  legalKey: string | undefined; // fen|status the legal moves were asked for
  epoch: number; // stream events applied so far
  pending: { fen: string; uci: string } | undefined; // a promotion this page sent without a piece
  dismissedPendingFen: string | undefined; // the pending promotion whose picker was cancelled
  notice: string | undefined; // the last error line of the stream
}

export const newSession = (id: string): Session => ({
  id,
  game: undefined,
  loadError: undefined,
  legal: [],
  legalKey: undefined,
  epoch: 0,
  pending: undefined,
  dismissedPendingFen: undefined,
  notice: undefined,
});

export const isEnded = (state: GameState): boolean => ENDED_STATUSES.has(state.status);

/** Shows a whole game (a stream's gameFull, a GET); resolves with the state it replaced. */
export function applyGame(session: Session, game: GameFull): GameState | undefined {
  const previous = session.game?.state;
  session.game = game;
  session.loadError = undefined;
  return previous;
}

/** Shows a new state of the game on the page; resolves with the state it replaced (none: nothing to update). */
export function applyState(session: Session, state: GameState): GameState | undefined {
  if (!session.game) return undefined;
  const previous = session.game.state;
  session.game = { ...session.game, state };
  return previous;
}

/**
 * An action's own answer is shown only when the stream has delivered nothing since the action was sent (its
 * epoch then): the stream's order is the truth, and a later gameFull repairs anything missed.
 */
export const answerIsCurrent = (session: Session, epochAtSend: number): boolean => session.epoch === epochAtSend;

/** The key the legal moves of a state are asked for under; a state of an ended game needs none. */
export const legalKeyOf = (state: GameState): string => `${state.fen}|${state.status}`;

/**
 * Whether the legal moves must be asked for again for the state shown, and marks them asked for (the list is
 * emptied meanwhile, so that no stale move is offered).
 */
export function needsLegal(session: Session): boolean {
  const state = session.game?.state;
  if (!state) return false;
  const key = legalKeyOf(state);
  if (session.legalKey === key) return false;
  session.legalKey = key;
  session.legal = [];
  return !isEnded(state);
}

/**
 * The move whose promotion piece the page should ask for now, when the game holds a pending promotion of a side
 * the page holds: the one this page sent, else the only pawn move to the last rank there is; none when the picker
 * was cancelled for this position.
 */
export function promotionToAsk(session: Session, seats: readonly Color[]): string | undefined {
  const state = session.game?.state;
  if (!state || state.status !== 'promotionPending' || !seats.includes(state.turn)) return undefined;
  if (session.dismissedPendingFen === state.fen) return undefined;
  if (session.pending?.fen === state.fen) return session.pending.uci;
  const pairs = new Set(session.legal.filter(move => move.promotion).map(move => `${move.from}${move.to}`));
  return pairs.size === 1 ? [...pairs][0] : undefined;
}

/** chessground's destinations: every legal target, and the rook's square for castling (as on lichess). */
export function destinations(moves: readonly LegalMove[]): Map<string, string[]> {
  const dests = new Map<string, string[]>();
  const add = (from: string, to: string) => {
    const list = dests.get(from) ?? [];
    if (!list.includes(to)) list.push(to);
    dests.set(from, list);
  };
  for (const move of moves) {
    add(move.from, move.to);
    const rook = rookSquare(move);
    if (rook) add(move.from, rook);
  }
  return dests;
}

/** The rook's square a castling move may also be dropped on. */
export function rookSquare(move: LegalMove): string | undefined {
  if (move.moveType === 'castleKingside') return `h${move.from[1]}`;
  if (move.moveType === 'castleQueenside') return `a${move.from[1]}`;
  return undefined;
}

/** The legal moves a piece dragged from `orig` to `dest` may mean (several: a promotion's four pieces). */
export const movesFor = (legal: readonly LegalMove[], orig: string, dest: string): LegalMove[] =>
  legal.filter(move => move.from === orig && (move.to === dest || rookSquare(move) === dest));

/** The offers pending in a game, in words, besides the one its status already names (a draw offer). */
export function offerWordsOf(state: GameState | undefined): string {
  if (!state || isEnded(state)) return '';
  const words: string[] = [];
  if (state.drawOfferedBy && state.status !== 'drawOffered')
    words.push(`${colorName(state.drawOfferedBy)} offers a draw`);
  if (state.takebackOfferedBy) words.push(`${colorName(state.takebackOfferedBy)} offers a takeback`);
  return words.join(' · ');
}

/** The status line: a code for styling, the status, whose turn it is and the result, in words. */
export interface StatusWords {
  code: string;
  status: string;
  turn: string;
  result: string;
}

export function statusWordsOf(session: Session | undefined): StatusWords {
  if (!session) return { code: '', status: 'No game yet', turn: 'Start a new game or open one.', result: '' };
  if (session.loadError) {
    return { code: 'error', status: 'Game not available', turn: 'Check the address, or start a new game.', result: '' };
  }
  if (!session.game) return { code: 'loading', status: 'Loading…', turn: '', result: '' };
  const words = describe(session.game.state);
  return { code: session.game.state.status, status: words.status, turn: words.turn, result: words.result };
}

/** The window's title for the game shown. */
export function titleOf(game: GameFull | undefined): string {
  if (!game) return 'Chess';
  const words = describe(game.state);
  return `${game.white.displayName} vs ${game.black.displayName} · ${words.result || words.status} · Chess`;
}

/** A side's rating as the player rows show it (DECISIONS §21): `1500?` while provisional; none in a casual game. */
export const ratingWordsOf = (player: { rating?: number; provisional?: boolean }): string | undefined =>
  player.rating === undefined ? undefined : `${player.rating}${player.provisional ? '?' : ''}`;

/** A rated game over whose rating changes are not shown yet (they come with its GameFull, read again). */
export const awaitsRatingChange = (game: {
  rated?: boolean;
  state: GameState;
  white: { ratingDiff?: number };
}): boolean =>
  game.rated === true &&
  isEnded(game.state) &&
  game.state.status !== 'aborted' && // an abort, and an end before both sides moved, are not rated
  game.state.moves.length >= 2 &&
  game.white.ratingDiff === undefined;
