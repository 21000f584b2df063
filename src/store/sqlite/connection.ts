/**
 * The embedded store's connection to its file (sqlite.ts): one SQLite file in WAL mode with `synchronous = FULL`, so
 * a committed change survives a crash of the process or of the machine, with the statements of every part prepared on
 * it, its group commit, its checkpoint thread, and what a failure of the file means. The parts (games.ts, tokens.ts,
 * ...) write through `enqueue` and read through `read`.
 *
 * Writes are group-committed: the writes asked for during two turns of the event loop run in one transaction, so
 * that one sync of the file makes the whole batch durable, and each promise resolves only after that commit. The
 * second turn is one more look at the sockets: its poll reads the requests that other connections sent while the
 * first turn's were being handled, and their writes join the batch (`enqueue`). Should any write of a batch throw,
 * the batch is rolled back and every write is run again in a transaction of its own, so that one bad write cannot
 * take the others with it.
 *
 * WAL checkpoints (copying committed pages from the WAL into the database file, and syncing it) are mostly done
 * by a thread of its own with its own connection (checkpoints.ts), so that commits rarely wait for one: a checkpoint
 * of 1000 pages inside a commit held the event loop for 10-20 ms. The connection asks that thread for a passive
 * checkpoint after every CHECKPOINT_EVERY_WRITES writes (a store with few writes is left alone). A passive checkpoint
 * running beside the commits can never leave the WAL fully copied when the next write starts, which is when
 * SQLite rewinds the WAL, so the store's own connection still checkpoints at CONNECTION_CHECKPOINT_PAGES: by
 * then the thread has copied all but the writes since its last checkpoint, that checkpoint is short, and the WAL
 * is rewound, which keeps it under about 32 MiB. Should the thread stop, the connection goes back to SQLite's
 * default.
 *
 * A write the file cannot take (a full disk, a read-only or damaged file) rejects with UNAVAILABLE saying why,
 * never acknowledged, and the store stays unready (`ping` rejects) until a write succeeds again: `ping` then
 * tries a one-row write of its own, so readiness comes back by itself once the cause is gone. A database file
 * removed while the store runs (its inode is checked before each batch) is written again from the open
 * connection, which still holds every committed change, before the batch commits: nothing acknowledged is lost
 * and writes go on in the new file.
 *
 * ```ts
 * const connection = new SqliteConnection('./data/chess.sqlite', db => prepareMyStatements(db), {});
 * await connection.enqueue(() => connection.statements.insert.run(row).changes === 1); // true once committed
 * await connection.read(() => connection.statement<ChallengeRow>(CHALLENGE_SQL.select).get(params([id])));
 * ```
 */
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { DomainError } from '../../domain/errors.ts';
import { Checkpointer, type CheckpointDone } from './checkpoints.ts';
import { asError, describeFailure, fileIdentity, openDatabase, unavailable, type FileIdentity } from './file.ts';
import { named, type Params } from './params.ts';

/**
 * Writes between two checkpoints of the thread (hundreds to thousands of WAL pages). Fewer cost more: each
 * checkpoint syncs both files and copies again the pages that every write changes (the tables' upper B-tree pages,
 * and the listing's `games_ended` index, whose entries every change moves: its few pages are copied at every
 * checkpoint). With batches of 6, a create cost 58-63 µs of CPU in the store at 25 and 42-45 µs at 250, a move 88-90
 * and 70-75 µs (`npm run bench:store`, when each move also wrote the change log into the file). From 250 to 1000,
 * the checkpoints' page copies (a read of the WAL and a write of the file each) fell from 0.91 to 0.53 reads a
 * write, and POST move took 4 to 8 % less CPU in the A/B mode (docs/benchmarks.md, "Fewer checkpoints"). It stays
 * well under CONNECTION_CHECKPOINT_PAGES, so that the thread checkpoints more than once before the connection does.
 */
export const CHECKPOINT_EVERY_WRITES = 1000;
/**
 * WAL pages at which a commit checkpoints and then rewinds the WAL (SQLite's default, without the thread, 1000).
 * That checkpoint holds the event loop while it copies what the thread has not (up to CHECKPOINT_EVERY_WRITES
 * writes), so it should come rarely enough to stay out of the p99 of writes: at 4000 pages it came every
 * 1000-odd moves and put POST move's p99 at 14-15 ms; at 8000, 9-10 ms (same hour, `npm run bench`).
 */
