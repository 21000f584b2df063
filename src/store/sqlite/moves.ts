/**
 * The embedded store's moves (rows.ts says how a game is stored): the rows of game_moves before a line's tail, and the
 * tail itself, kept in the games row's data, so that a move mostly writes the games row alone.
 *
 * ```ts
 * const moves = prepareMoveStatements(db);
 * writeLine(moves, next, previous); // the rows of `next` that differ from those of `previous`
 * recordOfRow(moves, row); // the record of a games row, with its moves rows and its tail
 * ```
 */
import type Database from 'better-sqlite3';
import type { GameRecord } from '../../domain/game.ts';
import {
  clockAt,
  keptRows,
  recordOf,
  uciAt,
  type GameData,
  type MoveRow,
  type StoredGameData,
  type StoredTail,
} from '../rows.ts';

/** A games row as the store reads it. */
export interface GameRow {
  id: string;
  version: number;
  created_at: string;
  data: string;
}

/** The moves rows of a game, in ply order. */
const MOVES_SQL = 'SELECT uci, clock FROM game_moves WHERE game_id = ? ORDER BY ply';

/**
 * The moves rows of many games in one query (a page of an export), in the order of the ids given (a JSON array),
 * each game's by ply: read through the primary key, so that a page costs one statement instead of one per game.
 */
const PAGE_MOVES_SQL =
  'SELECT m.game_id, m.uci, m.clock FROM json_each(?) AS page CROSS JOIN game_moves AS m ON m.game_id = page.value ' +
  'ORDER BY page.key, m.ply';

export function prepareMoveStatements(db: Database.Database) {
  return {
    moves: db.prepare<[string], MoveRow>(MOVES_SQL),
    pageMoves: db.prepare<[string], MoveRow & { game_id: string }>(PAGE_MOVES_SQL),
    putMove: db.prepare<[string, number, string, number | null]>(
      `INSERT INTO game_moves (game_id, ply, uci, clock) VALUES (?, ?, ?, ?)
       ON CONFLICT (game_id, ply) DO UPDATE SET uci = excluded.uci, clock = excluded.clock`,
    ),
    cutMoves: db.prepare<[string, number]>('DELETE FROM game_moves WHERE game_id = ? AND ply >= ?'),
  };
}

export type MoveStatements = ReturnType<typeof prepareMoveStatements>;

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
  const { white, black, startFen, pendingPromotion, drawOffer, takebackOffer, result, clock, source, rated, ratings } =
    record;
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
    rated, // likewise
    ratings, // likewise
  };
  return JSON.stringify(data);
}

/** The record of a games row, with its moves rows and its tail. */
export const recordOfRow = (moves: Pick<MoveStatements, 'moves'>, row: GameRow): GameRecord =>
  recordOf(row.id, row.version, row.created_at, JSON.parse(row.data) as StoredGameData, moves.moves.all(row.id));

/**
 * The records of many games rows (a page), their moves rows read in one query; in the order of `rows`. Each record
 * is made as soon as its rows are read, so that a page's rows are never all in memory at once beside its records.
 */
export function recordsOfRows(moves: Pick<MoveStatements, 'pageMoves'>, rows: readonly GameRow[]): GameRecord[] {
  if (rows.length === 0) return [];
  const records: GameRecord[] = [];
  const recordOfNext = (line: MoveRow[]) => {
    const row = rows[records.length]!;
    records.push(recordOf(row.id, row.version, row.created_at, JSON.parse(row.data) as StoredGameData, line));
  };
  let line: MoveRow[] = [];
  for (const { game_id, uci, clock } of moves.pageMoves.iterate(JSON.stringify(rows.map(row => row.id)))) {
    if (game_id !== rows[records.length]!.id) {
      recordOfNext(line);
      line = [];
      while (rows[records.length]!.id !== game_id) recordOfNext([]); // games without moves rows
    }
    line.push({ uci, clock });
  }
  recordOfNext(line);
  while (records.length < rows.length) recordOfNext([]);
  return records;
}

/**
 * Writes the game_moves rows of `next` (those before its tail) that differ from those of `previous`, whose rows
 * before its own tail are stored (all of them without a previous record), and deletes those beyond.
 */
export function writeLine(moves: MoveStatements, next: GameRecord, previous?: GameRecord): void {
  const { keep, length } = keptRows(previous, next);
  const stored = previous ? tailFromOf(previous.moves.length + previous.redo.length) : 0;
  const upTo = tailFromOf(length);
  for (let i = Math.min(keep, stored); i < upTo; i++) moves.putMove.run(next.id, i, uciAt(next, i), clockAt(next, i));
  if (previous === undefined || stored > upTo) moves.cutMoves.run(next.id, upTo);
}

/** Every game of a database, read straight from its tables (for tools and tests that look at a file). */
export function storedRecords(db: Database.Database): Map<string, GameRecord> {
  const moves = { moves: db.prepare<[string], MoveRow>(MOVES_SQL) };
  const rows = db.prepare<[], GameRow>('SELECT id, version, created_at, data FROM games').all();
  return new Map(rows.map(row => [row.id, recordOfRow(moves, row)]));
}
