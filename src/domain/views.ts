/**
 * The API's views of a game (`contract/shapes.ts`): GameState, GameFull and the legal moves, and the stream
 * event a change causes. Views are derived from the game, never stored. A clocked game's views hold the clock
 * as it reads at `now` (DECISIONS §14): the side to move's time runs; an untimed game's views ignore `now`.
 *
 * ```ts
 * reply.send(gameFullOf(game, Date.now()));
 * ```
 */
import { parseSquare } from 'chessops/util';
import type { GameEvent, GameFull, GameState, LegalMove } from '../contract/shapes.ts';
import { deadlineOf, isCorrespondence, timesAt, type Clock } from './clock.ts';
import type { Game } from './game.ts';
import { listLegalMoves } from './moves.ts';
import { makeMovetext } from './notation.ts';
import { isOver, statusOf, winnerOf } from './status.ts';

/** `state.pgn`: the movetext of the game so far. */
export const movetextOf = (game: Game): string => makeMovetext(game.startPly, game.sans);

/** The FEN of the current position. */
export const fenOf = (game: Game): string => game.fen;

/** A state made at `now` (ms since the epoch); an untimed game's does not depend on it. */
export function gameStateOf(game: Game, now = 0): GameState {
  const { record } = game;
  const state: GameState = {
    fen: fenOf(game),
    pgn: movetextOf(game),
    turn: game.pos.turn,
    status: statusOf(game),
    winner: winnerOf(game),
    moves: [...record.moves],
    undoAvailable: record.result === null && record.moves.length > 0,
    redoAvailable: record.result === null && record.redo.length > 0,
    drawOfferedBy: record.drawOffer,
    takebackOfferedBy: record.takebackOffer,
  };
  return record.clock ? { ...state, ...clockFieldsOf(game, record.clock, now) } : state;
}

/** The clock fields of a state made at `now`: four times and the server's time, or a correspondence deadline. */
function clockFieldsOf(game: Game, clock: Clock, now: number): Partial<GameState> {
  const over = isOver(game);
  if (isCorrespondence(clock.control)) {
    const deadline = clock.phase === 2 ? deadlineOf(clock, game.pos.turn, over) : undefined;
    return { deadline: deadline === undefined ? null : new Date(deadline).toISOString() };
  }
  const { white, black } = timesAt(clock, game.pos.turn, now, over);
  const { increment } = clock.control;
  return { wtime: white, btime: black, winc: increment, binc: increment, serverTime: now };
}

/** Whether the game's views change with time alone (a running clock): such views are made afresh for each read. */
export const isTicking = (game: Game): boolean => game.record.clock?.phase === 2 && !isOver(game);

export const gameFullOf = (game: Game, now = 0): GameFull => ({
  gameId: game.record.id,
  white: game.record.white,
  black: game.record.black,
  state: gameStateOf(game, now),
  clock: game.record.clock?.control ?? null,
});

/** The event a change to `game` at `now` causes on its streams. */
export const gameStateEvent = (game: Game, now = 0): GameEvent & { type: 'gameState' } => ({
  type: 'gameState',
  state: gameStateOf(game, now),
});

/** Legal moves of the side to move, none once the game is over (DECISIONS §4). */
export function legalMovesOf(game: Game, square?: string): LegalMove[] {
  if (isOver(game)) return [];
  if (square === undefined || square === '') return listLegalMoves(game.pos);
  return listLegalMoves(game.pos, parseSquare(square));
}
