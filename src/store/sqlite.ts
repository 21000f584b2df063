/**
 * The embedded store: one SQLite file in WAL mode with `synchronous = FULL`, so a committed change survives
 * a crash of the process or of the machine. Migrations in `sql/sqlite/NNNN_name.sql` are applied in order
 * at open, each in its own transaction, and recorded in `schema_migrations`.
 *
 * ```ts
 * const store = SqliteGameStore.open('./data/chess.sqlite'); // or ':memory:'
 * ```
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { GameRecord } from '../domain/game.ts';
import {
  CHANGE_LOG_RETENTION_MS,
  dataOf,
  recordOf,
  type GameData,
  type GameStore,
  type StateEvent,
  type StoredChange,
} from './store.ts';

/** Updates between two prunings of the change log. */
const PRUNE_EVERY = 1000;

const MIGRATIONS_DIR = join(import.meta.dirname, 'sql', 'sqlite');

interface Row {
  id: string;
  version: number;
  created_at: string;
  data: string;
}

export class SqliteGameStore implements GameStore {
  private readonly db: Database.Database;
  private readonly insertStmt: Database.Statement<[string, number, string, string, string]>;
  private readonly selectStmt: Database.Statement<[string], Row>;
  private readonly updateStmt: Database.Statement<[number, string, string, string, number]>;
  private readonly logStmt: Database.Statement<[string, number, number, string]>;
  private readonly changesStmt: Database.Statement<[string, number], { version: number; event: string }>;
  private readonly pruneStmt: Database.Statement<[number]>;
  private readonly updateTx: Database.Transaction<
    (record: GameRecord, expectedVersion: number, event?: StateEvent) => boolean
  >;
  private updates = 0;

  private constructor(db: Database.Database) {
    this.db = db;
    this.insertStmt = db.prepare(
      'INSERT OR IGNORE INTO games (id, version, created_at, updated_at, data) VALUES (?, ?, ?, ?, ?)',
    );
    this.selectStmt = db.prepare('SELECT id, version, created_at, data FROM games WHERE id = ?');
    this.updateStmt = db.prepare('UPDATE games SET version = ?, updated_at = ?, data = ? WHERE id = ? AND version = ?');
    this.logStmt = db.prepare('INSERT INTO game_changes (game_id, version, created_at, event) VALUES (?, ?, ?, ?)');
    this.changesStmt = db.prepare(
      'SELECT version, event FROM game_changes WHERE game_id = ? AND version > ? ORDER BY version',
    );
    this.pruneStmt = db.prepare('DELETE FROM game_changes WHERE created_at < ?');
    this.updateTx = db.transaction((record: GameRecord, expectedVersion: number, event?: StateEvent) => {
      const now = new Date();
      const data = JSON.stringify(dataOf(record));
      const info = this.updateStmt.run(record.version, now.toISOString(), data, record.id, expectedVersion);
      if (info.changes !== 1) return false;
      if (event) this.logStmt.run(record.id, record.version, now.getTime(), JSON.stringify(event));
      return true;
    });
  }

  static open(path: string): SqliteGameStore {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    migrate(db);
    return new SqliteGameStore(db);
  }

  create(record: GameRecord): Promise<boolean> {
    const now = new Date().toISOString();
    const info = this.insertStmt.run(record.id, record.version, record.createdAt, now, JSON.stringify(dataOf(record)));
    return Promise.resolve(info.changes === 1);
  }

  get(id: string): Promise<GameRecord | undefined> {
    const row = this.selectStmt.get(id);
    return Promise.resolve(
      row === undefined ? undefined : recordOf(row.id, row.version, row.created_at, JSON.parse(row.data) as GameData),
    );
  }

  update(record: GameRecord, expectedVersion: number, event?: StateEvent): Promise<boolean> {
    const saved = this.updateTx.immediate(record, expectedVersion, event);
    if (saved && ++this.updates % PRUNE_EVERY === 0) this.pruneStmt.run(Date.now() - CHANGE_LOG_RETENTION_MS);
    return Promise.resolve(saved);
  }

  changesSince(id: string, afterVersion: number): Promise<StoredChange[]> {
    return Promise.resolve(
      this.changesStmt
        .all(id, afterVersion)
        .map(row => ({ gameId: id, version: row.version, event: JSON.parse(row.event) as StateEvent })),
    );
  }

  ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.db.open) this.db.close();
    return Promise.resolve();
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
  const files = readdirSync(MIGRATIONS_DIR)
    .filter(name => /^\d{4}_.+\.sql$/.test(name))
    .sort();
  for (const name of files) {
    const version = Number(name.slice(0, 4));
    if (applied.has(version)) continue;
    const sql = readFileSync(join(MIGRATIONS_DIR, name), 'utf8');
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
