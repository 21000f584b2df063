/**
 * Where games live. Adapters hold all SQL; the interface is async so that an embedded and a networked
 * database fit behind it alike. A resolved write is durable (committed and synced).
 *
 * ```ts
 * const store = await openStore('sqlite:./data/chess.sqlite');
 * await store.create(game.record);
 * const saved = await store.update(next.record, game.record.version); // false: someone else changed it first
 * ```
 */
import type { GameRecord } from '../domain/game.ts';
import type { GameIndex } from '../domain/transitions.ts';
import type { RatedEnd } from '../domain/ratings.ts';
import type { GameEvent } from '../contract/events.ts';

/** The event of one committed change: what streams send for it. */
export type StateEvent = Extract<GameEvent, { type: 'gameState' }>;

/** One entry of a game's change log: the version a change produced and its event. */
export interface StoredChange {
  gameId: string;
  version: number;
  event: StateEvent;
}

/** How long a shared store's change log keeps an entry at least: long enough for any stream to catch up after a hiccup. */
export const CHANGE_LOG_RETENTION_MS = 60 * 60 * 1000;

/** What a store indexes a game by besides its record, derived from the whole game by the domain (`indexOfGame`). */
export type { GameIndex };

/** The index of a game with no clock that is not over: what a write without an index means (tools and tests). */
export const NO_INDEX: GameIndex = Object.freeze({ deadline: null, ended: false });

export interface ListQuery {
  player?: string | undefined; // a seat's id; undefined: every game
  status: 'ongoing' | 'ended' | 'all';
  limit: number; // e.g. 51: one more than a page, to tell whether another follows
  before?: number | undefined; // only games whose seq is lower: the position after an earlier page
}

export interface ListedGame {
  record: GameRecord;
  seq: number; // the game's place in the order of changes
}

/** A game whose clock will call for the service to act. */
export interface ClockedGame {
  id: string;
  deadline: number; // ms since the epoch
}

export interface GameStore {
  /**
   * Inserts a new game; resolves false when the id is already taken. A store shared by several instances logs
   * `event` (the new game's state) at version 1 and announces the creation, so that the other instances' players'
   * streams hear of it. A real-time game against the computer is inserted only while its person has fewer than
   * their bound of such games ongoing, counted with the insert as one step (engineGames.ts); else it rejects with
   * RATE_LIMITED.
   */
  create(record: GameRecord, index?: GameIndex, event?: StateEvent): Promise<boolean>;
  get(id: string): Promise<GameRecord | undefined>;
  /**
   * Replaces a game if its stored version is still `expectedVersion`; resolves false otherwise. The event is
   * appended to the game's change log at `record.version` when the change commits, and stores shared by
   * several instances announce the change to the others (PostgreSQL NOTIFY) when it commits. An update with an
   * event must raise the version by one (the log holds one entry per version); one that does not rejects. An update
   * with `rated` (the end of a rated game) writes both sides' perfs and history points in the same transaction, and
   * only if each side's stored perf is still `before`: else nothing is written and it resolves false, as for a
   * version that changed (the caller rates the game again on the perfs as they are).
   */
  update(
    record: GameRecord,
    expectedVersion: number,
    event?: StateEvent,
    index?: GameIndex,
    previous?: GameRecord, // the record of expectedVersion, if known: only what differs from it is written
    rated?: RatedEnd,
  ): Promise<boolean>;
  /** Every game with a deadline (a running clock, or a first move awaited): what the service's timers watch. */
  clockedGames(): Promise<ClockedGame[]>;
  /**
   * A page of games, most recently changed first: those `query.player` holds a seat in (all games without), of
   * `query.status`, changed before the position `query.before` (a `seq` of an earlier page). Every write gives
   * its game a new `seq`, higher than any before it, so a game that does not change keeps its place: pages never
   * repeat or skip it. Indexed, so that a page costs the same however many games are stored.
   */
  listGames(query: ListQuery): Promise<ListedGame[]>;
  /**
   * A page of the games `player` holds a seat in that are not over, in id order, from the first id after `after`
   * (from the first without it). Ids never change, so a walk through the pages lists once every game that is
   * ongoing throughout, whatever changes meanwhile; in the order of changes (listGames), a game that changes
   * between two pages moves up past the walk and is missed. What a player's event stream opens with.
   */
  ongoingGames(player: string, after: string | undefined, limit: number): Promise<GameRecord[]>;
  /**
   * The logged changes of a game after `afterVersion`, in version order. Entries may be gone (a caller that
   * finds a gap has to start over from the game itself): a shared store keeps them in the database for
   * CHANGE_LOG_RETENTION_MS; a store no other instance shares keeps the latest ones in memory
   * (RECENT_CHANGES_BYTES, see recentChanges.ts), so after a restart its log starts empty.
   */
  changesSince(id: string, afterVersion: number): Promise<StoredChange[]>;
  /**
   * The service's own secret: made once with the store and the same for every process that opens it, so that what
   * one instance signs (a listing cursor) every other recognises. 64 hex digits.
   */
  secret(): Promise<string>;
  /** Rejects when the store cannot serve requests. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Why an update may not log its event (it does not raise the version by one), or undefined. */
export function loggedVersionError(
  record: GameRecord,
  expectedVersion: number,
  event?: StateEvent,
): TypeError | undefined {
  if (event === undefined || record.version === expectedVersion + 1) return undefined;
  return new TypeError(
    `an update that logs an event must raise the version by one (from ${expectedVersion}, not to ${record.version})`,
  );
}
