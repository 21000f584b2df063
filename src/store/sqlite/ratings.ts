/**
 * The embedded store's ratings (sqlite.ts): the SQL of ../ratings.ts as SQLite takes it (params.ts). A rated end is
 * written by the game's update in its write transaction (games.ts): checked first (`ratedEndFits`), written after
 * the game's row (`writeRatedEnd`), so that a refused check writes nothing.
 *
 * ```ts
 * const ratings = new SqliteRatings(connection);
 * await ratings.perfsOf(['ann', 'bob']);
 * ```
 */
import type { PerfType, PlayerPerf, RatedEnd, RatingPoint } from '../../domain/ratings.ts';
import { RATING_SQL, historyValues, perfOfRow, perfWrite, pointOfRow, type RatingStore } from '../ratings.ts';
import type { HistoryRow, PerfRow } from '../ratings.ts';
import type { SqliteConnection } from './connection.ts';
import { params } from './params.ts';

type Connection = SqliteConnection<unknown>;

export class SqliteRatings implements RatingStore {
  constructor(private readonly connection: Connection) {}

  perfsOf(playerIds: readonly string[]): Promise<PlayerPerf[]> {
    const statement = this.connection.statement<PerfRow>(RATING_SQL.ofPlayer);
    return this.connection.read(() =>
      [...new Set(playerIds)].flatMap(id => statement.all(params([id]))).map(perfOfRow),
    );
  }

  ratingHistory(playerId: string): Promise<RatingPoint[]> {
    const statement = this.connection.statement<HistoryRow>(RATING_SQL.historyOf);
    return this.connection.read(() => statement.all(params([playerId])).map(pointOfRow));
  }

  topPlayers(perfType: PerfType, limit: number): Promise<PlayerPerf[]> {
    const statement = this.connection.statement<PerfRow>(RATING_SQL.top);
    return this.connection.read(() => statement.all(params([perfType, limit])).map(perfOfRow));
  }
}

/** Whether each side's stored perf is still the one the end was computed from (in the write transaction). */
export function ratedEndFits(connection: Connection, end: RatedEnd): boolean {
  const statement = connection.statement<PerfRow>(RATING_SQL.ofPlayer);
  return end.sides.every(side => {
    const stored = statement.all(params([side.player.id])).find(row => row.perf === end.perfType);
    return (stored?.games ?? 0) === side.before.games;
  });
}

/** Writes both sides' perfs and history points (after `ratedEndFits`, in the same transaction). */
export function writeRatedEnd(connection: Connection, end: RatedEnd): void {
  for (const side of end.sides) {
    const { sql, values } = perfWrite(end, side);
    if (connection.statement(sql).run(params(values)).changes !== 1) {
      throw new Error(`the perf of ${side.player.id} changed within its own write transaction`);
    }
    connection.statement(RATING_SQL.history).run(params(historyValues(end, side)));
  }
}
