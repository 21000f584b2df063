/**
 * The board (chessground): drawn from the state shown, with the legal moves as its destinations when the page
 * may move the side to move; a piece moved on it is handed to `onMove`. The page's only chessground code.
 *
 * ```ts
 * const board = new Board(element, (orig, dest) => play(orig, dest));
 * board.show(state, legal, 'white', true);
 * ```
 */
import { Chessground } from '@lichess-org/chessground';
import type { Api } from '@lichess-org/chessground/api';
import type { Key } from '@lichess-org/chessground/types';
import type { GameState, LegalMove } from '../contract/shapes.ts';
import type { Color } from '../contract/vocabulary.ts';
import { isCheck } from './notation.ts';
import { destinations, isEnded } from './state.ts';

const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

export class Board {
  private readonly api: Api;

  constructor(
    private readonly element: HTMLElement,
    onMove: (orig: string, dest: string) => void,
  ) {
    this.api = Chessground(element, {
      fen: START_FEN,
      orientation: 'white',
      coordinates: true,
      autoCastle: true,
      highlight: { lastMove: true, check: true },
      animation: { enabled: true, duration: 180 },
      movable: { free: false, color: undefined, showDests: true, events: { after: onMove } },
      premovable: { enabled: false },
      draggable: { enabled: true, showGhost: true },
      selectable: { enabled: true },
      drawable: { enabled: true },
    });
  }

  /** Shows `state` (the start position without one); with `mayMove`, the side to move may play the legal moves. */
  show(state: GameState | undefined, legal: readonly LegalMove[], orientation: Color, mayMove: boolean): void {
    if (!state) {
      this.api.set({
        fen: START_FEN,
        orientation,
        turnColor: 'white',
        lastMove: undefined,
        check: false,
        movable: { color: undefined, dests: new Map() },
      });
      this.element.dataset.movable = '';
      return;
    }
    const movable = mayMove && !isEnded(state);
    const last = state.moves.at(-1);
    const dests = movable ? (destinations(legal) as Map<Key, Key[]>) : new Map<Key, Key[]>();
    this.api.set({
      fen: state.fen,
      orientation,
      turnColor: state.turn,
      lastMove: last ? [last.slice(0, 2) as Key, last.slice(2, 4) as Key] : undefined,
      check: isCheck(state.fen) ? state.turn : false,
      movable: { color: movable ? state.turn : undefined, dests },
    });
    // For people and tests alike: whose pieces can be moved now ('' while the legal moves are loading).
    this.element.dataset.movable = dests.size > 0 ? state.turn : '';
  }

  /** No piece can be moved until the board is shown again (one move at a time). */
  freeze(): void {
    this.api.set({ movable: { dests: new Map() } });
    this.element.dataset.movable = '';
  }
}
