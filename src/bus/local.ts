/** The bus of a single process: listeners are called synchronously, in publish order. */
import type { ChangeListener, EventBus, GameChange } from './bus.ts';

export class LocalEventBus implements EventBus {
  private readonly listeners = new Map<string, Set<ChangeListener>>();

  publish(change: GameChange): void {
    const listeners = this.listeners.get(change.gameId);
    if (!listeners) return;
    for (const listener of listeners) listener(change);
  }

  subscribe(gameId: string, listener: ChangeListener): () => void {
    let listeners = this.listeners.get(gameId);
    if (!listeners) {
      listeners = new Set();
      this.listeners.set(gameId, listeners);
    }
    listeners.add(listener);
    return () => {
      const current = this.listeners.get(gameId);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) this.listeners.delete(gameId);
    };
  }

  close(): Promise<void> {
    this.listeners.clear();
    return Promise.resolve();
  }
}
