/**
 * Where challenges live (DECISIONS §16), beside the games in the same store, so that every instance of a shared
 * store sees them. A change is a claim: `claimChallenge` writes the changed challenge only if the stored one is
 * still the version it was judged on and still pending, so that each pending challenge changes once (accepted,
 * declined, canceled or expired), whatever the number of instances and racing requests. No lock in memory.
 *
 * ```ts
 * await store.insertChallenge(challenge); // false: the id is taken
 * const claimed = await store.claimChallenge(accepted, challenge.version); // false: someone else changed it first
 * ```
 */
import type { Challenge } from '../domain/challenge.ts';

/** What became of a new challenge: stored, refused for its id, or refused for its challenger's pending ones. */
export type InsertedChallenge = 'inserted' | 'taken' | 'limit';

export interface ChallengeStore {
  /**
   * Adds a new challenge (durably), unless its id is taken (`taken`) or its challenger already has `maxPending`
   * challenges pending at its `createdAt` (`limit`; no limit by default). The count and the insert are one step
   * for the store: requests racing from one challenger, on any instances, never pass the limit.
   */
  insertChallenge(challenge: Challenge, maxPending?: number): Promise<InsertedChallenge>;
  /** The challenge with this id, whatever its status. */
  challenge(id: string): Promise<Challenge | undefined>;
  /**
   * Replaces a challenge with its changed version (`next.version` is `expectedVersion + 1`) if the stored one is
   * still pending (`created`) at `expectedVersion`; resolves false otherwise (another change won).
   */
  claimChallenge(next: Challenge, expectedVersion: number): Promise<boolean>;
  /** The challenges pending at `now` (created, not expired) that a player made or was sent, oldest first. */
  pendingChallenges(playerId: string, now: number): Promise<Challenge[]>;
  /** How many challenges pending at `now` a player has made. */
  pendingCount(challengerId: string, now: number): Promise<number>;
  /** Up to `limit` challenges still `created` (expired ones included), the soonest to expire first: the timers' work. */
  expiringChallenges(limit: number): Promise<Challenge[]>;
  /**
   * Challenges made at or after `since` and accepted whose game (of the challenge's id) does not exist: what a crash
   * between an accept and its game left.
   */
  challengesWithoutGame(since: number): Promise<Challenge[]>;
}

/** A challenges row as the adapters' SQL selects it. */
export interface ChallengeRow {
  data: string;
}

/** The columns a challenge is stored in, in the adapters' insert order. */
export const challengeColumns = (challenge: Challenge) =>
  [
    challenge.id,
    challenge.version,
    challenge.status,
    challenge.challenger.id,
    challenge.destUser?.id ?? null,
    challenge.createdAt,
    challenge.expiresAt,
    JSON.stringify(challenge),
  ] as const;

export const challengeOf = (row: ChallengeRow): Challenge => JSON.parse(row.data) as Challenge;

/** The SQL of the adapters, with `$n` placeholders (SQLite takes them as `?n`). */
export const CHALLENGE_SQL = {
  insert:
    'INSERT INTO challenges (id, version, status, challenger_id, dest_id, created_at, expires_at, data) ' +
    'VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING',
  select: 'SELECT data FROM challenges WHERE id = $1',
  claim:
    'UPDATE challenges SET version = $2, status = $3, data = $4 ' +
    "WHERE id = $1 AND version = $5 AND status = 'created'",
  pending:
    "SELECT data FROM challenges WHERE status = 'created' AND expires_at > $2 AND challenger_id = $1 UNION ALL " +
    "SELECT data FROM challenges WHERE status = 'created' AND expires_at > $2 AND dest_id = $1",
  count: "SELECT count(*) AS n FROM challenges WHERE status = 'created' AND expires_at > $2 AND challenger_id = $1",
  expiring: "SELECT data FROM challenges WHERE status = 'created' ORDER BY expires_at LIMIT $1",
  withoutGame:
    "SELECT data FROM challenges c WHERE status = 'accepted' AND created_at >= $1 " +
    'AND NOT EXISTS (SELECT 1 FROM games g WHERE g.id = c.id)',
} as const;

/** Oldest first, then by id: the order of a player's pending challenges. */
export const byAge = (a: Challenge, b: Challenge): number =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
