/**
 * The SQLite file under the embedded store: opening and migrating it, telling which file is open, and what an
 * error of the file or its disk means for the API (UNAVAILABLE saying why) as against a bug (INTERNAL).
 *
 * ```ts
 * const db = openDatabase('./data/chess.sqlite'); // WAL, full syncs, migrated
 * describeFailure(error); // 'the database disk is full; ...', or undefined for an error that is not the file's
 * ```
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { DomainError } from '../../domain/errors.ts';
import { migrations } from '../migrations.ts';

/** The file a store has open: its device and inode, to tell when the path no longer names it. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/** A database in memory as migrated, made once per process (the test suites open hundreds). */
let migratedImage: Buffer | undefined;

/**
 * Opens (creating it and its folder if need be) and migrates a database, in WAL mode with full syncs. A database in
 * memory (`:memory:`) starts as a copy of one migrated the same way, with the same settings, and a secret of its own
 * (the one value the migrations draw at random).
 */
export function openDatabase(path: string): Database.Database {
  if (path === ':memory:') migratedImage ??= migratedInMemory();
  else mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path === ':memory:' ? migratedImage! : path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    if (path === ':memory:') db.exec('UPDATE service_secret SET secret = lower(hex(randomblob(32))) WHERE id = 1');
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

export const fileIdentity = (path: string): FileIdentity | undefined => {
  try {
    const { dev, ino } = statSync(path);
    return { dev, ino };
  } catch {
    return undefined;
  }
};

/**
 * Why the file cannot be used, for errors that are about the file or its disk rather than about the write: a
 * sentence for the API's UNAVAILABLE message; undefined for any other error (a bug, answered as INTERNAL).
 */
export function describeFailure(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  if (code === 'SQLITE_FULL') return 'the database disk is full; writes resume once space is freed';
  if (code.startsWith('SQLITE_READONLY')) return `the database file cannot be written (${code})`;
  if (code.startsWith('SQLITE_IOERR')) return `the database file cannot be read or written (${code})`;
  if (code.startsWith('SQLITE_CANTOPEN')) return `the database file cannot be opened (${code})`;
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') return `the database file is damaged (${code})`;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return `the database is locked (${code})`;
  if (code === 'SQLITE_NOMEM') return 'the database ran out of memory';
  if (code === 'ENOSPC') return 'the database disk is full; writes resume once space is freed';
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
    return `the database folder cannot be written (${code})`;
  return undefined;
}

/** A read's error: UNAVAILABLE when the file is at fault. */
export const unavailable = (error: unknown): Error => {
  const why = describeFailure(error);
  return why === undefined ? asError(error) : new DomainError('UNAVAILABLE', why);
};

export const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

function migratedInMemory(): Buffer {
  const db = new Database(':memory:');
  try {
    migrate(db);
    return db.serialize();
  } finally {
    db.close();
  }
}

function migrate(db: Database.Database): void {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
  );
  const applied = new Set(
    db
      .prepare<[], { version: number }>('SELECT version FROM schema_migrations')
      .all()
      .map(row => row.version),
  );
  for (const { version, name, sql } of migrations('sqlite')) {
    if (applied.has(version)) continue;
    db.transaction(() => {
      db.exec(sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        version,
        name,
        new Date().toISOString(),
      );
    }).immediate();
  }
}
