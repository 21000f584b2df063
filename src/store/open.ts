/** Picks the store adapter from DATABASE_URL: `postgres://...` for PostgreSQL, a path or `sqlite:PATH` for SQLite. */
import { PostgresGameStore, type PostgresOptions } from './postgres.ts';
import { describeFailure, SqliteGameStore } from './sqlite.ts';
import type { Store } from './parts.ts';

export type { Store };

/** The store named by DATABASE_URL could not be opened: one line that names the setting, for the start-up. */
export class StoreOpenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreOpenError';
  }
}

/** The URL as it may be printed: without its password. */
const printable = (databaseUrl: string): string => {
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return databaseUrl;
  }
};

const reasonOf = (error: unknown): string => {
  const text = describeFailure(error) ?? (error instanceof Error ? error.message : String(error));
  return text.split('\n')[0]!;
};

/** True when the URL names a database that several instances may share. */
export const isSharedStore = (databaseUrl: string): boolean => /^postgres(ql)?:\/\//i.test(databaseUrl);

/** Opens the store; rejects with a StoreOpenError saying which database and why. */
export async function openStore(databaseUrl: string, options: PostgresOptions = {}): Promise<Store> {
  if (isSharedStore(databaseUrl)) {
    try {
      return await PostgresGameStore.open(databaseUrl, options);
    } catch (error) {
      throw new StoreOpenError(
        `DATABASE_URL: cannot open the PostgreSQL database ${printable(databaseUrl)}: ${reasonOf(error)}`,
      );
    }
  }
  const path = databaseUrl.replace(/^sqlite:(\/\/)?/i, '');
  try {
    return SqliteGameStore.open(path);
  } catch (error) {
    throw new StoreOpenError(`DATABASE_URL: cannot open the SQLite database '${path}': ${reasonOf(error)}`);
  }
}
