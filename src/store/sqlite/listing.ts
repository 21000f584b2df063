/**
 * The embedded store's listing (sqlite.ts): the pages of games of the listing's SQL (../listing.ts), each statement
 * prepared on first use for the shape of its query, and the games whose clocks the service's timers watch.
 *
 * ```ts
 * const listing = new SqliteListing(connection);
 * await listing.listGames({ player: 'ann', status: 'ongoing', limit: 51 });
 * ```
 */
import type Database from 'better-sqlite3';
import type { GameRecord } from '../../domain/game.ts';
import { listGamesSql, ongoingGamesSql, playerShape } from '../listing.ts';
import type { ListingPart } from '../parts.ts';
import type { ClockedGame, ListedGame, ListQuery } from '../store.ts';
import type { SqliteConnection } from './connection.ts';
import { recordOfRow, type GameRow, type MoveStatements } from './moves.ts';

export function prepareListingStatements(db: Database.Database) {
  const lists = new Map<string, Database.Statement<[Record<string, unknown>], GameRow & { seq: number }>>();
  const ongoing = new Map<string, Database.Statement<[{ player: string; after: string; limit: number }], GameRow>>();
  return {
    clocked: db.prepare<[], ClockedGame>('SELECT id, deadline FROM games WHERE deadline IS NOT NULL'),
    /** The statement of a page of games of the query's shape (player or not, status), prepared on first use. */
    list(query: ListQuery) {
      const key = `${playerShape(query.player)} ${query.status}`;
      let statement = lists.get(key);
      if (!statement) {
        statement = db.prepare(listGamesSql(query, name => `@${name}`));
        lists.set(key, statement);
      }
      return statement;
    },
    /** The statement of a page of a player's ongoing games, prepared on first use for the player's shape. */
    ongoing(player: string) {
      const key = playerShape(player);
      let statement = ongoing.get(key);
      if (!statement) {
        statement = db.prepare(`${ongoingGamesSql(player, name => `@${name}`)} ORDER BY g.id`);
        ongoing.set(key, statement);
      }
      return statement;
    },
  };
}

export type ListingStatements = ReturnType<typeof prepareListingStatements>;

/** What the listing uses of the store's connection. */
type Connection = SqliteConnection<{ listing: ListingStatements; moves: MoveStatements }>;

export class SqliteListing implements ListingPart {
  constructor(private readonly connection: Connection) {}

  clockedGames(): Promise<ClockedGame[]> {
    return this.connection.read(() => this.connection.statements.listing.clocked.all());
  }

  listGames(query: ListQuery): Promise<ListedGame[]> {
    const params = { player: query.player, before: query.before ?? Number.MAX_SAFE_INTEGER, limit: query.limit };
    return this.connection.read(() => {
      const { listing, moves } = this.connection.statements;
      return listing
        .list(query)
        .all(params)
        .map(row => ({ record: recordOfRow(moves, row), seq: row.seq }));
    });
  }

  ongoingGames(player: string, after: string | undefined, limit: number): Promise<GameRecord[]> {
    return this.connection.read(() => {
      const { listing, moves } = this.connection.statements;
      return listing
        .ongoing(player)
        .all({ player, after: after ?? '', limit })
        .map(row => recordOfRow(moves, row));
    });
  }
}
