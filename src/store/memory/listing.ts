/**
 * The memory store's listing (memory.ts): the pages of games and the clocked games, read from what MemoryGames keeps
 * beside each record (its place in the order of changes, whether it is over, its deadline).
 *
 * ```ts
 * const listing = new MemoryListing(games);
 * await listing.listGames({ player: 'ann', status: 'ongoing', limit: 51 });
 * ```
 */
import type { GameRecord } from '../../domain/game.ts';
import type { ListingPart } from '../parts.ts';
import type { ClockedGame, ListedGame, ListQuery } from '../store.ts';
import type { MemoryGames } from './games.ts';

export class MemoryListing implements ListingPart {
  constructor(private readonly games: MemoryGames) {}

  clockedGames(): Promise<ClockedGame[]> {
    return Promise.resolve([...this.games.deadlines].map(([id, deadline]) => ({ id, deadline })));
  }

  listGames(query: ListQuery): Promise<ListedGame[]> {
    const before = query.before ?? Infinity;
    const wanted = (record: GameRecord, ended: boolean) =>
      (query.player === undefined || record.white.id === query.player || record.black.id === query.player) &&
      (query.status === 'all' || ended === (query.status === 'ended'));
    const page = [...this.games.order]
      .filter(([, { seq }]) => seq < before)
      .map(([id, { seq, ended }]) => ({ record: this.games.recordOf(id), seq, ended }))
      .filter(({ record, ended }) => wanted(record, ended))
      .sort((a, b) => b.seq - a.seq)
      .slice(0, query.limit);
    return Promise.resolve(page.map(({ record, seq }) => ({ record, seq })));
  }

  ongoingGames(player: string, after: string | undefined, limit: number): Promise<GameRecord[]> {
    const page = [...this.games.order]
      .filter(([id, { ended }]) => !ended && id > (after ?? ''))
      .map(([id]) => this.games.recordOf(id))
      .filter(record => record.white.id === player || record.black.id === player)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit);
    return Promise.resolve(page);
  }
}
