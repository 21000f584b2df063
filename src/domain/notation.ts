/**
 * FEN and PGN in and out, thin over chessops: chessops parses and writes the notation, this module adds the
 * strict checks and exact layouts of the API (DECISIONS §7, §8).
 *
 * ```ts
 * const pos = parseStrictFen('8/8/8/8/8/8/8/K6k w - - 0 1'); // Result<Chess, DomainError>
 * makeMovetext(pos.value, ['Ka2']); // '1. Ka2'
 * ```
 */
import { knightAttacks, queenAttacks } from 'chessops/attacks';
import { boardEquals, type Board } from 'chessops/board';
import { Chess, isImpossibleCheck } from 'chessops/chess';
import { INITIAL_FEN, makeFen as chessopsMakeFen, parseBoardFen, parseFen } from 'chessops/fen';
import { parsePgn, emptyHeaders } from 'chessops/pgn';
import { defaultSetup } from 'chessops/setup';
import { SquareSet } from 'chessops/squareSet';
import { defined, makeSquare, opposite, parseSquare, squareRank } from 'chessops/util';
import type { Position } from 'chessops/chess';
import type { NormalMove, Role, Square, SquareName } from 'chessops/types';
import { DomainError, err, ok, type Result } from './errors.ts';
import { scanPgn } from './pgnScan.ts';

export { INITIAL_FEN };

const RANK_CHARS = /^[pnbrqkPNBRQK1-8]+$/;
const CASTLING_RULES: Record<string, { color: 'white' | 'black'; king: SquareName; rook: SquareName }> = {
  K: { color: 'white', king: 'e1', rook: 'h1' },
  Q: { color: 'white', king: 'e1', rook: 'a1' },
  k: { color: 'black', king: 'e8', rook: 'h8' },
  q: { color: 'black', king: 'e8', rook: 'a8' },
};

const fenError = (message: string): Result<never> => err(new DomainError('INVALID_FEN', message, 'fen'));

/** How a FEN is read: `stored`, a start position this service accepted before (see parseStrictFen). */
export interface FenReading {
  readonly stored?: boolean;
}

/**
 * Parses a FEN of standard chess and checks that it describes a legal position, with a message naming the
 * first problem found. Castling rights and en-passant squares are checked, not silently dropped. A check from
 * two pieces must be one some last move can give (`canFollowAMove`); a stored start position (`stored`) is read
 * without that rule, which older versions of the service did not have, so that the games they kept still load.
 */
