/**
 * Games and states for the board page's tests under Node (test/web): a game between Ann (white) and Bob (black),
 * its state with any fields changed, and a real-time one with its times at a given serverTime.
 */
import type { GameFull, GameState } from '../../src/contract/shapes.ts';

export const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

export function state(fields: Partial<GameState> = {}): GameState {
  return {
    fen: START,
    pgn: '',
    turn: 'white',
    status: 'started',
    winner: null,
    moves: [],
    undoAvailable: false,
    redoAvailable: false,
    drawOfferedBy: null,
    takebackOfferedBy: null,
    ...fields,
  };
}

export function full(fields: Partial<GameState> = {}): GameFull {
  return {
    gameId: 'AbCd1234',
    white: { id: 'p1', displayName: 'Ann' },
    black: { id: 'p2', displayName: 'Bob' },
    state: state(fields),
    clock: null,
  };
}

export const ANN = { id: 'p1', displayName: 'Ann' }; // white in full()
export const BOB = { id: 'p2', displayName: 'Bob' }; // black in full()

export const T = 1_800_000_000_000; // a serverTime
export const BLITZ = { initial: 180_000, increment: 2_000 };
export const DAYS = { daysPerMove: 3 };

/** A real-time game's state: the times at serverTime T. */
export const timed = (fields: Partial<GameState> = {}): GameState =>
  state({ wtime: BLITZ.initial, btime: BLITZ.initial, winc: 2000, binc: 2000, serverTime: T, ...fields });
