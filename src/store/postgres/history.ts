/**
 * The shared store's pages of a player's games (../history.ts), each game with its line in the same round trip
 * (moves.ts). Unnamed statements: a page is planned each time (a fraction of reading its games), so that no
 * connection keeps a plan per shape of query.
 *
 * ```ts
 * const history = new PostgresHistory(pool);
 * await history.playerGames({ player: 'ann', ended: true, order: 'desc', limit: 100 });
 * ```
 */
import type pg from 'pg';
import type { GameRecord } from '../../domain/game.ts';
import type { HistoryQuery } from '../../domain/history.ts';
import { historyParams, playerGamesSql, type HistoryParam, type HistoryStore } from '../history.ts';
import { run } from '../postgresTransaction.ts';
import { LINE_SQL, recordOfRow, type GameRow } from './moves.ts';

export class PostgresHistory implements HistoryStore {
  constructor(private readonly pool: pg.Pool) {}

  playerGames(query: HistoryQuery): Promise<GameRecord[]> {
    const given = historyParams(query);
    const names: HistoryParam[] = []; // in the order the statement numbers its parameters
    const page = playerGamesSql(
      query,
      name => {
        if (!names.includes(name)) names.push(name);
        return `$${names.indexOf(name) + 1}`;
      },
      'JOIN',
      // player_games.game_id is in the "C" collation, games.id in the database's: compared in the entry's, the games'
      // key could not be used, and every page hash-joined all the player's games (a page took 180 ms at 100,000).
      'p.game_id COLLATE "default"',
    );
    const order = query.order === 'asc' ? 'ASC' : 'DESC';
    return run(async () => {
      const result = await this.pool.query<GameRow>({
        text: `SELECT page.*, ${LINE_SQL('page')} FROM (${page}) AS page ORDER BY created_at ${order}, id ${order}`,
        values: names.map(name => given[name]),
      });
      return result.rows.map(recordOfRow);
    });
  }
}
