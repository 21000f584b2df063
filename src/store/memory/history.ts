/**
 * The memory store's pages of a player's games (../history.ts), read from the entries MemoryGames keeps beside each
 * record: every game's entries are looked at for each page (the memory store serves tests and tools, not archives).
 *
 * ```ts
 * const history = new MemoryHistory(games);
 * await history.playerGames({ player: 'ann', ended: true, order: 'desc', limit: 100 });
 * ```
 */
import type { GameRecord } from '../../domain/game.ts';
import { comparePositions, entryMatches, type HistoryQuery } from '../../domain/history.ts';
import type { HistoryStore } from '../history.ts';
import type { MemoryGames } from './games.ts';

export class MemoryHistory implements HistoryStore {
  constructor(private readonly games: MemoryGames) {}

  playerGames(query: HistoryQuery): Promise<GameRecord[]> {
    const sign = query.order === 'asc' ? 1 : -1;
    const found: Array<{ createdAt: string; id: string }> = [];
    for (const [id, entries] of this.games.entries) {
      const { createdAt } = this.games.recordOf(id);
      const position = { createdAt, id };
      if (query.after && sign * comparePositions(position, query.after) <= 0) continue;
      if (!entries.some(entry => entryMatches(entry, createdAt, query))) continue;
      if (query.ended !== undefined && this.games.order.get(id)?.ended !== query.ended) continue;
      found.push(position);
    }
    found.sort((a, b) => sign * comparePositions(a, b));
    return Promise.resolve(found.slice(0, query.limit).map(({ id }) => this.games.recordOf(id)));
  }
}
