/**
 * The game service: loads a game, runs one domain transition, saves it with a version check and hands the
 * event to the publisher. Changes to one game run one at a time (a promise chain per game); the store's
 * version check keeps that true across processes. Recently used games stay in memory, derived state and
 * all, so that a change costs one move, not a replay.
 *
 * Clocked games (DECISIONS §14): the service reads the time from its injected clock and hands it to the
 * transitions; a game whose deadline has passed is ended by its clock (flag or abort) before any request on it is
 * judged, and one timer per such game (clocks.ts) ends it at the deadline when no request comes.
 *
 * ```ts
 * const games = new GameService({ store, bus: new ChangeFeed(store), newId, clock: () => new Date() });
 * const created = await games.create({});
 * const { game } = await games.change(created.record.id, (game, now) => makeMove(game, 'e2e4', SERVICE, now));
 * ```
 */
import {
  approximateBytes,
  gameFromFen,
  newGame,
  restoreGame,
  type Change,
  type Game,
  type GameRecord,
  type NewGameInput,
} from '../domain/game.ts';
import { gameFromPgn } from '../domain/pgn.ts';
import { DomainError, ok, type Result } from '../domain/errors.ts';
import { SERVICE, seatsForNewGame, type Actor } from '../domain/seats.ts';
import { parseTimeControl, type TimeControl } from '../domain/clock.ts';
import { expire, indexOfGame as indexOf } from '../domain/transitions.ts';
import type { GameStore } from '../store/store.ts';
import type { EventBus } from '../bus/bus.ts';
import { DEFAULTS } from '../config.ts';
import type { ClockRequest, PlayerInfo } from '../contract/shapes.ts';
import { ClockTimers } from './clocks.ts';
import type { Failure } from './selfChanges.ts';
import type { PlayerFeed } from '../bus/players.ts';
import { gameStateEvent } from '../domain/views.ts';
import { eventGameOf } from '../domain/lichess.ts';
import { isOver } from '../domain/status.ts';
import type { GameFull } from '../contract/shapes.ts';
import type { ListQuery } from '../store/store.ts';

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
}

/** A page of games (`list`): each with its version, and the position after the page, if another follows. */
export interface GamePage {
  games: Game[];
  next: number | undefined;
}

/** What a creation asks for: the players and an optional clock. */
export interface Players {
  white?: PlayerInfo | undefined;
  black?: PlayerInfo | undefined;
  clock?: ClockRequest | undefined;
  source?: 'lobby' | undefined; // a game paired from seeks (create only)
}

