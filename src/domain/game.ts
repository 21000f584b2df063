/**
 * A game and its transitions. A game is its start position, the moves applied, the redo stack, a pending
 * promotion, a pending draw offer and a final result; position, status, SAN and FEN are derived with
 * chessops and kept beside the record so that a change costs one move. An undo, and the exact check of a likely
 * fivefold repetition, replay moves from the nearest checkpoint (the position every CHECKPOINT_PLIES plies), so
 * they cost the same in a game of 10,000 plies as in one of 40.
 *
 * Every transition is `(game, input) => Result<Change>`: a new game (version + 1) and the one event it
 * causes, or a DomainError and no change.
 *
 * ```ts
 * const game = newGame({ id: 'AbCd1234', createdAt: new Date().toISOString() });
 * const change = makeMove(game, 'e2e4');
 * if (change.ok) save(change.value.game);
 * ```
 */
import { Chess, equalsIgnoreMoves, normalizeMove } from 'chessops/chess';
import { makeSanAndPlay, parseSan } from 'chessops/san';
import type { SquareSet } from 'chessops/squareSet';
import { makeUci, opposite, parseSquare, parseUci } from 'chessops/util';
import type { NormalMove } from 'chessops/types';
import { DomainError, err, ok, type Result } from './errors.ts';
import { checkMove, listLegalMoves } from './moves.ts';
import {
  INITIAL_FEN,
  describePly,
  makeFen,
  makePgnText,
  makeMovetext,
  parsePgnGame,
  parseStrictFen,
  plyOf,
} from './notation.ts';
import type { GameEvent, GameFull, GameState, LegalMove, PlayerInfo } from '../contract/shapes.ts';
import type { Color, DrawAction, GameStatus } from '../contract/vocabulary.ts';
import { DEFAULT_BLACK, DEFAULT_WHITE } from './types.ts';

/** An end that no undo can reverse. */
export type FinalResult = { kind: 'resign'; winner: Color } | { kind: 'drawAgreed' } | { kind: 'drawClaimed' };

/** An end reached by the position itself; undo and redo can leave it. */
export type PositionEnd =
  'checkmate' | 'stalemate' | 'insufficientMaterial' | 'seventyFiveMoveRule' | 'fivefoldRepetition';

/** What is stored: everything else is derived from it. */
export interface GameRecord {
  readonly id: string;
  readonly version: number;
  readonly createdAt: string; // ISO 8601, e.g. '2026-01-31T12:00:00.000Z'
  readonly white: PlayerInfo;
  readonly black: PlayerInfo;
  readonly startFen: string;
  readonly moves: readonly string[]; // UCI, castling as the king's two-square move
  readonly redo: readonly string[]; // undone moves; the next one to redo is last
  readonly pendingPromotion: string | null; // e.g. 'e7e8'
  readonly drawOffer: Color | null; // who offered
  readonly result: FinalResult | null;
}

/** A record together with what is derived from it. Treat every field as immutable. */
export interface Game {
  readonly record: GameRecord;
  readonly pos: Chess; // the current position; never mutate, clone first
  readonly fen: string; // the FEN of pos
  readonly startPly: number;
  readonly sans: readonly string[];
  readonly positionHashes: readonly number[]; // positionHashes[i]: positionHash of the position after i moves
  readonly checkpoints: readonly Chess[]; // checkpoints[k]: the position after k * CHECKPOINT_PLIES moves; never mutate
  readonly positionEnd: PositionEnd | undefined;
}

/** Plies between two kept positions: an undo replays fewer moves than this, a game keeps one per this many. */
export const CHECKPOINT_PLIES = 64;

/** The checkpoints of a line after its `moves`-th move was played on `pos`: one more when `moves` is a multiple. */
const withCheckpoint = (checkpoints: Chess[], moves: number, pos: Chess): Chess[] => {
  if (moves % CHECKPOINT_PLIES === 0) checkpoints.push(pos.clone());
  return checkpoints;
};

/** The result of a successful transition: the next game and the event it causes. */
export interface Change {
  readonly game: Game;
  readonly event: GameEvent & { type: 'gameState' };
}

export interface NewGameInput {
  id: string;
  createdAt: string;
  white?: PlayerInfo | undefined;
  black?: PlayerInfo | undefined;
}