export function parseStrictFen(text: string, reading: FenReading = {}): Result<Chess> {
  const fields = text.trim().split(/\s+/);
  if (fields.length !== 6) {
    return fenError(
      `FEN must have 6 space-separated fields (board, turn, castling, en passant, halfmove clock, fullmove number); found ${fields.length}`,
    );
  }
  const [board, turn, castling, ep, halfmoves, fullmoves] = fields as [string, string, string, string, string, string];
  const ranks = board.split('/');
  if (ranks.length !== 8) return fenError(`FEN board must have 8 ranks separated by '/'; found ${ranks.length}`);
  for (let i = 0; i < 8; i++) {
    const rank = ranks[i]!;
    const rankName = 8 - i;
    if (!RANK_CHARS.test(rank)) {
      const bad = [...rank].find(c => !/[pnbrqkPNBRQK1-8]/.test(c));
      return fenError(
        bad === undefined ? `FEN rank ${rankName} is empty` : `FEN rank ${rankName} has an invalid character '${bad}'`,
      );
    }
    let squares = 0;
    for (const c of rank) squares += /\d/.test(c) ? Number(c) : 1;
    if (squares !== 8) return fenError(`FEN rank ${rankName} describes ${squares} squares instead of 8`);
  }
  if (turn !== 'w' && turn !== 'b') return fenError(`FEN side to move must be 'w' or 'b'; found '${turn}'`);
  if (castling !== '-' && !/^[KQkq]{1,4}$/.test(castling)) {
    return fenError(`FEN castling field must be '-' or a combination of K, Q, k, q; found '${castling}'`);
  }
  if (castling !== '-' && new Set(castling).size !== castling.length) {
    return fenError(`FEN castling field repeats a right: '${castling}'`);
  }
  if (ep !== '-' && !/^[a-h][36]$/.test(ep)) {
    return fenError(`FEN en-passant field must be '-' or a square on rank 3 or 6; found '${ep}'`);
  }
  if (!/^\d{1,4}$/.test(halfmoves)) {
    return fenError(`FEN halfmove clock must be an integer from 0 to 9999; found '${halfmoves}'`);
  }
  if (!/^\d{1,4}$/.test(fullmoves) || Number(fullmoves) < 1) {
    return fenError(`FEN fullmove number must be an integer from 1 to 9999; found '${fullmoves}'`);
  }

  const parsed = parseFen(fields.join(' '));
  if (parsed.isErr) return fenError(`FEN could not be read (${parsed.error.message})`);
  const setup = parsed.value;

  for (const color of ['white', 'black'] as const) {
    const kings = setup.board.pieces(color, 'king').size();
    if (kings !== 1) return fenError(`FEN must have exactly one ${color} king; found ${kings}`);
  }
  if (setup.board.pawn.intersects(SquareSet.backranks())) {
    return fenError('FEN has a pawn on rank 1 or 8');
  }
  for (const right of castling === '-' ? '' : castling) {
    const rule = CASTLING_RULES[right]!;
    const king = setup.board.get(parseSquare(rule.king));
    const rook = setup.board.get(parseSquare(rule.rook));
    if (king?.role !== 'king' || king.color !== rule.color || rook?.role !== 'rook' || rook.color !== rule.color) {
      return fenError(
        `FEN castling right '${right}' needs the ${rule.color} king on ${rule.king} and a ${rule.color} rook on ${rule.rook}`,
      );
    }
  }
  if (defined(setup.epSquare)) {
    const problem = epSquareProblem(setup.board, setup.turn, setup.epSquare);
    if (problem) return fenError(`FEN en-passant square ${ep} is not possible: ${problem}`);
  }

  const pos = Chess.fromSetup(setup);
  if (pos.isErr) {
    const code = pos.error.message;
    if (code === 'ERR_OPPOSITE_CHECK') {
      return fenError(
        `FEN is not a legal position: ${opposite(setup.turn)} is in check but it is ${setup.turn} to move`,
      );
    }
    return fenError(`FEN is not a legal position (${code})`);
  }
  if (isImpossibleCheck(pos.value)) {
    const checkers = pos.value.ctx().checkers.size();
    return fenError(
      checkers > 1
        ? `FEN is not a legal position: impossible check: ${setup.turn} is in check from ${checkers} pieces at once, which no last move can give`
        : `FEN is not a legal position: impossible check: ${setup.turn} is in check, which the last move (the two-square pawn move the en-passant square ${ep} names) cannot have given`,
    );
  }
  const checkers = pos.value.ctx().checkers;
  if (!reading.stored && checkers.size() === 2 && !canFollowAMove(pos.value)) {
    const squares = [...checkers].map(makeSquare).join(' and ');
    return fenError(
      `FEN is not a legal position: impossible check: ${setup.turn} is in check from 2 pieces at once (on ${squares}), which no last move can give`,
    );
  }
  return ok(pos.value);
}

/** What the side that moved last may have taken on the square it moved to: nothing, or any piece but a king. */
const TAKEN: ReadonlyArray<Role | undefined> = [undefined, 'knight', 'bishop', 'rook', 'queen', 'pawn'];

