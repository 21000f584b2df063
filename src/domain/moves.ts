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

const PROMOTIONS: ReadonlyArray<readonly [PromotionPiece, string]> = [
  ['queen', 'q'],
  ['rook', 'r'],
  ['bishop', 'b'],
  ['knight', 'n'],
];

/** All legal moves of the side to move, optionally only those from one square, sorted by `uci`. */
export function listLegalMoves(pos: Chess, fromSquare?: Square): LegalMove[] {
  const moves: LegalMove[] = [];
  const ctx = pos.ctx();
  const own = pos.board[pos.turn];
  const origins = fromSquare === undefined ? own : own.intersect(SquareSet.fromSquare(fromSquare));
  for (const from of origins) {
    const piece = pos.board.get(from)!;
    for (const dest of pos.dests(from, ctx)) {
      const fromName = makeSquare(from);
      if (piece.role === 'king' && own.has(dest)) {
        // chessops encodes castling as king-takes-own-rook; the API uses the king's two-square move.
        const side = dest > from ? 'h' : 'a';
        const to = makeSquare(kingCastlesTo(pos.turn, side));
        moves.push({
          from: fromName,
          to,
          uci: fromName + to,
          moveType: side === 'h' ? 'castleKingside' : 'castleQueenside',
          promotion: null,
        });
        continue;
      }
      const to = makeSquare(dest);
      if (piece.role === 'pawn' && dest === pos.epSquare) {
        moves.push({ from: fromName, to, uci: fromName + to, moveType: 'enPassant', promotion: null });
      } else if (piece.role === 'pawn' && SquareSet.backranks().has(dest)) {
        for (const [promotion, char] of PROMOTIONS) {
          moves.push({ from: fromName, to, uci: fromName + to + char, moveType: 'promotion', promotion });
        }
      } else {
        const moveType = pos.board.has(dest) ? 'capture' : 'normal';
        moves.push({ from: fromName, to, uci: fromName + to, moveType, promotion: null });
      }
    }
  }
  return moves.sort((a, b) => (a.uci < b.uci ? -1 : a.uci > b.uci ? 1 : 0));
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
