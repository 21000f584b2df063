/** Picks the store adapter from DATABASE_URL: `postgres://...` for PostgreSQL, a path or `sqlite:PATH` for SQLite. */
import { PostgresGameStore, type PostgresOptions } from './postgres.ts';
import { SqliteGameStore } from './sqlite.ts';
import type { GameStore } from './store.ts';

/** True when the URL names a database that several instances may share. */
export const isSharedStore = (databaseUrl: string): boolean => /^postgres(ql)?:\/\//i.test(databaseUrl);

export async function openStore(databaseUrl: string, options: PostgresOptions = {}): Promise<GameStore> {
  if (isSharedStore(databaseUrl)) return PostgresGameStore.open(databaseUrl, options);
  const path = databaseUrl.replace(/^sqlite:(\/\/)?/i, '');
  return Promise.resolve(SqliteGameStore.open(path));
}
