/**
 * Chess notation for the page, over chessops: a typed move (UCI or SAN) to the UCI the API takes, the SAN
 * move list from the PGN movetext, check and the halfmove clock from a FEN, and statuses in words.
 *
 * ```ts
 * toUci('Nf3', fen);        // { uci: 'g1f3' }
 * toUci('O-O', fen);        // { uci: 'e1g1' }  (the API's castling: the king's two-square move)
 * movetextToSan('12... Kf8 13. Rd1'); // { firstPly: 23, sans: ['Kf8', 'Rd1'] }
 * ```
 */
import { Chess, castlingSide } from 'chessops/chess';
import { parseFen } from 'chessops/fen';
import { parseSan } from 'chessops/san';
import { kingCastlesTo, makeSquare, roleToChar } from 'chessops/util';
import type { GameState } from '../contract/shapes.ts';
import { ENDED_STATUSES, UCI_PATTERN, type Color } from '../contract/vocabulary.ts';

const UCI = new RegExp(UCI_PATTERN);

function position(fen: string): Chess | undefined {
  const setup = parseFen(fen);
  if (setup.isErr) return undefined;
  const pos = Chess.fromSetup(setup.value);
  return pos.isErr ? undefined : pos.value;
}

/**
 * The UCI for a move typed in UCI (any case) or SAN, against the position `fen`. SAN that does not name one
 * legal move gives an error in words; UCI is passed on as it is, for the API to judge.
 */
export function toUci(input: string, fen: string): { uci: string } | { error: string } {
  const text = input.trim();
  if (text === '') return { error: 'type a move, e.g. e4, Nf3, O-O or e2e4' };
  if (UCI.test(text.toLowerCase())) return { uci: text.toLowerCase() };
  const pos = position(fen);
  if (!pos) return { error: 'the position cannot be read' };
  const san = text.replace(/[?!]+$/, '').replace(/^0-0(-0)?/, castle => castle.replace(/0/g, 'O'));
  const move = parseSan(pos, san);
  if (!move || !('from' in move)) {
    return { error: `'${text}' is not a legal move for ${pos.turn} here (SAN like Nf3 or O-O, or UCI like g1f3)` };
  }
  const side = castlingSide(pos, move);
  const to = side ? kingCastlesTo(pos.turn, side) : move.to;
  const promotion = move.promotion ? roleToChar(move.promotion) : '';
  return { uci: `${makeSquare(move.from)}${makeSquare(to)}${promotion}` };
}

/** Whether the side to move is in check in `fen`. */
export function isCheck(fen: string): boolean {
  return position(fen)?.isCheck() ?? false;
}

/** The halfmove clock (fifth FEN field), 0 when unreadable. */
export function halfmoveClock(fen: string): number {
  const field = fen.trim().split(/\s+/)[4];
  return field !== undefined && /^\d+$/.test(field) ? Number(field) : 0;
}

/**
 * The SAN moves of `state.pgn` (`1. e4 e5 2. Nf3`, or `12... Kf8 13. Rd1` when black moved first) and the
 * ply number of the first one (1 = white's first move).
 */
export function movetextToSan(movetext: string): { firstPly: number; sans: string[] } {
  const tokens = movetext.trim().split(/\s+/).filter(Boolean);
  let firstPly = 1;
  const first = tokens[0] ? /^(\d+)(\.+)$/.exec(tokens[0]) : null;
  if (first) firstPly = (Number(first[1]) - 1) * 2 + (first[2] === '.' ? 1 : 2);
  return { firstPly, sans: tokens.filter(token => !/^\d+\.+$/.test(token)) };
}

export const colorName = (color: Color): string => (color === 'white' ? 'White' : 'Black');
export const otherColor = (color: Color): Color => (color === 'white' ? 'black' : 'white');

export interface StatusWords {
  status: string; // e.g. 'Checkmate'
  turn: string; // e.g. 'White to move', or 'Game over'
  result: string; // e.g. 'White wins', 'Draw', or '' while the game goes on
}

/** The state in words, for people. */
export function describe(state: GameState): StatusWords {
  const mover = colorName(state.turn);
  const ended = ENDED_STATUSES.has(state.status);
  const winner = state.winner ? colorName(state.winner) : undefined;
  const words: Record<GameState['status'], string> = {
    started: 'In progress',
    check: `${mover} is in check`,
    checkmate: 'Checkmate',
    stalemate: 'Stalemate',
    resign: `${colorName(state.winner ? otherColor(state.winner) : state.turn)} resigned`,
    draw: 'Draw',
    drawOffered: `${colorName(state.drawOfferedBy ?? state.turn)} offers a draw`,
    fiftyMoveAvailable: 'Fifty-move rule: a draw can be claimed',
    promotionPending: 'Promotion: choose a piece',
    insufficientMaterial: 'Insufficient material',
    outOfTime: 'Out of time',
    aborted: 'Aborted',
    timeout: `${colorName(state.winner ? otherColor(state.winner) : state.turn)} left the game`,
  };
  const result = winner ? `${winner} wins` : state.status === 'aborted' ? 'No result' : ended ? 'Draw' : '';
  return {
    status: words[state.status],
    turn: ended ? 'Game over' : `${mover} to move`,
    // The side to move is the one whose flag fell; the other wins unless it has no mating material.
    result: state.status === 'outOfTime' ? `${mover} ran out of time · ${result}` : result,
  };
}
