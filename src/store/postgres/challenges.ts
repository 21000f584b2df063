/**
 * The shared store's challenges (postgres.ts): the SQL of ../challenges.ts, each write announcing what it wrote to
 * every instance (CHALLENGES_CHANNEL) when it commits. With a bound on a challenger's pending challenges, the count
 * and the insert are one transaction under the challenger's advisory lock (locks.ts), which every instance takes.
 *
 * ```ts
 * const challenges = new PostgresChallenges(pool);
 * await challenges.insertChallenge(challenge, 20); // 'inserted', 'taken' or 'limit'
 * ```
 */
import type pg from 'pg';
import type { Challenge } from '../../domain/challenge.ts';
import { byAge, CHALLENGE_SQL, challengeColumns, challengeOf } from '../challenges.ts';
import type { ChallengeRow, ChallengeStore, InsertedChallenge } from '../challenges.ts';
import { CHALLENGES_CHANNEL } from '../notifications.ts';
import { run, transaction } from '../postgresTransaction.ts';
import { CHALLENGER_LOCK, lockFor } from './locks.ts';

/** A write of a challenge that announces what it wrote when it commits (a row when it wrote one). */
const ANNOUNCED = (write: string) =>
  `WITH written AS (${write} RETURNING data) SELECT pg_notify('${CHALLENGES_CHANNEL}', data) FROM written`;

export class PostgresChallenges implements ChallengeStore {
  constructor(private readonly pool: pg.Pool) {}

  insertChallenge(challenge: Challenge, maxPending = Infinity): Promise<InsertedChallenge> {
    const insert = async (client: pg.PoolClient | pg.Pool): Promise<InsertedChallenge> =>
      (await client.query(ANNOUNCED(CHALLENGE_SQL.insert), [...challengeColumns(challenge)])).rowCount === 1
        ? 'inserted'
        : 'taken';
    if (maxPending === Infinity) return run(() => insert(this.pool));
    return run(() =>
      transaction<InsertedChallenge>(this.pool, async client => {
        // One challenger's inserts one at a time, on every instance: each counts what the one before committed.
        await lockFor(client, CHALLENGER_LOCK, challenge.challenger.id);
        const { rows } = await client.query<{ n: string }>(CHALLENGE_SQL.count, [
          challenge.challenger.id,
          challenge.createdAt,
        ]);
        return Number(rows[0]!.n) >= maxPending ? 'limit' : await insert(client);
      }),
    );
  }

  challenge(id: string): Promise<Challenge | undefined> {
    return run(async () => {
      const row = (await this.pool.query<ChallengeRow>(CHALLENGE_SQL.select, [id])).rows[0];
      return row && challengeOf(row);
    });
  }

  claimChallenge(next: Challenge, expectedVersion: number): Promise<boolean> {
    const values = [next.id, next.version, next.status, JSON.stringify(next), expectedVersion];
    return run(async () => (await this.pool.query(ANNOUNCED(CHALLENGE_SQL.claim), values)).rowCount === 1);
  }

  pendingChallenges(playerId: string, now: number): Promise<Challenge[]> {
    return run(async () => (await this.rows(CHALLENGE_SQL.pending, [playerId, now])).map(challengeOf).sort(byAge));
  }

  pendingCount(challengerId: string, now: number): Promise<number> {
    return run(async () =>
      Number((await this.pool.query<{ n: string }>(CHALLENGE_SQL.count, [challengerId, now])).rows[0]!.n),
    );
  }

  expiringChallenges(limit: number): Promise<Challenge[]> {
    return run(async () => (await this.rows(CHALLENGE_SQL.expiring, [limit])).map(challengeOf));
  }

  challengesWithoutGame(since: number): Promise<Challenge[]> {
    return run(async () => (await this.rows(CHALLENGE_SQL.withoutGame, [since])).map(challengeOf));
  }

  private async rows(sql: string, values: unknown[]): Promise<ChallengeRow[]> {
    return (await this.pool.query<ChallengeRow>(sql, values)).rows;
  }
}
