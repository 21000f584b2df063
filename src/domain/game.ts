/**
 * A game: its record and what is derived from it. A game is its start position, the moves applied, the redo
 * stack, its seats, a pending promotion, pending draw and takeback offers, its clock and a final result;
 * position, status, SAN and FEN are derived with chessops and kept beside the record (the line, `line.ts`) so that
 * a change costs one move. An undo, and the exact check of a likely fivefold repetition, replay moves from the
 * nearest checkpoint, so they cost the same in a game of 10,000 plies as in one of 40.
 *
 * The transitions are `transitions.ts`'s, the status `status.ts`'s, the views `views.ts`'s, PGN `pgn.ts`'s, the
 * clock `clock.ts`'s.
 *
 * ```ts
 * const game = newGame({ id: 'AbCd1234', createdAt: new Date().toISOString() });
 * const restored = restoreGame(game.record); // the same game, replayed from its record
 * ```
 */
import { Chess } from 'chessops/chess';
import type { PlayerInfo } from '../contract/shapes.ts';
import type { GameEvent } from '../contract/events.ts';
import type { Color } from '../contract/vocabulary.ts';
import { newClock, type Clock, type TimeControl } from './clock.ts';
import { ok, type Result } from './errors.ts';
import { findPositionEnd, playOn, startLine, type Line, type PositionEnd } from './line.ts';
import { checkMove, storedMove } from './moves.ts';
import { INITIAL_FEN, makeFen, parseStrictFen, plyOf } from './notation.ts';
import { DEFAULT_BLACK, DEFAULT_WHITE } from './types.ts';

/** An end that no undo can reverse. */
export type FinalResult =
  | { kind: 'resign'; winner: Color }
  | { kind: 'drawAgreed' }
  | { kind: 'drawClaimed' }
  | { kind: 'outOfTime'; winner: Color | null } // null: the side left had no mating material
  | { kind: 'aborted' }
  | { kind: 'timeout'; winner: Color }; // claimed after the opponent left the game (DECISIONS §17)

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
  readonly takebackOffer: Color | null; // who offered
  readonly result: FinalResult | null;
  readonly clock: Clock | null; // null: an untimed game
  readonly moveClocks: readonly number[]; // a clocked game's mover's time left after each move (ms), as `moves`
  readonly source?: 'lobby'; // how it was made, where lichess tells it: paired from seeks; absent otherwise
  readonly rated?: boolean; // a rated game (DECISIONS §21); absent: casual
  readonly ratings?: GameRatings; // each side's rating at the start and, once a rated game is rated, its change
}

/** A side's rating in a game: as it stood when the game began, and its change once the game was rated. */
export interface SeatRating {
  readonly rating: number; // truncated
  readonly provisional: boolean;
  readonly ratingDiff?: number; // the truncated rating after the game less the one before; absent until rated
}

export interface GameRatings {
  readonly white: SeatRating;
  readonly black: SeatRating;
  readonly ratedAt?: number; // when a rated game was rated (ms since the epoch): the time its ratings were computed at
}

/** A record together with what is derived from it: its line (but `moves`, the record's) and its position. */
export interface Game extends Omit<Line, 'moves'> {
  readonly record: GameRecord;
  readonly pos: Chess; // the current position; never mutate, clone first
  readonly fen: string; // the FEN of pos
  readonly startPly: number;
  readonly positionEnd: PositionEnd | undefined;
}

/** The result of a successful transition: the next game and the event it causes. */
export interface Change {
  readonly game: Game;
  readonly event: GameEvent & { type: 'gameState' };
}

export interface NewGameInput {
  id: string;
  createdAt: string; // ISO 8601; a clock starts then
  white?: PlayerInfo | undefined;
  black?: PlayerInfo | undefined;
  clock?: TimeControl | undefined;
  source?: 'lobby' | undefined; // paired from seeks (DECISIONS §16a)
  rated?: boolean | undefined; // DECISIONS §21
  ratings?: GameRatings | undefined; // the sides' ratings as the game begins
}

/** The line of a game. */
export const lineOf = (game: Game): Line => ({
  moves: game.record.moves,
  sans: game.sans,
  positionHashes: game.positionHashes,
  checkpoints: game.checkpoints,
});

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
    record: { ...record, moves: Object.freeze([]), redo: Object.freeze([]), moveClocks: Object.freeze([]) },
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
    clock: clockOf(input),
    ...(input.source ? { source: input.source } : {}),
    ...(input.rated ? { rated: true } : {}),
    ...(input.ratings ? { ratings: input.ratings } : {}),
  };
  return withRecord(standardStart, record);
}