/**
 * Whether some move of the side not to move, from a position where the side to move was not in check (else it
 * would not have been the other side's turn), leaves `pos`'s board (DECISIONS §15). chessops' `isImpossibleCheck`
 * refuses three checkers, two aligned with the king and two that are pawns or knights; other pairs pass it,
 * though many no move can give, such as two bishops on b4 and h4 against a king on e1. A double check is a
 * discovered check joined by the check of the piece that moved (as it was, or promoted), or two lines opened at
 * once by an en-passant capture; rather than list which pairs of pieces and lines can go together, the last move
 * is searched for, and chessops judges each candidate: every checker, and every pawn that may just have taken en
 * passant, is put back on each empty square it may have come from (any square a queen or a knight reaches from
 * where it stands), with or without a piece it took there, promoted or not; the move counts if chessops finds it
 * legal in that earlier position and it leaves this board. Castling is not tried: the rook's check is the only
 * one it can give, since the king and rook leave squares on the edge whose lines the rook's new square closes.
 */
function canFollowAMove(pos: Chess): boolean {
  const { board } = pos;
  const mover = opposite(pos.turn);
  const lastRank = mover === 'white' ? 7 : 0;
  const forward = mover === 'white' ? 8 : -8;
  const origins = (to: Square) => queenAttacks(to, board.occupied).union(knightAttacks(to)).diff(board.occupied);
  for (const to of pos.ctx().checkers) {
    const { role } = board.get(to)!;
    const promoted = role !== 'pawn' && role !== 'king' && squareRank(to) === lastRank;
    for (const from of origins(to)) {
      for (const taken of TAKEN) {
        if (leadsTo(pos, { from, to }, role, taken)) return true;
        if (promoted && leadsTo(pos, { from, to, promotion: role }, 'pawn', taken)) return true;
      }
    }
  }
  // Two lines opened by one move: only an en-passant capture empties two squares that can both be on one.
  const landed = board.pieces(mover, 'pawn').intersect(SquareSet.fromRank(mover === 'white' ? 5 : 2));
  for (const to of landed) {
    const passed = to - forward; // the pawn it took stood there
    if (board.occupied.has(passed)) continue;
    for (const from of origins(to)) {
      if (leadsTo(pos, { from, to }, 'pawn', undefined, passed)) return true;
    }
  }
  return false;
}

/**
 * Whether `move`, played by the side not to move in `pos` from the position before it, is legal there and leaves
 * `pos`'s board: the moving piece (a `role` of that side) stood on `move.from`, `taken` (a piece of the side to
 * move) on `move.to`, and, for an en-passant capture, a pawn of the side to move on `passed`.
 */
function leadsTo(pos: Chess, move: NormalMove, role: Role, taken: Role | undefined, passed?: Square): boolean {
  const mover = opposite(pos.turn);
  const before: Board = pos.board.clone();
  before.take(move.to);
  before.set(move.from, { role, color: mover });
  if (taken) before.set(move.to, { role: taken, color: pos.turn });
  if (passed !== undefined) before.set(passed, { role: 'pawn', color: pos.turn });
  const setup = {
    ...defaultSetup(),
    board: before,
    turn: mover,
    castlingRights: SquareSet.empty(),
    epSquare: passed === undefined ? undefined : move.to,
  };
  // fromSetup refuses an earlier position in which the side to move now was in check on the other side's turn.
  const earlier = Chess.fromSetup(setup);
  if (earlier.isErr || !earlier.value.isLegal(move)) return false;
  const after = earlier.value.clone();
  after.play(move);
  return boardEquals(after.board, pos.board);
}

/**
 * A PGN's `FEN` tag, read as lichess and pgn-extract read real files (DECISIONS §8), then checked as strictly as
 * the FEN endpoint: counters that are missing (an EPD-like four fields) are `0 1`, a fullmove number of 0 (common
 * in puzzle collections) counts as 1, and a castling right whose king or rook is not on its square, or an
 * en-passant square no two-square pawn move can have left, is dropped. Anything else is still INVALID_FEN.
 */
