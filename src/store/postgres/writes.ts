/**
 * The shared store's writes, group-committed: the creates and the updates asked for during one turn of the event
 * loop go to PostgreSQL as one statement of each kind (one transaction, one round trip), whatever their number,
 * with one NOTIFY for the whole batch. Each write still commits only if its version check passes; a batch tells
 * each caller whether its own write was saved. Should a batch fail for another reason than the database being out
 * of reach, each of its writes is tried again alone, so that one bad write cannot take the others with it.
 *
 * Each statement also writes the games' moves rows that changed (rows.ts), a new game's entries in its players'
 * histories (../history.ts), logs the changes' events, and announces
 * every saved change: its game, version, clock deadline, whether it started or ended the game, its seats and, as
 * far as the payload's 8,000 bytes allow, its event, so that other instances need not read it back.
 *
 * ```ts
 * const writes = new PostgresWrites(pool);
 * await writes.update(next, previous.version, event, index, previous); // true: saved (previous: the stored record)
 * ```
 */
import { eventJsonOf } from '../../domain/views.ts';
import type pg from 'pg';
import type { GameRecord } from '../../domain/game.ts';
import type { GameIndex } from '../../domain/transitions.ts';
import { historyEntriesOf } from '../../domain/history.ts';
import { entryColumns } from '../history.ts';
import { CHANGES_CHANNEL } from '../notifications.ts';
import { run } from '../postgresTransaction.ts';
import { dataOf, lineDelta, type LineDelta } from '../rows.ts';
import type { StateEvent } from '../store.ts';

const noop = () => undefined;

/** Writes per statement: the announcement of a batch must stay under PostgreSQL's 8,000 bytes without events. */
const MAX_BATCH = 40;
/** The payload's budget: what a change's announcement takes without its event, and the limit. */
const ANNOUNCEMENT_BYTES = 180;
const PAYLOAD_BYTES = 7_900;

interface Write {
  kind: 'create' | 'update';
  record: GameRecord;
  expected: number; // update: the version it replaces
  event: StateEvent | undefined;
  index: GameIndex;
  line: LineDelta;
  resolve: (saved: boolean) => void;
  reject: (error: unknown) => void;
}

/** The announcement of a saved change, as the statements build it. */
const announcementSql = (transition: string) =>
  `json_build_object('g', b.id, 'v', b.version, 'd', b.deadline, 't', ${transition}, 'w', b.white_id, ` +
  `'b', b.black_id, 'e', CASE WHEN b.include THEN b.event::json END)`;

/** The moves rows of a batch, as four arrays from parameter `$first` on. */
const moves = (first: number) =>
  `unnest($${first}::text[], $${first + 1}::int[], $${first + 2}::text[], $${first + 3}::bigint[]) AS m (game_id, ply, uci, clock)`;

/**
 * The statements' common steps, after the games rows are written (`written`: the CTE of the ids saved): the changes'
 * events logged and the moves rows inserted, from the four arrays of parameter `$firstMove` on.
 */
const loggedAndMoves = (written: 'inserted' | 'updated', firstMove: number) => `logged AS (
  INSERT INTO game_changes (game_id, version, event)
  SELECT b.id, b.version, b.event FROM batch b JOIN ${written} USING (id) WHERE b.event IS NOT NULL
), moves AS (
  INSERT INTO game_moves (game_id, ply, uci, clock)
  SELECT m.game_id, m.ply, m.uci, m.clock FROM ${moves(firstMove)} WHERE m.game_id IN (SELECT id FROM ${written})`;

