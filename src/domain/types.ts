/** Closed vocabularies of the API: each list is the source of its union type. */
import type { Color } from 'chessops/types';

export type { Color };

export const GAME_STATUSES = [
  'started',
  'check',
  'checkmate',
  'stalemate',
  'resign',
  'draw',
  'drawOffered',
  'fiftyMoveAvailable',
  'promotionPending',
  'insufficientMaterial',
] as const;
export type GameStatus = (typeof GAME_STATUSES)[number];

/** Statuses that end the game. */
export const ENDED_STATUSES: ReadonlySet<GameStatus> = new Set([
  'checkmate',
  'stalemate',
  'resign',
  'draw',
  'insufficientMaterial',
]);

export const MOVE_TYPES = ['normal', 'capture', 'castleKingside', 'castleQueenside', 'enPassant', 'promotion'] as const;
export type MoveType = (typeof MOVE_TYPES)[number];

export const PROMOTION_PIECES = ['queen', 'rook', 'bishop', 'knight'] as const;
export type PromotionPiece = (typeof PROMOTION_PIECES)[number];

export const DRAW_ACTIONS = ['offer', 'accept', 'decline', 'claim'] as const;
export type DrawAction = (typeof DRAW_ACTIONS)[number];

export interface PlayerInfo {
  id: string;
  displayName: string;
}

export const DEFAULT_WHITE: PlayerInfo = { id: 'p1', displayName: 'Player 1' };
export const DEFAULT_BLACK: PlayerInfo = { id: 'p2', displayName: 'Player 2' };

export const GAME_ID_PATTERN = '^[A-Za-z0-9]{8}$';
export const UCI_PATTERN = '^[a-h][1-8][a-h][1-8][qrbn]?$';
export const SQUARE_PATTERN = '^[a-h][1-8]$';
