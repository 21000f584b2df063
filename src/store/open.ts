/** Picks the store adapter from DATABASE_URL: a path or `sqlite:PATH` for SQLite. */
import { SqliteGameStore } from './sqlite.ts';
import type { GameStore } from './store.ts';

export function openStore(databaseUrl: string): Promise<GameStore> {
  if (/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    return Promise.reject(new Error('PostgreSQL is not supported yet; use a SQLite path'));
  }
  const path = databaseUrl.replace(/^sqlite:(\/\/)?/i, '');
  return Promise.resolve(SqliteGameStore.open(path));
}
