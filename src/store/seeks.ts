/**
 * Where seeks live (DECISIONS §16), beside the games in the same store, so that every instance of a shared store
 * pairs from one pool. A pairing is a claim of two seeks at once: both are paired only if both are still open,
 * in one transaction, so that each seek is paired at most once whatever the number of instances and racing
 * requests. No lock in memory.
 *
 * What a seek is does not change once stored (the row's `data`); what becomes of it (its status, its lease, the
 * game it was paired into) is in columns of its own, read back over the data.
 *
 * A player's open seeks are bounded in the store (DECISIONS §16a), counted in the step that inserts a new one, so
 * that racing requests on any instances never pass the bound: one real-time seek (a new one withdraws the older)
 * and `maxCorrespondence` correspondence seeks. A real-time seek is held by the store that inserted it (its
 * process holds the seek's request, `holder`): a seek whose holder died (its process killed or restarted) is never
 * paired, even before its lease lapses. The adapters say how they tell a holder alive.
 *
 * ```ts
 * await store.insertSeek(seek, 10); // { result: 'inserted', withdrawn: [the player's older real-time seek] }
 * const won = await store.pairSeeks(pairedOlder, pairedNewer); // false: one of them was paired or withdrawn first
 * ```
 */
import { isRealTime, type Seek } from '../domain/seek.ts';

/** What became of a new seek: stored, refused for its id (`taken`), or refused for its player's open ones (`limit`). */
export interface InsertedSeek {
  result: 'inserted' | 'taken' | 'limit';
  /** The player's open real-time seeks that the new one withdrew (a real-time seek inserted; else none). */
  withdrawn: string[];
}

export interface SeekStore {
  /**
   * Adds a new open seek (durably), unless its id is taken (`taken`). A real-time seek is held by this store and
   * withdraws every other open real-time seek of its player, in the same step; a correspondence seek is refused
   * (`limit`) when its player already has `maxCorrespondence` open (no limit by default). Requests racing from one
   * player, on any instances, never leave two real-time seeks open nor pass the limit.
   */
  insertSeek(seek: Seek, maxCorrespondence?: number): Promise<InsertedSeek>;
  /** The seek with this id, whatever its status. */
  seek(id: string): Promise<Seek | undefined>;
  /** Up to `limit` seeks of a pool open and alive at `now` (a real-time one: its holder alive too), the oldest first. */
  openSeeks(pool: string, now: number, limit: number): Promise<Seek[]>;
  /**
   * Records two seeks as paired (each with its `gameId`, `pairedAt` and `gameColor`) if both are still open (and
   * their holders alive); false otherwise, and then neither changes.
   */
  pairSeeks(a: Seek, b: Seek): Promise<boolean>;
  /** Withdraws an open seek; false when it is not open (paired, withdrawn, or none). */
  withdrawSeek(id: string): Promise<boolean>;
  /** Keeps the open ones of these seeks alive until `aliveUntil` (their instance still holds their requests). */
  keepSeeksAlive(ids: readonly string[], aliveUntil: number): Promise<void>;
  /** Seeks paired at or after `since` whose game does not exist: what a crash between a pairing and its game left. */
  seeksWithoutGame(since: number): Promise<Seek[]>;
}

/** A seeks row as the adapters' SQL selects it. */
export interface SeekRow {
  data: string;
  status: string;
  alive_until: number | string; // PostgreSQL's BIGINT comes as a string
  game_id: string | null;
  paired_at: number | string | null;
  game_color: string | null;
}

/** The columns a seek is read back from. */
export const SEEK_COLUMNS = 'data, status, alive_until, game_id, paired_at, game_color';

/** The columns a new seek is stored in, in the insert's order: `holder` is the store's for a real-time seek. */
export const seekColumns = (seek: Seek, holder: string) =>
  [
    seek.id,
    seek.player.id,
    seek.pool,
    seek.status,
    seek.createdAt,
    seek.aliveUntil,
    JSON.stringify({ ...seek, status: undefined, aliveUntil: undefined, gameId: undefined, pairedAt: undefined }),
    isRealTime(seek) ? holder : null,
  ] as const;

/** The columns of a pairing, in the pair statement's order. */
export const pairColumns = (seek: Seek) => [seek.id, seek.gameId, seek.pairedAt, seek.gameColor] as const;

export const seekOf = (row: SeekRow): Seek => ({
  ...(JSON.parse(row.data) as Seek),
  status: row.status as Seek['status'],
  aliveUntil: Number(row.alive_until),
  gameId: row.game_id,
  pairedAt: row.paired_at === null ? null : Number(row.paired_at),
  gameColor: row.game_color as Seek['gameColor'],
});

/**
 * The SQL of the adapters, with `$n` placeholders (SQLite takes them as `@pn`). A real-time seek is one with a
 * holder; a correspondence seek has none.
 */
export const SEEK_SQL = {
  insert:
    'INSERT INTO seeks (id, player_id, pool, status, created_at, alive_until, data, holder) ' +
    'VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING',
  /** The open correspondence seeks of player $1. */
  countCorrespondence: "SELECT count(*) AS n FROM seeks WHERE player_id = $1 AND status = 'open' AND holder IS NULL",
  /** Withdraws the open real-time seeks of player $1 but seek $2 (the new one): their ids. */
  withdrawOlder:
    "UPDATE seeks SET status = 'withdrawn' WHERE player_id = $1 AND status = 'open' AND holder IS NOT NULL " +
    'AND id <> $2 RETURNING id',
  select: `SELECT ${SEEK_COLUMNS} FROM seeks WHERE id = $1`,
  open:
    `SELECT ${SEEK_COLUMNS} FROM seeks WHERE pool = $1 AND status = 'open' AND alive_until > $2 ` +
    'ORDER BY created_at, id LIMIT $3',
  pair: "UPDATE seeks SET status = 'paired', game_id = $2, paired_at = $3, game_color = $4 WHERE id = $1 AND status = 'open'",
  withdraw: "UPDATE seeks SET status = 'withdrawn' WHERE id = $1 AND status = 'open'",
  withoutGame:
    `SELECT ${SEEK_COLUMNS} FROM seeks s WHERE status = 'paired' AND paired_at >= $1 ` +
    'AND NOT EXISTS (SELECT 1 FROM games g WHERE g.id = s.game_id)',
} as const;
