/**
 * The schema migrations of an adapter: files `src/store/sql/<adapter>/NNNN_name.sql`, applied in the order of NNNN and
 * recorded by that number in the adapter's `schema_migrations` table.
 *
 * A released migration's text never changes: databases that ran it record its number, not its text, and never run
 * it again, so a change to the schema is a new file with the next number. That is also why the two adapters' folders
 * hold the same tables twice, each in its database's dialect and numbering, and stay so: no released file can be
 * rewritten from a shared source (src/store/sql/README.md).
 *
 * ```ts
 * for (const { version, name, sql } of migrations('sqlite')) if (!applied.has(version)) run(sql);
 * ```
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SQL_ROOT } from '../paths.ts';

export interface Migration {
  version: number; // NNNN
  name: string; // the file name, e.g. '0001_games.sql'
  sql: string;
}

export function migrations(adapter: 'sqlite' | 'postgres'): Migration[] {
  const dir = join(SQL_ROOT, adapter);
  return readdirSync(dir)
    .filter(name => /^\d{4}_.+\.sql$/.test(name))
    .sort()
    .map(name => ({ version: Number(name.slice(0, 4)), name, sql: readFileSync(join(dir, name), 'utf8') }));
}
