/**
 * The memory store's ratings (memory.ts): perfs and history points in Maps, written by the games' update of a rated
 * end (games.ts) after the same check the databases make.
 *
 * ```ts
 * const ratings = new MemoryRatings();
 * if (ratings.fits(end)) ratings.write(end);
 * ```
 */
import { GLICKO } from '../../domain/glicko.ts';
import type { PerfType, PlayerPerf, RatedEnd, RatingPoint } from '../../domain/ratings.ts';
import type { RatingStore } from '../ratings.ts';

const key = (playerId: string, perfType: string) => JSON.stringify([playerId, perfType]);

export class MemoryRatings implements RatingStore {
  private readonly perfs = new Map<string, string>(); // PlayerPerf as JSON, so that no caller shares a stored object
  private readonly history = new Map<string, Map<string, RatingPoint>>(); // by player, then perf and day

  perfsOf(playerIds: readonly string[]): Promise<PlayerPerf[]> {
    const ids = new Set(playerIds);
    return Promise.resolve(this.all().filter(p => ids.has(p.player.id)));
  }

  ratingHistory(playerId: string): Promise<RatingPoint[]> {
    const points = [...(this.history.get(playerId)?.values() ?? [])];
    return Promise.resolve(
      points.sort((a, b) => a.day.localeCompare(b.day) || a.perfType.localeCompare(b.perfType)).map(p => ({ ...p })),
    );
  }

  topPlayers(perfType: PerfType, limit: number): Promise<PlayerPerf[]> {
    const top = this.all()
      .filter(p => p.perfType === perfType && p.perf.glicko.deviation < GLICKO.provisionalDeviation)
      .sort((a, b) => b.perf.glicko.rating - a.perf.glicko.rating || (a.player.id < b.player.id ? -1 : 1));
    return Promise.resolve(top.slice(0, limit));
  }

  /** Whether each side's stored perf is still the one the end was computed from. */
  fits(end: RatedEnd): boolean {
    return end.sides.every(side => {
      const stored = this.perfs.get(key(side.player.id, end.perfType));
      return (stored === undefined ? 0 : (JSON.parse(stored) as PlayerPerf).perf.games) === side.before.games;
    });
  }

  /** Writes both sides' perfs and history points (after `fits`). */
  write(end: RatedEnd): void {
    for (const { player, after } of end.sides) {
      const perf: PlayerPerf = { player, perfType: end.perfType, perf: after };
      this.perfs.set(key(player.id, end.perfType), JSON.stringify(perf));
      const points = this.history.get(player.id) ?? new Map<string, RatingPoint>();
      points.set(key(end.perfType, end.day), {
        perfType: end.perfType,
        day: end.day,
        rating: Math.trunc(after.glicko.rating),
      });
      this.history.set(player.id, points);
    }
  }

  private all(): PlayerPerf[] {
    return [...this.perfs.values()].map(json => JSON.parse(json) as PlayerPerf);
  }
}