const CONNECTION_CHECKPOINT_PAGES = 8000;
/** After a removed file could not be written again, writes are refused at once for this long before a new try. */
const REBUILD_RETRY_MS = 1000;

export interface SqliteOptions {
  /** Writes between two checkpoints of the thread; CHECKPOINT_EVERY_WRITES. */
  checkpointEveryWrites?: number;
  /** Each checkpoint of the thread, once done (for tests and tools). */
  onCheckpoint?: (done: CheckpointDone) => void;
}

/** One write waiting for the next group commit. */
interface Pending {
  write: () => boolean;
  resolve: (saved: boolean) => void;
  reject: (error: unknown) => void;
  saved?: () => void; // run once the write commits and saved, before its caller hears of it
}

/** The connection's own statements: the seq of the listing, and the one-row write of the readiness check. */
function prepareOwnStatements(db: Database.Database) {
  return {
    // The highest seq, from the index of each value of `ended` (NULL: a game stored before the column existed).
    maxSeq: db.prepare<[], { seq: number | null }>(
      `SELECT max(s) AS seq FROM (SELECT max(seq) AS s FROM games WHERE ended = 0 UNION ALL
       SELECT max(seq) FROM games WHERE ended = 1 UNION ALL SELECT max(seq) FROM games WHERE ended IS NULL)`,
    ),
    probe: db.prepare<[string]>(
      'INSERT INTO write_probe (id, written_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET written_at = excluded.written_at',
    ),
  };
}

/** A connection to the file at `path` (or `:memory:`), with the statements `prepare` makes on it (`S`). */
export class SqliteConnection<S> {
  db!: Database.Database;
  /** The statements of the parts, prepared on the current connection (again after the file was written again). */
  statements!: S;
  private own!: ReturnType<typeof prepareOwnStatements>;
  /** The statements of `statement`, by their SQL as given. */
  private byText = new Map<string, Database.Statement>();
  /** The highest seq given so far: the next write in the current transaction gives its game the one after it. */
  private seq = 0;
  private batchTx!: Database.Transaction<(writes: Pending[]) => boolean[]>;
  private singleTx!: Database.Transaction<(write: () => boolean) => boolean>;
  private checkpoints: Checkpointer | undefined;
  private identity: FileIdentity | undefined; // of the file opened; undefined in memory
  private pending: Pending[] = [];
  private writesSinceCheckpoint = 0;
  private closing: Promise<void> | undefined;
  /** Why the last write failed, until a write succeeds again: what `ping` and the next failures report. */
  private failure: string | undefined;
  /** The file being written again after it was removed; writes wait for it. */
  private rebuilding: Promise<void> | undefined;
  private rebuildFailedAt = 0; // when writing the file again last failed (ms since the epoch)
  private readonly checkpointEvery: number;
  private readonly onCheckpoint: SqliteOptions['onCheckpoint'];

  constructor(
    readonly path: string,
    private readonly prepare: (db: Database.Database) => S,
    options: SqliteOptions,
  ) {
    this.checkpointEvery = options.checkpointEveryWrites ?? CHECKPOINT_EVERY_WRITES;
    this.onCheckpoint = options.onCheckpoint;
    this.attach(openDatabase(path));
    this.probeAtOpen();
  }

  /** Whether the file took writes when last tried (at open, or the last write). */
  get writable(): boolean {
    return this.failure === undefined;
  }

  /** The seq of the next write of a game in the current write transaction: higher than any given before. */
  nextSeq(): number {
    return ++this.seq;
  }

  /**
   * The statement of `sql` (SQL shared with PostgreSQL, with `$n` placeholders, or SQLite's own with `@pn`), prepared
   * on the current connection at its first use. `Row`: the rows it returns; `Args`: its parameters' values, named by
   * default (params.ts).
   */
  statement<Row = unknown, Args extends unknown[] = [Params]>(sql: string): Database.Statement<Args, Row> {
    let statement = this.byText.get(sql);
    if (!statement) this.byText.set(sql, (statement = this.db.prepare(named(sql))));
    return statement as Database.Statement<Args, Row>;
  }

