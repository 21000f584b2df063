/**
 * The shared store's moves as it reads them (rows.ts says how a game is stored; writes.ts writes them): a games row
 * comes with its line, its moves rows in ply order as JSON, in the one round trip of its read.
 *
 * ```ts
 * const { rows } = await pool.query<GameRow>(`SELECT id, version, created_at, data, ${LINE_SQL('games')} FROM games`);
 * rows.map(recordOfRow);
 * ```
 */
import type { GameRecord } from '../../domain/game.ts';
import { recordOf, type StoredGameData } from '../rows.ts';

/** A games row as the store reads it: its columns and its line (the moves rows, as JSON `[[uci, clock], ...]`). */
export interface GameRow {
  id: string;
  version: number;
  created_at: string;
  data: string;
  line: Array<[string, number | string | null]>;
}

/** The SQL of a games row's line, for a row of `table`: its moves rows in ply order, in the one round trip. */
export const LINE_SQL = (table: string) =>
  `(SELECT coalesce(json_agg(json_build_array(m.uci, m.clock) ORDER BY m.ply), '[]') FROM game_moves m ` +
  `WHERE m.game_id = ${table}.id) AS line`;

export const recordOfRow = (row: GameRow): GameRecord =>
  recordOf(
    row.id,
    row.version,
    row.created_at,
    JSON.parse(row.data) as StoredGameData,
    row.line.map(([uci, clock]) => ({ uci, clock: clock === null ? null : Number(clock) })),
  );
