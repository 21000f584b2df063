/**
 * The embedded store's challenges (sqlite.ts): the SQL of ../challenges.ts as SQLite takes it (params.ts). A challenge
 * is counted against its challenger's pending ones and inserted in one write transaction of the group commit: no
 * other write comes between.
 *
 * ```ts
 * const challenges = new SqliteChallenges(connection);
 * await challenges.insertChallenge(challenge, 20); // 'inserted', 'taken' or 'limit'
 * ```
 */
import type { Challenge } from '../../domain/challenge.ts';
import { byAge, CHALLENGE_SQL, challengeColumns, challengeOf } from '../challenges.ts';
import type { ChallengeRow, ChallengeStore, InsertedChallenge } from '../challenges.ts';
import type { SqliteConnection } from './connection.ts';
import { params } from './params.ts';

export class SqliteChallenges implements ChallengeStore {
  constructor(private readonly connection: SqliteConnection<unknown>) {}

  insertChallenge(challenge: Challenge, maxPending = Infinity): Promise<InsertedChallenge> {
    const { connection } = this;
    const values = params(challengeColumns(challenge));
    const pending = params([challenge.challenger.id, challenge.createdAt]);
    let result: InsertedChallenge = 'taken';
    // Counted and inserted in one write transaction: no other write comes between.
    return connection
      .enqueue(() => {
        if (connection.statement<{ n: number }>(CHALLENGE_SQL.count).get(pending)!.n >= maxPending) result = 'limit';
        else if (connection.statement(CHALLENGE_SQL.insert).run(values).changes === 1) result = 'inserted';
        return result === 'inserted';
      })
      .then(() => result);
  }

  challenge(id: string): Promise<Challenge | undefined> {
    return this.connection.read(() => {
      const row = this.connection.statement<ChallengeRow>(CHALLENGE_SQL.select).get(params([id]));
      return row && challengeOf(row);
    });
  }

  claimChallenge(next: Challenge, expectedVersion: number): Promise<boolean> {
    const values = params([next.id, next.version, next.status, JSON.stringify(next), expectedVersion]);
    return this.connection.enqueue(() => this.connection.statement(CHALLENGE_SQL.claim).run(values).changes === 1);
  }

  pendingChallenges(playerId: string, now: number): Promise<Challenge[]> {
    return this.connection.read(() => this.rows(CHALLENGE_SQL.pending, [playerId, now]).map(challengeOf).sort(byAge));
  }

  pendingCount(challengerId: string, now: number): Promise<number> {
    return this.connection.read(
      () => this.connection.statement<{ n: number }>(CHALLENGE_SQL.count).get(params([challengerId, now]))!.n,
    );
  }

  expiringChallenges(limit: number): Promise<Challenge[]> {
    return this.connection.read(() => this.rows(CHALLENGE_SQL.expiring, [limit]).map(challengeOf));
  }

  challengesWithoutGame(since: number): Promise<Challenge[]> {
    return this.connection.read(() => this.rows(CHALLENGE_SQL.withoutGame, [since]).map(challengeOf));
  }

  private rows(sql: string, values: readonly unknown[]): ChallengeRow[] {
    return this.connection.statement<ChallengeRow>(sql).all(params(values));
  }
}