/**
 * What every new game at the standard start shares (its position, FEN, empty lists and end checks), derived
 * once. The lists are frozen, since every new game holds the same ones.
 */
let standardStart: Game | undefined;

function deriveStandardStart(): Game {
  const game = gameFromPosition({ id: '', createdAt: '' }, Chess.default());
  const { record } = game;
  return Object.freeze({
    ...game,
    record: { ...record, moves: Object.freeze([]), redo: Object.freeze([]) },
    sans: Object.freeze([]),
    positionHashes: Object.freeze([...game.positionHashes]),
    checkpoints: Object.freeze([...game.checkpoints]),
  });
}

/** A new game at the standard starting position. */
export function newGame(input: NewGameInput): Game {
  standardStart ??= deriveStandardStart();
  const record: GameRecord = {
    ...standardStart.record,
    id: input.id,
    createdAt: input.createdAt,
    white: input.white ?? DEFAULT_WHITE,
    black: input.black ?? DEFAULT_BLACK,
  };
  return withRecord(standardStart, record);
}

/** A new game from a FEN, checked strictly (DECISIONS §7). */
export function gameFromFen(input: NewGameInput, fen: string): Result<Game> {
  const pos = parseStrictFen(fen);
  return pos.ok ? ok(gameFromPosition(input, pos.value)) : pos;
}

function gameFromPosition(input: NewGameInput, pos: Chess): Game {
  const startFen = makeFen(pos);
  const record: GameRecord = {
    id: input.id,
    version: 1,
    createdAt: input.createdAt,
    white: input.white ?? DEFAULT_WHITE,
    black: input.black ?? DEFAULT_BLACK,
    startFen,
    moves: [],
    redo: [],
    pendingPromotion: null,
    drawOffer: null,
    result: null,
  };
  return derive(record, pos, plyOf(pos), [], [positionHash(pos)], [pos.clone()], startFen);
}

export interface PgnImportOptions {
  maxPlies: number; // e.g. 10000
}

/**
 * A new game replaying the main line of a PGN. Players come from the White/Black tags unless absent or '?'.
 * The game is the same as if its moves had been played one by one (the domain tests compare the two).
 */
export function gameFromPgn(input: NewGameInput, text: string, options: PgnImportOptions): Result<Game> {
  const parsed = parsePgnGame(text, options.maxPlies);
  if (!parsed.ok) return parsed;
  const { headers, start, sans } = parsed.value;
  const player = (tag: string, defaults: PlayerInfo): PlayerInfo => {
    // A display name has 1-100 characters, no control characters and no unpaired surrogates (DECISIONS §2 and
    // §15), whatever the tag holds: controls become a space, an unpaired surrogate the replacement character.
    const tagValue = (headers.get(tag) ?? '').replace(/\p{Cc}+/gu, ' ').replace(/[\uD800-\uDFFF]/gu, '\uFFFD');
    const name = [...tagValue.trim()].slice(0, 100).join('');
    return name === '' || name === '?' ? defaults : { id: defaults.id, displayName: name };
  };
  const initial = gameFromPosition(
    { ...input, white: player('White', DEFAULT_WHITE), black: player('Black', DEFAULT_BLACK) },
    start,
  );
  // The replay plays on one position and appends to its lists; each move is recorded as `playMove` records a
  // played one (its UCI, SAN and position hash), and the automatic ends are checked after each, as `derive` does.
  const pos = initial.pos.clone();
  const moves: string[] = [];
  const played: string[] = [];
  const positionHashes = [...initial.positionHashes];
  const checkpoints = [...initial.checkpoints];
  const line: Line = { moves, positionHashes, checkpoints };
  let end = initial.positionEnd;
  for (let i = 0; i < sans.length; i++) {
    const san = sans[i]!;
    const ply = initial.startPly + i;
    if (end) {
      const why = describeEnd(end);
      return err(
        new DomainError('INVALID_PGN', `PGN move ${describePly(ply, san)} comes after the game ended (${why})`, 'pgn'),
      );
    }
    const move = parseSan(pos, san) as NormalMove | undefined;
    if (!move) {
      const message = `PGN move ${describePly(ply, san)} is illegal or ambiguous in its position`;
      return err(new DomainError('INVALID_PGN', message, 'pgn'));
    }
    moves.push(uciOfChessopsMove(pos, move));
    played.push(makeSanAndPlay(pos, move));
    positionHashes.push(positionHash(pos));
    withCheckpoint(checkpoints, moves.length, pos);
    end = findPositionEnd(pos, line);
  }
  // The import is one creation (version 1): the replay does not count as changes.
  return ok(derive({ ...initial.record, moves }, pos, initial.startPly, played, positionHashes, checkpoints));
}

