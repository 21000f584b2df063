/**
 * The memory store's side of games against the computer (memory.ts): the engine's turns (engineTurns.ts), a lease per
 * game. The bound of ongoing real-time games is kept by the games' create (games.ts).
 *
 * ```ts
 * const turns = new MemoryEngineTurns();
 * await turns.claimEngineTurn({ gameId, version, instanceId, until: now + 6_000 }, now); // true: this one searches
 * ```
 */
import type { EngineTurn, EngineTurnStore } from '../engineTurns.ts';

export class MemoryEngineTurns implements EngineTurnStore {
  private readonly engineTurns = new Map<string, EngineTurn>();

  claimEngineTurn(turn: EngineTurn, now: number): Promise<boolean> {
    const held = this.engineTurns.get(turn.gameId);
    const free =
      !held ||
      held.version < turn.version ||
      held.until <= now ||
      (held.instanceId === turn.instanceId && held.version === turn.version);
    if (free) this.engineTurns.set(turn.gameId, { ...turn });
    return Promise.resolve(free);
  }
}
