/**
 * A game's chat (DECISIONS §17): what a line may say, who writes it in which room, who reads the players' room, and
 * how fast one player may write. Pure: the time is an argument.
 *
 * - Rooms: `player` (the game's two players) and `spectator` (anyone). Text: 1-140 characters (code points), no
 *   control characters, no unpaired surrogates, and a visible character (not only blanks or zero-width ones).
 * - A player token writes in its own name; in the players' room only when its player holds a seat (FORBIDDEN
 *   otherwise), and only such a player reads that room. A request without a player token (authentication off, or a
 *   service token) acts for any side, as its moves do: it writes in the name of the side to move, and reads both
 *   rooms.
 * - At most CHAT_LIMIT.lines lines in any CHAT_LIMIT.windowMs per player, counted across all games and both rooms
 *   (lichess's rule is per player); a game keeps the last CHAT_LIMIT.kept lines of each room.
 *
 * ```ts
 * const request = parseChatRequest({ room: 'player', text: 'good luck' }); // ok({ room: 'player', text: ... })
 * const author = chatAuthorOf(game, 'player', actor); // ok(PlayerInfo), or FORBIDDEN for a spectator
 * chatRetryAt([t3, t2, t1], now, CHAT_LIMIT); // undefined: may write; else when the next line may come
 * ```
 */
import type { PlayerInfo } from '../contract/shapes.ts';
import { CHAT_ROOMS, MAX_CHAT_TEXT, VISIBLE_CHARACTER, type ChatRoom } from '../contract/vocabulary.ts';
import { DomainError, err, ok, type Result } from './errors.ts';
import type { Game } from './game.ts';
import { sidesOf, type Actor } from './seats.ts';

/** One line of a game's chat, as kept with the game. */
export interface ChatLine {
  gameId: string;
  seq: number; // its place in the game's chat (both rooms), from 1
  room: ChatRoom;
  player: PlayerInfo; // who wrote it, with the display name they had then
  text: string;
  at: number; // when, ms since the epoch
}

/** A line before the store gives it its place. */
export type NewChatLine = Omit<ChatLine, 'seq'>;

export interface ChatLimit {
  lines: number; // lines a player may write in any window, e.g. 20
  windowMs: number; // e.g. 60000
  kept: number; // lines of each room a game keeps, the latest, e.g. 200
}

export const CHAT_LIMIT: ChatLimit = Object.freeze({ lines: 20, windowMs: 60_000, kept: 200 });

/** Text with no control character (Unicode Cc) and no unpaired surrogate. */
const PRINTABLE = /^[^\p{Cc}\uD800-\uDFFF]*$/u;

const invalid = (field: 'room' | 'text', message: string) => err(new DomainError('INVALID_BODY', message, field));

/** A chat request's fields (`room`, `text`), as JSON or a form gives them. */
export function parseChatRequest(body: Readonly<Record<string, unknown>>): Result<{ room: ChatRoom; text: string }> {
  const { room, text } = body;
  if (typeof room !== 'string' || !(CHAT_ROOMS as readonly string[]).includes(room)) {
    return invalid('room', `room must be one of ${CHAT_ROOMS.join(', ')}`);
  }
  if (typeof text !== 'string') return invalid('text', 'text is required');
  const length = [...text].length;
  if (length < 1 || length > MAX_CHAT_TEXT) {
    return invalid('text', `text must have 1-${MAX_CHAT_TEXT} characters, not ${length}`);
  }
  if (!PRINTABLE.test(text)) return invalid('text', 'text must not contain control characters or unpaired surrogates');
  if (!VISIBLE_CHARACTER.test(text)) return invalid('text', 'text must have a visible character, not only blanks');
  return ok({ room: room as ChatRoom, text });
}

/** Whether `actor` reads the players' room of a game: a player holding a seat, or a request for any side. */
export const readsPlayerRoom = (game: Game, actor: Actor): boolean => sidesOf(game.record, actor).length > 0;

/**
 * Who writes a line `actor` sends to `room`: a player token's player (in the players' room only from a seat,
 * FORBIDDEN otherwise), or, for a request that acts for any side, the side to move's player.
 */
export function chatAuthorOf(game: Game, room: ChatRoom, actor: Actor): Result<PlayerInfo> {
  if (actor.kind === 'service') return ok(game.pos.turn === 'white' ? game.record.white : game.record.black);
  if (room === 'player' && !readsPlayerRoom(game, actor)) {
    return err(
      new DomainError('FORBIDDEN', "only the game's players write in its player room; spectators use spectator"),
    );
  }
  return ok(actor.player);
}

/**
 * When a player may write again, or undefined when they may now: `recent` are the times of their latest lines, the
 * latest first (at least `limit.lines` of them when there are that many). A window may hold `limit.lines - 1`
 * earlier lines, so the next one may come once the `limit.lines`-th latest has left it.
 */
export function chatRetryAt(recent: readonly number[], now: number, limit: ChatLimit): number | undefined {
  const edge = recent[limit.lines - 1];
  if (edge === undefined || edge <= now - limit.windowMs) return undefined;
  return edge + limit.windowMs;
}

/** Lines a player wrote too fast: RATE_LIMITED, with how long to wait. */
export class ChatRateLimited extends DomainError {
  constructor(
    readonly retryAfterSeconds: number,
    limit: ChatLimit,
  ) {
    super(
      'RATE_LIMITED',
      `at most ${limit.lines} chat lines every ${limit.windowMs / 1000} s per player; retry in ${retryAfterSeconds} s`,
    );
  }
}