const describeEnd = (end: PositionEnd): string =>
  ({
    checkmate: 'checkmate',
    stalemate: 'stalemate',
    insufficientMaterial: 'insufficient material',
    seventyFiveMoveRule: 'draw by the 75-move rule',
    fivefoldRepetition: 'draw by fivefold repetition',
  })[end];

/** Rebuilds a stored game by replaying its moves from the start position (done once per load). */
export function restoreGame(record: GameRecord): Game {
  const start = parseStrictFen(record.startFen);
  if (!start.ok) throw new Error(`stored game ${record.id} has an invalid start FEN: ${start.error.message}`);
  const pos = start.value;
  const startPly = plyOf(pos);
  const sans: string[] = [];
  const positionHashes = [positionHash(pos)];
  const checkpoints = [pos.clone()];
  for (const uci of record.moves) {
    const check = checkMove(pos, uci);
    if (check.kind !== 'legal') throw new Error(`stored game ${record.id} has an illegal move ${uci}`);
    sans.push(makeSanAndPlay(pos, check.move));
    positionHashes.push(positionHash(pos));
    withCheckpoint(checkpoints, sans.length, pos);
  }
  return derive(record, pos, startPly, sans, positionHashes, checkpoints);
}

function derive(
  record: GameRecord,
  pos: Chess,
  startPly: number,
  sans: readonly string[],
  positionHashes: readonly number[],
  checkpoints: readonly Chess[],
  fen = makeFen(pos),
): Game {
  const positionEnd = findPositionEnd(pos, { moves: record.moves, positionHashes, checkpoints });
  return { record, pos, fen, startPly, sans, positionHashes, checkpoints, positionEnd };
}

const withRecord = (game: Game, record: GameRecord): Game => ({ ...game, record });

/**
 * The moves played from a start position, the position hash after each (positionHashes[0] is the start's) and the
 * checkpoints along them (checkpoints[0] is the start position).
 */
interface Line {
  readonly moves: readonly string[];
  readonly positionHashes: readonly number[];
  readonly checkpoints: readonly Chess[];
}

/** Automatic ends in the order of DECISIONS §3: mate, stalemate, material, 75-move rule, fivefold. */
function findPositionEnd(pos: Chess, line: Line): PositionEnd | undefined {
  const ctx = pos.ctx();
  if (!pos.hasDests(ctx)) return ctx.checkers.isEmpty() ? 'stalemate' : 'checkmate';
  if (pos.isInsufficientMaterial()) return 'insufficientMaterial';
  if (pos.halfmoves >= 150) return 'seventyFiveMoveRule';
  if (isFivefold(pos, line)) return 'fivefoldRepetition';
  return undefined;
}

/**
 * FIDE 9.6.2: the same position (pieces, side to move, castling rights and en-passant capture) has appeared five
 * times, so with no capture or pawn move since the first. Earlier positions are first found by their hash,
 * which every repetition of a position shares; only when five share it are they compared exactly, with chessops'
 * `equalsIgnoreMoves`, on positions replayed from the start. So no FEN is kept per ply.
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

/**
 * About how many bytes of heap a game in memory holds: its record and derived state, and the answers serialized
 * from it while it is current (GameFull and the legal moves). Measured on Node.js 24 with games of 0 to 10,000
 * plies restored from the store: about 5.7 KB for an empty game and 100 bytes more per ply (a move, its SAN and
 * position hash, a checkpoint every CHECKPOINT_PLIES plies and the answers' share); the estimate rounds both up.
 */
