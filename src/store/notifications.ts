/**
 * The PostgreSQL notifications between instances, in one place: the store sends each in the statement that
 * commits what it announces (so it is sent exactly when that commits), and every instance's listener
 * (bus/postgres.ts) reads them.
 *
 * - CHANGES_CHANNEL: the changes and creations a batch committed, as a JSON array of `{g, v, d, t, w, b, e}`: each
 *   game's id and version, the deadline of its clock (so that every instance's timers follow it), whether the
 *   change started or ended the game and its seats (so that every instance's players' event streams hear of it),
 *   and its event where the payload has room (so that other instances need not read it back).
 * - TOKENS_CHANNEL: a player token issued (`issued`) or revoked (`revoked <hash>`), so that every instance
 *   turns authentication on, or stops accepting the token, at once.
 * - CHALLENGES_CHANNEL: a challenge made or changed, the whole challenge as stored (JSON), so that every instance
 *   tells the streams of its two players at once, in the order of the commits, and arms or drops its expiry.
 * - SEEKS_CHANNEL: seeks paired, or withdrawn by their player's newer seek, so that the instance holding a real-time
 *   seek's request ends it.
 * - CHAT_CHANNEL: a chat line written, the whole line as stored (JSON), so that every instance sends it to its streams
 *   of the game.
 *
 * ```ts
 * parseChangeNotifications('[{"g":"AbCd1234","v":7,"d":null,"t":"f","w":"ann","b":"bob","e":null}]');
 * // [{ gameId: 'AbCd1234', version: 7, deadline: null, transition: 'gameFinish', white: 'ann', black: 'bob', event: undefined }]
 * parseTokenNotification('revoked 9f86d0...'); // { kind: 'revoked', hash: '9f86d0...' }
 * ```
 */

import type { StateEvent } from './store.ts';
import type { Challenge } from '../domain/challenge.ts';
import type { ChatLine } from '../domain/chat.ts';

/** The JSON a payload holds, or undefined when it holds none (a payload of another form). */
function jsonOf(payload: string | undefined): unknown {
  try {
    return JSON.parse(payload ?? '');
  } catch {
    return undefined;
  }
}

/** The channel of game changes. */
export const CHANGES_CHANNEL = 'chess_game_changes';

/** The channel of player tokens. */
export const TOKENS_CHANNEL = 'chess_player_tokens';

export interface ChangeNotification {
  gameId: string;
  version: number;
  deadline: number | null; // when the game's clock calls for the service to act
  transition: 'gameStart' | 'gameFinish' | null; // whether the change started or ended the game
  white: string; // the seats' player ids
  black: string;
  event: StateEvent | undefined; // the change's event, when the payload had room for it
}

/**
 * The changes a payload of the changes channel announces: a JSON array of `{g, v, d, t, w, b, e}` (postgres/writes.ts
 * builds it), one item per saved change of a batch; the items of another form are left out.
 */
export function parseChangeNotifications(payload: string | undefined): ChangeNotification[] {
  const parsed = jsonOf(payload);
  if (!Array.isArray(parsed)) return [];
  return parsed.flatMap((item: unknown) => {
    const { g, v, d, t, w, b, e } = (item ?? {}) as Record<string, unknown>;
    if (typeof g !== 'string' || !Number.isSafeInteger(v) || typeof w !== 'string' || typeof b !== 'string') return [];
    if (d !== null && !Number.isSafeInteger(d)) return [];
    if (t !== null && t !== 's' && t !== 'f') return [];
    const event =
      e !== null && typeof e === 'object' && (e as { type?: unknown }).type === 'gameState'
        ? (e as StateEvent)
        : undefined;
    const transition = t === 's' ? 'gameStart' : t === 'f' ? 'gameFinish' : null;
    return [{ gameId: g, version: v as number, deadline: d as number | null, transition, white: w, black: b, event }];
  });
}

/** The channel of challenges. */
export const CHALLENGES_CHANNEL = 'chess_challenges';

/**
 * The challenge a payload of the challenges channel announces (the challenge itself, as stored: a few hundred
 * bytes, far below NOTIFY's 8000), or undefined for a payload of another form.
 */
export function parseChallengeNotification(payload: string | undefined): Challenge | undefined {
  const parsed = jsonOf(payload);
  const { id, version, status } = (parsed ?? {}) as Record<string, unknown>;
  if (typeof id !== 'string' || !Number.isSafeInteger(version)) return undefined;
  return ['created', 'accepted', 'declined', 'canceled'].includes(status as string) ? (parsed as Challenge) : undefined;
}

/**
 * The channel of seeks: a pairing, `{"paired": [id, id], "gameId": ...}`, or seeks withdrawn by their player's newer
 * one, `{"withdrawn": [id, ...]}`, so that the instances holding their requests hear that they ended.
 */
export const SEEKS_CHANNEL = 'chess_seeks';

/** The seeks a payload of the seeks channel announces no longer open, or undefined for a payload of another form. */
export function parseSeekNotification(payload: string | undefined): { ended: string[] } | undefined {
  const parsed = jsonOf(payload);
  const { paired, gameId, withdrawn } = (parsed ?? {}) as Record<string, unknown>;
  const ids = (value: unknown): value is string[] => Array.isArray(value) && value.every(id => typeof id === 'string');
  if (ids(paired) && typeof gameId === 'string') return { ended: paired };
  if (ids(withdrawn)) return { ended: withdrawn };
  return undefined;
}

/** The channel of games' chat lines. */
export const CHAT_CHANNEL = 'chess_chat';

/**
 * The chat line a payload of the chat channel announces (the line itself, as stored: at most 140 characters of text,
 * far below NOTIFY's 8000 bytes), or undefined for a payload of another form.
 */
export function parseChatNotification(payload: string | undefined): ChatLine | undefined {
  const parsed = jsonOf(payload);
  const { gameId, seq, room, player, text, at } = (parsed ?? {}) as Record<string, unknown>;
  const { id, displayName } = (player ?? {}) as Record<string, unknown>;
  const valid =
    typeof gameId === 'string' &&
    Number.isSafeInteger(seq) &&
    (room === 'player' || room === 'spectator') &&
    typeof id === 'string' &&
    typeof displayName === 'string' &&
    typeof text === 'string' &&
    Number.isSafeInteger(at);
  return valid ? (parsed as ChatLine) : undefined;
}

/** The SQL expression of the payload that announces a revoked token, from an SQL expression of its hash. */
export const tokenRevokedSql = (hashSql: string): string => `'revoked ' || ${hashSql}`;

/** The payload that announces an issued token. */
export const TOKEN_ISSUED = 'issued';

export type TokenNotification = { kind: 'issued' } | { kind: 'revoked'; hash: string };

/** What a payload of the tokens channel announces, or undefined for a payload of another form. */
export function parseTokenNotification(payload: string | undefined): TokenNotification | undefined {
  if (payload === TOKEN_ISSUED) return { kind: 'issued' };
  const revoked = /^revoked ([0-9a-f]{64})$/.exec(payload ?? '');
  return revoked ? { kind: 'revoked', hash: revoked[1]! } : undefined;
}
