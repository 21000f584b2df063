/**
 * The games read in pages (games.ts): the listing, a player's ongoing games, and a game as an announced change
 * left it. Each game read from the store is the copy in memory when it is of the same version (no replay).
 *
 * ```ts
 * const listing = new GameListing(store, cache, Date.now);
 * const { games, next } = await listing.list({ limit: 20 });
 * ```
 */
import type { Game } from '../domain/game.ts';
import { eventGameOf } from '../domain/lichess.ts';
import type { GameFull } from '../contract/shapes.ts';
import type { GameStore, ListQuery } from '../store/store.ts';
import type { GameCache } from './gameCache.ts';

/** A page of games (`list`): each with its version, and the position after the page, if another follows. */
export interface GamePage {
  games: Game[];
  next: number | undefined;
}

export class GameListing {
  constructor(
    private readonly store: GameStore,
    private readonly cache: GameCache,
    private readonly now: () => number,
  ) {}

  /**
   * A page of games, most recently changed first (the store's order of changes); `before` the position after
   * an earlier page.
   */
  async list(query: ListQuery): Promise<GamePage> {
    const rows = await this.store.listGames({ ...query, limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    const games = page.map(({ record }) => this.cache.restored(record));
    return { games, next: rows.length > query.limit ? page.at(-1)!.seq : undefined };
  }

  /**
   * A page of a player's ongoing games in id order, those after the id `after` (GameStore.ongoingGames): a walk
   * through these pages lists once every game ongoing throughout, however the games change meanwhile.
   */
  async ongoing(player: string, after: string | undefined, limit: number): Promise<Game[]> {
    const records = await this.store.ongoingGames(player, after, limit);
    return records.map(record => this.cache.restored(record));
  }

  /**
   * A game as the change of `version` left it, from the change log (for a transition another instance
   * announced); undefined when the log no longer has it.
   */
  async gameAt(id: string, version: number): Promise<GameFull | undefined> {
    const [logged] = await this.store.changesSince(id, version - 1);
    if (logged?.version !== version) return undefined;
    const game = await this.cache.get(id); // its seats and clock never change
    return { ...eventGameOf(game, this.now()), state: logged.event.state };
  }
}
