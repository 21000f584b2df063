/**
 * The shared store's ratings (postgres.ts): the SQL of ../ratings.ts. A rated end is written by the game's update in
 * a transaction of its own (games.ts): both perfs first, in the order of their players' ids so that two ends never
 * wait for each other in a circle, each checked on its games count; then the game's row with its version check.
 * Either refusal rolls the whole back.
 *
 * ```ts
 * const ratings = new PostgresRatings(pool);
 * await ratings.topPlayers('blitz', 10);
 * ```
 */
import type pg from 'pg';
import type { PerfType, PlayerPerf, RatedEnd, RatingPoint } from '../../domain/ratings.ts';
import { run } from '../postgresTransaction.ts';
import { historyValues, perfOfRow, perfWrite, pointOfRow, RATING_SQL, sidesInLockOrder } from '../ratings.ts';
import type { HistoryRow, PerfRow, RatingStore } from '../ratings.ts';

export class PostgresRatings implements RatingStore {
  constructor(private readonly pool: pg.Pool) {}

  perfsOf(playerIds: readonly string[]): Promise<PlayerPerf[]> {
    return run(async () => {
      const { rows } = await this.pool.query<PerfRow>(
        RATING_SQL.ofPlayer.replace('player_id = $1', 'player_id = ANY($1)'),
        [[...new Set(playerIds)]],
      );
      return rows.map(perfOfRow);
    });
  }

  ratingHistory(playerId: string): Promise<RatingPoint[]> {
    return run(async () => {
      const { rows } = await this.pool.query<HistoryRow>(RATING_SQL.historyOf, [playerId]);
      return rows.map(pointOfRow);
    });
  }

  topPlayers(perfType: PerfType, limit: number): Promise<PlayerPerf[]> {
    return run(async () => (await this.pool.query<PerfRow>(RATING_SQL.top, [perfType, limit])).rows.map(perfOfRow));
  }
}

/** Writes both sides' perfs on `client` (in its transaction), each checked; false when either changed meanwhile. */
export async function writeRatedEnd(client: pg.PoolClient, end: RatedEnd): Promise<boolean> {
  for (const side of sidesInLockOrder(end)) {
    const { sql, values } = perfWrite(end, side);
    if ((await client.query(sql, values)).rowCount !== 1) return false;
  }
  for (const side of end.sides) await client.query(RATING_SQL.history, historyValues(end, side));
  return true;
}