const CREATE_SQL = `
WITH batch AS (
  SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[],
                       $8::smallint[], $9::text[], $10::boolean[])
    AS b (id, version, created_at, data, deadline, white_id, black_id, ended, event, include)
), inserted AS (
  INSERT INTO games (id, version, created_at, data, deadline, white_id, black_id, ended, seq)
  SELECT id, version, created_at, data, deadline, white_id, black_id, ended, nextval('games_seq') FROM batch
  ON CONFLICT (id) DO NOTHING RETURNING id
), ${loggedAndMoves('inserted', 11)}
), entries AS (
  INSERT INTO player_games (player_id, created_at, game_id, color, opponent_id, perf, rated)
  SELECT e.* FROM unnest($15::text[], $16::text[], $17::text[], $18::text[], $19::text[], $20::text[], $21::smallint[])
    AS e (player_id, created_at, game_id, color, opponent_id, perf, rated)
  WHERE e.game_id IN (SELECT id FROM inserted)
  ON CONFLICT DO NOTHING
), announced AS (
  SELECT pg_notify('${CHANGES_CHANNEL}', json_agg(${announcementSql(`CASE WHEN b.ended = 1 THEN NULL ELSE 's' END`)})::text)
  FROM batch b JOIN inserted USING (id) HAVING count(*) > 0
)
SELECT id FROM inserted, (SELECT count(*) FROM announced) AS sent`;

/**
 * Updates: version-checked; `prior` reads `ended` as the statement's snapshot saw it before, to tell whether each
 * change started the game again or ended it.
 */
const UPDATE_SQL = `
WITH batch AS (
  SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::text[], $5::bigint[], $6::smallint[], $7::text[],
                       $8::int[], $9::boolean[])
    AS b (id, version, expected, data, deadline, ended, event, length, include)
), prior AS (
  SELECT g.id, g.ended FROM games g JOIN batch b ON g.id = b.id AND g.version = b.expected
), updated AS (
  UPDATE games g SET version = b.version, updated_at = now(), data = b.data, deadline = b.deadline, ended = b.ended,
                     seq = nextval('games_seq')
  FROM batch b WHERE g.id = b.id AND g.version = b.expected
  RETURNING g.id, g.white_id, g.black_id
), ${loggedAndMoves('updated', 10)}
  ON CONFLICT (game_id, ply) DO UPDATE SET uci = excluded.uci, clock = excluded.clock
), cut AS (
  DELETE FROM game_moves m USING batch b, updated u WHERE u.id = b.id AND m.game_id = b.id AND m.ply >= b.length
), announced AS (
  SELECT pg_notify('${CHANGES_CHANNEL}', json_agg(${announcementSql(
    `CASE WHEN p.ended = b.ended THEN NULL WHEN b.ended = 1 THEN 'f' ELSE 's' END`,
  )})::text)
  FROM (SELECT b.*, u.white_id, u.black_id FROM batch b JOIN updated u USING (id)) b JOIN prior p USING (id)
  HAVING count(*) > 0
)
SELECT id FROM updated, (SELECT count(*) FROM announced) AS sent`;

export class PostgresWrites {
  private pending: Write[] = [];

  constructor(private readonly pool: pg.Pool) {}

  create(record: GameRecord, index: GameIndex, event?: StateEvent): Promise<boolean> {
    return this.enqueue('create', record, 0, event, index, lineDelta(undefined, record));
  }

  /** The same creation at once and alone, on `client` (in its transaction): whether the game was inserted. */
  async createOn(client: pg.PoolClient, record: GameRecord, index: GameIndex, event?: StateEvent): Promise<boolean> {
    const line = lineDelta(undefined, record);
    const write: Write = { kind: 'create', record, expected: 0, event, index, line, resolve: noop, reject: noop };
    return (await this.statement([write], client)).has(record.id);
  }

  /** `stored`: the record of `expected`, if known, whose moves rows are those stored; only what differs is written. */
  update(
    record: GameRecord,
    expected: number,
    event: StateEvent | undefined,
    index: GameIndex,
    stored?: GameRecord,
  ): Promise<boolean> {
    return this.enqueue('update', record, expected, event, index, lineDelta(stored, record));
  }

  /** The same update at once and alone, on `client` (in its transaction): whether it was saved. */
  async updateOn(
    client: pg.PoolClient,
    ...[record, expected, event, index, stored]: Parameters<PostgresWrites['update']>
  ): Promise<boolean> {
    const line = lineDelta(stored, record);
    const write: Write = { kind: 'update', record, expected, event, index, line, resolve: noop, reject: noop };
    return (await this.statement([write], client)).has(record.id);
  }

