/**
 * The PostgreSQL notifications between instances, in one place: the store sends each in the statement that
 * commits what it announces (so it is sent exactly when that commits), and every instance's listener
 * (bus/postgres.ts) reads them.
 *
 * - CHANGES_CHANNEL: a committed change of a game, `<gameId> <version> <deadline>`: the deadline of its clock in ms
 *   since the epoch, `-` for none (so that every instance's timers follow it).
 * - TOKENS_CHANNEL: a player token issued (`issued`) or revoked (`revoked <hash>`), so that every instance
 *   turns authentication on, or stops accepting the token, at once.
 *
 * ```ts
 * `SELECT pg_notify('${CHANGES_CHANNEL}', ${notificationSql('id', '$2::text', '$6')}) FROM updated`
 * parseChangeNotification('AbCd1234 7 -'); // { gameId: 'AbCd1234', version: 7, deadline: null }
 * parseTokenNotification('revoked 9f86d0...'); // { kind: 'revoked', hash: '9f86d0...' }
 * ```
 */

/** The channel of game changes. */
export const CHANGES_CHANNEL = 'chess_game_changes';

/** The channel of player tokens. */
export const TOKENS_CHANNEL = 'chess_player_tokens';

/** The SQL expression of the payload from SQL expressions of the id, the version (text) and the deadline. */
export const notificationSql = (gameIdSql: string, versionTextSql: string, deadlineSql: string): string =>
  `${gameIdSql} || ' ' || ${versionTextSql} || ' ' || coalesce(${deadlineSql}::text, '-')`;

export interface ChangeNotification {
  gameId: string;
  version: number;
  deadline: number | null;
}

/** The game, version and deadline a payload announces, or undefined for a payload of another form. */
export function parseChangeNotification(payload: string | undefined): ChangeNotification | undefined {
  const [gameId, version, deadline, ...rest] = (payload ?? '').split(' ');
  if (!gameId || !version || !deadline || rest.length > 0 || !/^\d+$/.test(version)) return undefined;
  if (deadline !== '-' && !/^\d+$/.test(deadline)) return undefined;
  return { gameId, version: Number(version), deadline: deadline === '-' ? null : Number(deadline) };
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
