/** A store in a Map, for tests and tools: nothing survives the process. */
import type { GameRecord } from '../domain/game.ts';
import { RecentChanges } from './recentChanges.ts';
import { loggedVersionError, type GameStore, type StateEvent, type StoredChange } from './store.ts';

export class MemoryGameStore implements GameStore {
  private readonly games = new Map<string, string>();
  private readonly log = new RecentChanges();

  create(record: GameRecord): Promise<boolean> {
    if (this.games.has(record.id)) return Promise.resolve(false);
    this.games.set(record.id, JSON.stringify(record));
    return Promise.resolve(true);
  }

  get(id: string): Promise<GameRecord | undefined> {
    const json = this.games.get(id);
    return Promise.resolve(json === undefined ? undefined : (JSON.parse(json) as GameRecord));
  }

  update(record: GameRecord, expectedVersion: number, event?: StateEvent): Promise<boolean> {
    const refused = loggedVersionError(record, expectedVersion, event);
    if (refused) return Promise.reject(refused);
    const json = this.games.get(record.id);
    if (json === undefined || (JSON.parse(json) as GameRecord).version !== expectedVersion)
      return Promise.resolve(false);
    this.games.set(record.id, JSON.stringify(record));
    if (event) this.log.append(record.id, record.version, JSON.stringify(event));
    return Promise.resolve(true);
  }

  changesSince(id: string, afterVersion: number): Promise<StoredChange[]> {
    return Promise.resolve(this.log.since(id, afterVersion));
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
