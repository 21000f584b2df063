/**
 * Legal moves in the API's words: UCI with castling as the king's two-square move, a `moveType`, and four
 * entries per promotion. chessops generates the moves; this module only names them.
 *
 * ```ts
 * listLegalMoves(Chess.default()).length; // 20
 * ```
 */
import type { Chess } from 'chessops/chess';
import { normalizeMove } from 'chessops/chess';
import { SquareSet } from 'chessops/squareSet';
import type { Move, NormalMove, Role, Square } from 'chessops/types';
import { kingCastlesTo, makeSquare, parseUci } from 'chessops/util';
import type { LegalMove } from '../contract/shapes.ts';
import type { PromotionPiece } from '../contract/vocabulary.ts';

/** The promotions in the order of their UCI letters (b, n, q, r), which is the listing's order. */
const PROMOTIONS: ReadonlyArray<readonly [PromotionPiece, string]> = [
  ['bishop', 'b'],
  ['knight', 'n'],
  ['queen', 'q'],
  ['rook', 'r'],
];

/** Each square's name, by square (a1 = 0, b1 = 1 ... h8 = 63). */
const SQUARE_NAMES: readonly string[] = Array.from({ length: 64 }, (_, square) => makeSquare(square));

/** A square's place in the order of the names (a1, a2 ... a8, b1 ...): its file first, then its rank. */
const nameOrder = (square: Square): number => ((square & 7) << 3) | (square >> 3);

/** The squares in the order of their names (the swap of file and rank is its own inverse). */
const SQUARES_BY_NAME: readonly Square[] = Array.from({ length: 64 }, (_, n) => nameOrder(n));

/** Each move's UCI without promotion, by its origin and target (`from << 6 | to`). */
const UCI_NAMES: readonly string[] = Array.from(
  { length: 64 * 64 },
  (_, n) => SQUARE_NAMES[n >> 6]! + SQUARE_NAMES[n & 63]!,
);

/** Scratch space of listLegalMoves: one piece's targets by the order of their names. */
const TARGETS = new Uint8Array(64);

/**
 * All legal moves of the side to move, optionally only those from one square, sorted by `uci`: made in that order
 * (origins and then targets by their names, promotions by their letters) rather than sorted as strings.
 */
export function listLegalMoves(pos: Chess, fromSquare?: Square): LegalMove[] {
  const moves: LegalMove[] = [];
  const ctx = pos.ctx();
  const own = pos.board[pos.turn];
  const origins = fromSquare === undefined ? SQUARES_BY_NAME : [fromSquare];
  for (const from of origins) {
    if (!own.has(from)) continue;
    const role = pos.board.getRole(from)!;
    const fromName = SQUARE_NAMES[from]!;
    const dests = pos.dests(from, ctx);
    // chessops encodes castling as king-takes-own-rook; the API uses the king's two-square move.
    const castles = role === 'king' ? dests.intersect(own) : SquareSet.empty();
    const first = moves.length;
    // The targets in the order of their names (at most 27: an insertion sort into a scratch array).
    let count = 0;
    for (const square of dests.diff(castles)) {
      const order = nameOrder(square);
      let at = count++;
      for (; at > 0 && TARGETS[at - 1]! > order; at--) TARGETS[at] = TARGETS[at - 1]!;
      TARGETS[at] = order;
    }
    for (let i = 0; i < count; i++) {
      const square = nameOrder(TARGETS[i]!);
      const to = SQUARE_NAMES[square]!;
      const uci = UCI_NAMES[(from << 6) | square]!;
      if (role === 'pawn' && square === pos.epSquare) {
        moves.push({ from: fromName, to, uci, moveType: 'enPassant', promotion: null });
      } else if (role === 'pawn' && (square < 8 || square >= 56)) {
        for (const [promotion, char] of PROMOTIONS) {
          moves.push({ from: fromName, to, uci: uci + char, moveType: 'promotion', promotion });
        }
      } else {
        const moveType = pos.board.has(square) ? 'capture' : 'normal';
        moves.push({ from: fromName, to, uci, moveType, promotion: null });
      }
    }
    for (const rook of castles) {
      const side = rook > from ? 'h' : 'a';
      const to = SQUARE_NAMES[kingCastlesTo(pos.turn, side)]!;
      const moveType = side === 'h' ? 'castleKingside' : 'castleQueenside';
      // Among this origin's moves by the name of their target (two characters: file, then rank).
      let at = first;
      while (at < moves.length && moves[at]!.to < to) at++;
      moves.splice(at, 0, { from: fromName, to, uci: fromName + to, moveType, promotion: null });
    }
  }
  return moves;
}

export type MoveCheck =
  { kind: 'legal'; move: NormalMove } | { kind: 'needsPromotion' } | { kind: 'illegal'; reason: string };

/**
 * Judges a syntactically valid UCI string in a position. Castling is accepted only as the king's two-square
 * move (`e1g1`), never as king-takes-rook (`e1h1`).
 */
export function checkMove(pos: Chess, uci: string): MoveCheck {
  const parsed = parseUci(uci) as NormalMove | undefined;
  if (!parsed || parsed.from === parsed.to) return { kind: 'illegal', reason: `'${uci}' is not a move` };
  const piece = pos.board.get(parsed.from);
  if (piece?.color !== pos.turn) {
    return { kind: 'illegal', reason: `there is no ${pos.turn} piece on ${makeSquare(parsed.from)}` };
  }
  if (pos.board[pos.turn].has(parsed.to)) {
    return { kind: 'illegal', reason: `${uci} is not legal: ${makeSquare(parsed.to)} holds a ${pos.turn} piece` };
  }
  const promotes = piece.role === 'pawn' && SquareSet.backranks().has(parsed.to);
  if (parsed.promotion && !promotes) {
    return { kind: 'illegal', reason: `${uci} is not legal: only a pawn reaching the last rank promotes` };
  }
  if (!parsed.promotion && promotes && pos.isLegal({ ...parsed, promotion: 'queen' })) {
    return { kind: 'needsPromotion' };
  }
  const move = normalizeMove(pos, parsed) as NormalMove;
  if (!pos.isLegal(move)) {
    return { kind: 'illegal', reason: `${uci} is not a legal move for ${pos.turn} in this position` };
  }
  return { kind: 'legal', move };
}

/** The chessops move of a stored move, legal when it was stored: parsed and normalized, not checked again. */
export const storedMove = (pos: Chess, uci: string): NormalMove =>
  normalizeMove(pos, parseUci(uci) as NormalMove) as NormalMove;

export type { Move, Role };
