/**
 * The game service: loads a game, runs one domain transition, saves it with a version check and hands the
 * event to the publisher. Changes to one game run one at a time (a promise chain per game); the store's
 * version check keeps that true across processes. Recently used games stay in memory, derived state and
 * all, so that a change costs one move, not a replay.
 *
 * ```ts
 * const games = new GameService({ store, bus: new ChangeFeed(store), newId, clock: () => new Date() });
 * const created = await games.create({});
 * const { game } = await games.change(created.record.id, game => makeMove(game, 'e2e4'));
 * ```
 */
import {
  approximateBytes,
  gameFromFen,
  newGame,
  restoreGame,
  type Change,
  type Game,
  type NewGameInput,
} from '../domain/game.ts';
import { gameFromPgn } from '../domain/pgn.ts';
import { DomainError, ok, type Result } from '../domain/errors.ts';
import { SERVICE, seatsForNewGame, type Actor } from '../domain/seats.ts';
import type { GameStore } from '../store/store.ts';
import type { EventBus } from '../bus/bus.ts';
import { DEFAULTS } from '../config.ts';
import type { PlayerInfo } from '../contract/shapes.ts';

export interface GameServiceDeps {
  store: GameStore;
  newId: () => string;
  clock: () => Date;
  bus: EventBus; // where committed changes go (a ChangeFeed)
  sharedStore?: boolean; // other instances change games too: read through to the store, false
  cacheSize?: number; // games kept in memory, e.g. 10000
  cacheBytes?: number; // estimated heap those games may hold (domain's approximateBytes), e.g. 134217728
  maxPgnPlies?: number; // e.g. 10000
}

export interface Players {
  white?: PlayerInfo | undefined;
  black?: PlayerInfo | undefined;
}

const MAX_ID_ATTEMPTS = 5;
/** Updates refused by the version check that one change tries again after, before it answers UNAVAILABLE. */
export const MAX_CONFLICT_RETRIES = 20;

export class GameService {
  private readonly store: GameStore;
  private readonly newId: () => string;
  private readonly clock: () => Date;
  private readonly bus: EventBus;
  private readonly cacheSize: number;
  private readonly cacheBytes: number;
  private readonly maxPgnPlies: number;
  private readonly sharedStore: boolean;
  /** The games in memory, least recently used first, each with its estimated size. */
  private readonly cache = new Map<string, { game: Game; bytes: number }>();
  private cachedBytes = 0;
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(deps: GameServiceDeps) {
    this.store = deps.store;
    this.newId = deps.newId;
    this.clock = deps.clock;
    this.bus = deps.bus;
    this.cacheSize = deps.cacheSize ?? DEFAULTS.gameCacheSize;
    this.cacheBytes = deps.cacheBytes ?? DEFAULTS.gameCacheBytes;
    this.maxPgnPlies = deps.maxPgnPlies ?? DEFAULTS.maxPgnPlies;
    this.sharedStore = deps.sharedStore ?? false;
  }

  // Only the players are taken from the request: spreading it whole would let a body set the id or the date. A
  // player creates games in which they hold a side (DECISIONS §13).
  create({ white, black }: Players, actor: Actor = SERVICE): Promise<Game> {
    const seats = seatsForNewGame({ white, black }, actor);
    if (!seats.ok) return Promise.reject(seats.error);
    return this.insert(input => ok(newGame({ ...input, ...seats.value })));
  }

  importFen({ white, black }: Players, fen: string, actor: Actor = SERVICE): Promise<Game> {
    const seats = seatsForNewGame({ white, black }, actor);
    if (!seats.ok) return Promise.reject(seats.error);
    return this.insert(input => gameFromFen({ ...input, ...seats.value }, fen));
  }

  /** A player imports a game in which they hold both sides; the tags' names are not used then. */
  importPgn(pgn: string, actor: Actor = SERVICE): Promise<Game> {
    const seats = actor.kind === 'player' ? { white: actor.player, black: actor.player } : {};
    return this.insert(input => gameFromPgn({ ...input, ...seats }, pgn, { maxPlies: this.maxPgnPlies }));
  }