export const approximateBytes = (game: Game): number =>
  6_000 + 104 * (game.record.moves.length + game.record.redo.length);

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
  if (record.result) return record.result.kind === 'resign' ? 'resign' : 'draw';
  if (record.pendingPromotion) return 'promotionPending';
  if (record.drawOffer) return 'drawOffered';
  if (pos.halfmoves >= 100) return 'fiftyMoveAvailable';
  if (pos.isCheck()) return 'check';
  return 'started';
}

export function winnerOf(game: Game): Color | null {
  if (game.positionEnd === 'checkmate') return opposite(game.pos.turn);
  if (game.record.result?.kind === 'resign') return game.record.result.winner;
  return null;
}

export const isOver = (game: Game): boolean => game.positionEnd !== undefined || game.record.result !== null;

/** `state.pgn`: the movetext of the game so far. */
export const movetextOf = (game: Game): string => makeMovetext(game.startPly, game.sans);

/** The FEN of the current position. */
export const fenOf = (game: Game): string => game.fen;

export function gameStateOf(game: Game): GameState {
  const { record } = game;
  return {
    fen: fenOf(game),
    pgn: movetextOf(game),
    turn: game.pos.turn,
    status: statusOf(game),
    winner: winnerOf(game),
    moves: [...record.moves],
    undoAvailable: record.result === null && record.moves.length > 0,
    redoAvailable: record.result === null && record.redo.length > 0,
  };
}

export const gameFullOf = (game: Game): GameFull => ({
  gameId: game.record.id,
  white: game.record.white,
  black: game.record.black,
  state: gameStateOf(game),
});

/** Legal moves of the side to move, none once the game is over (DECISIONS §4). */
export function legalMovesOf(game: Game, square?: string): LegalMove[] {
  if (isOver(game)) return [];
  if (square === undefined || square === '') return listLegalMoves(game.pos);
  return listLegalMoves(game.pos, parseSquare(square));
}

/** The PGN result token of the game: `1-0`, `0-1`, `1/2-1/2` or `*`. */
export function resultToken(game: Game): string {
  if (!isOver(game)) return '*';
  const winner = winnerOf(game);
  return winner === 'white' ? '1-0' : winner === 'black' ? '0-1' : '1/2-1/2';
}

export interface PgnExportOptions {
  site: string; // '?' or the game's public address
}

/** The full PGN of DECISIONS §8: seven tags, SetUp/FEN for a non-standard start, wrapped movetext, result. */
export function exportPgn(game: Game, options: PgnExportOptions): string {
  const { record } = game;
  const result = resultToken(game);
  const tags: Array<[string, string]> = [
    ['Event', 'Casual game'],
    ['Site', options.site],
    ['Date', record.createdAt.slice(0, 10).replace(/-/g, '.')],
    ['Round', '-'],
    ['White', record.white.displayName],
    ['Black', record.black.displayName],
    ['Result', result],
  ];
  if (record.startFen !== INITIAL_FEN) tags.push(['SetUp', '1'], ['FEN', record.startFen]);
  return makePgnText({ tags, startPly: game.startPly, sans: game.sans, result });
}

const gameOver = (game: Game): Result<never> =>
  err(new DomainError('GAME_OVER', `the game is over (${statusOf(game)})`));

const change = (game: Game, record: Omit<GameRecord, 'version'>): Result<Change> => {
  const next: Game = { ...game, record: { ...record, version: game.record.version + 1 } };
  return ok({ game: next, event: { type: 'gameState', state: gameStateOf(next) } });
};

/** Plays a legal chessops move (already checked) and returns the game after it. */
function playMove(game: Game, move: NormalMove, uci: string): Game {
  const pos = game.pos.clone();
  const san = makeSanAndPlay(pos, move);
  const positionHashes = [...game.positionHashes, positionHash(pos)];
  const record: GameRecord = {
    ...game.record,
    version: game.record.version + 1,
    moves: [...game.record.moves, uci],
    redo: [],
    pendingPromotion: null,
    drawOffer: null,
  };
  const checkpoints = withCheckpoint([...game.checkpoints], record.moves.length, pos);
  return derive(record, pos, game.startPly, [...game.sans, san], positionHashes, checkpoints);
}

/** The API's UCI of a chessops move: castling as the king's two-square move. */
function uciOfChessopsMove(pos: Chess, move: NormalMove): string {
  const piece = pos.board.get(move.from);
  if (piece?.role === 'king' && pos.board[pos.turn].has(move.to)) {
    const to = move.to > move.from ? move.from + 2 : move.from - 2;
    return makeUci({ from: move.from, to });
  }
  return makeUci(move);
}

