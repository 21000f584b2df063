/**
 * The event bus: committed changes in, per-game subscribers out. One interface for one process and for
 * several (PostgreSQL LISTEN/NOTIFY); both are a ChangeFeed (feed.ts), which guarantees each subscriber
 * every change after its version exactly once and in order, reading the store's change log for what
 * announcements did not carry.
 *
 * ```ts
 * const off = bus.subscribe(gameId, snapshotVersion, change => send(change.event), () => reopen());
 * bus.publish({ gameId, version: 7, event }); // the service, after committing version 7
 * off();
 * ```
 */
import type { StoredChange } from '../store/store.ts';

/** A committed change: the version it produced and the gameState event streams send for it. */
export type GameChange = StoredChange;

export type ChangeListener = (change: GameChange) => void;

export interface EventBus {
  /** Called by the service after a change is committed, in commit order per game. */
  publish(change: GameChange): void;
  /**
   * Every change of the game after `afterVersion`, once each, in order. `onLost` instead, and the end of the
   * subscription, when some of them cannot be recovered.
   */
  subscribe(gameId: string, afterVersion: number, listener: ChangeListener, onLost: () => void): () => void;
  close(): Promise<void>;
}