/** A new game from a FEN, checked strictly (DECISIONS §7). */
export function gameFromFen(input: NewGameInput, fen: string): Result<Game> {
  const pos = parseStrictFen(fen);
  return pos.ok ? ok(gameFromPosition(input, pos.value)) : pos;
}

/** A new game (version 1, no moves) from a position already checked. */
export function gameFromPosition(input: NewGameInput, pos: Chess): Game {
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
    takebackOffer: null,
    result: null,
    clock: clockOf(input),
    moveClocks: [],
  };
  return derive(record, pos, plyOf(pos), startLine(pos), startFen);
}

/** The clock of a new game, started at its creation; `plies` moves already played (an import's). */
export const clockOf = (input: NewGameInput, plies = 0): Clock | null =>
  input.clock ? newClock(input.clock, Date.parse(input.createdAt), plies) : null;

/**
 * Rebuilds a stored game by replaying its moves from the start position (done once per load). `trusted`: the moves
 * are taken as the store holds them, legal when they were written, without checking each again (an export reads
 * games it does not change, many at a time; the check is half of a replay's cost).
 */
export function restoreGame(record: GameRecord, { trusted = false }: { trusted?: boolean } = {}): Game {
  const start = parseStrictFen(record.startFen, { stored: true });
  if (!start.ok) throw new Error(`stored game ${record.id} has an invalid start FEN: ${start.error.message}`);
  const pos = start.value;
  const startPly = plyOf(pos);
  const line = startLine(pos);
  for (const uci of record.moves) {
    if (trusted) {
      playOn(line, pos, storedMove(pos, uci), uci);
      continue;
    }
    const check = checkMove(pos, uci);
    if (check.kind !== 'legal') throw new Error(`stored game ${record.id} has an illegal move ${uci}`);
    playOn(line, pos, check.move, uci);
  }
  return derive(record, pos, startPly, line);
}

/**
 * A stored game as an export reads it (DECISIONS §22), for its views alone: restoreGame's trusted replay, but from a
 * new standard position rather than its FEN parsed again (most games start there), and its FEN written only when a
 * view asks for it (an export's `lastFen`). An export restores every game of an archive; this is most of its work.
 */
export function restoreForExport(record: GameRecord): Game {
  let pos: Chess;
  if (record.startFen === INITIAL_FEN) pos = Chess.default();
  else {
    const start = parseStrictFen(record.startFen, { stored: true });
    if (!start.ok) throw new Error(`stored game ${record.id} has an invalid start FEN: ${start.error.message}`);
    pos = start.value;
  }
  const startPly = plyOf(pos);
  const line = startLine(pos);
  for (const uci of record.moves) playOn(line, pos, storedMove(pos, uci), uci);
  const { moves, sans, positionHashes, checkpoints } = line;
  const positionEnd = findPositionEnd(pos, line);
  let fen: string | undefined;
  return {
    record: { ...record, moves },
    pos,
    get fen() {
      return (fen ??= makeFen(pos));
    },
    startPly,
    sans,
    positionHashes,
    checkpoints,
    positionEnd,
  };
}

/** The game of `record` with `line` as its moves, `pos` the position they reach. */
export function derive(record: GameRecord, pos: Chess, startPly: number, line: Line, fen = makeFen(pos)): Game {
  const { moves, sans, positionHashes, checkpoints } = line;
  const positionEnd = findPositionEnd(pos, line);
  return { record: { ...record, moves }, pos, fen, startPly, sans, positionHashes, checkpoints, positionEnd };
}

const withRecord = (game: Game, record: GameRecord): Game => ({ ...game, record });

/**
 * About how many bytes of heap a game in memory holds: its record and derived state, and the answers serialized
 * from it while it is current (GameFull and the legal moves). Measured on Node.js 24 with games of 0 to 10,000
 * plies restored from the store: about 5.7 KB for an empty game and 100 bytes more per ply (a move, its SAN and
 * position hash, a checkpoint every CHECKPOINT_PLIES plies and the answers' share); the estimate rounds both up.
 */
export const approximateBytes = (game: Game): number =>
  6_000 + 104 * (game.record.moves.length + game.record.redo.length) + 8 * game.record.moveClocks.length;

/** The side that moves first from the game's start position. */
export const firstMoverOf = (game: Game): Color => (game.startPly % 2 === 0 ? 'white' : 'black');
