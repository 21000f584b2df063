/**
 * A store in Maps, for tests and tools: nothing survives the process. Each concern is a part of its own (memory/), put
 * together here (parts.ts).
 *
 * ```ts
 * const store = new MemoryGameStore();
 * await store.create(game.record);
 * ```
 */
import { randomBytes } from 'node:crypto';
import { StoreOfParts, type StoreParts } from './parts.ts';
import { MemoryAccounts } from './memory/accounts.ts';
import { MemoryChallenges } from './memory/challenges.ts';
import { MemoryChat } from './memory/chat.ts';
import { MemoryEngineTurns } from './memory/engine.ts';
import { MemoryGames } from './memory/games.ts';
import { MemoryHistory } from './memory/history.ts';
import { MemoryListing } from './memory/listing.ts';
import { MemoryPresence } from './memory/presence.ts';
import { MemoryRatings } from './memory/ratings.ts';
import { MemorySeeks } from './memory/seeks.ts';
import { MemoryTokens } from './memory/tokens.ts';

export class MemoryGameStore extends StoreOfParts {
  protected readonly parts: StoreParts;
  private readonly secretHex = randomBytes(32).toString('hex');

  constructor() {
    super();
    const ratings = new MemoryRatings();
    const games = new MemoryGames(ratings);
    const gameExists = (id: string) => games.has(id);
    const accounts = new MemoryAccounts();
    this.parts = {
      games,
      listing: new MemoryListing(games),
      tokens: new MemoryTokens(accounts),
      accounts,
      challenges: new MemoryChallenges(gameExists),
      seeks: new MemorySeeks(gameExists),
      chat: new MemoryChat(),
      presence: new MemoryPresence(),
      engineTurns: new MemoryEngineTurns(),
      history: new MemoryHistory(games),
      ratings,
    };
  }

  secret(): Promise<string> {
    return Promise.resolve(this.secretHex);
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
