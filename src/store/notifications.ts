/**
 * The PostgreSQL notifications between instances, in one place: the store sends each in the statement that
 * commits what it announces (so it is sent exactly when that commits), and every instance's listener
 * (bus/postgres.ts) reads them.
 *
 * - CHANGES_CHANNEL: a committed change of a game, `<gameId> <version>`.
 * - TOKENS_CHANNEL: a player token issued (`issued`) or revoked (`revoked <hash>`), so that every instance
 *   turns authentication on, or stops accepting the token, at once.
 *
 * ```ts
 * `SELECT pg_notify('${CHANGES_CHANNEL}', ${notificationSql('id', '$2::text')}) FROM updated`
 * parseChangeNotification('AbCd1234 7'); // { gameId: 'AbCd1234', version: 7 }
 * parseTokenNotification('revoked 9f86d0...'); // { kind: 'revoked', hash: '9f86d0...' }
 * ```
 */

/** The channel of game changes. */
export const CHANGES_CHANNEL = 'chess_game_changes';

/** The channel of player tokens. */
export const TOKENS_CHANNEL = 'chess_player_tokens';

/** The SQL expression of the payload, `<gameId> <version>`, from SQL expressions of the id and the version. */
export const notificationSql = (gameIdSql: string, versionTextSql: string): string =>
  `${gameIdSql} || ' ' || ${versionTextSql}`;

/** The game and version a payload announces, or undefined for a payload of another form. */
export function parseChangeNotification(payload: string | undefined): { gameId: string; version: number } | undefined {
  const [gameId, version, ...rest] = (payload ?? '').split(' ');
  if (!gameId || !version || rest.length > 0 || !/^\d+$/.test(version)) return undefined;
  return { gameId, version: Number(version) };
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
