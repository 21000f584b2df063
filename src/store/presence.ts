/**
 * Where presence at games lives (DECISIONS §17, opponent gone): shared by every instance of a store, so that a
 * player's stream on any instance keeps them present. Each instance writes its own rows (a lease while it holds a
 * stream of the player, renewed; the time its last stream closed once none is left), and reads the latest time of
 * each player at a game: ahead of now, the player is there; behind, the player is gone since then.
 *
 * ```ts
 * await store.markPresent([{ gameId, playerId }], instanceId, now + 15_000);
 * await store.markLeft({ gameId, playerId }, instanceId, now);
 * (await store.lastSeen([gameId]))[0]; // { gameId, playerId, until }
 * ```
 */
export interface PresenceKey {
  gameId: string;
  playerId: string;
}

export interface SeenAt extends PresenceKey {
  until: number; // ms since the epoch: the latest lease's end, or when the last stream closed
}

export interface PresenceStore {
  /** This instance holds streams of these players at these games until `until` (renewed while it does). */
  markPresent(keys: readonly PresenceKey[], instanceId: string, until: number): Promise<void>;
  /** This instance's last stream of the player at the game closed at `at`. */
  markLeft(key: PresenceKey, instanceId: string, at: number): Promise<void>;
  /** The latest time of every player seen at these games, on any instance. */
  lastSeen(gameIds: readonly string[]): Promise<SeenAt[]>;
  /** Forgets rows whose time is before `before` (closed long ago, or left by an instance that died). */
  prunePresence(before: number): Promise<void>;
}

/** A presence row as the adapters' SQL selects it (PostgreSQL's BIGINT comes as a string). */
export interface SeenRow {
  game_id: string;
  player_id: string;
  until: number | string;
}

export const seenOf = (row: SeenRow): SeenAt => ({
  gameId: row.game_id,
  playerId: row.player_id,
  until: Number(row.until),
});

/** The SQL of the adapters, with `$n` placeholders (SQLite takes them as `@pn`); lists differ per adapter. */
export const PRESENCE_SQL = {
  present:
    'INSERT INTO game_presence (game_id, player_id, instance_id, open, until) VALUES ($1, $2, $3, 1, $4) ' +
    'ON CONFLICT (game_id, player_id, instance_id) DO UPDATE SET open = 1, until = excluded.until',
  left:
    'INSERT INTO game_presence (game_id, player_id, instance_id, open, until) VALUES ($1, $2, $3, 0, $4) ' +
    'ON CONFLICT (game_id, player_id, instance_id) DO UPDATE SET open = 0, until = excluded.until',
  prune: 'DELETE FROM game_presence WHERE until < $1',
} as const;