  /**
   * The current game; rejects with GAME_NOT_FOUND. On a shared store another instance may have changed it,
   * so the stored version is read every time; the game in memory is used when it is that version.
   */
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
    const game = this.sharedStore ? undefined : this.cache.get(id)?.game;
    return game ?? this.load(id);
  }

  /**
   * Whether the game exists. A game in memory, whatever its version, answers at once, also on a shared store:
   * a game, once created, always exists (none is ever deleted).
   */
  exists(id: string): true | Promise<boolean> {
    return this.cache.has(id) ? true : this.load(id).then(game => game !== undefined);
  }

  /** What the games in memory hold: how many, and their estimated bytes. */
  memory(): { games: number; bytes: number } {
    return { games: this.cache.size, bytes: this.cachedBytes };
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
  change(id: string, transition: (game: Game) => Result<Change>): Promise<Change> {
    return this.serialized(id, async () => {
      let game = this.cache.get(id)?.game;
      let current = !this.sharedStore; // the game in memory is known to be the stored version
      if (game === undefined) {
        game = await this.get(id);
        current = true;
      }
      for (let conflicts = 0; ;) {
        const result = transition(game);
        if (result.ok) {
          const next = result.value;
          if (await this.store.update(next.game.record, game.record.version, next.event)) {
            this.remember(next.game);
            this.bus.publish({ gameId: id, version: next.game.record.version, event: next.event });
            return next;
          }
          // Another process changed the game first: read its version and judge the request again.
          this.forget(id);
          if (++conflicts > MAX_CONFLICT_RETRIES) throw busy(id);
        } else if (current) {
          throw result.error;
        }
        game = await this.get(id);
        current = true;
      }
    });
  }

  private async insert(build: (input: NewGameInput) => Result<Game>): Promise<Game> {
    for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
      const result = build({ id: this.newId(), createdAt: this.clock().toISOString() });
      if (!result.ok) throw result.error;
      if (await this.store.create(result.value.record)) {
        this.remember(result.value);
        return result.value;
      }
    }
    throw new Error('could not find an unused game id');
  }

  private async load(id: string): Promise<Game | undefined> {
    const record = await this.store.get(id);
    if (!record) return undefined;
    const cached = this.cache.get(id)?.game;
    if (cached && cached.record.version === record.version) return cached;
    const game = restoreGame(record);
    this.remember(game);
    return game;
  }

  /**
   * Keeps the game as most recently used, evicting the least recently used beyond either bound (a count and
   * estimated bytes). A game larger than the whole byte bound is not kept: it is read from the store when needed.
   */
  private remember(game: Game): void {
    const id = game.record.id;
    this.forget(id);
    const bytes = approximateBytes(game);
    if (bytes > this.cacheBytes) return;
    this.cache.set(id, { game, bytes });
    this.cachedBytes += bytes;
    while (this.cache.size > this.cacheSize || this.cachedBytes > this.cacheBytes) {
      const oldest = this.cache.keys().next();
      if (oldest.done) break;
      this.forget(oldest.value);
    }
  }

  private forget(id: string): void {
    const entry = this.cache.get(id);
    if (!entry) return;
    this.cache.delete(id);
    this.cachedBytes -= entry.bytes;
  }

  private serialized<T>(id: string, task: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(id) ?? Promise.resolve();
    const run = previous.then(task, task);
    const tail = run.catch(() => undefined);
    this.queues.set(id, tail);
    void tail.then(() => {
      if (this.queues.get(id) === tail) this.queues.delete(id);
    });
    return run;
  }
}

export const notFound = (id: string): DomainError => new DomainError('GAME_NOT_FOUND', `game ${id} does not exist`);

/** Other instances changed the game before each of MAX_CONFLICT_RETRIES + 1 tries: a moment's contention, not a fault. */
const busy = (id: string): DomainError =>
  new DomainError('UNAVAILABLE', `game ${id} is being changed by too many requests at once; try again`);
