/**
 * The shared store's side of games against the computer (postgres.ts): the engine's turns (../engineTurns.ts), a lease
 * per game, and the bound of a player's ongoing real-time games against it (../engineGames.ts): counted and, below it,
 * the game inserted, in one transaction under the player's advisory lock (locks.ts), which every instance takes.
 *
 * ```ts
 * const turns = new PostgresEngineTurns(pool);
 * await turns.claimEngineTurn({ gameId, version, instanceId, until: now + 6_000 }, now); // true: this one searches
 * await createEngineGame(pool, { player: 'ann', max: 5 }, client => insert(client)); // 'limit', or inserted
 * ```
 */
import type pg from 'pg';
import { engineGamesOf, engineGamesSql } from '../engineGames.ts';
import { ENGINE_TURN_SQL, type EngineTurn, type EngineTurnStore } from '../engineTurns.ts';
import { run, transaction } from '../postgresTransaction.ts';
import { ENGINE_GAMES_LOCK, lockFor } from './locks.ts';

/**
 * Counts the player's ongoing real-time games against the computer and, below `max`, inserts the game with `insert`
 * on the same connection, in one transaction under the player's advisory lock: 'limit' when the bound is reached,
 * else whether the game was inserted (false: its id is taken).
 */
export function createEngineGame(
  pool: pg.Pool,
  cap: { player: string; max: number },
  insert: (client: pg.PoolClient) => Promise<boolean>,
): Promise<boolean | 'limit'> {
  return transaction(pool, async client => {
    // One player's creations one at a time, on every instance: each counts what the one before committed.
    await lockFor(client, ENGINE_GAMES_LOCK, cap.player);
    const { rows } = await client.query<{ data: string }>(engineGamesSql(cap.player), [cap.player]);
    return engineGamesOf(rows, cap.player) >= cap.max ? 'limit' : await insert(client);
  });
}

export class PostgresEngineTurns implements EngineTurnStore {
  constructor(private readonly pool: pg.Pool) {}

  claimEngineTurn({ gameId, version, instanceId, until }: EngineTurn, now: number): Promise<boolean> {
    return run(
      async () => (await this.pool.query(ENGINE_TURN_SQL, [gameId, version, instanceId, until, now])).rowCount === 1,
    );
  }
}
