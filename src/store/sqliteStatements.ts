/**
 * The SQL of the embedded store, prepared once per connection: the games (with the columns a player's list and the
 * clocks' timers are indexed by) and the player tokens.
 *
 * ```ts
 * const games = prepareGameStatements(db);
 * games.select.get('AbCd1234');
 * ```
 */
import type Database from 'better-sqlite3';
import { restoreGame } from '../domain/game.ts';
import { indexOfGame } from '../domain/transitions.ts';
import {
  clockAt,
  keptRows,
  recordOf,
  uciAt,
  type GameData,
  type MoveRow,
  type StoredGameData,
  type StoredTail,
} from './rows.ts';
import { listGamesSql, ongoingGamesSql, playerShape } from './listing.ts';
import type { ClockedGame, ListQuery } from './store.ts';
import type { GameRecord } from '../domain/game.ts';
import { BOT_SQL, TOKEN_COLUMNS, type TokenRow } from './tokens.ts';

export interface GameRow {
  id: string;
  version: number;
  created_at: string;
  data: string;
}

type Insert = [string, number, string, string, string, number | null, string, string, number, number];
type Update = [number, string, string, number | null, number, number, string, number];

export function prepareGameStatements(db: Database.Database) {
  const lists = new Map<string, Database.Statement<[Record<string, unknown>], GameRow & { seq: number }>>();
  const ongoing = new Map<string, Database.Statement<[{ player: string; after: string; limit: number }], GameRow>>();
  return {
    insert: db.prepare<Insert>(
      `INSERT OR IGNORE INTO games (id, version, created_at, updated_at, data, deadline, white_id, black_id, ended, seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    select: db.prepare<[string], GameRow>('SELECT id, version, created_at, data FROM games WHERE id = ?'),
    update: db.prepare<Update>(
      'UPDATE games SET version = ?, updated_at = ?, data = ?, deadline = ?, ended = ?, seq = ? WHERE id = ? AND version = ?',
    ),
    clocked: db.prepare<[], ClockedGame>('SELECT id, deadline FROM games WHERE deadline IS NOT NULL'),
    moves: db.prepare<[string], MoveRow>('SELECT uci, clock FROM game_moves WHERE game_id = ? ORDER BY ply'),
    putMove: db.prepare<[string, number, string, number | null]>(
      `INSERT INTO game_moves (game_id, ply, uci, clock) VALUES (?, ?, ?, ?)
       ON CONFLICT (game_id, ply) DO UPDATE SET uci = excluded.uci, clock = excluded.clock`,
    ),
    cutMoves: db.prepare<[string, number]>('DELETE FROM game_moves WHERE game_id = ? AND ply >= ?'),
    // The highest seq, from the index of each value of `ended` (NULL: a game stored before the column existed).
    maxSeq: db.prepare<[], { seq: number | null }>(
      `SELECT max(s) AS seq FROM (SELECT max(seq) AS s FROM games WHERE ended = 0 UNION ALL
       SELECT max(seq) FROM games WHERE ended = 1 UNION ALL SELECT max(seq) FROM games WHERE ended IS NULL)`,
    ),
    probe: db.prepare<[string]>(
      'INSERT INTO write_probe (id, written_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET written_at = excluded.written_at',
    ),
    /** The statement of a page of games of the query's shape (player or not, status), prepared on first use. */
    list(query: ListQuery) {
      const key = `${playerShape(query.player)} ${query.status}`;
      let statement = lists.get(key);
      if (!statement) {
        statement = db.prepare(listGamesSql(query, name => `@${name}`));
        lists.set(key, statement);
      }
      return statement;
    },
    /** The statement of a page of a player's ongoing games, prepared on first use for the player's shape. */
    ongoing(player: string) {
      const key = playerShape(player);
      let statement = ongoing.get(key);
      if (!statement) {
        statement = db.prepare(`${ongoingGamesSql(player, name => `@${name}`)} ORDER BY g.id`);
        ongoing.set(key, statement);
      }
      return statement;
    },
  };
}

export type GameStatements = ReturnType<typeof prepareGameStatements>;

/**
 * How many of a line's last rows a games row keeps in its `tail` (at most one less), instead of a game_moves row
 * each: rows [0, tailFrom) are in game_moves, tailFrom = TAIL_ROWS * floor(length / TAIL_ROWS), and the rest in the
 * tail. A move then writes the games row alone, and every TAIL_ROWS moves the rows of the tail to game_moves
 * together (one page, mostly), where a row per move wrote a page of game_moves per move. tailFrom is a function of
 * the line's length alone, so that a write knows it for the line it replaces; a stored tailFrom tells a read
 * which rows to take (rows of game_moves at or beyond it, written before tails were kept, are not the line's).
 * Changing TAIL_ROWS changes which rows a write expects in game_moves: it needs a migration that moves them.
 */
const TAIL_ROWS = 16;
const tailFromOf = (length: number): number => length - (length % TAIL_ROWS);

/**
 * The data of a games row: the record's small fields, where its line's tail starts, and the tail. Written out
 * field by field (a GameData must name them all), as a move makes one: no copy of the record to leave fields out.
 */
export function storedDataOf(record: GameRecord): string {
  const length = record.moves.length + record.redo.length;
  const tailFrom = tailFromOf(length);
  let tail: Array<[string, number | null]> | undefined;
  if (tailFrom < length) {
    tail = [];
    for (let i = tailFrom; i < length; i++) tail.push([uciAt(record, i), clockAt(record, i)]);
  }
  const { white, black, startFen, pendingPromotion, drawOffer, takebackOffer, result, clock, source } = record;
  const data: GameData & StoredTail = {
    white,
    black,
    startFen,
    pendingPromotion,
    drawOffer,
    takebackOffer,
    result,
    clock,
    cursor: record.moves.length,
    tailFrom,
    tail, // left out when undefined
    source, // likewise
  };
  return JSON.stringify(data);
}

/** The record of a games row, with its moves rows and its tail. */
export const recordOfRow = (games: GameStatements, row: GameRow): GameRecord =>
  recordOf(row.id, row.version, row.created_at, JSON.parse(row.data) as StoredGameData, games.moves.all(row.id));

/**
 * Writes the game_moves rows of `next` (those before its tail) that differ from those of `previous`, whose rows
 * before its own tail are stored (all of them without a previous record), and deletes those beyond.
 */
export function writeLine(games: GameStatements, next: GameRecord, previous?: GameRecord): void {
  const { keep, length } = keptRows(previous, next);
  const stored = previous ? tailFromOf(previous.moves.length + previous.redo.length) : 0;
  const upTo = tailFromOf(length);
  for (let i = Math.min(keep, stored); i < upTo; i++) games.putMove.run(next.id, i, uciAt(next, i), clockAt(next, i));
  if (previous === undefined || stored > upTo) games.cutMoves.run(next.id, upTo);
}

/**
 * Works out `ended` and `deadline` of the games stored before those columns were filled (migration 0007), from
 * each game itself: whether a game is over depends on its position.
 */
export function reindexGames(db: Database.Database, games: GameStatements): number {
  const rows = db.prepare<[], GameRow>('SELECT id, version, created_at, data FROM games WHERE ended IS NULL').all();
  const update = db.prepare<[number, number | null, string]>('UPDATE games SET ended = ?, deadline = ? WHERE id = ?');
  db.transaction(() => {
    for (const row of rows) {
      const { ended, deadline } = indexOfGame(restoreGame(recordOfRow(games, row)));
      update.run(ended ? 1 : 0, deadline, row.id);
    }
  }).immediate();
  return rows.length;
}

export function prepareTokenStatements(db: Database.Database) {
  return {
    insert: db.prepare<[string, string, string, string, string]>(
      'INSERT INTO player_tokens (id, hash, player_id, display_name, created_at) VALUES (?, ?, ?, ?, ?)',
    ),
    makeBot: db.prepare<[string, string]>(BOT_SQL.insert.replace('$1', '?').replace('$2', '?')),
    botsAmong: db.prepare<[string], { player_id: string }>(
      'SELECT player_id FROM bots WHERE player_id IN (SELECT value FROM json_each(?))',
    ),
    byHash: db.prepare<[string], TokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM player_tokens WHERE hash = ? AND revoked_at IS NULL`,
    ),
    all: db.prepare<[], TokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM player_tokens WHERE revoked_at IS NULL ORDER BY created_at, id`,
    ),
    ofPlayer: db.prepare<[string], TokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM player_tokens WHERE player_id = ? AND revoked_at IS NULL ORDER BY created_at, id`,
    ),
    revoke: db.prepare<[string, string], { hash: string }>(
      'UPDATE player_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING hash',
    ),
    valid: db.prepare<[string], { hash: string }>(
      'SELECT hash FROM player_tokens WHERE hash IN (SELECT value FROM json_each(?)) AND revoked_at IS NULL',
    ),
    any: db.prepare<[], { one: number }>('SELECT 1 AS one FROM player_tokens LIMIT 1'),
  };
}

/** Every game of a database, read straight from its tables (for tools and tests that look at a file). */
export function storedRecords(db: Database.Database): Map<string, GameRecord> {
  const games = {
    moves: db.prepare<[string], MoveRow>('SELECT uci, clock FROM game_moves WHERE game_id = ? ORDER BY ply'),
  } as GameStatements;
  const rows = db.prepare<[], GameRow>('SELECT id, version, created_at, data FROM games').all();
  return new Map(rows.map(row => [row.id, recordOfRow(games, row)]));
}
