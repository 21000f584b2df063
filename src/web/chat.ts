/**
 * The traffic of the chat panel (DECISIONS §17): while the game on the board has the page's player in a seat, its
 * lichess stream (`GET /api/board/game/stream/{id}`, a second stream of the game beside the seed's, which carries no
 * chat) brings the players' room live, and each connection asks for the room's history (`GET .../chat`) once it is
 * live; `send` writes a line (`POST .../chat`), which comes back on the stream like the opponent's. No DOM:
 * `changed` redraws (chatState.ts has the rules).
 *
 * ```ts
 * const chat = new ChatFeed(() => render());
 * chat.follow(gameId); // undefined: none, and the panel hides
 * await chat.send('good luck'); // rejects with the service's ApiError (e.g. RATE_LIMITED)
 * ```
 */
import { api } from './api.ts';
import { applyChatHistory, applyChatLine, chatConnected, newChat, type ChatState } from './chatState.ts';
import { Feed } from './feed.ts';
import { ChatStream } from './stream.ts';

export class ChatFeed extends Feed {
  /** The chat followed; undefined: none, the panel is hidden. */
  chat: ChatState | undefined;
  private stream: ChatStream | undefined;

  /** Follows the chat of game `gameId`, or none; the same game goes on as before. */
  follow(gameId: string | undefined): void {
    if (gameId === this.chat?.gameId) return;
    this.stream?.stop();
    this.stream = undefined;
    this.chat = undefined;
    this.reset();
    if (gameId !== undefined) this.start(gameId);
    this.changed();
  }

  /** Writes a line in the players' room of the chat followed. */
  async send(text: string): Promise<void> {
    const chat = this.chat;
    if (!chat) return;
    await api.say(chat.gameId, text);
    // After the game's end its stream is closed: the line comes back with the history instead.
    if (this.status === 'stopped' && chat === this.chat) await this.loadHistory(chat, chatConnected(chat));
  }

  /** Connects again at once (the network came back). */
  reconnectNow(): void {
    this.stream?.reconnectNow();
  }

  private start(gameId: string): void {
    const chat = (this.chat = newChat(gameId));
    const stream: ChatStream = (this.stream = new ChatStream(gameId, {
      onOpen: () => void this.loadHistory(chat, chatConnected(chat)),
      onLine: line => {
        if (applyChatLine(chat, line)) this.changed();
      },
      ...this.connection(
        () => this.stream === stream,
        () => this.changed(),
      ),
    }));
    stream.start();
  }

  private async loadHistory(chat: ChatState, epoch: number): Promise<void> {
    try {
      const history = await api.chat(chat.gameId);
      if (chat === this.chat && applyChatHistory(chat, history, epoch)) this.changed();
    } catch (error) {
      if (chat !== this.chat) return;
      // The lines held back are shown without the history, which the next connection asks for again.
      applyChatHistory(chat, [], epoch);
      this.problem = error instanceof Error ? error.message : String(error);
      this.changed();
    }
  }
}
