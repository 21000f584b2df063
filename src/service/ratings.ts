/**
 * Players' ratings as the API reads them (DECISIONS §21): a player's perfs, their User, their rating history and a
 * perf's leaderboard, in lichess's shapes (domain/lichessRatings.ts), from the store's perfs at the service's time.
 * A player is known by a token issued for them, or by a rated game they played.
 *
 * ```ts
 * const ratings = new RatingService({ store, tokens, now: Date.now });
 * await ratings.history('ann'); // [{ name: 'UltraBullet', points: [] }, ..., { name: 'Blitz', points: [[2026, 2, 1, 1662]] }, ...]
 * ```
 */
import type { LichessPerfs } from '../contract/shapes.ts';
import type { Leaderboard, LichessUser, RatingHistory } from '../contract/ratings.ts';
import { DomainError } from '../domain/errors.ts';
import { lichessLeaderboard, lichessPerfsOf, lichessRatingHistory, lichessUserOf } from '../domain/lichessRatings.ts';
import type { PerfType } from '../domain/ratings.ts';
import type { RatingStore } from '../store/ratings.ts';
import type { PlayerTokens } from './tokens.ts';

export interface RatingServiceDeps {
  store: RatingStore;
  tokens: PlayerTokens | undefined; // who is known, and who is a bot
  now: () => number; // ms since the epoch
}

export class RatingService {
  constructor(private readonly deps: RatingServiceDeps) {}

  /** A player's perfs, every perf listed. */
  async perfs(playerId: string): Promise<LichessPerfs> {
    return lichessPerfsOf(await this.deps.store.perfsOf([playerId]), playerId, this.deps.now());
  }

  /** A player as lichess's User; PLAYER_NOT_FOUND for one the service does not know. */
  async user(playerId: string): Promise<LichessUser> {
    const { store, tokens, now } = this.deps;
    const [stored, known, bots] = await Promise.all([
      store.perfsOf([playerId]),
      tokens?.player(playerId),
      tokens?.botsAmong([playerId]),
    ]);
    const player = known ?? stored[0]?.player;
    if (!player) throw unknown(playerId);
    return lichessUserOf(player, stored, now(), (bots ?? []).includes(playerId));
  }

  /** A player's rating history, every perf listed; PLAYER_NOT_FOUND for one the service does not know. */
  async history(playerId: string): Promise<RatingHistory> {
    const { store, tokens } = this.deps;
    const [points, known] = await Promise.all([store.ratingHistory(playerId), tokens?.player(playerId)]);
    if (!known && points.length === 0) throw unknown(playerId);
    return lichessRatingHistory(points);
  }

  /** The `nb` best established players of a perf. */
  async top(nb: number, perfType: PerfType): Promise<Leaderboard> {
    return lichessLeaderboard(await this.deps.store.topPlayers(perfType, nb));
  }
}

const unknown = (playerId: string) =>
  new DomainError('PLAYER_NOT_FOUND', `no player ${playerId} is known to the service`);
