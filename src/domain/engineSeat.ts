/**
 * The computer's seat (DECISIONS §18): the engine plays as the player `stockfish`, named `Stockfish level N`, and its
 * level is read back from that name (the game's record keeps only its seats). No token is ever issued for the id.
 *
 * ```ts
 * engineSeat(3); // { id: 'stockfish', displayName: 'Stockfish level 3' }
 * engineLevelOf(game.record.black); // 3, or undefined for a person
 * ```
 */
import type { PlayerInfo } from '../contract/shapes.ts';
import { ENGINE_ID } from '../contract/vocabulary.ts';
import { isEngineLevel, type EngineLevel } from '../engine/levels.ts';

export { ENGINE_ID };

export const engineSeat = (level: EngineLevel): PlayerInfo => ({
  id: ENGINE_ID,
  displayName: `Stockfish level ${level}`,
});

/** The level of the engine in this seat, or undefined when the seat is not the engine's. */
export function engineLevelOf(player: PlayerInfo): EngineLevel | undefined {
  if (player.id !== ENGINE_ID) return undefined;
  const level = Number(/^Stockfish level ([1-8])$/.exec(player.displayName)?.[1]);
  return isEngineLevel(level) ? level : undefined;
}
