/**
 * Where seeks live (DECISIONS §16), beside the games in the same store, so that every instance of a shared store
 * pairs from one pool. A pairing is a claim of two seeks at once: both are paired only if both are still open,
 * in one transaction, so that each seek is paired at most once whatever the number of instances and racing
 * requests. No lock in memory.
 *
 * What a seek is does not change once stored (the row's `data`); what becomes of it (its status, its lease, the
 * game it was paired into) is in columns of its own, read back over the data.
 *
 * ```ts
 * await store.insertSeek(seek); // false: the id is taken
 * const won = await store.pairSeeks(pairedOlder, pairedNewer); // false: one of them was paired or withdrawn first
 * ```
 */
import type { Seek } from '../domain/seek.ts';

export interface SeekStore {
  /** Adds a new open seek (durably); false when its id is taken. */
  insertSeek(seek: Seek): Promise<boolean>;
  /** The seek with this id, whatever its status. */
  seek(id: string): Promise<Seek | undefined>;
  /** Up to `limit` seeks of a pool open and alive at `now`, the oldest first. */
  openSeeks(pool: string, now: number, limit: number): Promise<Seek[]>;
  /**
   * Records two seeks as paired (each with its `gameId`, `pairedAt` and `gameColor`) if both are still open; false
   * otherwise, and then neither changes.
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

const COLUMNS = 'data, status, alive_until, game_id, paired_at, game_color';

/** The columns a new seek is stored in, in the insert's order. */
export const seekColumns = (seek: Seek) =>
  [
    seek.id,
    seek.player.id,
    seek.pool,
    seek.status,
    seek.createdAt,
    seek.aliveUntil,
    JSON.stringify({ ...seek, status: undefined, aliveUntil: undefined, gameId: undefined, pairedAt: undefined }),
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

/** The SQL of the adapters, with `$n` placeholders (SQLite takes them as `@pn`). */
export const SEEK_SQL = {
  insert:
    'INSERT INTO seeks (id, player_id, pool, status, created_at, alive_until, data) ' +
    'VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING',
  select: `SELECT ${COLUMNS} FROM seeks WHERE id = $1`,
  open:
    `SELECT ${COLUMNS} FROM seeks WHERE pool = $1 AND status = 'open' AND alive_until > $2 ` +
    'ORDER BY created_at, id LIMIT $3',
  pair: "UPDATE seeks SET status = 'paired', game_id = $2, paired_at = $3, game_color = $4 WHERE id = $1 AND status = 'open'",
  withdraw: "UPDATE seeks SET status = 'withdrawn' WHERE id = $1 AND status = 'open'",
  withoutGame:
    `SELECT ${COLUMNS} FROM seeks s WHERE status = 'paired' AND paired_at >= $1 ` +
    'AND NOT EXISTS (SELECT 1 FROM games g WHERE g.id = s.game_id)',
} as const;
