/**
 * How a game record is stored, in both stores: a row of the `games` table whose `data` holds the record's small
 * fields (players, start, offers, clock, result, and `cursor`, how many moves of its line are played), and a row
 * of `game_moves` per move of its line: the moves played, then the moves undone in the order they would be redone
 * (the record's redo stack reversed), each with the mover's time left after it where the game is clocked.
 *
 * A change writes only what changed (`lineDelta`): the games row, and the moves rows from the first that differs,
 * so that a write costs the same at ply 400 as at ply 10. An undo or a redo changes one row (the clock of the move
 * undone is forgotten), a move one row, a takeback deletes rows.
 *
 * ```ts
 * const delta = lineDelta(previous, next); // { keep: 39, rows: [{ uci: 'e2e4', clock: null }], length: 40 }
 * const record = recordOf(id, version, createdAt, JSON.parse(data), rows);
 * ```
 */
import type { Clock } from '../domain/clock.ts';
import type { GameRecord } from '../domain/game.ts';

/** A move of a game's line as stored: its UCI and, while it is played in a clocked game, the mover's time after it. */
export interface MoveRow {
  uci: string;
  clock: number | null;
}

/** The stored small fields of a record: all but id, version, creation time and the line. */
export type GameData = Omit<GameRecord, 'id' | 'version' | 'createdAt' | 'moves' | 'redo' | 'moveClocks'> & {
  cursor: number; // how many moves of the line are played; the rest is the redo stack
};

export const dataOf = ({
  id: _id,
  version: _version,
  createdAt: _createdAt,
  moves,
  redo: _redo,
  moveClocks: _moveClocks,
  ...data
}: GameRecord): GameData => ({ ...data, cursor: moves.length });

/** The line of a record, as rows: the moves played (with their clocks), then the redo stack reversed. */
export function lineRowsOf(record: GameRecord): MoveRow[] {
  const played = record.moves.map((uci, i) => ({ uci, clock: record.moveClocks[i] ?? null }));
  const undone = [...record.redo].reverse().map(uci => ({ uci, clock: null }));
  return [...played, ...undone];
}

/** The rows a change writes: those from the first that differs (`keep` rows stay), and the line's new length. */
export interface LineDelta {
  keep: number;
  rows: MoveRow[]; // the rows at keep, keep + 1, ...
  length: number; // rows at or beyond it are deleted
}

/** The UCI of row `i` of a record's line (see lineRowsOf), read in place. */
export function uciAt(record: GameRecord, i: number): string {
  const played = record.moves.length;
  return i < played ? record.moves[i]! : record.redo[record.redo.length - 1 - (i - played)]!;
}

/** The clock of row `i` of a record's line: the mover's time after a played move of a clocked game, else null. */
export const clockAt = (record: GameRecord, i: number): number | null =>
  i < record.moves.length ? (record.moveClocks[i] ?? null) : null;

/** Row `i` of a record's line (see lineRowsOf), read in place. */
export const rowAt = (record: GameRecord, i: number): MoveRow => ({ uci: uciAt(record, i), clock: clockAt(record, i) });

const sameRow = (a: GameRecord, b: GameRecord, i: number): boolean =>
  uciAt(a, i) === uciAt(b, i) && clockAt(a, i) === clockAt(b, i);

/**
 * How many rows of `previous`'s line `next` keeps as they are (all of `next`'s are new without a previous record),
 * and `next`'s length. A change leaves the moves before the shorter of the two played lists as they were, so the
 * comparison starts there and only checks the rest; a line of any length costs the same.
 */
export function keptRows(previous: GameRecord | undefined, next: GameRecord): { keep: number; length: number } {
  const length = next.moves.length + next.redo.length;
  const before = previous ? previous.moves.length + previous.redo.length : 0;
  let keep = previous ? Math.min(previous.moves.length, next.moves.length, length, before) : 0;
  // The played prefix is shared by construction; it is checked from its end back, where a change would show.
  while (keep > 0 && !sameRow(previous!, next, keep - 1)) keep--;
  while (keep < length && keep < before && sameRow(previous!, next, keep)) keep++;
  return { keep, length };
}

/** What to write of `next`'s line where `previous`'s is stored (all of it without a previous record). */
export function lineDelta(previous: GameRecord | undefined, next: GameRecord): LineDelta {
  const { keep, length } = keptRows(previous, next);
  const rows: MoveRow[] = [];
  for (let i = keep; i < length; i++) rows.push(rowAt(next, i));
  return { keep, rows, length };
}

/**
 * The last rows of a line as a games row of the embedded store keeps them (sqlite/moves.ts): the line's rows
 * from `tailFrom` on, each as its UCI and clock, are in the row's data instead of game_moves (`tail`, absent when
 * none), so that a move writes the games row alone until the tail is full.
 */
export interface StoredTail {
  tailFrom?: number; // the rows of game_moves before it are the line's; absent: all of them (rows written before)
  tail?: ReadonlyArray<readonly [string, number | null]>;
}

/** Stored data as older versions of the service wrote it too (fields added since take their first value). */
export type StoredGameData = Omit<GameData, 'takebackOffer' | 'clock'> &
  Partial<Pick<GameData, 'takebackOffer'>> & { clock?: StoredClock | null } & StoredTail;

/** A clock as older versions stored it too: without `timedFrom`. */
export type StoredClock = Omit<Clock, 'timedFrom'> & Partial<Pick<Clock, 'timedFrom'>>;

/**
 * A stored clock, with `timedFrom` for one stored before the increments were tracked per move: which of its moves
 * earned one is not known then (an import's replayed moves earned none), so none of the moves already played
 * counts as having earned one, and a takeback of them takes none back, as it did when they were played; the moves
 * made from then on are tracked.
 */
const clockOf = (stored: StoredClock, played: number): Clock => ({ ...stored, timedFrom: stored.timedFrom ?? played });

/** The record of a stored games row and its moves rows (in ply order), with the row's tail if it keeps one. */
export function recordOf(
  id: string,
  version: number,
  createdAt: string,
  data: StoredGameData,
  stored: readonly MoveRow[],
): GameRecord {
  const { cursor, tailFrom, tail, ...fields } = data;
  const inTable = tailFrom === undefined || tailFrom >= stored.length ? stored : stored.slice(0, tailFrom);
  const rows = tail?.length ? [...inTable, ...tail.map(([uci, clock]) => ({ uci, clock }))] : inTable;
  const played = rows.slice(0, cursor);
  const clock = fields.clock ? clockOf(fields.clock, cursor) : null;
  return {
    id,
    version,
    createdAt,
    ...fields,
    takebackOffer: fields.takebackOffer ?? null,
    clock,
    moves: played.map(row => row.uci),
    redo: rows
      .slice(cursor)
      .map(row => row.uci)
      .reverse(),
    moveClocks: clock ? played.map(row => row.clock ?? 0) : [],
  };
}
