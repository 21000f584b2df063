/**
 * The memory store's chat (memory.ts, chat.ts): each game's lines, oldest first. A line is counted against its
 * writer's rate and added in one synchronous step: no other line comes between.
 *
 * ```ts
 * const chat = new MemoryChat();
 * await chat.appendChat(line, CHAT_LIMIT); // { line } with its seq, or { retryAt }
 * ```
 */
import type { ChatRoom } from '../../contract/vocabulary.ts';
import { chatRetryAt, type ChatLimit, type ChatLine, type NewChatLine } from '../../domain/chat.ts';
import type { AppendedChat, ChatStore } from '../chat.ts';

export class MemoryChat implements ChatStore {
  private readonly chats = new Map<string, ChatLine[]>(); // each game's lines, oldest first

  appendChat(line: NewChatLine, limit: ChatLimit): Promise<AppendedChat> {
    // Counted and added in one synchronous step: no other line comes between.
    const recent = [...this.chats.values()]
      .flat()
      .filter(kept => kept.player.id === line.player.id && kept.at > line.at - limit.windowMs)
      .map(kept => kept.at)
      .sort((a, b) => b - a);
    const retryAt = chatRetryAt(recent, line.at, limit);
    if (retryAt !== undefined) return Promise.resolve({ retryAt });
    const lines = this.chats.get(line.gameId) ?? [];
    const written: ChatLine = { ...line, player: { ...line.player }, seq: (lines.at(-1)?.seq ?? 0) + 1 };
    lines.push(written);
    const room = lines.filter(kept => kept.room === line.room);
    const dropped = new Set(room.slice(0, Math.max(0, room.length - limit.kept)));
    this.chats.set(
      line.gameId,
      lines.filter(kept => !dropped.has(kept)),
    );
    return Promise.resolve({ line: { ...written, player: { ...written.player } } });
  }

  chatLines(gameId: string, room: ChatRoom): Promise<ChatLine[]> {
    const lines = (this.chats.get(gameId) ?? []).filter(line => line.room === room);
    return Promise.resolve(lines.map(line => ({ ...line, player: { ...line.player } })));
  }
}
