/**
 * Where games' chat lines live (DECISIONS §17), beside the games in the same store: kept with the game, numbered in
 * the order they were written, and counted per player for the rate limit in the same write, so that a player's
 * limit holds whatever the number of instances and racing requests. A room keeps its latest lines only
 * (`ChatLimit.kept`), so no input grows a game's chat without bound.
 *
 * ```ts
 * const written = await store.appendChat(line, CHAT_LIMIT); // { line } with its seq, or { retryAt }
 * await store.chatLines(gameId, 'player'); // oldest first
 * ```
 */
import type { ChatLimit, ChatLine, NewChatLine } from '../domain/chat.ts';
import type { ChatRoom } from '../contract/vocabulary.ts';

/** A line written (with its place in the game's chat), or the time its writer may write again. */
export type AppendedChat = { line: ChatLine } | { retryAt: number };

export interface ChatStore {
  /**
   * Adds a line to its game's chat, after the game's latest, unless its writer already wrote `limit.lines` lines in
   * the `limit.windowMs` before `line.at` (in any game and room); then only the time they may write again. The room
   * keeps its latest `limit.kept` lines. A shared store announces the line to every instance (CHAT_CHANNEL) when it
   * commits. The count is of the lines kept: a room that gets more than `limit.kept` lines within one window (ten
   * writers or more at the full rate) drops some of them early, and their writers may write that many again.
   */
  appendChat(line: NewChatLine, limit: ChatLimit): Promise<AppendedChat>;
  /** The lines kept of a room of a game, the oldest first. */
  chatLines(gameId: string, room: ChatRoom): Promise<ChatLine[]>;
}

/** A game_chat row as the adapters' SQL selects it. */
export interface ChatRow {
  game_id: string;
  seq: number | string; // PostgreSQL's BIGINT comes as a string
  room: string;
  player_id: string;
  username: string;
  text: string;
  created_at: number | string;
}

export const chatLineOf = (row: ChatRow): ChatLine => ({
  gameId: row.game_id,
  seq: Number(row.seq),
  room: row.room as ChatRoom,
  player: { id: row.player_id, displayName: row.username },
  text: row.text,
  at: Number(row.created_at),
});

const COLUMNS = 'game_id, seq, room, player_id, username, text, created_at';

/** The columns of a new line, in the insert's order ($1-$6). */
export const chatColumns = (line: NewChatLine) =>
  [line.gameId, line.room, line.player.id, line.player.displayName, line.text, line.at] as const;

/** The SQL of the adapters, with `$n` placeholders (SQLite takes them as `@pn`). */
export const CHAT_SQL = {
  /** The times of a player's latest lines after $2, the latest first, at most $3. */
  recent: 'SELECT created_at FROM game_chat WHERE player_id = $1 AND created_at > $2 ORDER BY created_at DESC LIMIT $3',
  /** The line after the game's latest (a trimmed room keeps its latest line, so no seq comes twice). */
  insert:
    `INSERT INTO game_chat (${COLUMNS}) ` +
    'SELECT CAST($1 AS TEXT), coalesce(max(seq), 0) + 1, CAST($2 AS TEXT), CAST($3 AS TEXT), CAST($4 AS TEXT), ' +
    'CAST($5 AS TEXT), CAST($6 AS BIGINT) FROM game_chat WHERE game_id = $1 ' +
    `RETURNING ${COLUMNS}`,
  /** Drops a room's lines before its latest $3. */
  trim:
    'DELETE FROM game_chat WHERE game_id = $1 AND room = $2 AND seq < ' +
    '(SELECT seq FROM game_chat WHERE game_id = $1 AND room = $2 ORDER BY seq DESC LIMIT 1 OFFSET $3 - 1)',
  lines: `SELECT ${COLUMNS} FROM game_chat WHERE game_id = $1 AND room = $2 ORDER BY seq`,
} as const;