  /** Uses `db` from now on: its statements, its checkpoint thread, its file's identity. */
  private attach(db: Database.Database): void {
    this.db = db;
    this.own = prepareOwnStatements(db);
    this.statements = this.prepare(db);
    this.byText = new Map();
    // Each transaction numbers its writes from the highest seq committed, by this connection or another. Only
    // another connection's commit can make it higher than the one this connection last gave (a rolled-back
    // transaction leaves a gap, which the order does not mind), and SQLite's data_version tells whether another
    // connection has committed since it was last read: the highest seq is read again only then, not per batch.
    const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    let known: number | undefined; // data_version when the seq was last read
    const numberFromHighest = () => {
      const version = dataVersion.get()!;
      if (version === known) return;
      this.seq = Math.max(this.seq, this.own.maxSeq.get()?.seq ?? 0);
      known = version;
    };
    this.seq = 0;
    this.batchTx = db.transaction((writes: Pending[]) => {
      numberFromHighest();
      return writes.map(pending => pending.write());
    });
    this.singleTx = db.transaction((write: () => boolean) => {
      numberFromHighest();
      return write();
    });
    if (this.path === ':memory:') return;
    this.identity = fileIdentity(this.path);
    try {
      this.checkpoints = new Checkpointer(
        this.path,
        () => {
          // The thread stopped without being asked to: the connection checkpoints as often as SQLite does alone.
          if (db.open) db.pragma('wal_autocheckpoint = 1000');
        },
        this.onCheckpoint,
      );
      db.pragma(`wal_autocheckpoint = ${CONNECTION_CHECKPOINT_PAGES}`);
    } catch {
      // No thread (none could be started): SQLite's own checkpoints, as without it.
      this.checkpoints = undefined;
    }
  }

  /** A store opened on a full disk or a read-only file serves reads but is not ready, from its first moment. */
  private probeAtOpen(): void {
    if (this.path === ':memory:') return;
    try {
      this.own.probe.run(new Date().toISOString());
    } catch (error) {
      this.failure = describeFailure(error);
      if (this.failure === undefined) throw error;
    }
  }

  /**
   * Runs `write` in the next group commit; resolves once it is committed with what it returned (true: it saved
   * something), after `saved` has run if it saved.
   */
  enqueue(write: () => boolean, saved?: () => void): Promise<boolean> {
    if (!this.db.open) return Promise.reject(new TypeError('The database connection is not open'));
    return new Promise((resolve, reject) => {
      const pending: Pending = saved ? { write, resolve, reject, saved } : { write, resolve, reject };
      if (this.pending.push(pending) === 1) setImmediate(this.lookAgain);
    });
  }

  /**
   * A batch's first write was asked for: the batch commits a turn of the event loop later, once that turn's poll
   * has read what arrived meanwhile (without waiting: an immediate is due). A lone write waits for a poll that finds
   * nothing; under load, a batch holds the writes of the requests that came in while the one before committed.
   * With 10 connections sending moves, that took the moves per sync from about 5 to about 9 and the CPU of a move
   * down by a sixth: a commit's sync of the file costs the kernel more CPU than a move's own work (docs/benchmarks.md).
   */
  private readonly lookAgain = (): void => {
    setImmediate(this.flushNow);
  };

  private readonly flushNow = (): void => this.flush();

  /** Commits every waiting write, in the order they were asked for, then settles their promises. */
  private flush(): void {
    if (this.rebuilding || this.pending.length === 0) return;
    if (this.fileRemoved()) {
      if (this.failure !== undefined && Date.now() - this.rebuildFailedAt < REBUILD_RETRY_MS) {
        // The file could not be written again a moment ago: these writes answer at once, not after another try.
        const why = this.failure;
        for (const pending of this.pending.splice(0)) pending.reject(new DomainError('UNAVAILABLE', why));
        return;
      }
      this.rebuilding = this.rebuild().finally(() => {
        this.rebuilding = undefined;
        this.flush();
      });
      return;
    }
    const batch = this.pending;
    this.pending = [];
    let results: boolean[] | undefined;
    try {
      results = this.batchTx.immediate(batch);
    } catch {
      // the batch was rolled back: each write is tried again below, alone
    }
    if (results) {
      this.failure = undefined;
      batch.forEach((pending, i) => this.settle(pending, results[i]!));
    } else {
      for (const pending of batch) {
        let saved: boolean;
        try {
          saved = this.singleTx.immediate(pending.write);
        } catch (error) {
          pending.reject(this.failed(error));
          continue;
        }
        this.failure = undefined;
        this.settle(pending, saved);
      }
    }
    this.writesSinceCheckpoint += batch.length;
    if (this.checkpoints && this.writesSinceCheckpoint >= this.checkpointEvery) {
      this.writesSinceCheckpoint = 0;
      this.checkpoints.request();
    }
  }

