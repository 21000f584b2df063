/**
 * The memory store's presence at games (memory.ts, presence.ts): the latest time of each player at each game, by
 * instance.
 *
 * ```ts
 * const presence = new MemoryPresence();
 * await presence.markPresent([{ gameId, playerId }], instanceId, now + 15_000);
 * ```
 */
import type { PresenceKey, PresenceStore, SeenAt } from '../presence.ts';

export class MemoryPresence implements PresenceStore {
  private readonly presence = new Map<string, SeenAt & { instanceId: string }>(); // by game, player and instance

  markPresent(keys: readonly PresenceKey[], instanceId: string, until: number): Promise<void> {
    for (const key of keys) this.seen(key, instanceId, until);
    return Promise.resolve();
  }

  markLeft(key: PresenceKey, instanceId: string, at: number): Promise<void> {
    this.seen(key, instanceId, at);
    return Promise.resolve();
  }

  lastSeen(gameIds: readonly string[]): Promise<SeenAt[]> {
    const latest = new Map<string, SeenAt>();
    for (const { gameId, playerId, until } of this.presence.values()) {
      if (!gameIds.includes(gameId)) continue;
      const key = `${gameId}\u0000${playerId}`;
      if ((latest.get(key)?.until ?? -Infinity) < until) latest.set(key, { gameId, playerId, until });
    }
    return Promise.resolve([...latest.values()]);
  }

  prunePresence(before: number): Promise<void> {
    for (const [key, row] of this.presence) if (row.until < before) this.presence.delete(key);
    return Promise.resolve();
  }

  private seen({ gameId, playerId }: PresenceKey, instanceId: string, until: number): void {
    this.presence.set(`${gameId}\u0000${playerId}\u0000${instanceId}`, { gameId, playerId, instanceId, until });
  }
}
