/**
 * The game service: what the routes and the other services call to create, read, change and list games. It is
 * made of four parts, each in a file of its own:
 *
 * - gameCache.ts, reading: recently used games stay in memory, derived state and all, so that a change costs one
 *   move, not a replay; on a shared store a copy is trusted only when proven current;
 * - gameChanges.ts, changes: one domain transition at a time per game, saved with a version check and retried on
 *   conflict, then handed to the publisher; the clocks' timers that end games at their deadlines (DECISIONS §14);
 * - gameCreation.ts, creation and import (FEN, PGN);
 * - gameListing.ts, listing: the pages of games and a player's ongoing games.
 *
 * ```ts
 * const games = new GameService({ store, bus: new ChangeFeed(store), newId, clock: () => new Date() });
 * const created = await games.create({});
 * const { game } = await games.change(created.record.id, (game, now) => makeMove(game, 'e2e4', SERVICE, now));
 * ```
 */
import type { Change, Game } from '../domain/game.ts';
import type { Actor } from '../domain/seats.ts';
import type { RatingStore } from '../store/ratings.ts';
import type { GameStore, ListQuery } from '../store/store.ts';
import type { EventBus } from '../bus/bus.ts';
import type { PlayerFeed } from '../bus/players.ts';
import { DEFAULTS } from '../defaults.ts';
import type { ClockRequest, GameFull } from '../contract/shapes.ts';
import type { Failure } from './selfChanges.ts';
import { GameCache } from './gameCache.ts';
import { GameChanges, type Transition } from './gameChanges.ts';
import { GameCreation, type Players } from './gameCreation.ts';
import { GameListing, type GamePage } from './gameListing.ts';

export { notFound } from './gameCache.ts';
export { MAX_CONFLICT_RETRIES, type Transition } from './gameChanges.ts';
export type { Players } from './gameCreation.ts';
export type { GamePage } from './gameListing.ts';

export interface GameServiceDeps {
  store: GameStore;
  newId: () => string;
  clock: () => Date;
  bus: EventBus; // where committed changes go (a ChangeFeed)
  sharedStore?: boolean; // other instances change games too: read through to the store, false
  cacheSize?: number; // games kept in memory, e.g. 10000
  cacheBytes?: number; // estimated heap those games may hold (domain's approximateBytes), e.g. 134217728
  maxPgnPlies?: number; // e.g. 10000
  // A try of a clock timer's end of a game failed (the store) and is retried (`failure.retryInMs`), for the log.
  onTimerError?: (error: unknown, failure: Failure) => void;
  players?: PlayerFeed; // where games starting and ending go, for the players' event streams
  // Each game as a change or a creation made here left it, once durable (the computer's turns: engineMoves.ts).
  onCommitted?: ((game: Game) => void) | undefined;
  ratings?: RatingStore | undefined; // players' perfs: rated games are rated and record ratings (DECISIONS §21)
}

export class GameService {
  private readonly clock: () => Date;
  private readonly cache: GameCache;
  private readonly changes: GameChanges;
  private readonly creation: GameCreation;
  private readonly listing: GameListing;

  constructor(deps: GameServiceDeps) {
    const { store, clock } = deps;
    const sharedStore = deps.sharedStore ?? false;
    const now = () => this.now();
    this.clock = clock;
    this.cache = new GameCache(store, {
      sharedStore,
      cacheSize: deps.cacheSize ?? DEFAULTS.gameCacheSize,
      cacheBytes: deps.cacheBytes ?? DEFAULTS.gameCacheBytes,
    });
    const cache = this.cache;
    this.changes = new GameChanges({ ...deps, cache, sharedStore, now });
    const maxPgnPlies = deps.maxPgnPlies ?? DEFAULTS.maxPgnPlies;
    const { newId, ratings } = deps;
    this.creation = new GameCreation({ store, newId, clock, maxPgnPlies, cache, changes: this.changes, ratings });
    this.listing = new GameListing(store, cache, now);
  }

  /** Each game as a change or a creation made here left it, once durable; set once, after construction. */
  get onCommitted(): ((game: Game) => void) | undefined {
    return this.changes.onCommitted;
  }

  set onCommitted(follow: ((game: Game) => void) | undefined) {
    this.changes.onCommitted = follow;
  }

  /** The service's time, in ms since the epoch: what clocks and the views of clocked games read. */
  now(): number {
    return this.clock().getTime();
  }

