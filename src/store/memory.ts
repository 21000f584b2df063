/** A store in a Map, for tests and tools: nothing survives the process. */
import type { GameRecord } from '../domain/game.ts';
import type { GameStore } from './store.ts';

export class MemoryGameStore implements GameStore {
  private readonly games = new Map<string, string>();

  create(record: GameRecord): Promise<boolean> {
    if (this.games.has(record.id)) return Promise.resolve(false);
    this.games.set(record.id, JSON.stringify(record));
    return Promise.resolve(true);
  }

  get(id: string): Promise<GameRecord | undefined> {
    const json = this.games.get(id);
    return Promise.resolve(json === undefined ? undefined : (JSON.parse(json) as GameRecord));
  }

  update(record: GameRecord, expectedVersion: number): Promise<boolean> {
    const json = this.games.get(record.id);
    if (json === undefined || (JSON.parse(json) as GameRecord).version !== expectedVersion)
      return Promise.resolve(false);
    this.games.set(record.id, JSON.stringify(record));
    return Promise.resolve(true);
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
