/**
 * A player's games and single games as lichess exports them (DECISIONS §22): the games read from the store in pages,
 * each page asked for only when the caller takes the next game (an async iterator), so that what is in memory is a
 * page whatever the archive's size. A page holds as many games as fit a budget of plies (the games of the page before
 * tell how long they are), so that an archive of long games costs no more memory than one of short ones.
 *
 * ```ts
 * const exports = new GameExports(store, games);
 * for await (const game of exports.playerGames({ player: 'ann', ended: true, order: 'desc' }, 500)) write(game);
 * await exports.byIds(['AbCd1234', 'EfGh5678']); // those that exist, in that order
 * ```
 */
import { restoreForExport, restoreGame, type Game } from '../domain/game.ts';
import type { HistoryQuery } from '../domain/history.ts';
import type { HistoryStore } from '../store/history.ts';
import type { GameStore } from '../store/store.ts';
import type { GameService } from './games.ts';

/** The most games of a page, and the plies a page may hold about (a page of long games has fewer). */
export const PAGE_GAMES = 200;
export const PAGE_PLIES = 40_000;

/** The games of an export by ids, at most. */
export const MAX_EXPORT_IDS = 300;

export class GameExports {
  constructor(
    private readonly store: GameStore & HistoryStore,
    private readonly games: GameService,
  ) {}

  /**
   * The games of a query (without its page's position and size), `max` at most, read a page at a time as they are
   * taken: the next page is read only once the last game of the one before has been taken.
   */
  async *playerGames(query: Omit<HistoryQuery, 'after' | 'limit'>, max = Infinity): AsyncGenerator<Game> {
    let after: HistoryQuery['after'];
    let left = max;
    let limit = Math.min(PAGE_GAMES, 20); // a small first page, so that the first game goes out at once
    while (left > 0) {
      const page = await this.store.playerGames({ ...query, after, limit: Math.min(limit, left) });
      let plies = 0;
      for (const record of page) {
        plies += record.moves.length + record.redo.length;
        yield restoreForExport(record);
      }
      left -= page.length;
      if (page.length < limit || left <= 0) return;
      const last = page.at(-1)!;
      after = { createdAt: last.createdAt, id: last.id };
      const perGame = Math.max(1, plies / page.length);
      limit = Math.max(1, Math.min(PAGE_GAMES, Math.floor(PAGE_PLIES / perGame)));
    }
  }

  /** The games of these ids that exist, in the order given (an id given twice: once, where it came first). */
  async *byIds(ids: readonly string[]): AsyncGenerator<Game> {
    for (const id of new Set(ids)) {
      const game = await this.games.current(id);
      if (game) yield game;
    }
  }

  /** The player's ongoing game most recently changed, or undefined. */
  async currentGame(player: string): Promise<Game | undefined> {
    const [listed] = await this.store.listGames({ player, status: 'ongoing', limit: 1 });
    return listed && restoreGame(listed.record, { trusted: true });
  }
}
