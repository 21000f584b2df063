/**
 * The memory store's games (memory.ts): each record as JSON in a Map, so that no caller shares a stored object, with
 * what the listing reads beside it (each game's place in the order of changes, and its clock's deadline), and the
 * change log in memory (recentChanges.ts).
 *
 * ```ts
 * const games = new MemoryGames(new MemoryRatings());
 * await games.create(record); // false: the id is taken
 * ```
 */
import { cappedEngineGameOf } from '../../domain/engineGames.ts';
import type { GameRecord } from '../../domain/game.ts';
import { historyEntriesOf, type HistoryEntry } from '../../domain/history.ts';
import { eventJsonOf } from '../../domain/views.ts';
import { engineGamesLimited, engineGamesOf } from '../engineGames.ts';
import type { GamesPart, GameUpdate } from '../parts.ts';
import { RecentChanges } from '../recentChanges.ts';
import type { MemoryRatings } from './ratings.ts';
import { NO_INDEX, type GameIndex, type StoredChange } from '../store.ts';

export class MemoryGames implements GamesPart {
  readonly records = new Map<string, string>();
  readonly deadlines = new Map<string, number>();
  readonly order = new Map<string, { seq: number; ended: boolean }>();
  /** Each game's entries in its players' histories (../history.ts), written with it. */
  readonly entries = new Map<string, readonly HistoryEntry[]>();
  private seq = 0;
  private readonly log = new RecentChanges();

  /** `ratings`: the perfs a rated end writes with its game. */
  constructor(private readonly ratings: MemoryRatings) {}

  /** Whether a game of this id exists. */
  has(id: string): boolean {
    return this.records.has(id);
  }

  /** The record of a game known to exist. */
  recordOf(id: string): GameRecord {
    return JSON.parse(this.records.get(id)!) as GameRecord;
  }

  create(record: GameRecord, index: GameIndex = NO_INDEX): Promise<boolean> {
    if (this.records.has(record.id)) return Promise.resolve(false);
    // A real-time game against the computer: its person has a bound of ongoing ones (engineGames.ts).
    const cap = cappedEngineGameOf(record);
    if (cap) {
      const ongoing = [...this.order]
        .filter(([, { ended }]) => !ended)
        .map(([id]) => ({ data: this.records.get(id)! }));
      if (engineGamesOf(ongoing, cap.player) >= cap.max) return Promise.reject(engineGamesLimited(cap.max));
    }
    this.records.set(record.id, JSON.stringify(record));
    this.entries.set(record.id, historyEntriesOf(record));
    this.indexed(record.id, index);
    return Promise.resolve(true);
  }

  get(id: string): Promise<GameRecord | undefined> {
    const json = this.records.get(id);
    return Promise.resolve(json === undefined ? undefined : (JSON.parse(json) as GameRecord));
  }

  update({ record, expectedVersion, event, index, rated }: GameUpdate): Promise<boolean> {
    const json = this.records.get(record.id);
    if (json === undefined || (JSON.parse(json) as GameRecord).version !== expectedVersion)
      return Promise.resolve(false);
    if (rated && !this.ratings.fits(rated)) return Promise.resolve(false);
    if (rated) this.ratings.write(rated);
    this.records.set(record.id, JSON.stringify(record));
    this.indexed(record.id, index);
    if (event) this.log.append(record.id, record.version, eventJsonOf(event));
    return Promise.resolve(true);
  }

  changesSince(id: string, afterVersion: number): Promise<StoredChange[]> {
    return Promise.resolve(this.log.since(id, afterVersion));
  }

  private indexed(id: string, { deadline, ended }: GameIndex): void {
    if (deadline === null) this.deadlines.delete(id);
    else this.deadlines.set(id, deadline);
    this.order.set(id, { seq: ++this.seq, ended });
  }
}
