/**
 * The games the service reads (games.ts): recently used games stay in memory, derived state and all, so that a
 * read costs no replay and a change costs one move. Memory is bounded twice, by count and by estimated bytes
 * (DECISIONS §15), least recently used out first.
 *
 * On a shared store (other instances change games too) a copy in memory is trusted only when no later version of
 * its game has been announced by the time every change committed before the read has been heard (the read
 * barrier); otherwise the store is read.
 *
 * ```ts
 * const cache = new GameCache(store, { sharedStore: false, cacheSize: 10_000, cacheBytes: 128 * 1024 * 1024 });
 * const game = await cache.get('AbCd1234'); // rejects with GAME_NOT_FOUND
 * cache.remember(changed); // after a committed change
 * ```
 */
import { approximateBytes, restoreGame, type Game, type GameRecord } from '../domain/game.ts';
import { DomainError } from '../domain/errors.ts';
import type { GameStore } from '../store/store.ts';

export interface GameCacheOptions {
  sharedStore: boolean; // other instances change games too: read through to the store
  cacheSize: number; // games kept in memory, e.g. 10000
  cacheBytes: number; // estimated heap those games may hold (domain's approximateBytes), e.g. 134217728
}

export const notFound = (id: string): DomainError => new DomainError('GAME_NOT_FOUND', `game ${id} does not exist`);

export class GameCache {
  /** The games in memory, least recently used first, each with its estimated size. */
  private readonly games = new Map<string, { game: Game; bytes: number }>();
  private bytes = 0;
  /** The latest version announced of each game recently changed (a shared store), and what proves them heard. */
  private readonly announcedVersions = new Map<string, number>();
  private readBarrier: { sync(): Promise<void> } | undefined;

  constructor(
    private readonly store: GameStore,
    private readonly options: GameCacheOptions,
  ) {}

  /** The game in memory, whatever its version (a change starts from it: the store's version check judges it). */
  cached(id: string): Game | undefined {
    return this.games.get(id)?.game;
  }

  /** The current game; rejects with GAME_NOT_FOUND. */
  async get(id: string): Promise<Game> {
    const game = await this.current(id);
    if (!game) throw notFound(id);
    return game;
  }

  /**
   * The current game, or undefined when there is none. When memory is known to hold the current version (one
   * instance on its own store) it is answered at once, without a promise: the fast path of reads.
   */
  current(id: string): Game | Promise<Game | undefined> {
    const cached = this.games.get(id)?.game;
    if (!this.options.sharedStore) return cached ?? this.load(id);
    if (!cached || !this.readBarrier) return this.load(id);
    // On a shared store the copy in memory is current when no later version has been announced by the time every
    // change committed before this read has been heard (the barrier): then it costs no read of the store.
    return this.readBarrier.sync().then(
      () => {
        const copy = this.games.get(id)?.game;
        const latest = this.announcedVersions.get(id);
        return copy && (latest === undefined || copy.record.version >= latest) ? copy : this.load(id);
      },
      () => this.load(id),
    );
  }

  /** What proves a copy in memory current on a shared store (GameService.useReadBarrier). */
  useReadBarrier(barrier: { sync(): Promise<void> }): void {
    this.readBarrier = barrier;
  }

  /**
   * Whether the game exists. A game in memory, whatever its version, answers at once, also on a shared store:
   * a game, once created, always exists (none is ever deleted).
   */
  exists(id: string): true | Promise<boolean> {
    return this.games.has(id) ? true : this.load(id).then(game => game !== undefined);
  }

  /** What the games in memory hold: how many, and their estimated bytes. */
  memory(): { games: number; bytes: number } {
    return { games: this.games.size, bytes: this.bytes };
  }

  /** A game read from the store: the copy in memory when it is of the same version, else the record replayed. */
  restored(record: GameRecord): Game {
    const cached = this.games.get(record.id)?.game;
    return cached?.record.version === record.version ? cached : restoreGame(record);
  }

  /**
   * Keeps the latest announced version of a game (bounded: a game whose version is forgotten leaves memory too,
   * so that no copy is trusted without it).
   */
  noteAnnounced(id: string, version: number): void {
    const known = this.announcedVersions.get(id);
    if (known !== undefined && known >= version) return;
    this.announcedVersions.delete(id);
    this.announcedVersions.set(id, version);
    if (this.announcedVersions.size > 2 * this.options.cacheSize) {
      const oldest = this.announcedVersions.keys().next().value!;
      this.announcedVersions.delete(oldest);
      this.forget(oldest);
    }
  }

  /** Announcements may have been missed: no copy in memory is known to be current any more. */
  clear(): void {
    this.games.clear();
    this.bytes = 0;
    this.announcedVersions.clear();
  }

  /**
   * Keeps the game as most recently used, evicting the least recently used beyond either bound (a count and
   * estimated bytes). A game larger than the whole byte bound is not kept: it is read from the store when needed.
   */
  remember(game: Game): void {
    const id = game.record.id;
    this.forget(id);
    const bytes = approximateBytes(game);
    if (bytes > this.options.cacheBytes) return;
    this.games.set(id, { game, bytes });
    this.bytes += bytes;
    while (this.games.size > this.options.cacheSize || this.bytes > this.options.cacheBytes) {
      const oldest = this.games.keys().next();
      if (oldest.done) break;
      this.forget(oldest.value);
    }
  }

  forget(id: string): void {
    const entry = this.games.get(id);
    if (!entry) return;
    this.games.delete(id);
    this.bytes -= entry.bytes;
  }

  private async load(id: string): Promise<Game | undefined> {
    const record = await this.store.get(id);
    if (!record) return undefined;
    const cached = this.games.get(id)?.game;
    if (cached && cached.record.version === record.version) return cached;
    const game = restoreGame(record);
    this.remember(game);
    return game;
  }
}
