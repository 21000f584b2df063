/**
 * What a game's state is called (DECISIONS §3): its status, derived in one order from the position's own end,
 * the final result and what is pending, and the winner and PGN result token that go with it.
 *
 * ```ts
 * statusOf(game); // 'check', 'drawOffered', 'checkmate'...
 * resultToken(game); // '1-0', '0-1', '1/2-1/2' or '*'
 * ```
 */
import { opposite } from 'chessops/util';
import type { Color, GameStatus } from '../contract/vocabulary.ts';
import type { Chess } from 'chessops/chess';
import type { FinalResult, Game } from './game.ts';

export function statusOf(game: Game): GameStatus {
  const { record, positionEnd, pos } = game;
  switch (positionEnd) {
    case 'checkmate':
    case 'stalemate':
    case 'insufficientMaterial':
      return positionEnd;
    case 'seventyFiveMoveRule':
    case 'fivefoldRepetition':
      return 'draw';
    case undefined:
      break;
  }
  if (record.result) return FINAL_STATUS[record.result.kind];
  if (record.pendingPromotion) return 'promotionPending';
  if (record.drawOffer) return 'drawOffered';
  if (pos.halfmoves >= 100) return 'fiftyMoveAvailable';
  if (pos.isCheck()) return 'check';
  return 'started';
}

/** The status of each final end. */
const FINAL_STATUS: Record<FinalResult['kind'], GameStatus> = {
  resign: 'resign',
  drawAgreed: 'draw',
  drawClaimed: 'draw',
  outOfTime: 'outOfTime',
  aborted: 'aborted',
  timeout: 'timeout',
};

export function winnerOf(game: Game): Color | null {
  if (game.positionEnd === 'checkmate') return opposite(game.pos.turn);
  const result = game.record.result;
  if (result?.kind === 'resign' || result?.kind === 'outOfTime' || result?.kind === 'timeout') return result.winner;
  return null;
}

/**
 * Whether `side` could still mate (DECISIONS §14, for the flag): anything more than a bare king, or a king and
 * one minor piece.
 */
export function hasMatingMaterial(pos: Chess, side: Color): boolean {
  const pieces = pos.board[side].diff(pos.board.king);
  if (pieces.isEmpty()) return false;
  const minors = pos.board.knight.union(pos.board.bishop);
  return pieces.moreThanOne() || !pieces.subsetOf(minors);
}

export const isOver = (game: Game): boolean => game.positionEnd !== undefined || game.record.result !== null;

/** The PGN result token of the game: `1-0`, `0-1`, `1/2-1/2` or `*`. */
export function resultToken(game: Game): string {
  if (!isOver(game)) return '*';
  const winner = winnerOf(game);
  return winner === 'white' ? '1-0' : winner === 'black' ? '0-1' : '1/2-1/2';
}
