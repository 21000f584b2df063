/**
 * The embedded store's pages of a player's games (../history.ts): each page's statement prepared on first use for the
 * shape of its query and kept while the connection's database is the same, the few most recent shapes at most; the
 * moves rows of a page's games are read in one more statement (moves.ts, recordsOfRows), not one per game.
 *
 * ```ts
 * const history = new SqliteHistory(connection);
 * await history.playerGames({ player: 'ann', ended: true, order: 'desc', limit: 100 });
 * ```
 */
import type Database from 'better-sqlite3';
import type { GameRecord } from '../../domain/game.ts';
import type { HistoryQuery } from '../../domain/history.ts';
import { historyParams, historyShape, playerGamesSql, type HistoryStore } from '../history.ts';
import type { SqliteConnection } from './connection.ts';
import { recordsOfRows, type GameRow, type MoveStatements } from './moves.ts';

/** Shapes of pages kept prepared: a query has one shape for all its pages, and few shapes are in use at once. */
const KEPT_SHAPES = 32;

type Page = Database.Statement<[Record<string, string | number>], GameRow>;

export class SqliteHistory implements HistoryStore {
  private kept = new Map<string, Page>();
  private of: Database.Database | undefined; // the database the kept statements were prepared on

  constructor(private readonly connection: SqliteConnection<{ moves: MoveStatements }>) {}

  playerGames(query: HistoryQuery): Promise<GameRecord[]> {
    return this.connection.read(() =>
      recordsOfRows(this.connection.statements.moves, this.page(query).all(historyParams(query))),
    );
  }

  private page(query: HistoryQuery): Page {
    const { db } = this.connection;
    if (this.of !== db) {
      this.kept = new Map();
      this.of = db;
    }
    const shape = historyShape(query);
    let statement = this.kept.get(shape);
    if (statement) {
      this.kept.delete(shape); // kept again as the most recent
    } else {
      statement = db.prepare(playerGamesSql(query, name => `@${name}`, 'CROSS JOIN'));
      if (this.kept.size >= KEPT_SHAPES) this.kept.delete(this.kept.keys().next().value!);
    }
    this.kept.set(shape, statement);
    return statement;
  }
}
