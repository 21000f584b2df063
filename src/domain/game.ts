/**
 * A game and its transitions. A game is its start position, the moves applied, the redo stack, a pending
 * promotion, a pending draw offer and a final result; position, status, SAN and FEN are derived with
 * chessops and kept beside the record (the line, `line.ts`) so that a change costs one move. An undo, and the
 * exact check of a likely fivefold repetition, replay moves from the nearest checkpoint, so they cost the same in
 * a game of 10,000 plies as in one of 40.
 *
 * Every transition is `(game, input) => Result<Change>`: a new game (version + 1) and the one event it
 * causes, or a DomainError and no change. The status is `status.ts`'s, the views `views.ts`'s, PGN `pgn.ts`'s.
 *
 * ```ts
 * const game = newGame({ id: 'AbCd1234', createdAt: new Date().toISOString() });
 * const change = makeMove(game, 'e2e4');
 * if (change.ok) save(change.value.game);
 * ```
 */
import { Chess } from 'chessops/chess';
import type { NormalMove } from 'chessops/types';
import { opposite } from 'chessops/util';
import type { GameEvent, PlayerInfo } from '../contract/shapes.ts';
import type { Color, DrawAction, TakebackAction } from '../contract/vocabulary.ts';
import { DomainError, err, ok, type Result } from './errors.ts';
import {
  findPositionEnd,
  growingCopy,
  playOn,
  startLine,
  withoutLastMove,
  type Line,
  type PositionEnd,
} from './line.ts';
import { checkMove } from './moves.ts';
import { makeFen, parseStrictFen, plyOf } from './notation.ts';
import { answererOf, mayRewind, moverOf, ownSideOf, SERVICE, type Actor } from './seats.ts';
import { isOver, statusOf } from './status.ts';
import { DEFAULT_BLACK, DEFAULT_WHITE } from './types.ts';
import { gameStateEvent } from './views.ts';

/** An end that no undo can reverse. */
export type FinalResult = { kind: 'resign'; winner: Color } | { kind: 'drawAgreed' } | { kind: 'drawClaimed' };

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
  createdAt: string;
  white?: PlayerInfo | undefined;
  black?: PlayerInfo | undefined;
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
  };
  return derive(record, pos, plyOf(pos), startLine(pos), startFen);
}

