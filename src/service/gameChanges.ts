/**
 * The changes of games (games.ts): one domain transition run on the current game, saved with a version check and
 * handed to the publisher. Changes to one game run one at a time (a promise chain per game); the store's version
 * check keeps that true across processes, and a change refused by it is judged again on the stored game, up to
 * MAX_CONFLICT_RETRIES times.
 *
 * Clocked games (DECISIONS §14): the time comes from the injected clock; a game whose deadline has passed is ended
 * by its clock (flag or abort) before any request on it is judged, and one timer per such game (clocks.ts) ends it
 * at the deadline when no request comes.
 *
 * ```ts
 * const changes = new GameChanges({ store, bus, cache, sharedStore: false, now: Date.now });
 * const { game } = await changes.change('AbCd1234', (game, now) => makeMove(game, 'e2e4', SERVICE, now));
 * ```
 */
import type { Change, Game } from '../domain/game.ts';
import { DomainError, ok, type Result } from '../domain/errors.ts';
import { expire, indexOfGame as indexOf, type GameIndex } from '../domain/transitions.ts';
import { isOver } from '../domain/status.ts';
import { eventGameOf } from '../domain/lichess.ts';
import { perfIn, perfTypeOf, ratedEndOf, ratesGame } from '../domain/ratings.ts';
import type { RatingStore } from '../store/ratings.ts';
import type { GameStore } from '../store/store.ts';
import type { EventBus } from '../bus/bus.ts';
import type { PlayerFeed } from '../bus/players.ts';
import { ClockTimers } from './clocks.ts';
import type { Failure } from './selfChanges.ts';
import type { GameCache } from './gameCache.ts';

/** A transition as the service runs it: on the current game, at the time `now` (ms since the epoch). */
export type Transition = (game: Game, now: number) => Result<Change>;

/** Updates refused by the version check that one change tries again after, before it answers UNAVAILABLE. */
export const MAX_CONFLICT_RETRIES = 20;

export interface GameChangesDeps {
  store: GameStore;
  bus: EventBus; // where committed changes go (a ChangeFeed)
  cache: GameCache;
  sharedStore: boolean; // other instances change games too
  now: () => number; // ms since the epoch
  // A try of a clock timer's end of a game failed (the store) and is retried (`failure.retryInMs`), for the log.
  onTimerError?: ((error: unknown, failure: Failure) => void) | undefined;
  players?: PlayerFeed | undefined; // where games starting and ending go, for the players' event streams
  onCommitted?: ((game: Game) => void) | undefined;
  ratings?: RatingStore | undefined; // the perfs a rated game's end is rated from (DECISIONS §21); none: never rated
}

export class GameChanges {
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly timers: ClockTimers;
  /** Each game as a change or a creation made here left it, once durable; set once, after construction. */
  onCommitted: ((game: Game) => void) | undefined;

  constructor(private readonly deps: GameChangesDeps) {
    this.onCommitted = deps.onCommitted;
    // A game's end is tried until it is recorded (DECISIONS §13a); a game that does not exist has none to make.
    this.timers = new ClockTimers(
      id =>
        this.expireDue(id).catch((error: unknown) => {
          if (error instanceof DomainError && error.code === 'GAME_NOT_FOUND') return undefined;
          throw error;
        }),
      deps.now,
      { onFailure: failure => deps.onTimerError?.(failure.error, failure) },
    );
  }

  /**
   * Runs `transition` on the current game and commits its result (GameService.change): the game in memory is used
   * without reading the store, and a refusal made on a copy that may be old is judged again on the stored game.
   */
  change(id: string, transition: Transition): Promise<Change> {
    const { cache, sharedStore, now } = this.deps;
    return this.serialized(id, async () => {
      let game = cache.cached(id);
      let current = !sharedStore; // the game in memory is known to be the stored version
      if (game === undefined) {
        game = await cache.get(id);
        current = true;
      }
      for (let conflicts = 0; ;) {
        const at = now();
        // A clock whose deadline has passed ends the game first; the request is then judged on the ended game.
        const due = expire(game, at);
        const result: Result<Change> = due ? ok(due) : transition(game, at);
        if (result.ok) {
          const committed = await this.commit(game, result.value, at);
          if (committed) {
            if (!due) return committed;
            game = committed.game;
            current = true;
            continue;
          }
          // Another process changed the game first: read its version and judge the request again.
          if (++conflicts > MAX_CONFLICT_RETRIES) throw busy(id);
        } else if (current) {
          throw result.error;
        }
        game = await cache.get(id);
        current = true;
      }
    });
  }

