/**
 * A player's events (DECISIONS §13): `gameStart` when a game with the player in a seat starts (is created, or is
 * resumed by an undo of its end) and `gameFinish` when it ends, to every stream of that player, on every instance.
 *
 * They come from two sources: the service publishes the transitions of changes it commits itself (one instance
 * on its own store), and with a store shared by several instances every instance hears every transition through
 * the change announcements (`announce`), reading the game's state at that version from the change log. A read
 * that fails (the store unreachable for a while) is tried again until it succeeds, as the change feed's catch-up
 * is, and the player's later events wait for it: they are delayed, never lost (DECISIONS §13a).
 *
 * Each stream keeps what it told its client of each game (`PlayerStream`): a game's events are applied in version
 * order and once; a start of a game it already showed started, or a finish of one it never showed, is not sent.
 *
 * ```ts
 * const off = feed.subscribe('ann', event => send(event));
 * feed.publish(['ann', 'bob'], { type: 'gameStart', gameId, version: 1, game });
 * ```
 */
import type { GameFull } from '../contract/shapes.ts';
import type { ChallengeLine } from '../contract/events.ts';
import { RETRY_MS } from './feed.ts';

export interface PlayerEvent {
  type: 'gameStart' | 'gameFinish';
  gameId: string;
  version: number; // the version of the change that started or ended the game
  game: GameFull; // the game as that change left it
}

export type PlayerListener = (event: PlayerEvent) => void;
/** A challenge made, canceled or declined (DECISIONS §16), as the player it is sent to reads it. */
export type ChallengeListener = (line: ChallengeLine) => void;

/** A transition another instance announced: what the feed needs to find and judge it. */
export interface AnnouncedTransition {
  gameId: string;
  version: number;
  transition: 'gameStart' | 'gameFinish';
  white: string;
  black: string;
}

/**
 * Runs `task` until it succeeds, again RETRY_MS after each failure (reported to `onError`), while `wanted()` holds:
 * a read of the store that fails is retried, never skipped. Resolves once it has succeeded or is no longer wanted.
 */
export async function retried(
  task: () => Promise<void>,
  wanted: () => boolean,
  onError: (error: unknown) => void,
): Promise<void> {
  while (wanted()) {
    try {
      await task();
      return;
    } catch (error) {
      onError(error);
    }
    await new Promise<void>(resolve => setTimeout(resolve, RETRY_MS).unref());
  }
}

/** Adds `listener` to the player's set in `listeners`; returns how to take it out (the set goes with its last one). */
function listen<L>(listeners: Map<string, Set<L>>, playerId: string, listener: L): () => void {
  let set = listeners.get(playerId);
  if (!set) {
    set = new Set();
    listeners.set(playerId, set);
  }
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0 && listeners.get(playerId) === set) listeners.delete(playerId);
  };
}

export class PlayerFeed {
  private readonly listeners = new Map<string, Set<PlayerListener>>();
  private readonly resyncs = new Set<() => void>();
  private readonly challengeListeners = new Map<string, Set<ChallengeListener>>();
  /**
   * One announced transition at a time per player (the last one of each player's queue), so that a player's events
   * keep the order of their commits, also while a read is retried; a game's events keep theirs with its seats'.
   */
  private readonly queues = new Map<string, Promise<void>>();