/** Rebuilds a stored game by replaying its moves from the start position (done once per load). */
export function restoreGame(record: GameRecord): Game {
  const start = parseStrictFen(record.startFen);
  if (!start.ok) throw new Error(`stored game ${record.id} has an invalid start FEN: ${start.error.message}`);
  const pos = start.value;
  const startPly = plyOf(pos);
  const line = startLine(pos);
  for (const uci of record.moves) {
    const check = checkMove(pos, uci);
    if (check.kind !== 'legal') throw new Error(`stored game ${record.id} has an illegal move ${uci}`);
    playOn(line, pos, check.move, uci);
  }
  return derive(record, pos, startPly, line);
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
  6_000 + 104 * (game.record.moves.length + game.record.redo.length);

const gameOver = (game: Game): Result<never> =>
  err(new DomainError('GAME_OVER', `the game is over (${statusOf(game)})`));

/** A transition's success: the next game (its version already counted) and the event it causes. */
const changed = (next: Game): Result<Change> => ok({ game: next, event: gameStateEvent(next) });

/** The game with `record` as its next version, nothing else derived changing. */
const change = (game: Game, record: Omit<GameRecord, 'version'>): Result<Change> =>
  changed({ ...game, record: { ...record, version: game.record.version + 1 } });

/** What a change of position clears: a pending promotion and both kinds of offer. */
const CLEARED_BY_POSITION = { pendingPromotion: null, drawOffer: null, takebackOffer: null } as const;

/** The game ended for good with `result`: nothing stays pending. */
const ended = (game: Game, result: FinalResult): Result<Change> =>
  change(game, { ...game.record, ...CLEARED_BY_POSITION, result });

/** Plays a legal chessops move (already checked): the next version, with `redo` as its redo stack. */
function playMove(game: Game, move: NormalMove, uci: string, redo: readonly string[]): Game {
  const pos = game.pos.clone();
  const line = growingCopy(lineOf(game));
  playOn(line, pos, move, uci);
  const record: GameRecord = { ...game.record, ...CLEARED_BY_POSITION, version: game.record.version + 1, redo };
  return derive(record, pos, game.startPly, line);
}

/** The game `count` moves back, with `redo` as its redo stack (the next version). */
function takeBack(game: Game, count: number, redo: readonly string[]): Game {
  let line = lineOf(game);
  let pos = game.pos;
  for (let i = 0; i < count; i++) ({ line, pos } = withoutLastMove(line));
  const record: GameRecord = { ...game.record, ...CLEARED_BY_POSITION, version: game.record.version + 1, redo };
  return derive(record, pos, game.startPly, line);
}

/**
 * DECISIONS §4 and §13: GAME_OVER, then the seat (only the side to move), then legality; a pawn reaching the
 * last rank without a piece is held pending.
 */
export function makeMove(game: Game, uci: string, actor: Actor = SERVICE): Result<Change> {
  if (isOver(game)) return gameOver(game);
  const seat = moverOf(game.record, game.pos.turn, actor);
  if (!seat.ok) return seat;
  const check = checkMove(game.pos, uci);
  switch (check.kind) {
    case 'illegal':
      return err(new DomainError('INVALID_MOVE', check.reason, 'uci'));
    case 'needsPromotion':
      return change(game, { ...game.record, pendingPromotion: uci });
    case 'legal':
      return changed(playMove(game, check.move, uci, []));
  }
}

/** DECISIONS §5; between two different players undo and redo are takebacks (§13). */
export function undo(game: Game, actor: Actor = SERVICE): Result<Change> {
  const { record } = game;
  if (record.result) return gameOver(game);
  const allowed = mayRewind(record, actor);
  if (!allowed.ok) return allowed;
  const last = record.moves.at(-1);
  if (last === undefined) return err(new DomainError('NO_UNDO', 'there is no move to undo'));
  return changed(takeBack(game, 1, [...record.redo, last]));
}

export function redo(game: Game, actor: Actor = SERVICE): Result<Change> {
  const { record } = game;
  if (record.result) return gameOver(game);
  const allowed = mayRewind(record, actor);
  if (!allowed.ok) return allowed;
  const uci = record.redo.at(-1);
  if (uci === undefined) return err(new DomainError('NO_REDO', 'there is no move to redo'));
  const check = checkMove(game.pos, uci);
  if (check.kind !== 'legal') throw new Error(`game ${record.id}: redo move ${uci} is not legal`);
  return changed(playMove(game, check.move, uci, record.redo.slice(0, -1)));
}

/** The actor's side resigns (the side to move for an actor holding both); the other side wins. */
export function resign(game: Game, actor: Actor = SERVICE): Result<Change> {
  if (isOver(game)) return gameOver(game);
  const side = ownSideOf(game.record, game.pos.turn, actor);
  if (!side.ok) return side;
  return ended(game, { kind: 'resign', winner: opposite(side.value) });
}

/** DECISIONS §6 and §13, after the action itself was validated: GAME_OVER, the seat, then the action's own rule. */
export function drawAction(game: Game, action: DrawAction, actor: Actor = SERVICE): Result<Change> {
  if (isOver(game)) return gameOver(game);
  const { record } = game;
  switch (action) {
    case 'offer': {
      const side = ownSideOf(record, game.pos.turn, actor);
      if (!side.ok) return side;
      if (record.drawOffer) {
        return err(new DomainError('DRAW_ALREADY_OFFERED', `${record.drawOffer} has already offered a draw`));
      }
      return change(game, { ...record, drawOffer: side.value });
    }
    case 'accept':
    case 'decline': {
      const answerer = answererOf(record, record.drawOffer, actor, 'draw');
      if (!answerer.ok) return answerer;
      if (!record.drawOffer) return err(new DomainError('NO_DRAW_OFFER', `there is no draw offer to ${action}`));
      if (action === 'decline') return change(game, { ...record, drawOffer: null });
      return ended(game, { kind: 'drawAgreed' });
    }
    case 'claim': {
      const seat = moverOf(record, game.pos.turn, actor);
      if (!seat.ok) return seat;
      if (game.pos.halfmoves < 100) {
        return err(
          new DomainError(
            'CLAIM_NOT_AVAILABLE',
            `a fifty-move draw can be claimed only after 50 moves by each side without a capture or pawn move (halfmove clock ${game.pos.halfmoves} of 100)`,
          ),
        );
      }
      return ended(game, { kind: 'drawClaimed' });
    }
  }
}

/**
 * Takebacks by consent (DECISIONS §13): GAME_OVER, the seat, then the action's own rule. An offer is made for the
 * actor's side (for an actor holding both, the side that made the last move) and needs a move of that side;
 * accepting takes back the offerer's last move and the reply made since, if any, so that the offerer is to move
 * again, and empties the redo stack.
 */
export function takebackAction(game: Game, action: TakebackAction, actor: Actor = SERVICE): Result<Change> {
  if (isOver(game)) return gameOver(game);
  const { record } = game;
  const turn = game.pos.turn;
  switch (action) {
    case 'offer': {
      const side = ownSideOf(record, opposite(turn), actor);
      if (!side.ok) return side;
      if (record.takebackOffer) {
        return err(
          new DomainError('TAKEBACK_ALREADY_OFFERED', `${record.takebackOffer} has already offered a takeback`),
        );
      }
      if (movesToTakeBack(record.moves.length, turn, side.value) === 0) {
        return err(new DomainError('NO_MOVE_TO_TAKE_BACK', `${side.value} has made no move in this game to take back`));
      }
      return change(game, { ...record, takebackOffer: side.value });
    }
    case 'accept':
    case 'decline': {
      const offeredBy = record.takebackOffer;
      const answerer = answererOf(record, offeredBy, actor, 'takeback');
      if (!answerer.ok) return answerer;
      if (!offeredBy) return err(new DomainError('NO_TAKEBACK_OFFER', `there is no takeback offer to ${action}`));
      if (action === 'decline') return change(game, { ...record, takebackOffer: null });
      return changed(takeBack(game, movesToTakeBack(record.moves.length, turn, offeredBy), []));
    }
  }
}

/**
 * How many moves a takeback for `side` undoes: its last move, and the reply made since if any (so that `side` is
 * to move again); 0 when `side` has made no move among the `played` ones.
 */
function movesToTakeBack(played: number, turn: Color, side: Color): number {
  const count = side === turn ? 2 : 1;
  return played >= count ? count : 0;
}