/** A transition as the service runs it: on the current game, at the time `now` (ms since the epoch). */
export type Transition = (game: Game, now: number) => Result<Change>;

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
  private readonly timers: ClockTimers;
  /** The latest version announced of each game recently changed (a shared store), and what proves them heard. */
  private readonly announcedVersions = new Map<string, number>();
  private readBarrier: { sync(): Promise<void> } | undefined;
  private readonly players: PlayerFeed | undefined;
  /** Set once, after construction, by what follows the committed games (the computer's turns). */
  onCommitted: ((game: Game) => void) | undefined;

  constructor(deps: GameServiceDeps) {
    this.store = deps.store;
    this.newId = deps.newId;
    this.clock = deps.clock;
    this.bus = deps.bus;
    this.cacheSize = deps.cacheSize ?? DEFAULTS.gameCacheSize;
    this.cacheBytes = deps.cacheBytes ?? DEFAULTS.gameCacheBytes;
    this.maxPgnPlies = deps.maxPgnPlies ?? DEFAULTS.maxPgnPlies;
    this.sharedStore = deps.sharedStore ?? false;
    this.players = deps.players;
    this.onCommitted = deps.onCommitted;
    // A game's end is tried until it is recorded (DECISIONS §13a); a game that does not exist has none to make.
    this.timers = new ClockTimers(
      id =>
        this.expireDue(id).catch((error: unknown) => {
          if (error instanceof DomainError && error.code === 'GAME_NOT_FOUND') return undefined;
          throw error;
        }),
      () => this.now(),
      { onFailure: failure => deps.onTimerError?.(failure.error, failure) },
    );
  }

  /** The service's time, in ms since the epoch: what clocks and the views of clocked games read. */
  now(): number {
    return this.clock().getTime();
  }

  // Only the players and the clock are taken from the request: spreading it whole would let a body set the id or
  // the date. A player creates only games in which they hold both sides (DECISIONS §13a).
  // `id`: the game's id, chosen by the caller (an accepted challenge records it before the game is made); a game
  // of that id already made is answered as it is, so that a creation retried after a crash makes one game.
  create({ white, black, clock, source }: Players, actor: Actor = SERVICE, id?: string): Promise<Game> {
    const seats = seatsForNewGame({ white, black }, actor);
    if (!seats.ok) return Promise.reject(seats.error);
    return this.insert(clock, input => ok(newGame({ ...input, ...seats.value, source })), id);
  }

  importFen({ white, black, clock }: Players, fen: string, actor: Actor = SERVICE, id?: string): Promise<Game> {
    const seats = seatsForNewGame({ white, black }, actor);
    if (!seats.ok) return Promise.reject(seats.error);
    return this.insert(clock, input => gameFromFen({ ...input, ...seats.value }, fen), id);
  }

  /** A player imports a game in which they hold both sides; the tags' names are not used then. */
  importPgn(pgn: string, actor: Actor = SERVICE, clock?: ClockRequest): Promise<Game> {
    const seats = seatsForNewGame({}, actor);
    if (!seats.ok) return Promise.reject(seats.error);
    return this.insert(clock, input => gameFromPgn({ ...input, ...seats.value }, pgn, { maxPlies: this.maxPgnPlies }));
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
    const cached = this.cache.get(id)?.game;
    if (!this.sharedStore) return cached ?? this.load(id);
    if (!cached || !this.readBarrier) return this.load(id);
    // On a shared store the copy in memory is current when no later version has been announced by the time every
    // change committed before this read has been heard (the barrier): then it costs no read of the store.
    return this.readBarrier.sync().then(
      () => {
        const copy = this.cache.get(id)?.game;
        const latest = this.announcedVersions.get(id);
        return copy && (latest === undefined || copy.record.version >= latest) ? copy : this.load(id);
      },
      () => this.load(id),
    );
  }

  /**
   * What proves a copy in memory current on a shared store: a barrier after which every change committed before
   * it has been announced to this instance (bus/postgres.ts, ChangeListener.sync). Without one, reads read the store.
   */
  useReadBarrier(barrier: { sync(): Promise<void> }): void {
    this.readBarrier = barrier;
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
  change(id: string, transition: Transition): Promise<Change> {
    return this.serialized(id, async () => {
      let game = this.cache.get(id)?.game;
      let current = !this.sharedStore; // the game in memory is known to be the stored version
      if (game === undefined) {
        game = await this.get(id);
        current = true;
      }
      for (let conflicts = 0; ;) {
        const now = this.now();
        // A clock whose deadline has passed ends the game first; the request is then judged on the ended game.
        const due = expire(game, now);
        const result: Result<Change> = due ? ok(due) : transition(game, now);
        if (result.ok) {
          if (await this.commit(game, result.value)) {
            if (!due) return result.value;
            game = result.value.game;
            current = true;
            continue;
          }
          // Another process changed the game first: read its version and judge the request again.
          if (++conflicts > MAX_CONFLICT_RETRIES) throw busy(id);
        } else if (current) {
          throw result.error;
        }
        game = await this.get(id);
        current = true;
      }
    });
  }

  /**
   * Ends a clocked game whose deadline has come (the flag, or the abort of a game not started in time), if it has
   * not ended yet: what a game's timer calls. Resolves with the change, or undefined when there was none to make;
   * rejects when the store failed (the timer tries again).
   */
  expireDue(id: string): Promise<Change | undefined> {
    return this.serialized(id, async () => {
      for (let conflicts = 0; ;) {
        const game = await this.get(id);
        const due = expire(game, this.now());
        if (!due) {
          // Not due (a later deadline, or already over): the timer follows the game as it is.
          this.timers.arm(id, indexOf(game).deadline, true);
          return undefined;
        }
        if (await this.commit(game, due)) return due;
        if (++conflicts > MAX_CONFLICT_RETRIES) throw busy(id);
      }
    });
  }

  /**
   * Arms a timer for every game with a deadline in the store: at start, and when announcements were missed. With
   * other instances on the store, each of them may have made a game's last change: this one waits its grace.
   */
  async armClocks(): Promise<number> {
    const clocked = await this.store.clockedGames();
    for (const { id, deadline } of clocked) this.timers.arm(id, deadline, !this.sharedStore);
    return clocked.length;
  }

  /**
   * A change of a game was announced (by another instance, or this one's own, which every instance hears too):
   * its timer follows the new deadline; one already armed for it keeps its time.
   */
  announced(id: string, version: number, deadline: number | null): void {
    this.noteAnnounced(id, version);
    const armed = this.timers.deadlineOf(id);
    if (armed === (deadline ?? undefined)) return;
    this.timers.arm(id, deadline, false);
  }

  /**
   * Announcements may have been missed (the listening connection dropped): no copy in memory is known to be current
   * any more, and the clocks are armed again from the store.
   */
  async resynced(): Promise<void> {
    this.cache.clear();
    this.cachedBytes = 0;
    this.announcedVersions.clear();
    await this.armClocks();
  }

  /**
   * Keeps the latest announced version of a game (bounded: a game whose version is forgotten leaves memory too,
   * so that no copy is trusted without it).
   */
  private noteAnnounced(id: string, version: number): void {
    const known = this.announcedVersions.get(id);
    if (known !== undefined && known >= version) return;
    this.announcedVersions.delete(id);
    this.announcedVersions.set(id, version);
    if (this.announcedVersions.size > 2 * this.cacheSize) {
      const oldest = this.announcedVersions.keys().next().value!;
      this.announcedVersions.delete(oldest);
      this.forget(oldest);
    }
  }

  /** The timers of the games' clocks: how many are armed. */
  armedClocks(): number {
    return this.timers.size;
  }

  /** Stops every clock timer (at shutdown). */
  close(): void {
    this.timers.close();
  }

  /** Writes a change with a version check; once it is durable, keeps it, publishes it and follows its clock. */
  private async commit(game: Game, change: Change): Promise<boolean> {
    const id = game.record.id;
    const index = indexOf(change.game);
    const saved = await this.store.update(change.game.record, game.record.version, change.event, index, game.record);
    if (!saved) {
      this.forget(id);
      return false;
    }
    this.remember(change.game);
    this.bus.publish({ gameId: id, version: change.game.record.version, event: change.event });
    this.timers.arm(id, index.deadline, true);
    if (isOver(game) !== index.ended) this.transition(change.game, index.ended ? 'gameFinish' : 'gameStart');
    this.onCommitted?.(change.game);
    return true;
  }

  /**
   * A game started or ended: its players' streams hear of it. With other instances on the store, every instance
   * (this one too) hears of it through the store's announcement instead, in the order of the commits.
   */
  private transition(game: Game, type: 'gameStart' | 'gameFinish'): void {
    if (this.sharedStore || !this.players) return;
    const { id, version, white, black } = game.record;
    const seats = [white.id, black.id] as const;
    // Most games start and end with no stream of either player open: no GameFull is made for no one.
    if (!this.players.listening(seats)) return;
    this.players.publish(seats, { type, gameId: id, version, game: eventGameOf(game, this.now()) });
  }

  /**
   * A page of games, most recently changed first (the store's order of changes); `before` the position after
   * an earlier page.
   */
  async list(query: ListQuery): Promise<GamePage> {
    const rows = await this.store.listGames({ ...query, limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    const games = page.map(({ record }) => this.restored(record));
    return { games, next: rows.length > query.limit ? page.at(-1)!.seq : undefined };
  }

  /**
   * A page of a player's ongoing games in id order, those after the id `after` (GameStore.ongoingGames): a walk
   * through these pages lists once every game ongoing throughout, however the games change meanwhile.
   */
  async ongoing(player: string, after: string | undefined, limit: number): Promise<Game[]> {
    const records = await this.store.ongoingGames(player, after, limit);
    return records.map(record => this.restored(record));
  }

  /** A game read from the store: the copy in memory when it is of the same version, else the record replayed. */
  private restored(record: GameRecord): Game {
    const cached = this.cache.get(record.id)?.game;
    return cached?.record.version === record.version ? cached : restoreGame(record);
  }

  /**
   * A game as the change of `version` left it, from the change log (for a transition another instance
   * announced); undefined when the log no longer has it.
   */
  async gameAt(id: string, version: number): Promise<GameFull | undefined> {
    const [logged] = await this.store.changesSince(id, version - 1);
    if (logged?.version !== version) return undefined;
    const game = await this.get(id); // its seats and clock never change
    return { ...eventGameOf(game, this.now()), state: logged.event.state };
  }

  private async insert(
    clock: ClockRequest | undefined,
    build: (input: NewGameInput) => Result<Game>,
    id?: string,
  ): Promise<Game> {
    let control: TimeControl | undefined;
    if (clock) {
      const parsed = parseTimeControl(clock);
      if (!parsed.ok) throw parsed.error;
      control = parsed.value;
    }
    for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
      if (id !== undefined && attempt > 0) return this.get(id); // made already: the id is taken by that game
      const result = build({ id: id ?? this.newId(), createdAt: this.clock().toISOString(), clock: control });
      if (!result.ok) throw result.error;
      const game = result.value;
      const index = indexOf(game);
      if (await this.store.create(game.record, index, gameStateEvent(game, this.now()))) {
        this.remember(game);
        this.timers.arm(game.record.id, index.deadline, true);
        if (!index.ended) this.transition(game, 'gameStart');
        this.onCommitted?.(game);
        return game;
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
