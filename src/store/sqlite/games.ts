/**
 * The embedded store's games (sqlite.ts): the games rows, written with a version check in the connection's group
 * commit together with their moves rows (moves.ts), and the change log, in memory (recentChanges.ts): no other
 * instance reads it, and no stream outlives the process. Written in the database, beside each change, it nearly
 * doubled what a move cost the store: a second table and an index to update, about twice the WAL pages per commit
 * (48-54 against 28 µs of CPU per move in batches of 6, `npm run bench:store`).
 *
 * ```ts
 * const games = new SqliteGames(connection);
 * await games.update({ record: next, expectedVersion: 7, event, index, stored: previous }); // false: changed first
 * ```
 */
import type Database from 'better-sqlite3';
import { cappedEngineGameOf } from '../../domain/engineGames.ts';
import { restoreGame, type GameRecord } from '../../domain/game.ts';
import { historyEntriesOf } from '../../domain/history.ts';
import { indexOfGame } from '../../domain/transitions.ts';
import { eventJsonOf } from '../../domain/views.ts';
import { engineGamesLimited } from '../engineGames.ts';
import { entryColumns } from '../history.ts';
import type { GamesPart, GameUpdate } from '../parts.ts';
import { RecentChanges } from '../recentChanges.ts';
import { NO_INDEX, type GameIndex, type StoredChange } from '../store.ts';
import type { SqliteConnection } from './connection.ts';
import { countEngineGames } from './engine.ts';
import { ratedEndFits, writeRatedEnd } from './ratings.ts';
import { recordOfRow, storedDataOf, writeLine, type GameRow, type MoveStatements } from './moves.ts';

type Insert = [string, number, string, string, string, number | null, string, string, number, number];
type Entry = [string, string, string, string, string, string, number];
type Update = [number, string, string, number | null, number, number, string, number];

export function prepareGameStatements(db: Database.Database) {
  return {
    insert: db.prepare<Insert>(
      `INSERT OR IGNORE INTO games (id, version, created_at, updated_at, data, deadline, white_id, black_id, ended, seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    select: db.prepare<[string], GameRow>('SELECT id, version, created_at, data FROM games WHERE id = ?'),
    // The game's entries for its players' histories (../history.ts), written with it.
    insertEntry: db.prepare<Entry>(
      `INSERT OR IGNORE INTO player_games (player_id, created_at, game_id, color, opponent_id, perf, rated)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    update: db.prepare<Update>(
      'UPDATE games SET version = ?, updated_at = ?, data = ?, deadline = ?, ended = ?, seq = ? WHERE id = ? AND version = ?',
    ),
  };
}

export type GameStatements = ReturnType<typeof prepareGameStatements>;

/** What the games use of the store's connection. */
type Connection = SqliteConnection<{ games: GameStatements; moves: MoveStatements }>;

export class SqliteGames implements GamesPart {
  private readonly log = new RecentChanges();

  constructor(private readonly connection: Connection) {}

  create(record: GameRecord, { deadline, ended }: GameIndex = NO_INDEX): Promise<boolean> {
    const connection = this.connection;
    const data = storedDataOf(record);
    const { id, version, createdAt, white, black } = record;
    // A real-time game against the computer: counted in the write transaction that inserts it (engineGames.ts).
    const cap = cappedEngineGameOf(record);
    const entries = historyEntriesOf(record);
    let limited = false;
    const created = connection.enqueue(() => {
      const { games, moves } = connection.statements;
      if (cap && countEngineGames(connection, cap.player) >= cap.max) {
        limited = true;
        return false;
      }
      const now = new Date().toISOString();
      const inserted = games.insert.run(
        id,
        version,
        createdAt,
        now,
        data,
        deadline,
        white.id,
        black.id,
        +ended,
        connection.nextSeq(),
      );
      if (inserted.changes !== 1) return false;
      for (const entry of entries) games.insertEntry.run(...entryColumns(entry, record));
      writeLine(moves, record);
      return true;
    });
    return cap ? created.then(saved => (limited ? Promise.reject(engineGamesLimited(cap.max)) : saved)) : created;
  }

  get(id: string): Promise<GameRecord | undefined> {
    return this.connection.read(() => {
      const { games, moves } = this.connection.statements;
      const row = games.select.get(id);
      return row && recordOfRow(moves, row);
    });
  }

  update({ record, expectedVersion, event, index, stored, rated }: GameUpdate): Promise<boolean> {
    const connection = this.connection;
    const data = storedDataOf(record);
    const json = event && eventJsonOf(event);
    const { deadline, ended } = index;
    const now = new Date().toISOString();
    const write = () => {
      const { games, moves } = connection.statements;
      // A rated end: both perfs are checked before anything is written, so that a refusal writes nothing.
      if (rated && !ratedEndFits(connection, rated)) return false;
      const { changes } = games.update.run(
        record.version,
        now,
        data,
        deadline,
        +ended,
        connection.nextSeq(),
        record.id,
        expectedVersion,
      );
      if (changes !== 1) return false;
      writeLine(moves, record, stored);
      if (rated) writeRatedEnd(connection, rated);
      return true;
    };
    // Logged once it commits, in commit order, before its caller hears of it.
    return connection.enqueue(
      write,
      json === undefined ? undefined : () => this.log.append(record.id, record.version, json),
    );
  }

  changesSince(id: string, afterVersion: number): Promise<StoredChange[]> {
    return Promise.resolve(this.log.since(id, afterVersion));
  }
}

/**
 * Works out `ended` and `deadline` of the games stored before those columns were filled (migration 0007), from
 * each game itself: whether a game is over depends on its position.
 */
export function reindexGames(db: Database.Database, moves: MoveStatements): number {
  const rows = db.prepare<[], GameRow>('SELECT id, version, created_at, data FROM games WHERE ended IS NULL').all();
  const update = db.prepare<[number, number | null, string]>('UPDATE games SET ended = ?, deadline = ? WHERE id = ?');
  db.transaction(() => {
    for (const row of rows) {
      const { ended, deadline } = indexOfGame(restoreGame(recordOfRow(moves, row)));
      update.run(ended ? 1 : 0, deadline, row.id);
    }
  }).immediate();
  return rows.length;
}
