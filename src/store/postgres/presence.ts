/**
 * The shared store's presence at games (postgres.ts, ../presence.ts): the SQL of ../presence.ts, and lists of games and
 * players as PostgreSQL's arrays.
 *
 * ```ts
 * const presence = new PostgresPresence(pool);
 * await presence.markPresent([{ gameId, playerId }], instanceId, now + 15_000);
 * ```
 */
import type pg from 'pg';
import { run } from '../postgresTransaction.ts';
import { PRESENCE_SQL, seenOf, type PresenceKey, type PresenceStore, type SeenAt, type SeenRow } from '../presence.ts';

export class PostgresPresence implements PresenceStore {
  constructor(private readonly pool: pg.Pool) {}

  markPresent(keys: readonly PresenceKey[], instanceId: string, until: number): Promise<void> {
    if (keys.length === 0) return Promise.resolve();
    return run(async () => {
      await this.pool.query(
        'INSERT INTO game_presence (game_id, player_id, instance_id, open, until) ' +
          'SELECT g, p, $3, 1, $4 FROM unnest($1::text[], $2::text[]) AS k(g, p) ' +
          'ON CONFLICT (game_id, player_id, instance_id) DO UPDATE SET open = 1, until = excluded.until',
        [keys.map(key => key.gameId), keys.map(key => key.playerId), instanceId, until],
      );
    });
  }

  markLeft({ gameId, playerId }: PresenceKey, instanceId: string, at: number): Promise<void> {
    return run(async () => {
      await this.pool.query(PRESENCE_SQL.left, [gameId, playerId, instanceId, at]);
    });
  }

  lastSeen(gameIds: readonly string[]): Promise<SeenAt[]> {
    return run(async () =>
      (
        await this.pool.query<SeenRow>(
          'SELECT game_id, player_id, max(until) AS until FROM game_presence WHERE game_id = ANY($1) ' +
            'GROUP BY game_id, player_id',
          [[...gameIds]],
        )
      ).rows.map(seenOf),
    );
  }

  prunePresence(before: number): Promise<void> {
    return run(async () => {
      await this.pool.query(PRESENCE_SQL.prune, [before]);
    });
  }
}