  /**
   * @param gameAt the game as the change of `version` left it (from the change log), for announced transitions;
   *   undefined when it cannot be found (a later look at the player's games repairs that, see `resync`).
   */
  constructor(
    private readonly gameAt: (gameId: string, version: number) => Promise<GameFull | undefined> = () =>
      Promise.resolve(undefined),
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  subscribe(playerId: string, listener: PlayerListener): () => void {
    return listen(this.listeners, playerId, listener);
  }

  /** The challenge events of a player (`challenge`, `challengeCanceled`, `challengeDeclined`); returns how to stop. */
  subscribeChallenges(playerId: string, listener: ChallengeListener): () => void {
    return listen(this.challengeListeners, playerId, listener);
  }

  /** A challenge event, to the streams of the player it is sent to (each player gets its own `direction`). */
  publishChallenge(playerId: string, line: ChallengeLine): void {
    for (const listener of this.challengeListeners.get(playerId) ?? []) listener(line);
  }

  /** Runs `handler` whenever announcements may have been missed; returns how to stop. */
  onResync(handler: () => void): () => void {
    this.resyncs.add(handler);
    return () => this.resyncs.delete(handler);
  }

  /** Announcements may have been missed (a lost connection): every stream looks at its player's games again. */
  resync(): void {
    for (const handler of this.resyncs) handler();
  }

  /** Whether any stream of these players is open: a transition no one hears need not be made into an event. */
  /** The players with an event stream open here. */
  following(): string[] {
    return [...this.listeners.keys()];
  }

  listening(players: readonly [string, string]): boolean {
    return this.listeners.has(players[0]) || this.listeners.has(players[1]);
  }

  /** A transition this instance committed, to the streams of its seats (once for a player on both). */
  publish(players: readonly [string, string], event: PlayerEvent): void {
    for (const player of new Set(players)) for (const listener of this.listeners.get(player) ?? []) listener(event);
  }

  /**
   * A transition announced by the store (any instance's): read at its version, then published, after the
   * transitions announced before it to either of its players. A read that fails is tried again (`retried`) for as
   * long as one of the players has a stream here.
   */
  announce(announced: AnnouncedTransition): void {
    const { gameId, version, transition, white, black } = announced;
    const heard = () => this.listeners.has(white) || this.listeners.has(black);
    if (!heard()) return;
    const seats = [...new Set([white, black])];
    const read = async () => {
      const game = await this.gameAt(gameId, version);
      if (game) this.publish([white, black], { type: transition, gameId, version, game });
    };
    const next = Promise.all(seats.map(player => this.queues.get(player) ?? Promise.resolve()))
      .then(() => retried(read, heard, this.onError))
      .catch((error: unknown) => this.onError(error));
    for (const player of seats) this.queues.set(player, next);
    void next.then(() => {
      for (const player of seats) if (this.queues.get(player) === next) this.queues.delete(player);
    });
  }
}

/**
 * What one stream told its client of each game, and the rule for what to send next: events of a game in version
 * order and once; `gameStart` only for a game not shown started, `gameFinish` only for one shown started.
 */
export class PlayerStream {
  private readonly known = new Map<string, { version: number; ongoing: boolean }>();

  constructor(private readonly send: (line: { type: PlayerEvent['type']; game: GameFull }) => void) {}

  /** The player's ongoing games when the stream starts (or looks again): a `gameStart` for each not shown yet. */
  started(games: ReadonlyArray<{ version: number; game: GameFull }>): void {
    for (const { version, game } of games) this.apply({ type: 'gameStart', gameId: game.gameId, version, game });
  }

  apply(event: PlayerEvent): void {
    const seen = this.known.get(event.gameId);
    if (seen && event.version <= seen.version) return;
    const ongoing = event.type === 'gameStart';
    this.known.set(event.gameId, { version: event.version, ongoing });
    if (ongoing !== (seen?.ongoing ?? false)) this.send({ type: event.type, game: event.game });
    else if (seen === undefined && !ongoing) this.known.delete(event.gameId); // never shown: nothing to remember
    if (!ongoing) this.forgetOldFinished();
  }

  /** Games shown started and not shown finished: what a second look at the player's games compares with. */
  ongoing(): string[] {
    return [...this.known].filter(([, { ongoing }]) => ongoing).map(([id]) => id);
  }

  /** A finished game stays known only for a while (its late duplicates), so that a long stream stays small. */
  private forgetOldFinished(): void {
    if (this.known.size <= 1000) return;
    for (const [id, { ongoing }] of this.known) {
      if (this.known.size <= 500) return;
      if (!ongoing) this.known.delete(id);
    }
  }
}
