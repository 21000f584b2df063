/**
 * The embedded store's presence at games (sqlite.ts, ../presence.ts): the SQL of ../presence.ts as SQLite takes it
 * (params.ts), and a list of games read as JSON.
 *
 * ```ts
 * const presence = new SqlitePresence(connection);
 * await presence.markPresent([{ gameId, playerId }], instanceId, now + 15_000);
 * ```
 */
import { PRESENCE_SQL, seenOf, type PresenceKey, type PresenceStore, type SeenAt, type SeenRow } from '../presence.ts';
import type { SqliteConnection } from './connection.ts';
import { params } from './params.ts';

/** The latest time of each player seen at the games of a JSON list. */
const LAST_SEEN_SQL =
  'SELECT game_id, player_id, max(until) AS until FROM game_presence ' +
  'WHERE game_id IN (SELECT value FROM json_each(?)) GROUP BY game_id, player_id';

export class SqlitePresence implements PresenceStore {
  constructor(private readonly connection: SqliteConnection<unknown>) {}

  markPresent(keys: readonly PresenceKey[], instanceId: string, until: number): Promise<void> {
    const rows = keys.map(({ gameId, playerId }) => params([gameId, playerId, instanceId, until]));
    return this.connection
      .enqueue(() => {
        for (const row of rows) this.connection.statement(PRESENCE_SQL.present).run(row);
        return true;
      })
      .then(() => undefined);
  }

  markLeft({ gameId, playerId }: PresenceKey, instanceId: string, at: number): Promise<void> {
    const row = params([gameId, playerId, instanceId, at]);
    return this.connection
      .enqueue(() => this.connection.statement(PRESENCE_SQL.left).run(row).changes === 1)
      .then(() => undefined);
  }

  lastSeen(gameIds: readonly string[]): Promise<SeenAt[]> {
    return this.connection.read(() =>
      this.connection.statement<SeenRow, [string]>(LAST_SEEN_SQL).all(JSON.stringify(gameIds)).map(seenOf),
    );
  }

  prunePresence(before: number): Promise<void> {
    return this.connection
      .enqueue(() => this.connection.statement(PRESENCE_SQL.prune).run(params([before])).changes > 0)
      .then(() => undefined);
  }
}
