/**
 * The PostgreSQL notifications between instances, in one place: the store sends each in the statement that
 * commits what it announces (so it is sent exactly when that commits), and every instance's listener
 * (bus/postgres.ts) reads them.
 *
 * - CHANGES_CHANNEL: a committed change or creation of a game, as JSON `{g, v, d, t, w, b}`: its id and version,
 *   the deadline of its clock (so that every instance's timers follow it), whether it started or ended the game,
 *   and its seats (so that every instance's players' event streams hear of it).
 * - TOKENS_CHANNEL: a player token issued (`issued`) or revoked (`revoked <hash>`), so that every instance
 *   turns authentication on, or stops accepting the token, at once.
 *
 * ```ts
 * parseChangeNotification('{"g":"AbCd1234","v":7,"d":null,"t":"f","w":"ann","b":"bob"}');
 * // { gameId: 'AbCd1234', version: 7, deadline: null, transition: 'gameFinish', white: 'ann', black: 'bob' }
 * parseTokenNotification('revoked 9f86d0...'); // { kind: 'revoked', hash: '9f86d0...' }
 * ```
 */

/** The channel of game changes. */
export const CHANGES_CHANNEL = 'chess_game_changes';

/** The channel of player tokens. */
export const TOKENS_CHANNEL = 'chess_player_tokens';

/**
 * The SQL expression of a change's payload, from SQL expressions of its parts: the game's id, the version the
 * change made, the deadline of its clock (ms since the epoch, or NULL), whether it started the game (`'s'`: a
 * creation, or an undo that resumed it) or ended it (`'f'`), else NULL, and the ids of its seats (`white_id`,
 * `black_id` of the row written).
 */
export const notificationSql = (sql: { id: string; version: string; deadline: string; transition: string }): string =>
  `json_build_object('g', ${sql.id}, 'v', ${sql.version}::int, 'd', ${sql.deadline}::bigint, 't', ${sql.transition}, ` +
  `'w', white_id, 'b', black_id)::text`;

export interface ChangeNotification {
  gameId: string;
  version: number;
  deadline: number | null; // when the game's clock calls for the service to act
  transition: 'gameStart' | 'gameFinish' | null; // whether the change started or ended the game
  white: string; // the seats' player ids
  black: string;
}

/** What a payload of the changes channel announces, or undefined for a payload of another form. */
export function parseChangeNotification(payload: string | undefined): ChangeNotification | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload ?? '');
  } catch {
    return undefined;
  }
  const { g, v, d, t, w, b } = (parsed ?? {}) as Record<string, unknown>;
  if (typeof g !== 'string' || !Number.isSafeInteger(v) || typeof w !== 'string' || typeof b !== 'string')
    return undefined;
  if (d !== null && !Number.isSafeInteger(d)) return undefined;
  if (t !== null && t !== 's' && t !== 'f') return undefined;
  const transition = t === 's' ? 'gameStart' : t === 'f' ? 'gameFinish' : null;
  return { gameId: g, version: v as number, deadline: d as number | null, transition, white: w, black: b };
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
