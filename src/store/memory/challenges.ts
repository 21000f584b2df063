/**
 * The memory store's challenges (memory.ts, challenges.ts): each as JSON in a Map, so that no caller shares a stored
 * object. Every change is judged and made in one synchronous step: no other change comes between.
 *
 * ```ts
 * const challenges = new MemoryChallenges(id => games.has(id));
 * await challenges.insertChallenge(challenge, 20); // 'inserted', 'taken' or 'limit'
 * ```
 */
import type { Challenge } from '../../domain/challenge.ts';
import { byAge, type ChallengeStore, type InsertedChallenge } from '../challenges.ts';

export class MemoryChallenges implements ChallengeStore {
  private readonly challenges = new Map<string, string>();

  /** `gameExists`: whether the game of an accepted challenge was made (of the challenge's id). */
  constructor(private readonly gameExists: (id: string) => boolean) {}

  insertChallenge(challenge: Challenge, maxPending = Infinity): Promise<InsertedChallenge> {
    if (this.challenges.has(challenge.id)) return Promise.resolve('taken');
    // Counted and inserted in one synchronous step: no other insert comes between.
    if (this.pendingOf(challenge.challenger.id, challenge.createdAt).length >= maxPending) {
      return Promise.resolve('limit');
    }
    this.challenges.set(challenge.id, JSON.stringify(challenge));
    return Promise.resolve('inserted');
  }

  challenge(id: string): Promise<Challenge | undefined> {
    const json = this.challenges.get(id);
    return Promise.resolve(json === undefined ? undefined : (JSON.parse(json) as Challenge));
  }

  claimChallenge(next: Challenge, expectedVersion: number): Promise<boolean> {
    const json = this.challenges.get(next.id);
    const stored = json === undefined ? undefined : (JSON.parse(json) as Challenge);
    if (stored?.version !== expectedVersion || stored.status !== 'created') return Promise.resolve(false);
    this.challenges.set(next.id, JSON.stringify(next));
    return Promise.resolve(true);
  }

  pendingChallenges(playerId: string, now: number): Promise<Challenge[]> {
    const pending = this.stored().filter(
      c => c.status === 'created' && c.expiresAt > now && (c.challenger.id === playerId || c.destUser?.id === playerId),
    );
    return Promise.resolve(pending.sort(byAge));
  }

  pendingCount(challengerId: string, now: number): Promise<number> {
    return Promise.resolve(this.pendingOf(challengerId, now).length);
  }

  expiringChallenges(limit: number): Promise<Challenge[]> {
    const created = this.stored().filter(c => c.status === 'created');
    return Promise.resolve(created.sort((a, b) => a.expiresAt - b.expiresAt).slice(0, limit));
  }

  challengesWithoutGame(since: number): Promise<Challenge[]> {
    const unmade = this.stored().filter(c => c.status === 'accepted' && c.createdAt >= since && !this.gameExists(c.id));
    return Promise.resolve(unmade);
  }

  private stored(): Challenge[] {
    return [...this.challenges.values()].map(json => JSON.parse(json) as Challenge);
  }

  private pendingOf(challengerId: string, now: number): Challenge[] {
    return this.stored().filter(c => c.status === 'created' && c.expiresAt > now && c.challenger.id === challengerId);
  }
}