  private enqueue(
    kind: Write['kind'],
    record: GameRecord,
    expected: number,
    event: StateEvent | undefined,
    index: GameIndex,
    line: LineDelta,
  ): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const write: Write = { kind, record, expected, event, index, line, resolve, reject };
      if (this.pending.push(write) === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const writes = this.pending;
    this.pending = [];
    for (const kind of ['create', 'update'] as const) {
      const ofKind = writes.filter(write => write.kind === kind);
      for (let i = 0; i < ofKind.length; i += MAX_BATCH) void this.commit(ofKind.slice(i, i + MAX_BATCH));
    }
  }

  /** One statement for `batch`; each write is told whether it was saved. */
  private async commit(batch: Write[]): Promise<void> {
    let saved: Set<string>;
    try {
      saved = await run(() => this.statement(batch));
    } catch (error) {
      if (batch.length === 1 || (error as { code?: unknown }).code === 'UNAVAILABLE') {
        for (const write of batch) write.reject(error);
      } else {
        await Promise.all(batch.map(write => this.commit([write])));
      }
      return;
    }
    for (const write of batch) write.resolve(saved.has(write.record.id));
  }

  private async statement(batch: Write[], on: pg.Pool | pg.PoolClient = this.pool): Promise<Set<string>> {
    const kind = batch[0]!.kind;
    const include = eventsThatFit(batch);
    const column = <T>(pick: (write: Write) => T): T[] => batch.map(pick);
    const moves = { id: [] as string[], ply: [] as number[], uci: [] as string[], clock: [] as Array<number | null> };
    for (const { record, line } of batch) {
      line.rows.forEach((row, i) => {
        moves.id.push(record.id);
        moves.ply.push(line.keep + i);
        moves.uci.push(row.uci);
        moves.clock.push(row.clock);
      });
    }
    const head =
      kind === 'create'
        ? [
            column(w => w.record.id),
            column(w => w.record.version),
            column(w => w.record.createdAt),
            column(w => JSON.stringify(dataOf(w.record))),
            column(w => w.index.deadline),
            column(w => w.record.white.id),
            column(w => w.record.black.id),
            column(w => +w.index.ended),
            column(w => (w.event ? eventJsonOf(w.event) : null)),
            include,
          ]
        : [
            column(w => w.record.id),
            column(w => w.record.version),
            column(w => w.expected),
            column(w => JSON.stringify(dataOf(w.record))),
            column(w => w.index.deadline),
            column(w => +w.index.ended),
            column(w => (w.event ? eventJsonOf(w.event) : null)),
            column(w => w.line.length),
            include,
          ];
    const result = await on.query<{ id: string }>({
      name: `chess-${kind}-games`,
      text: kind === 'create' ? CREATE_SQL : UPDATE_SQL,
      values: [...head, moves.id, moves.ply, moves.uci, moves.clock, ...(kind === 'create' ? entriesOf(batch) : [])],
    });
    return new Set(result.rows.map(row => row.id));
  }
}

/** Which writes' events the batch's announcement carries: in order, as long as the payload stays under its limit. */
function eventsThatFit(batch: readonly Write[]): boolean[] {
  let room = PAYLOAD_BYTES - ANNOUNCEMENT_BYTES * batch.length;
  return batch.map(({ event }) => {
    if (!event) return false;
    const bytes = Buffer.byteLength(eventJsonOf(event));
    if (bytes > room) return false;
    room -= bytes;
    return true;
  });
}

/** The entries of a batch's new games for their players' histories (../history.ts), as seven arrays. */
function entriesOf(batch: readonly Write[]): unknown[][] {
  const columns: unknown[][] = [[], [], [], [], [], [], []];
  for (const { record } of batch) {
    for (const entry of historyEntriesOf(record))
      entryColumns(entry, record).forEach((value, i) => columns[i]!.push(value));
  }
  return columns;
}