export function parsePgnFenTag(text: string): Result<Chess> {
  const fields = text.trim().split(/\s+/);
  if (fields.length === 4) fields.push('0', '1');
  if (fields.length === 6) {
    const [boardText, turn, castling, ep] = fields as [string, string, string, string];
    const board = parseBoardFen(boardText);
    if (board.isOk && (turn === 'w' || turn === 'b')) {
      if (/^[KQkq]+$/.test(castling)) {
        const possible = [...castling].filter(right => {
          const rule = CASTLING_RULES[right]!;
          const king = board.value.get(parseSquare(rule.king));
          const rook = board.value.get(parseSquare(rule.rook));
          return (
            king?.role === 'king' && king.color === rule.color && rook?.role === 'rook' && rook.color === rule.color
          );
        });
        fields[2] = possible.length > 0 ? possible.join('') : '-';
      }
      if (/^[a-h][36]$/.test(ep)) {
        const square = parseSquare(ep as SquareName);
        if (epSquareProblem(board.value, turn === 'w' ? 'white' : 'black', square)) fields[3] = '-';
      }
    }
    if (fields[5] === '0') fields[5] = '1';
  }
  return parseStrictFen(fields.join(' '));
}

function epSquareProblem(board: Board, turn: 'white' | 'black', ep: number): string | undefined {
  const expectedRank = turn === 'white' ? 5 : 2;
  if (squareRank(ep) !== expectedRank) {
    return `with ${turn} to move it must be on rank ${expectedRank + 1}`;
  }
  const forward = turn === 'white' ? 8 : -8;
  const pawnSquare = ep - forward;
  const pawn = board.get(pawnSquare);
  if (pawn?.role !== 'pawn' || pawn.color === turn) {
    return `there is no ${opposite(turn)} pawn on ${makeSquare(pawnSquare)} that could just have moved two squares`;
  }
  if (board.occupied.has(ep) || board.occupied.has(ep + forward)) {
    return `${makeSquare(ep)} and ${makeSquare(ep + forward)} must be empty after a two-square pawn move`;
  }
  return undefined;
}

/**
 * The FEN of a position, with the en-passant square only when an en-passant capture is legal. Unlike
 * chessops' `toSetup`, the move counters are written as they are, not clamped. A FEN is made for every move:
 * `toSetup` (a copy of the board, and the legality of an en-passant capture) is asked only after a two-square pawn
 * move, the only time there is an en-passant square to judge; otherwise the position's own board is written.
 */
export function makeFen(pos: Position): string {
  return chessopsMakeFen({
    board: pos.board,
    pockets: pos.pockets,
    turn: pos.turn,
    castlingRights: pos.castles.castlingRights,
    epSquare: pos.epSquare === undefined ? undefined : pos.toSetup().epSquare,
    remainingChecks: pos.remainingChecks,
    halfmoves: pos.halfmoves,
    fullmoves: pos.fullmoves,
  });
}

/** A position this service wrote itself (a stored start or an earlier position): a parse failure is a bug. */
export function positionFromFen(fen: string): Chess {
  return parseFen(fen)
    .chain(setup => Chess.fromSetup(setup))
    .unwrap(
      pos => pos,
      error => {
        throw new Error(`a stored FEN does not parse (${error.message}): ${fen}`);
      },
    );
}

/** Plies already played before a position, counted from the standard start (white's first move is ply 0). */
export const plyOf = (pos: Position): number => (pos.fullmoves - 1) * 2 + (pos.turn === 'white' ? 0 : 1);

/**
 * Movetext of the API's `state.pgn`: SAN with move numbers and single spaces, no result. A game that starts
 * with black to move opens with `12... Kf8`.
 */
export function makeMovetext(startPly: number, sans: readonly string[]): string {
  return movetextTokens(startPly, sans).join(' ');
}

/** The movetext of the move at index `i` from the start (`12. Nf3`, `12... Kf8` first for black, else `Kf8`). */
export function movetextToken(startPly: number, i: number, san: string): string {
  const ply = startPly + i;
  const number = Math.floor(ply / 2) + 1;
  if (ply % 2 === 0) return `${number}. ${san}`;
  return i === 0 ? `${number}... ${san}` : san;
}

