/**
 * The shared store's listing (postgres.ts): the pages of games of the listing's SQL (../listing.ts), each a named
 * statement of the shape of its query (so that each connection plans it once), with each game's line in the same
 * round trip (moves.ts), and the games whose clocks the service's timers watch.
 *
 * ```ts
 * const listing = new PostgresListing(pool);
 * await listing.listGames({ player: 'ann', status: 'ongoing', limit: 51 });
 * ```
 */
import type pg from 'pg';
import type { GameRecord } from '../../domain/game.ts';
import { listGamesSql, ongoingGamesSql, playerShape } from '../listing.ts';
import type { ListingPart } from '../parts.ts';
import { run } from '../postgresTransaction.ts';
import type { ClockedGame, ListedGame, ListQuery } from '../store.ts';
import { LINE_SQL, recordOfRow, type GameRow } from './moves.ts';

export class PostgresListing implements ListingPart {
  constructor(private readonly pool: pg.Pool) {}

  listGames(query: ListQuery): Promise<ListedGame[]> {
    const given = { player: query.player, before: query.before ?? Number.MAX_SAFE_INTEGER, limit: query.limit };
    const names: Array<keyof typeof given> = []; // in the order the statement numbers its parameters
    const page = listGamesSql(query, name => {
      if (!names.includes(name)) names.push(name);
      return `$${names.indexOf(name) + 1}`;
    });
    return run(async () => {
      const result = await this.pool.query<GameRow & { seq: string }>({
        name: `chess-list-${playerShape(query.player)}-${query.status}`,
        text: `SELECT page.*, ${LINE_SQL('page')} FROM (${page}) AS page ORDER BY seq DESC`,
        values: names.map(name => given[name]),
      });
      return result.rows.map(row => ({ record: recordOfRow(row), seq: Number(row.seq) }));
    });
  }

  ongoingGames(player: string, after: string | undefined, limit: number): Promise<GameRecord[]> {
    const params = ['player', 'after', 'limit'] as const; // numbered in this order
    const page = ongoingGamesSql(player, name => `$${params.indexOf(name) + 1}`);
    return run(async () => {
      const result = await this.pool.query<GameRow>({
        name: `chess-ongoing-games-${playerShape(player)}`,
        text: `SELECT page.*, ${LINE_SQL('page')} FROM (${page}) AS page ORDER BY id`,
        values: [player, after ?? '', limit],
      });
      return result.rows.map(recordOfRow);
    });
  }

  clockedGames(): Promise<ClockedGame[]> {
    return run(async () => {
      const result = await this.pool.query<{ id: string; deadline: string }>(
        'SELECT id, deadline FROM games WHERE deadline IS NOT NULL',
      );
      return result.rows.map(row => ({ id: row.id, deadline: Number(row.deadline) }));
    });
  }
}