/** DECISIONS §4: GAME_OVER, then legality; a pawn reaching the last rank without a piece is held pending. */
export function makeMove(game: Game, uci: string): Result<Change> {
  if (isOver(game)) return gameOver(game);
  const check = checkMove(game.pos, uci);
  switch (check.kind) {
    case 'illegal':
      return err(new DomainError('INVALID_MOVE', check.reason, 'uci'));
    case 'needsPromotion':
      return change(game, { ...game.record, pendingPromotion: uci });
    case 'legal': {
      const next = playMove(game, check.move, uci);
      return ok({ game: next, event: { type: 'gameState', state: gameStateOf(next) } });
    }
  }
}

export function undo(game: Game): Result<Change> {
  const { record } = game;
  if (record.result) return gameOver(game);
  if (record.moves.length === 0) return err(new DomainError('NO_UNDO', 'there is no move to undo'));
  const moves = record.moves.slice(0, -1);
  const positionHashes = game.positionHashes.slice(0, -1);
  const checkpoints = game.checkpoints.slice(0, Math.floor(moves.length / CHECKPOINT_PLIES) + 1);
  const [pos] = positionsAlong({ moves, positionHashes, checkpoints }, [moves.length]);
  const next: GameRecord = {
    ...record,
    version: record.version + 1,
    moves,
    redo: [...record.redo, record.moves[record.moves.length - 1]!],
    pendingPromotion: null,
    drawOffer: null,
  };
  const nextGame = derive(next, pos!, game.startPly, game.sans.slice(0, -1), positionHashes, checkpoints);
  return ok({ game: nextGame, event: { type: 'gameState', state: gameStateOf(nextGame) } });
}

export function redo(game: Game): Result<Change> {
  const { record } = game;
  if (record.result) return gameOver(game);
  const uci = record.redo[record.redo.length - 1];
  if (uci === undefined) return err(new DomainError('NO_REDO', 'there is no move to redo'));
  const check = checkMove(game.pos, uci);
  if (check.kind !== 'legal') throw new Error(`game ${record.id}: redo move ${uci} is not legal`);
  const played = playMove(game, check.move, uci);
  const nextGame = withRecord(played, { ...played.record, redo: record.redo.slice(0, -1) });
  return ok({ game: nextGame, event: { type: 'gameState', state: gameStateOf(nextGame) } });
}

export function resign(game: Game): Result<Change> {
  if (isOver(game)) return gameOver(game);
  const winner = opposite(game.pos.turn);
  return change(game, { ...game.record, result: { kind: 'resign', winner }, pendingPromotion: null, drawOffer: null });
}

/** DECISIONS §6, after the action itself was validated: GAME_OVER, then the action's own rule. */
export function drawAction(game: Game, action: DrawAction): Result<Change> {
  if (isOver(game)) return gameOver(game);
  const { record } = game;
  switch (action) {
    case 'offer':
      if (record.drawOffer) {
        return err(new DomainError('DRAW_ALREADY_OFFERED', `${record.drawOffer} has already offered a draw`));
      }
      return change(game, { ...record, drawOffer: game.pos.turn });
    case 'accept':
      if (!record.drawOffer) return err(new DomainError('NO_DRAW_OFFER', 'there is no draw offer to accept'));
      return change(game, { ...record, result: { kind: 'drawAgreed' }, drawOffer: null, pendingPromotion: null });
    case 'decline':
      if (!record.drawOffer) return err(new DomainError('NO_DRAW_OFFER', 'there is no draw offer to decline'));
      return change(game, { ...record, drawOffer: null });
    case 'claim':
      if (game.pos.halfmoves < 100) {
        return err(
          new DomainError(
            'CLAIM_NOT_AVAILABLE',
            `a fifty-move draw can be claimed only after 50 moves by each side without a capture or pawn move (halfmove clock ${game.pos.halfmoves} of 100)`,
          ),
        );
      }
      return change(game, { ...record, result: { kind: 'drawClaimed' }, drawOffer: null, pendingPromotion: null });
  }
}
