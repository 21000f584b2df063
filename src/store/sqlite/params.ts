/**
 * The SQL that SQLite shares with PostgreSQL (challenges.ts, seeks.ts, chat.ts, presence.ts, engineTurns.ts,
 * tokens.ts hold it with `$n` placeholders), as SQLite takes it: it numbers no parameter twice, so `$n` becomes the
 * named `@pn`, and the values go as an object.
 *
 * ```ts
 * db.prepare(named('SELECT data FROM challenges WHERE id = $1')).get(params(['AbCd1234']));
 * ```
 */

export type Params = Record<string, unknown>;

/** Positional values as the named parameters `@p1`, `@p2`... */
export const params = (values: readonly unknown[]): Params =>
  Object.fromEntries(values.map((value, i) => [`p${i + 1}`, value]));

/** SQL with `$n` placeholders as SQLite takes it: `@pn`. */
export const named = (sql: string): string => sql.replace(/\$(\d+)/g, '@p$1');
