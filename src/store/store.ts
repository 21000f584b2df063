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
import type { GameEvent } from '../contract/events.ts';
import { DEFAULT_BLACK, DEFAULT_WHITE } from '../domain/types.ts';

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

type Seat = 'white_id' | 'black_id';

/**
 * The player a seat holds when no one named it (DECISIONS §13): the seat indexes leave it out (sqlite migration 0016,
 * postgres 0015), so that a move of a game between unnamed players moves no entry of theirs.
 */
const UNNAMED: Record<Seat, string> = { white_id: DEFAULT_WHITE.id, black_id: DEFAULT_BLACK.id };

/**
 * The condition on a seat of a player's list. For a named player it also says that the seat is not the unnamed
 * one (true, since the player is not): the condition of the seat's index, which a database uses an index of part of
 * a table only when the query states. The unnamed player's own seat is read from the index of every game.
 */
const seatIs = (seat: Seat, player: string, param: string): string =>
  player === UNNAMED[seat] ? `${seat} = ${param}` : `${seat} = ${param} AND ${seat} <> '${UNNAMED[seat]}'`;

/**
 * The shape of a list's SQL for a player, which its prepared statement is kept by: every game, a named player, or
 * one of the unnamed players (whose own seat is read without its index).
 */
export const playerShape = (player: string | undefined): string =>
  player === undefined ? 'all' : player === UNNAMED.white_id || player === UNNAMED.black_id ? player : 'player';

/** The SQL of a page of games (listGames), for both stores: `param(name)` writes a parameter's placeholder. */
export function listGamesSql(query: ListQuery, param: (name: 'player' | 'before' | 'limit') => string): string {
  const ended = query.status === 'all' ? [0, 1] : query.status === 'ended' ? [1] : [0];
  const { player } = query;
  const seats: Array<Seat | undefined> = player === undefined ? [undefined] : ['white_id', 'black_id'];
  // One branch per index range (seat column, ended): each reads at most `limit` rows in seq order from its index,
  // and the union of the few branches is sorted again. A game a player holds both seats of is one row.
  const branches = seats.flatMap((seat, i) =>
    ended.map(value => {
      const seated = seat === undefined ? '' : `${seatIs(seat, player!, param('player'))} AND `;
      return (
        `SELECT * FROM (SELECT id, version, created_at, data, seq FROM games WHERE ${seated}ended = ${value} ` +
        `AND seq < ${param('before')} ORDER BY seq DESC LIMIT ${param('limit')}) AS b${i}${value}`
      );
    }),
  );
  return `SELECT * FROM (${branches.join(' UNION ')}) AS page ORDER BY seq DESC LIMIT ${param('limit')}`;
}

/**
 * The SQL of a page of a player's ongoing games in id order (ongoingGames), for both stores: the ids from the index
 * of each seat (a game a player holds both seats of is one id), then their rows.
 */
export function ongoingGamesSql(player: string, param: (name: 'player' | 'after' | 'limit') => string): string {
  const ids = (seat: Seat) =>
    `SELECT id FROM games WHERE ${seatIs(seat, player, param('player'))} AND ended = 0 AND id > ${param('after')}`;
  return (
    `SELECT g.id, g.version, g.created_at, g.data FROM (${ids('white_id')} UNION ${ids('black_id')} ` +
    `ORDER BY id LIMIT ${param('limit')}) AS page JOIN games g ON g.id = page.id`
  );
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
   * event must raise the version by one (the log holds one entry per version); one that does not rejects.
   */
  update(
    record: GameRecord,
    expectedVersion: number,
    event?: StateEvent,
    index?: GameIndex,
    previous?: GameRecord, // the record of expectedVersion, if known: only what differs from it is written
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
