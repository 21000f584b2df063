/**
 * Who searches the computer's move in a game (DECISIONS §18): a lease per game, shared by every instance of a store,
 * so that one instance searches each engine turn and another takes over when it dies. The move itself is recorded
 * with the game's version check, so it is made once whatever happens to the leases.
 *
 * ```ts
 * if (await store.claimEngineTurn({ gameId, version, instanceId, until: now + 6_000 }, now)) search();
 * ```
 */
export interface EngineTurn {
  gameId: string;
  version: number; // the game's version the search is for
  instanceId: string;
  until: number; // ms since the epoch: the lease's end
}

export interface EngineTurnStore {
  /**
   * Takes (or renews) the turn: true when nobody else holds it at `now` for this version or a later one (none holds
   * it, the holder's lease has lapsed, the game has moved on since, or it is this instance's already).
   */
  claimEngineTurn(turn: EngineTurn, now: number): Promise<boolean>;
}

/** The SQL of the claim, with `$n` placeholders (SQLite takes them as `@pn`). */
export const ENGINE_TURN_SQL =
  'INSERT INTO engine_turns (game_id, version, instance_id, until) VALUES ($1, $2, $3, $4) ' +
  'ON CONFLICT (game_id) DO UPDATE SET version = excluded.version, instance_id = excluded.instance_id, ' +
  'until = excluded.until WHERE engine_turns.version < excluded.version OR engine_turns.until <= $5 ' +
  'OR (engine_turns.instance_id = excluded.instance_id AND engine_turns.version = excluded.version)';
