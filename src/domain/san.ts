/**
 * The SAN of a legal move, played on its position: chessops's makeSanAndPlay, with its `+`/`#` found in one look at
 * the position after the move. chessops's asks for the position's whole outcome (its context of pins and checkers,
 * its legal moves even when no king is in check, its material), then for the check again; here the king's attackers
 * alone, and the legal moves only after a check (mate or not). The same text for every legal move of standard chess; a replay of a game to SAN (an
 * export, a load) is mostly this.
 *
 * ```ts
 * const pos = Chess.default();
 * sanAndPlay(pos, { from: 12, to: 28 }); // 'e4', and pos is the position after it
 * ```
 */
import { bishopAttacks, kingAttacks, knightAttacks, queenAttacks, rookAttacks } from 'chessops/attacks';
import type { Chess } from 'chessops/chess';
import { SquareSet } from 'chessops/squareSet';
import { FILE_NAMES, RANK_NAMES, type NormalMove, type Role } from 'chessops/types';
import { makeSquare, roleToChar, squareFile, squareRank } from 'chessops/util';

/** The pieces of a role that attack `to` on this board (before the legality of their moves is known). */
function attackersOf(pos: Chess, role: Role, to: number): SquareSet {
  const { board } = pos;
  switch (role) {
    case 'king':
      return kingAttacks(to).intersect(board.king);
    case 'queen':
      return queenAttacks(to, board.occupied).intersect(board.queen);
    case 'rook':
      return rookAttacks(to, board.occupied).intersect(board.rook);
    case 'bishop':
      return bishopAttacks(to, board.occupied).intersect(board.bishop);
    default:
      return knightAttacks(to).intersect(board.knight);
  }
}

/** The SAN of a legal move without its check suffix, as chessops writes it (makeSanWithoutSuffix). */
export function sanWithoutSuffix(pos: Chess, move: NormalMove): string {
  const { board } = pos;
  const role = board.getRole(move.from);
  if (!role) return '--';
  if (role === 'king' && (board[pos.turn].has(move.to) || Math.abs(move.to - move.from) === 2)) {
    return move.to > move.from ? 'O-O' : 'O-O-O';
  }
  const capture = board.occupied.has(move.to) || (role === 'pawn' && squareFile(move.from) !== squareFile(move.to));
  let san = '';
  if (role !== 'pawn') {
    san = roleToChar(role).toUpperCase();
    let others = attackersOf(pos, role, move.to).intersect(board[pos.turn]).without(move.from);
    if (others.nonEmpty()) {
      const ctx = pos.ctx();
      for (const from of others) if (!pos.dests(from, ctx).has(move.to)) others = others.without(from);
      if (others.nonEmpty()) {
        let row = false;
        let column = others.intersects(SquareSet.fromRank(squareRank(move.from)));
        if (others.intersects(SquareSet.fromFile(squareFile(move.from)))) row = true;
        else column = true;
        if (column) san += FILE_NAMES[squareFile(move.from)]!;
        if (row) san += RANK_NAMES[squareRank(move.from)]!;
      }
    }
  } else if (capture) san = FILE_NAMES[squareFile(move.from)]!;
  if (capture) san += 'x';
  san += makeSquare(move.to);
  if (move.promotion) san += `=${roleToChar(move.promotion).toUpperCase()}`;
  return san;
}

/** Plays a legal move on `pos` and gives its SAN, `+` or `#` included: makeSanAndPlay's text, for less work. */
export function sanAndPlay(pos: Chess, move: NormalMove): string {
  const san = sanWithoutSuffix(pos, move);
  pos.play(move);
  if (!pos.isCheck()) return san;
  return pos.hasDests() ? `${san}+` : `${san}#`;
}
