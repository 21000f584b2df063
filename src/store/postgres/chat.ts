/**
 * The shared store's chat (postgres.ts): the SQL of ../chat.ts. A line is counted against its writer's rate, numbered
 * after its game's latest, added and its room trimmed in one transaction under two advisory locks (locks.ts): its
 * writer's and its game's, which every instance takes; once it commits, every instance hears of it (CHAT_CHANNEL).
 *
 * ```ts
 * const chat = new PostgresChat(pool);
 * await chat.appendChat(line, CHAT_LIMIT); // { line } with its seq, or { retryAt }
 * ```
 */
import type pg from 'pg';
import type { ChatRoom } from '../../contract/vocabulary.ts';
import { chatRetryAt, type ChatLimit, type ChatLine, type NewChatLine } from '../../domain/chat.ts';
import { CHAT_SQL, chatColumns, chatLineOf, type AppendedChat, type ChatRow, type ChatStore } from '../chat.ts';
import { CHAT_CHANNEL } from '../notifications.ts';
import { Rollback, run, transaction } from '../postgresTransaction.ts';
import { CHAT_GAME_LOCK, CHAT_WRITER_LOCK } from './locks.ts';

export class PostgresChat implements ChatStore {
  constructor(private readonly pool: pg.Pool) {}

  appendChat(line: NewChatLine, limit: ChatLimit): Promise<AppendedChat> {
    return run(() =>
      transaction<AppendedChat>(this.pool, async client => {
        // One writer's lines one at a time on every instance (each counts what the one before committed), and one
        // game's lines one at a time (each numbered after the one before); always in this order, so no two wait on
        // each other in a circle.
        await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2)), pg_advisory_xact_lock($3, hashtext($4))', [
          CHAT_WRITER_LOCK,
          line.player.id,
          CHAT_GAME_LOCK,
          line.gameId,
        ]);
        const { rows: recent } = await client.query<{ created_at: string }>(CHAT_SQL.recent, [
          line.player.id,
          line.at - limit.windowMs,
          limit.lines,
        ]);
        const retryAt = chatRetryAt(
          recent.map(row => Number(row.created_at)),
          line.at,
          limit,
        );
        if (retryAt !== undefined) throw new Rollback<AppendedChat>({ retryAt });
        const written = chatLineOf((await client.query<ChatRow>(CHAT_SQL.insert, [...chatColumns(line)])).rows[0]!);
        await client.query(CHAT_SQL.trim, [line.gameId, line.room, limit.kept]);
        // Heard by every instance once the line commits, this one included.
        await client.query('SELECT pg_notify($1, $2)', [CHAT_CHANNEL, JSON.stringify(written)]);
        return { line: written };
      }),
    );
  }

  chatLines(gameId: string, room: ChatRoom): Promise<ChatLine[]> {
    return run(async () => (await this.pool.query<ChatRow>(CHAT_SQL.lines, [gameId, room])).rows.map(chatLineOf));
  }
}