  /**
   * A new game; a player creates only games in which they hold both sides (DECISIONS §13a). `id`: the game's id,
   * chosen by the caller (an accepted challenge records it before the game is made); a game of that id already
   * made is answered as it is, so that a creation retried after a crash makes one game.
   */
  create(players: Players, actor?: Actor, id?: string): Promise<Game> {
    return this.creation.create(players, actor, id);
  }

  importFen(players: Players, fen: string, actor?: Actor, id?: string): Promise<Game> {
    return this.creation.importFen(players, fen, actor, id);
  }

  /** A player imports a game in which they hold both sides; the tags' names are not used then. */
  importPgn(pgn: string, actor?: Actor, clock?: ClockRequest): Promise<Game> {
    return this.creation.importPgn(pgn, actor, clock);
  }

  /**
   * The current game; rejects with GAME_NOT_FOUND. On a shared store another instance may have changed it,
   * so the stored version is read every time; the game in memory is used when it is that version.
   */
  get(id: string): Promise<Game> {
    return this.cache.get(id);
  }

  /**
   * The current game, or undefined when there is none. When memory is known to hold the current version (one
   * instance on its own store) it is answered at once, without a promise: the fast path of reads.
   */
  current(id: string): Game | Promise<Game | undefined> {
    return this.cache.current(id);
  }

  /**
   * What proves a copy in memory current on a shared store: a barrier after which every change committed before
   * it has been announced to this instance (bus/postgres.ts, ChangeListener.sync). Without one, reads read the store.
   */
  useReadBarrier(barrier: { sync(): Promise<void> }): void {
    this.cache.useReadBarrier(barrier);
  }

  /**
   * Whether the game exists. A game in memory, whatever its version, answers at once, also on a shared store:
   * a game, once created, always exists (none is ever deleted).
   */
  exists(id: string): true | Promise<boolean> {
    return this.cache.exists(id);
  }

  /** What the games in memory hold: how many, and their estimated bytes. */
  memory(): { games: number; bytes: number } {
    return this.cache.memory();
  }

  /**
   * Runs `transition` on the current game and commits its result. A rejected transition changes nothing.
   * Resolves once the change is durable and its event is published.
   *
   * The game in memory is used without reading the store, also on a shared store, where another instance may
   * have changed it since: a change made from an older version fails the store's version check, and a refusal
   * made on it is judged again on the stored game, so that each request is judged on the game's current
   * version and a change costs one store write, not a read and a write.
   */
  change(id: string, transition: Transition): Promise<Change> {
    return this.changes.change(id, transition);
  }

  /**
   * Ends a clocked game whose deadline has come (the flag, or the abort of a game not started in time), if it has
   * not ended yet: what a game's timer calls. Resolves with the change, or undefined when there was none to make;
   * rejects when the store failed (the timer tries again).
   */
  expireDue(id: string): Promise<Change | undefined> {
    return this.changes.expireDue(id);
  }

  /**
   * Arms a timer for every game with a deadline in the store: at start, and when announcements were missed. With
   * other instances on the store, each of them may have made a game's last change: this one waits its grace.
   */
  armClocks(): Promise<number> {
    return this.changes.armClocks();
  }

  /**
   * A change of a game was announced (by another instance, or this one's own, which every instance hears too):
   * its timer follows the new deadline; one already armed for it keeps its time.
   */
  announced(id: string, version: number, deadline: number | null): void {
    this.cache.noteAnnounced(id, version);
    this.changes.announced(id, deadline);
  }

  /**
   * Announcements may have been missed (the listening connection dropped): no copy in memory is known to be current
   * any more, and the clocks are armed again from the store.
   */
  async resynced(): Promise<void> {
    this.cache.clear();
    await this.changes.armClocks();
  }

  /** The timers of the games' clocks: how many are armed. */
  armedClocks(): number {
    return this.changes.armedClocks();
  }

  /** Stops every clock timer (at shutdown). */
  close(): void {
    this.changes.close();
  }

  /**
   * A page of games, most recently changed first (the store's order of changes); `before` the position after
   * an earlier page.
   */
  list(query: ListQuery): Promise<GamePage> {
    return this.listing.list(query);
  }

  /** A page of a player's ongoing games in id order, those after the id `after` (GameStore.ongoingGames). */
  ongoing(player: string, after: string | undefined, limit: number): Promise<Game[]> {
    return this.listing.ongoing(player, after, limit);
  }

  /** A game as the change of `version` left it, from the change log; undefined when the log no longer has it. */
  gameAt(id: string, version: number): Promise<GameFull | undefined> {
    return this.listing.gameAt(id, version);
  }
}
