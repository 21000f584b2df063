/**
 * The embedded store's side of games against the computer (sqlite.ts): the engine's turns (../engineTurns.ts), a lease
 * per game claimed in the group commit, and the count of a player's ongoing real-time games against it
 * (../engineGames.ts), read inside the write transaction that inserts a new one (games.ts): one writer at a time, so no
 * other game comes between the count and the insert.
 *
 * ```ts
 * const turns = new SqliteEngineTurns(connection);
 * await turns.claimEngineTurn({ gameId, version, instanceId, until: now + 6_000 }, now); // true: this one searches
 * countEngineGames(connection, 'ann'); // inside a write transaction
 * ```
 */
import { engineGamesOf, engineGamesSql } from '../engineGames.ts';
import { ENGINE_TURN_SQL, type EngineTurn, type EngineTurnStore } from '../engineTurns.ts';
import type { SqliteConnection } from './connection.ts';
import { params } from './params.ts';

/** The player's ongoing real-time games against the computer, read on the connection (inside its write transaction). */
export function countEngineGames(connection: SqliteConnection<unknown>, player: string): number {
  return engineGamesOf(connection.statement<{ data: string }>(engineGamesSql(player)).all(params([player])), player);
}

export class SqliteEngineTurns implements EngineTurnStore {
  constructor(private readonly connection: SqliteConnection<unknown>) {}

  claimEngineTurn({ gameId, version, instanceId, until }: EngineTurn, now: number): Promise<boolean> {
    const row = params([gameId, version, instanceId, until, now]);
    return this.connection.enqueue(() => this.connection.statement(ENGINE_TURN_SQL).run(row).changes === 1);
  }
}
