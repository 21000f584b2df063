/**
 * The change log of a store that no other instance shares (SQLite, memory), kept in memory: the latest changes
 * of every game within a budget of bytes (their events' JSON), the oldest leaving first. Streams read it only
 * for the changes committed while they were being set up, a few milliseconds' worth, and nothing in it has to
 * outlive the process, since no stream does. A stream that falls further behind than the log reaches gets
 * RESYNC_REQUIRED and starts again from the game (see bus/feed.ts). A store shared by several instances keeps
 * its log in the database instead, where every instance reads it (PostgreSQL).
 *
 * ```ts
 * const log = new RecentChanges();
 * log.append(gameId, 8, JSON.stringify(event)); // after the commit of version 8
 * log.since(gameId, 7); // [{ gameId, version: 8, event }]
 * ```
 */
import type { StateEvent, StoredChange } from './store.ts';

/** What the log may hold, counted as the length of the events' JSON: thousands of changes. */
export const RECENT_CHANGES_BYTES = 16 * 1024 * 1024;

interface Entry {
  readonly gameId: string;
  readonly version: number;
  readonly json: string; // the event, so that no caller can change what was logged
}

export class RecentChanges {
  private readonly byGame = new Map<string, Entry[]>(); // each game's entries, oldest first
  private readonly order: Array<Entry | undefined> = []; // every entry from `head` on, oldest first
  private head = 0;
  private bytes = 0;

  constructor(private readonly budget = RECENT_CHANGES_BYTES) {}

  /** Logs a committed change; versions of one game must come in increasing order. */
  append(gameId: string, version: number, json: string): void {
    const entry: Entry = { gameId, version, json };
    const entries = this.byGame.get(gameId);
    if (entries) entries.push(entry);
    else this.byGame.set(gameId, [entry]);
    this.order.push(entry);
    this.bytes += json.length;
    while (this.bytes > this.budget && this.head < this.order.length - 1) this.evictOldest();
    if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order.splice(0, this.head);
      this.head = 0;
    }
  }

  /** The logged changes of a game after `afterVersion`, in version order. */
  since(gameId: string, afterVersion: number): StoredChange[] {
    const entries = this.byGame.get(gameId) ?? [];
    return entries
      .filter(entry => entry.version > afterVersion)
      .map(entry => ({ gameId, version: entry.version, event: JSON.parse(entry.json) as StateEvent }));
  }

  private evictOldest(): void {
    const oldest = this.order[this.head]!;
    this.order[this.head++] = undefined; // let it go now, not at the next compaction
    this.bytes -= oldest.json.length;
    const entries = this.byGame.get(oldest.gameId)!;
    entries.shift(); // a game's oldest entry is the oldest of the whole log among its own
    if (entries.length === 0) this.byGame.delete(oldest.gameId);
  }
}
