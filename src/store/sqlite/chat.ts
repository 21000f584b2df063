/**
 * The embedded store's chat (sqlite.ts): the SQL of ../chat.ts as SQLite takes it (params.ts). A line is counted
 * against its writer's rate, added and its room trimmed in one write transaction of the group commit: no other write
 * comes between.
 *
 * ```ts
 * const chat = new SqliteChat(connection);
 * await chat.appendChat(line, CHAT_LIMIT); // { line } with its seq, or { retryAt }
 * ```
 */
import type { ChatRoom } from '../../contract/vocabulary.ts';
import { chatRetryAt, type ChatLimit, type ChatLine, type NewChatLine } from '../../domain/chat.ts';
import { CHAT_SQL, chatColumns, chatLineOf, type AppendedChat, type ChatRow, type ChatStore } from '../chat.ts';
import type { SqliteConnection } from './connection.ts';
import { params } from './params.ts';

export class SqliteChat implements ChatStore {
  constructor(private readonly connection: SqliteConnection<unknown>) {}

  appendChat(line: NewChatLine, limit: ChatLimit): Promise<AppendedChat> {
    const { connection } = this;
    const recent = params([line.player.id, line.at - limit.windowMs, limit.lines]);
    const values = params(chatColumns(line));
    const trim = params([line.gameId, line.room, limit.kept]);
    let result: AppendedChat | undefined;
    // Counted and added in one write transaction: no other write comes between.
    return connection
      .enqueue(() => {
        const times = connection
          .statement<{ created_at: number }>(CHAT_SQL.recent)
          .all(recent)
          .map(row => row.created_at);
        const retryAt = chatRetryAt(times, line.at, limit);
        if (retryAt !== undefined) {
          result = { retryAt };
          return false;
        }
        result = { line: chatLineOf(connection.statement<ChatRow>(CHAT_SQL.insert).get(values)!) };
        connection.statement(CHAT_SQL.trim).run(trim);
        return true;
      })
      .then(() => result!);
  }

  chatLines(gameId: string, room: ChatRoom): Promise<ChatLine[]> {
    return this.connection.read(() =>
      this.connection
        .statement<ChatRow>(CHAT_SQL.lines)
        .all(params([gameId, room]))
        .map(chatLineOf),
    );
  }
}
