/**
 * The API's views of a game (`contract/shapes.ts`): GameState, GameFull and the legal moves, and the stream
 * event a change causes. Views are derived from the game, never stored.
 *
 * ```ts
 * reply.send(gameFullOf(game));
 * ```
 */
import { parseSquare } from 'chessops/util';
import type { GameEvent, GameFull, GameState, LegalMove } from '../contract/shapes.ts';
import type { Game } from './game.ts';
import { listLegalMoves } from './moves.ts';
import { makeMovetext } from './notation.ts';
import { isOver, statusOf, winnerOf } from './status.ts';

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
    drawOfferedBy: record.drawOffer,
    takebackOfferedBy: record.takebackOffer,
  };
}

export const gameFullOf = (game: Game): GameFull => ({
  gameId: game.record.id,
  white: game.record.white,
  black: game.record.black,
  state: gameStateOf(game),
});

/** The event a change to `game` causes on its streams. */
export const gameStateEvent = (game: Game): GameEvent & { type: 'gameState' } => ({
  type: 'gameState',
  state: gameStateOf(game),
});

/** Legal moves of the side to move, none once the game is over (DECISIONS §4). */
export function legalMovesOf(game: Game, square?: string): LegalMove[] {
  if (isOver(game)) return [];
  if (square === undefined || square === '') return listLegalMoves(game.pos);
  return listLegalMoves(game.pos, parseSquare(square));
}
