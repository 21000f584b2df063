/**
 * The line of a game: the moves played from its start position and what is derived along them, the SAN of
 * each, a hash of every position reached and a checkpoint (the position itself) every CHECKPOINT_PLIES plies;
 * and the ends a position reaches by itself (DECISIONS §3), fivefold repetition included, judged along it.
 *
 * ```ts
 * const line = startLine(pos);          // pos: the start position, a chessops Chess played on from here
 * playOn(line, pos, move, 'e2e4');     // plays the move on pos and records it
 * findPositionEnd(pos, line);          // 'checkmate', 'fivefoldRepetition'... or undefined
 * ```
 */
import { equalsIgnoreMoves, normalizeMove, type Chess } from 'chessops/chess';
import type { SquareSet } from 'chessops/squareSet';
import type { NormalMove } from 'chessops/types';
import { parseUci } from 'chessops/util';
import { sanAndPlay } from './san.ts';

/** An end reached by the position itself; undo and redo can leave it. */
export type PositionEnd =
  'checkmate' | 'stalemate' | 'insufficientMaterial' | 'seventyFiveMoveRule' | 'fivefoldRepetition';

/** Plies between two kept positions: an undo replays fewer moves than this, a game keeps one per this many. */
export const CHECKPOINT_PLIES = 64;

/** The moves played from a start position and what is derived along them. Treat every list as immutable. */
export interface Line {
  readonly moves: readonly string[]; // UCI, castling as the king's two-square move
  readonly sans: readonly string[];
  readonly positionHashes: readonly number[]; // positionHashes[i]: positionHash of the position after i moves
  readonly checkpoints: readonly Chess[]; // checkpoints[k]: the position after k * CHECKPOINT_PLIES moves; never mutate
}

/** A line being extended: lists of its own, which `playOn` appends to. */
export interface GrowingLine extends Line {
  readonly moves: string[];
  readonly sans: string[];
  readonly positionHashes: number[];
  readonly checkpoints: Chess[];
}

/** The line of no moves from `pos`. */
export const startLine = (pos: Chess): GrowingLine => ({
  moves: [],
  sans: [],
  positionHashes: [positionHash(pos)],
  checkpoints: [pos.clone()],
});

/** A copy of `line` that may be extended. */
export const growingCopy = (line: Line): GrowingLine => ({
  moves: [...line.moves],
  sans: [...line.sans],
  positionHashes: [...line.positionHashes],
  checkpoints: [...line.checkpoints],
});

/**
 * Plays a legal move (already checked) on `pos` and records it on `line`: its UCI, its SAN, the hash of the
 * position after it and, every CHECKPOINT_PLIES plies, that position.
 */
export function playOn(line: GrowingLine, pos: Chess, move: NormalMove, uci: string): void {
  line.sans.push(sanAndPlay(pos, move));
  line.moves.push(uci);
  line.positionHashes.push(positionHash(pos));
  if (line.moves.length % CHECKPOINT_PLIES === 0) line.checkpoints.push(pos.clone());
}

/** The line without its last move, and the position before that move (replayed from the last checkpoint). */
export function withoutLastMove(line: Line): { line: Line; pos: Chess } {
  const moves = line.moves.slice(0, -1);
  const shorter: Line = {
    moves,
    sans: line.sans.slice(0, -1),
    positionHashes: line.positionHashes.slice(0, -1),
    checkpoints: line.checkpoints.slice(0, Math.floor(moves.length / CHECKPOINT_PLIES) + 1),
  };
  return { line: shorter, pos: positionsAlong(shorter, [moves.length])[0]! };
}

/** Automatic ends in the order of DECISIONS §3: mate, stalemate, material, 75-move rule, fivefold. */
export function findPositionEnd(pos: Chess, line: Line): PositionEnd | undefined {
  const ctx = pos.ctx();
  if (!pos.hasDests(ctx)) return ctx.checkers.isEmpty() ? 'stalemate' : 'checkmate';
  if (pos.isInsufficientMaterial()) return 'insufficientMaterial';
  if (pos.halfmoves >= 150) return 'seventyFiveMoveRule';
  if (isFivefold(pos, line)) return 'fivefoldRepetition';
  return undefined;
}

/** What each end is called in a message, e.g. 'draw by the 75-move rule'. */
export const describeEnd = (end: PositionEnd): string =>
  ({
    checkmate: 'checkmate',
    stalemate: 'stalemate',
    insufficientMaterial: 'insufficient material',
    seventyFiveMoveRule: 'draw by the 75-move rule',
    fivefoldRepetition: 'draw by fivefold repetition',
  })[end];

/**
 * FIDE 9.6.2: the same position (pieces, side to move, castling rights and en-passant capture) has appeared five
 * times, so with no capture or pawn move since the first. Earlier positions are first found by their hash,
 * which every repetition of a position shares; only when five share it are they compared exactly, with chessops'
 * `equalsIgnoreMoves`, on positions replayed from a checkpoint. So no FEN is kept per ply.
 */
function isFivefold(pos: Chess, line: Line): boolean {
  if (pos.halfmoves < 16) return false;
  const hashes = line.positionHashes;
  const last = hashes.length - 1;
  const oldest = Math.max(0, last - pos.halfmoves);
  const candidates: number[] = [];
  for (let i = last - 4; i >= oldest; i -= 2) {
    if (hashes[i] === hashes[last]) candidates.push(i);
  }
  if (candidates.length < 4) return false;
  const same = positionsAlong(line, candidates).filter(earlier => equalsIgnoreMoves(earlier, pos));
  return same.length >= 4;
}

/**
 * A 32-bit hash of the pieces on the board, the side to move and the castling rights: all that
 * `equalsIgnoreMoves` compares but the en-passant square. Two positions that repeat each other have all of these
 * the same, so they always have the same hash; positions with the same hash are not necessarily the same (an
 * en-passant capture, at most once per pawn's two-square move, or a collision), so equality is checked exactly
 * after it.
 */
function positionHash(pos: Chess): number {
  const { board } = pos;
  let hash = pos.turn === 'white' ? 0x3c6ef372 : 0x0a54ff53;
  for (const set of [board.white, board.pawn, board.knight, board.bishop, board.rook, board.queen, board.king]) {
    hash = mixSquares(hash, set);
  }
  return mixSquares(hash, pos.castles.castlingRights);
}

const mixSquares = (hash: number, set: SquareSet): number => {
  const low = Math.imul(hash ^ set.lo, 0xcc9e2d51);
  const high = Math.imul(low ^ (low >>> 15) ^ set.hi, 0x1b873593);
  return high ^ (high >>> 16);
};

/**
 * The positions after the first n moves, for each n of `counts`, replayed from the checkpoint before the smallest.
 * The moves were checked when they were played (or when the game was loaded), so they are only played here.
 */
function positionsAlong(line: Line, counts: readonly number[]): Chess[] {
  const { moves, checkpoints } = line;
  const wanted = new Set(counts);
  const through = Math.max(...counts);
  const from = Math.min(Math.floor(Math.min(...counts) / CHECKPOINT_PLIES), checkpoints.length - 1);
  const pos = checkpoints[from]!.clone();
  const found: Chess[] = [];
  for (let n = from * CHECKPOINT_PLIES; ; n++) {
    if (wanted.has(n)) found.push(pos.clone());
    if (n === through) return found;
    const move = parseUci(moves[n]!);
    if (!move) throw new Error(`a recorded move is not UCI: ${moves[n]}`);
    pos.play(normalizeMove(pos, move));
  }
}
