/**
 * The PostgreSQL notification of a committed change, in one place: the store sends it in the statement that
 * commits the change (so it is sent exactly when the change commits), and every instance's listener reads it.
 *
 * ```ts
 * `SELECT pg_notify('${CHANGES_CHANNEL}', ${notificationSql('id', '$2::text')}) FROM updated`
 * parseChangeNotification('AbCd1234 7'); // { gameId: 'AbCd1234', version: 7 }
 * ```
 */

/** The channel every instance LISTENs on. */
export const CHANGES_CHANNEL = 'chess_game_changes';

/** The SQL expression of the payload, `<gameId> <version>`, from SQL expressions of the id and the version. */
export const notificationSql = (gameIdSql: string, versionTextSql: string): string =>
  `${gameIdSql} || ' ' || ${versionTextSql}`;

/** The game and version a payload announces, or undefined for a payload of another form. */
export function parseChangeNotification(payload: string | undefined): { gameId: string; version: number } | undefined {
  const [gameId, version, ...rest] = (payload ?? '').split(' ');
  if (!gameId || !version || rest.length > 0 || !/^\d+$/.test(version)) return undefined;
  return { gameId, version: Number(version) };
}