  /** A committed write: what follows its saving (its change logged, in commit order) runs before its caller hears. */
  private settle(pending: Pending, saved: boolean): void {
    if (saved && pending.saved) pending.saved();
    pending.resolve(saved);
  }

  /** A read of the file: UNAVAILABLE saying why when the file is at fault. */
  read<T>(query: () => T): Promise<T> {
    try {
      return Promise.resolve(query());
    } catch (error) {
      return Promise.reject(unavailable(error));
    }
  }

  /**
   * Resolves when the store can serve: reads answer and, after a failed write, a write succeeds again (a one-row
   * write of its own). A removed file is written again first.
   */
  async ping(): Promise<void> {
    if (this.rebuilding) await this.rebuilding;
    else if (this.fileRemoved()) {
      this.rebuilding = this.rebuild().finally(() => (this.rebuilding = undefined));
      await this.rebuilding;
    }
    // Not written again (no room, no permission): writes would go to a file no one can open again.
    if (this.fileRemoved())
      throw new DomainError('UNAVAILABLE', this.failure ?? `the database file ${this.path} was removed`);
    try {
      this.db.prepare('SELECT 1').get();
      if (this.failure !== undefined) {
        this.own.probe.run(new Date().toISOString());
        this.failure = undefined;
      }
    } catch (error) {
      throw this.failed(error);
    }
  }

  /** The error a failed write answers with: UNAVAILABLE saying why when the file is at fault, else the error. */
  private failed(error: unknown): Error {
    const why = describeFailure(error);
    if (why === undefined) return asError(error);
    this.failure = why;
    return new DomainError('UNAVAILABLE', why);
  }

  /** Whether the path no longer names the file this store has open (removed, or replaced by another). */
  private fileRemoved(): boolean {
    if (this.identity === undefined || !this.db.open) return false;
    const now = fileIdentity(this.path);
    return now === undefined || now.dev !== this.identity.dev || now.ino !== this.identity.ino;
  }

  /**
   * Writes the database again at its path from the open connection, which still holds every committed change
   * (the removed file lives on while it is open), then goes on in the new file. Should that fail (no room, no
   * permission), the waiting writes answer UNAVAILABLE and the next write or readiness check tries again.
   */
  private async rebuild(): Promise<void> {
    const copy = `${this.path}.rebuild-${process.pid}`;
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      rmSync(copy, { force: true });
      this.db.prepare('VACUUM INTO ?').run(copy);
    } catch (error) {
      try {
        rmSync(copy, { force: true });
      } catch {
        // its folder is not there to hold it either
      }
      const why = `the database file ${this.path} was removed and could not be written again (${describeFailure(error) ?? String(error)})`;
      this.failure = why;
      this.rebuildFailedAt = Date.now();
      for (const pending of this.pending.splice(0)) pending.reject(new DomainError('UNAVAILABLE', why));
      return;
    }
    // The old file's connections close first, so that its WAL, named after the path, goes with them.
    await this.checkpoints?.close();
    this.db.close();
    for (const suffix of ['-wal', '-shm']) rmSync(`${this.path}${suffix}`, { force: true });
    renameSync(copy, this.path);
    this.attach(openDatabase(this.path));
    this.failure = undefined;
  }

  /** Commits the writes asked for before it (they are not dropped), then closes; a second call waits as well. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    if (this.rebuilding) await this.rebuilding;
    this.flush();
    if (this.rebuilding) await this.rebuilding;
    this.db.close();
    await this.checkpoints?.close();
  }
}
