/**
 * The memory store's seeks (memory.ts, seeks.ts): each as JSON in a Map, as the challenges. Every change is judged
 * and made in one synchronous step: no other change comes between. Every seek is held by this process, the only one
 * that sees the store.
 *
 * ```ts
 * const seeks = new MemorySeeks(id => games.has(id));
 * await seeks.insertSeek(seek, 10); // { result: 'inserted', withdrawn: [the player's older real-time seek] }
 * ```
 */
import { bySeekAge, isRealTime, type Seek } from '../../domain/seek.ts';
import type { InsertedSeek, SeekStore } from '../seeks.ts';

export class MemorySeeks implements SeekStore {
  private readonly seeks = new Map<string, string>();

  /** `gameExists`: whether the game a pairing named was made. */
  constructor(private readonly gameExists: (id: string) => boolean) {}

  insertSeek(seek: Seek, maxCorrespondence = Infinity): Promise<InsertedSeek> {
    // Counted, inserted and the older withdrawn in one synchronous step: no other change comes between.
    const open = this.stored().filter(
      s => s.player.id === seek.player.id && s.status === 'open' && isRealTime(s) === isRealTime(seek),
    );
    if (!isRealTime(seek) && open.length >= maxCorrespondence) {
      return Promise.resolve({ result: 'limit', withdrawn: [] });
    }
    if (this.seeks.has(seek.id)) return Promise.resolve({ result: 'taken', withdrawn: [] });
    this.seeks.set(seek.id, JSON.stringify(seek));
    const withdrawn = isRealTime(seek) ? open.map(older => older.id) : [];
    for (const id of withdrawn) this.seeks.set(id, JSON.stringify({ ...this.storedSeek(id)!, status: 'withdrawn' }));
    return Promise.resolve({ result: 'inserted', withdrawn });
  }

  seek(id: string): Promise<Seek | undefined> {
    return Promise.resolve(this.storedSeek(id));
  }

  openSeeks(pool: string, now: number, limit: number): Promise<Seek[]> {
    const open = this.stored().filter(s => s.pool === pool && s.status === 'open' && s.aliveUntil > now);
    return Promise.resolve(open.sort(bySeekAge).slice(0, limit));
  }

  pairSeeks(a: Seek, b: Seek): Promise<boolean> {
    // Judged and written in one synchronous step: no other change comes between.
    if (this.storedSeek(a.id)?.status !== 'open' || this.storedSeek(b.id)?.status !== 'open') {
      return Promise.resolve(false);
    }
    for (const seek of [a, b]) {
      const stored = this.storedSeek(seek.id)!;
      const { gameId, pairedAt, gameColor } = seek;
      this.seeks.set(seek.id, JSON.stringify({ ...stored, status: 'paired', gameId, pairedAt, gameColor }));
    }
    return Promise.resolve(true);
  }

  withdrawSeek(id: string): Promise<boolean> {
    const stored = this.storedSeek(id);
    if (stored?.status !== 'open') return Promise.resolve(false);
    this.seeks.set(id, JSON.stringify({ ...stored, status: 'withdrawn' }));
    return Promise.resolve(true);
  }

  keepSeeksAlive(ids: readonly string[], aliveUntil: number): Promise<void> {
    for (const id of ids) {
      const stored = this.storedSeek(id);
      if (stored?.status === 'open') this.seeks.set(id, JSON.stringify({ ...stored, aliveUntil }));
    }
    return Promise.resolve();
  }

  seeksWithoutGame(since: number): Promise<Seek[]> {
    const unmade = this.stored().filter(
      s => s.status === 'paired' && s.pairedAt !== null && s.pairedAt >= since && !this.gameExists(s.gameId!),
    );
    return Promise.resolve(unmade);
  }

  private stored(): Seek[] {
    return [...this.seeks.values()].map(json => JSON.parse(json) as Seek);
  }

  private storedSeek(id: string): Seek | undefined {
    const json = this.seeks.get(id);
    return json === undefined ? undefined : (JSON.parse(json) as Seek);
  }
}
