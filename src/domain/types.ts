/** The domain's defaults: the players of a game whose sides no one named. */
import type { PlayerInfo } from '../contract/shapes.ts';

export const DEFAULT_WHITE: PlayerInfo = { id: 'p1', displayName: 'Player 1' };
export const DEFAULT_BLACK: PlayerInfo = { id: 'p2', displayName: 'Player 2' };
