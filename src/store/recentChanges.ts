/**
 * The change log of a store that no other instance shares (SQLite, memory), kept in memory: the latest changes
 * of every game within a budget of memory, the oldest leaving first. Nothing in it has to outlive the process,
 * since no stream does. With one instance, a stream takes its snapshot and subscribes in the same turn of the
 * event loop, and every change is committed, cached and published in one turn too (see service/games.ts), so a
 * stream reads the log only in the rare case a change reaches it out of turn; it then needs the last few
 * changes of its game, never thousands. Should it ever need one the log no longer holds, it gets
 * RESYNC_REQUIRED and starts again from the game (see bus/feed.ts) as soon as a later change shows the gap. A
 * store shared by several instances keeps its log in the database instead, where every instance reads it
 * (PostgreSQL).
 *
 * ```ts
 * const log = new RecentChanges();
 * log.append(gameId, 8, JSON.stringify(event)); // after the commit of version 8
 * log.since(gameId, 7); // [{ gameId, version: 8, event }]
 * ```
 */
import type { StateEvent, StoredChange } from './store.ts';

/** What the log may hold: tens of thousands of changes (an event's JSON is 200 characters and 5 more per ply). */
export const RECENT_CHANGES_BYTES = 16 * 1024 * 1024;

/** What an entry costs besides its JSON (the entry, its string's header and its places in two arrays), about. */
export const ENTRY_BYTES = 100;

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

  /** Logs a committed change. A version not above the game's last one logged is left out: the log stays ordered. */
  append(gameId: string, version: number, json: string): void {
    const entry: Entry = { gameId, version, json };
    const entries = this.byGame.get(gameId);
    if (entries && entries[entries.length - 1]!.version >= version) return;
    if (entries) entries.push(entry);
    else this.byGame.set(gameId, [entry]);
    this.order.push(entry);
    this.bytes += sizeOf(entry);
    while (this.bytes > this.budget && this.head < this.order.length - 1) this.evictOldest();
    if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order.splice(0, this.head);
      this.head = 0;
    }
  }

  /** The logged changes of a game after `afterVersion`, in version order. */
  since(gameId: string, afterVersion: number): StoredChange[] {
    const entries = this.byGame.get(gameId) ?? [];
    let first = entries.length; // versions increase: the entries wanted are the last ones
    while (first > 0 && entries[first - 1]!.version > afterVersion) first--;
    return entries
      .slice(first)
      .map(entry => ({ gameId, version: entry.version, event: JSON.parse(entry.json) as StateEvent }));
  }

  private evictOldest(): void {
    const oldest = this.order[this.head]!;
    this.order[this.head++] = undefined; // let it go now, not at the next compaction
    this.bytes -= sizeOf(oldest);
    const entries = this.byGame.get(oldest.gameId)!;
    entries.shift(); // a game's oldest entry is the oldest of the whole log among its own
    if (entries.length === 0) this.byGame.delete(oldest.gameId);
  }
}

const sizeOf = (entry: Entry): number => entry.json.length + ENTRY_BYTES;
