/** A store in a Map, for tests and tools: nothing survives the process. */
import type { GameRecord } from '../domain/game.ts';
import type { GameStore, StateEvent, StoredChange } from './store.ts';

/** Change-log entries kept per game: the memory store bounds its log by count rather than by age. */
const LOG_ENTRIES_PER_GAME = 1000;

export class MemoryGameStore implements GameStore {
  private readonly games = new Map<string, string>();
  private readonly log = new Map<string, string[]>();

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
    const json = this.games.get(record.id);
    if (json === undefined || (JSON.parse(json) as GameRecord).version !== expectedVersion)
      return Promise.resolve(false);
    this.games.set(record.id, JSON.stringify(record));
    if (event) {
      const entries = this.log.get(record.id) ?? [];
      entries.push(JSON.stringify({ gameId: record.id, version: record.version, event }));
      if (entries.length > LOG_ENTRIES_PER_GAME) entries.shift();
      this.log.set(record.id, entries);
    }
    return Promise.resolve(true);
  }

  changesSince(id: string, afterVersion: number): Promise<StoredChange[]> {
    const entries = (this.log.get(id) ?? []).map(entry => JSON.parse(entry) as StoredChange);
    return Promise.resolve(entries.filter(change => change.version > afterVersion));
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