  /** Ends a clocked game whose deadline has come, if it has not ended yet (GameService.expireDue). */
  expireDue(id: string): Promise<Change | undefined> {
    return this.serialized(id, async () => {
      for (let conflicts = 0; ;) {
        const game = await this.deps.cache.get(id);
        const at = this.deps.now();
        const due = expire(game, at);
        if (!due) {
          // Not due (a later deadline, or already over): the timer follows the game as it is.
          this.timers.arm(id, indexOf(game).deadline, true);
          return undefined;
        }
        const committed = await this.commit(game, due, at);
        if (committed) return committed;
        if (++conflicts > MAX_CONFLICT_RETRIES) throw busy(id);
      }
    });
  }

  /** A game this instance created is recorded: it is kept, its clock followed and its players told. */
  created(game: Game, index: GameIndex): void {
    this.deps.cache.remember(game);
    this.timers.arm(game.record.id, index.deadline, true);
    if (!index.ended) this.transition(game, 'gameStart');
    this.onCommitted?.(game);
  }

  /** Arms a timer for every game with a deadline in the store (GameService.armClocks). */
  async armClocks(): Promise<number> {
    const clocked = await this.deps.store.clockedGames();
    for (const { id, deadline } of clocked) this.timers.arm(id, deadline, !this.deps.sharedStore);
    return clocked.length;
  }

  /** A change of a game was announced: its timer follows the new deadline; one already armed keeps its time. */
  announced(id: string, deadline: number | null): void {
    const armed = this.timers.deadlineOf(id);
    if (armed === (deadline ?? undefined)) return;
    this.timers.arm(id, deadline, false);
  }

  /** The timers of the games' clocks: how many are armed. */
  armedClocks(): number {
    return this.timers.size;
  }

  /** Stops every clock timer (at shutdown). */
  close(): void {
    this.timers.close();
  }

  /**
   * Writes a change with a version check; once it is durable, keeps it, publishes it and follows its clock. The
   * change that ends a rated game rates it (at `at`) and writes both perfs with it, checked on the perfs it read:
   * refused as a version conflict when either changed meanwhile, so that the game is judged and rated again.
   * Undefined when refused; else the change as committed (a rated end with its rating changes).
   */
  private async commit(game: Game, proposed: Change, at: number): Promise<Change | undefined> {
    const id = game.record.id;
    // Judged before any await: a move that ends no rated game (nearly every one) waits for nothing more.
    const rated =
      this.deps.ratings && ratesGame(game, proposed.game) ? await this.rated(game, proposed, at) : undefined;
    const change = rated ? { ...proposed, game: rated.game } : proposed;
    const index = indexOf(change.game);
    const saved = await this.deps.store.update(
      change.game.record,
      game.record.version,
      change.event,
      index,
      game.record,
      rated?.end,
    );
    if (!saved) {
      this.deps.cache.forget(id);
      return undefined;
    }
    this.deps.cache.remember(change.game);
    this.deps.bus.publish({ gameId: id, version: change.game.record.version, event: change.event });
    this.timers.arm(id, index.deadline, true);
    if (isOver(game) !== index.ended) this.transition(change.game, index.ended ? 'gameFinish' : 'gameStart');
    this.onCommitted?.(change.game);
    return change;
  }

  /** The rating of a change that ends a rated game (ratings.ts), from both sides' perfs as stored now. */
  private async rated(game: Game, change: Change, at: number): Promise<ReturnType<typeof ratedEndOf>> {
    const { ratings } = this.deps;
    if (!ratings) return undefined;
    const { white, black, clock } = change.game.record;
    const perfType = perfTypeOf(clock?.control);
    const stored = await ratings.perfsOf([white.id, black.id]);
    const perfs = { white: perfIn(stored, white.id, perfType), black: perfIn(stored, black.id, perfType) };
    return ratedEndOf(game, change.game, perfs, at);
  }

  /**
   * A game started or ended: its players' streams hear of it. With other instances on the store, every instance
   * (this one too) hears of it through the store's announcement instead, in the order of the commits.
   */
  private transition(game: Game, type: 'gameStart' | 'gameFinish'): void {
    const { players, sharedStore } = this.deps;
    if (sharedStore || !players) return;
    const { id, version, white, black } = game.record;
    const seats = [white.id, black.id] as const;
    // Most games start and end with no stream of either player open: no GameFull is made for no one.
    if (!players.listening(seats)) return;
    players.publish(seats, { type, gameId: id, version, game: eventGameOf(game, this.deps.now()) });
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

/** Other instances changed the game before each of MAX_CONFLICT_RETRIES + 1 tries: a moment's contention, not a fault. */
const busy = (id: string): DomainError =>
  new DomainError('UNAVAILABLE', `game ${id} is being changed by too many requests at once; try again`);