function movetextTokens(startPly: number, sans: readonly string[], comments?: readonly string[]): string[] {
  const tokens: string[] = [];
  for (let i = 0; i < sans.length; i++) {
    const ply = startPly + i;
    const number = Math.floor(ply / 2) + 1;
    if (ply % 2 === 0) tokens.push(`${number}.`);
    else if (i === 0 || comments) tokens.push(`${number}...`);
    tokens.push(sans[i]!);
    const comment = comments?.[i];
    if (comment) tokens.push(`{${comment}}`);
  }
  return tokens;
}

export interface PgnExport {
  tags: ReadonlyArray<readonly [string, string]>;
  startPly: number;
  sans: readonly string[];
  result: string;
  comments?: readonly string[] | undefined; // a comment after each move, e.g. '[%clk 0:04:58]'
}

/** A full PGN: tags, a blank line, movetext wrapped at 80 columns ending with the result, a final newline. */
export function makePgnText({ tags, startPly, sans, result, comments }: PgnExport): string {
  const header = tags.map(([name, value]) => `[${name} "${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"]`);
  const lines: string[] = [];
  let line = '';
  for (const token of [...movetextTokens(startPly, sans, comments), result]) {
    if (line && line.length + 1 + token.length > 80) {
      lines.push(line);
      line = token;
    } else {
      line = line ? `${line} ${token}` : token;
    }
  }
  lines.push(line);
  return `${header.join('\n')}\n\n${lines.join('\n')}\n`;
}

export interface ParsedPgn {
  headers: Map<string, string>;
  start: Chess;
  sans: string[];
}

const pgnError = (message: string): Result<never> => err(new DomainError('INVALID_PGN', message, 'pgn'));

/**
 * Reads exactly one game: its tags, its starting position (`SetUp`/`FEN`, checked as strictly as a FEN
 * import) and the SAN of its main line. Comments, NAGs, variations and the result token are skipped.
 */
export function parsePgnGame(text: string, maxPlies: number): Result<ParsedPgn> {
  const scan = scanPgn(text);
  if (!scan.ok) return scan;
  const games = parsePgn(scan.value.normalized, emptyHeaders);
  if (games.length !== 1) return pgnError(`PGN must contain exactly one game; found ${games.length}`);
  const game = games[0]!;
  const variant = game.headers.get('Variant');
  if (variant !== undefined && !/^(standard|chess|from position)$/i.test(variant.trim())) {
    return pgnError(`PGN variant '${variant}' is not supported; only standard chess is`);
  }
  let start: Chess = Chess.default();
  const fen = game.headers.get('FEN');
  if (fen !== undefined) {
    const parsed = parsePgnFenTag(fen);
    if (!parsed.ok) return pgnError(`PGN FEN tag is invalid: ${parsed.error.message}`);
    start = parsed.value;
  }
  const { mainline, unreadable } = scan.value;
  if (mainline.length > maxPlies) return pgnError(`PGN has more than ${maxPlies} moves (plies) in its main line`);
  if (unreadable) {
    const where =
      unreadable.mainlineIndex === undefined
        ? `'${unreadable.token}' in a variation`
        : `move ${describePly(plyOf(start) + unreadable.mainlineIndex, unreadable.token)}`;
    return pgnError(`PGN ${where} is not a move in SAN (standard algebraic notation)`);
  }
  const sans = [...game.moves.mainline()].map(data => data.san);
  // Both readers saw the same number of main-line moves (chessops spells some differently, 0-0 as O-O);
  // anything else is text one of them misread, so refuse it.
  if (sans.length !== mainline.length) {
    return pgnError('PGN movetext could not be read unambiguously');
  }
  return ok({ headers: game.headers, start, sans });
}

/** Names a ply the way PGN does: `12. e4` or `12... e5`. */
export const describePly = (ply: number, san: string): string =>
  `${Math.floor(ply / 2) + 1}${ply % 2 === 0 ? '.' : '...'} ${san}`;
