/**
 * The event bus: committed changes in, per-game listeners out. One interface for one process (in memory)
 * and for several (PostgreSQL LISTEN/NOTIFY). Each change carries the game's version, which rises by one
 * per change, so a listener can drop what it has already seen and notice what it missed.
 *
 * ```ts
 * const off = bus.subscribe(gameId, change => send(change.event));
 * bus.publish({ gameId, version: 7, event });
 * off();
 * ```
 */
import type { GameEvent } from '../domain/game.ts';

export interface GameChange {
  gameId: string;
  version: number;
  event: Extract<GameEvent, { type: 'gameState' }>;
}

export type ChangeListener = (change: GameChange) => void;

export interface EventBus {
  /** Called by the service after a change is committed, in commit order per game. */
  publish(change: GameChange): void;
  subscribe(gameId: string, listener: ChangeListener): () => void;
  close(): Promise<void>;
}
