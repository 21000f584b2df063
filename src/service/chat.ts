/**
 * Games' chat (DECISIONS §17): lines written in a game's rooms, kept with the game (store/chat.ts), and told to whoever
 * follows the game's lines (`onLine`: the lichess game streams). The rules are the domain's (domain/chat.ts): the
 * rooms, the text, who writes and reads which room, a player's rate. The time is the game service's clock.
 *
 * On a store several instances share (PostgreSQL) the store announces each line to every instance, this one
 * included, and the lines are told from there (`announced`) rather than from the write itself.
 *
 * ```ts
 * const chat = new ChatService({ store, games });
 * chat.onLine(line => send(line)); // every line written, here or (shared store) anywhere
 * await chat.write(playerActor(ann), gameId, { room: 'player', text: 'good luck' });
 * await chat.playerRoom(playerActor(bob), gameId); // [{ text: 'good luck', player: ann, ... }]
 * ```
 */
import {
  CHAT_LIMIT,
  ChatRateLimited,
  chatAuthorOf,
  parseChatRequest,
  readsPlayerRoom,
  type ChatLimit,
  type ChatLine,
} from '../domain/chat.ts';
import { DomainError, orThrow } from '../domain/errors.ts';
import type { Game } from '../domain/game.ts';
import type { Actor } from '../domain/seats.ts';
import type { ChatRoom } from '../contract/vocabulary.ts';
import type { ChatStore } from '../store/chat.ts';
import type { GameService } from './games.ts';

export interface ChatServiceDeps {
  store: ChatStore;
  games: GameService; // the games written about; its clock is the service's time
  sharedStore?: boolean; // other instances share the store, which announces every line (`announced`)
  limit?: ChatLimit; // CHAT_LIMIT
}

export class ChatService {
  private readonly listeners = new Set<(line: ChatLine) => void>();
  private readonly limit: ChatLimit;

  constructor(private readonly deps: ChatServiceDeps) {
    this.limit = deps.limit ?? CHAT_LIMIT;
  }

  /** Calls `listener` with every line written from now on; returns how to stop. */
  onLine(listener: (line: ChatLine) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Writes a line (`{room, text}`, as a form or JSON gives them) in a game's chat: INVALID_BODY, GAME_NOT_FOUND,
   * FORBIDDEN (the players' room from a spectator), RATE_LIMITED (ChatRateLimited, with when to retry).
   */
  async write(actor: Actor, gameId: string, body: Readonly<Record<string, unknown>>): Promise<ChatLine> {
    const { room, text } = orThrow(parseChatRequest(body));
    const game = await this.deps.games.get(gameId);
    const player = orThrow(chatAuthorOf(game, room, actor));
    const at = this.deps.games.now();
    const written = await this.deps.store.appendChat({ gameId, room, player, text, at }, this.limit);
    if ('retryAt' in written) {
      throw new ChatRateLimited(Math.max(1, Math.ceil((written.retryAt - at) / 1000)), this.limit);
    }
    if (!this.deps.sharedStore) this.tell(written.line);
    return written.line;
  }

  /** The players' room of a game, the oldest line first: for its players (and requests for any side), else FORBIDDEN. */
  async playerRoom(actor: Actor, gameId: string): Promise<ChatLine[]> {
    const game = await this.deps.games.get(gameId);
    if (!readsPlayerRoom(game, actor)) {
      throw new DomainError('FORBIDDEN', "only the game's players read its player room");
    }
    return this.deps.store.chatLines(gameId, 'player');
  }

  /** The rooms `actor` reads in `game`: both for its players (and requests for any side), else the spectators'. */
  roomsOf(game: Game, actor: Actor): ChatRoom[] {
    return readsPlayerRoom(game, actor) ? ['player', 'spectator'] : ['spectator'];
  }

  /** A line written on any instance (a shared store's announcement, the line as committed). */
  announced(line: ChatLine): void {
    this.tell(line);
  }

  private tell(line: ChatLine): void {
    for (const listener of this.listeners) listener(line);
  }
}
