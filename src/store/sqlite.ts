/**
 * The embedded store: one SQLite file in WAL mode with `synchronous = FULL`, so a committed change survives
 * a crash of the process or of the machine. Migrations in `sql/sqlite/NNNN_name.sql` are applied in order
 * at open, each in its own transaction, and recorded in `schema_migrations`.
 *
 * Writes are group-committed: the creates and updates asked for during two turns of the event loop run in one
 * transaction, so that one sync of the file makes the whole batch durable, and each promise resolves only
 * after that commit. The second turn is one more look at the sockets: its poll reads the requests that other
 * connections sent while the first turn's were being handled, and their writes join the batch (`enqueue`).
 * Should any write of a batch throw, the batch is rolled back and every write is run again in a transaction of
 * its own, so that one bad write cannot take the others with it.
 *
 * The change log is in memory (recentChanges.ts): no other instance reads it, and no stream outlives the
 * process. Written in the database, beside each change, it nearly doubled what a move cost the store: a second
 * table and an index to update, about twice the WAL pages per commit (48-54 against 28 µs of CPU per move in
 * batches of 6, `npm run bench:store`).
 *
 * WAL checkpoints (copying committed pages from the WAL into the database file, and syncing it) are mostly done
 * by a thread of its own with its own connection, so that commits rarely wait for one: a checkpoint of 1000
 * pages inside a commit held the event loop for 10-20 ms. The store asks that thread for a passive checkpoint
 * after every CHECKPOINT_EVERY_WRITES writes (a store with few writes is left alone). A passive checkpoint
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
 * const store = SqliteGameStore.open('./data/chess.sqlite'); // or ':memory:'
 * ```
 */
import { eventJsonOf } from '../domain/views.ts';
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { DomainError } from '../domain/errors.ts';
import type { GameRecord } from '../domain/game.ts';
import {
  loggedVersionError,
  NO_INDEX,
  type ClockedGame,
  type GameIndex,
  type ListedGame,
  type ListQuery,
  type GameStore,
  type StateEvent,
  type StoredChange,
} from './store.ts';
import { Checkpointer, type CheckpointDone } from './checkpoints.ts';
import { RecentChanges } from './recentChanges.ts';
import { tokenOf, type StoredToken, type TokenStore } from './tokens.ts';
import { asError, describeFailure, fileIdentity, openDatabase, unavailable, type FileIdentity } from './sqliteFile.ts';
import {
  prepareGameStatements,
  prepareTokenStatements,
  recordOfRow,
  reindexGames,
  storedDataOf,
  writeLine,
} from './sqliteStatements.ts';
import { byAge, challengeColumns, challengeOf, type ChallengeStore, type InsertedChallenge } from './challenges.ts';
import {
  params,
  prepareChallengeStatements,
  prepareChatStatements,
  preparePresenceStatements,
  prepareSeekStatements,
} from './sqliteChallenges.ts';
import { seenOf, type PresenceKey, type PresenceStore, type SeenAt } from './presence.ts';
import type { EngineTurn, EngineTurnStore } from './engineTurns.ts';
import { cappedEngineGameOf } from '../domain/engineGames.ts';
import { countEngineGamesSqlite, engineGamesLimited } from './engineGames.ts';
import { chatColumns, chatLineOf, type AppendedChat, type ChatStore } from './chat.ts';
import { chatRetryAt, type ChatLimit, type ChatLine, type NewChatLine } from '../domain/chat.ts';
import type { ChatRoom } from '../contract/vocabulary.ts';
import type { InsertedSeek, SeekStore } from './seeks.ts';
import { SqliteSeeks } from './sqliteSeeks.ts';
import type { Seek } from '../domain/seek.ts';
import type { Challenge } from '../domain/challenge.ts';
import type { PlayerInfo } from '../contract/shapes.ts';

export { describeFailure } from './sqliteFile.ts';

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
  logged?: { gameId: string; version: number; json: string }; // logged once the write commits and saved
}

export class SqliteGameStore
  implements GameStore, TokenStore, ChallengeStore, SeekStore, ChatStore, PresenceStore, EngineTurnStore
{
  private db!: Database.Database;
  private games!: ReturnType<typeof prepareGameStatements>;
  private tokenStmts!: ReturnType<typeof prepareTokenStatements>;
  private challengeStmts!: ReturnType<typeof prepareChallengeStatements>;
  private seekStmts!: ReturnType<typeof prepareSeekStatements>;
  private presenceStmts!: ReturnType<typeof preparePresenceStatements>;
  private chatStmts!: ReturnType<typeof prepareChatStatements>;
  /** The highest seq given so far: the next write in the current transaction gives its game the one after it. */
  private seq = 0;
  private batchTx!: Database.Transaction<(writes: Pending[]) => boolean[]>;
  private singleTx!: Database.Transaction<(write: () => boolean) => boolean>;
  private checkpoints: Checkpointer | undefined;
  private identity: FileIdentity | undefined; // of the file opened; undefined in memory
  private readonly log = new RecentChanges();
  private pending: Pending[] = [];
  private writesSinceCheckpoint = 0;
  private closing: Promise<void> | undefined;
  /** Why the last write failed, until a write succeeds again: what `ping` and the next failures report. */
  private failure: string | undefined;
  /** The file being written again after it was removed; writes wait for it. */
  private rebuilding: Promise<void> | undefined;
  private rebuildFailedAt = 0; // when writing the file again last failed (ms since the epoch)
  /** The seeks: this store, one per process, holds the real-time ones it inserts. */
  private readonly seeks = new SqliteSeeks({
    statements: () => this.seekStmts,
    enqueue: write => this.enqueue(write),
    read: query => this.read(query),
    instanceId: randomBytes(8).toString('hex'),
  });

  private constructor(
    private readonly path: string,
    private readonly checkpointEvery: number,
    private readonly onCheckpoint: SqliteOptions['onCheckpoint'],
  ) {
    this.attach(openDatabase(path));
    this.probeAtOpen();
    if (this.failure === undefined) {
      reindexGames(this.db, this.games);
      this.seeks.withdrawStale();
    }
  }

  static open(path: string, options: SqliteOptions = {}): SqliteGameStore {
    return new SqliteGameStore(path, options.checkpointEveryWrites ?? CHECKPOINT_EVERY_WRITES, options.onCheckpoint);
  }

  /** Uses `db` from now on: its statements, its checkpoint thread, its file's identity. */
  private attach(db: Database.Database): void {
    this.db = db;
    this.games = prepareGameStatements(db);
    this.tokenStmts = prepareTokenStatements(db);
    this.challengeStmts = prepareChallengeStatements(db);
    this.seekStmts = prepareSeekStatements(db);
    this.presenceStmts = preparePresenceStatements(db);
    this.chatStmts = prepareChatStatements(db);
    // Each transaction numbers its writes from the highest seq committed, by this connection or another. Only
    // another connection's commit can make it higher than the one this connection last gave (a rolled-back
    // transaction leaves a gap, which the order does not mind), and SQLite's data_version tells whether another
    // connection has committed since it was last read: the highest seq is read again only then, not per batch.
    const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    let known: number | undefined; // data_version when the seq was last read
    const numberFromHighest = () => {
      const version = dataVersion.get()!;
      if (version === known) return;
      this.seq = Math.max(this.seq, this.games.maxSeq.get()?.seq ?? 0);
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
      this.games.probe.run(new Date().toISOString());
    } catch (error) {
      this.failure = describeFailure(error);
      if (this.failure === undefined) throw error;
    }
  }

  create(record: GameRecord, { deadline, ended }: GameIndex = NO_INDEX): Promise<boolean> {
    const data = storedDataOf(record);
    const { id, version, createdAt, white, black } = record;
    // A real-time game against the computer: counted in the write transaction that inserts it (engineGames.ts).
    const cap = cappedEngineGameOf(record);
    let limited = false;
    const created = this.enqueue(() => {
      if (cap && countEngineGamesSqlite(this.db, cap.player) >= cap.max) {
        limited = true;
        return false;
      }
      const now = new Date().toISOString();
      const inserted = this.games.insert.run(
        id,
        version,
        createdAt,
        now,
        data,
        deadline,
        white.id,
        black.id,
        +ended,
        ++this.seq,
      );
      if (inserted.changes !== 1) return false;
      writeLine(this.games, record);
      return true;
    });
    return cap ? created.then(saved => (limited ? Promise.reject(engineGamesLimited(cap.max)) : saved)) : created;
  }

  get(id: string): Promise<GameRecord | undefined> {
    return this.read(() => {
      const row = this.games.select.get(id);
      return row && recordOfRow(this.games, row);
    });
  }

  update(
    record: GameRecord,
    expectedVersion: number,
    event?: StateEvent,
    index = NO_INDEX,
    previous?: GameRecord,
  ): Promise<boolean> {
    const refused = loggedVersionError(record, expectedVersion, event);
    if (refused) return Promise.reject(refused);
    const data = storedDataOf(record);
    const logged = event && { gameId: record.id, version: record.version, json: eventJsonOf(event) };
    const { deadline, ended } = index;
    const now = new Date().toISOString();
    // The version check makes `previous` (of expectedVersion) the stored line, so only what differs is written.
    const from = previous?.version === expectedVersion ? previous : undefined;
    const write = () => {
      const { changes } = this.games.update.run(
        record.version,
        now,
        data,
        deadline,
        +ended,
        ++this.seq,
        record.id,
        expectedVersion,
      );
      if (changes !== 1) return false;
      writeLine(this.games, record, from);
      return true;
    };
    return this.enqueue(write, logged);
  }

  private enqueue(write: () => boolean, logged?: Pending['logged']): Promise<boolean> {
    if (!this.db.open) return Promise.reject(new TypeError('The database connection is not open'));
    return new Promise((resolve, reject) => {
      const pending: Pending = logged ? { write, resolve, reject, logged } : { write, resolve, reject };
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

  /** A committed write: its change is logged (in commit order) before its caller hears of it. */
  private settle(pending: Pending, saved: boolean): void {
    if (saved && pending.logged) this.log.append(pending.logged.gameId, pending.logged.version, pending.logged.json);
    pending.resolve(saved);
  }

  changesSince(id: string, afterVersion: number): Promise<StoredChange[]> {
    return Promise.resolve(this.log.since(id, afterVersion));
  }

  clockedGames(): Promise<ClockedGame[]> {
    return this.read(() => this.games.clocked.all());
  }

  listGames(query: ListQuery): Promise<ListedGame[]> {
    const params = { player: query.player, before: query.before ?? Number.MAX_SAFE_INTEGER, limit: query.limit };
    return this.read(() =>
      this.games
        .list(query)
        .all(params)
        .map(row => ({ record: recordOfRow(this.games, row), seq: row.seq })),
    );
  }

  ongoingGames(player: string, after: string | undefined, limit: number): Promise<GameRecord[]> {
    return this.read(() =>
      this.games
        .ongoing(player)
        .all({ player, after: after ?? '', limit })
        .map(row => recordOfRow(this.games, row)),
    );
  }

  insertToken(token: StoredToken): Promise<void> {
    const { id, hash, player, createdAt } = token;
    return this.enqueue(
      () => this.tokenStmts.insert.run(id, hash, player.id, player.displayName, createdAt).changes === 1,
    ).then(() => undefined);
  }

  tokenByHash(hash: string): Promise<StoredToken | undefined> {
    return this.read(() => {
      const row = this.tokenStmts.byHash.get(hash);
      return row && tokenOf(row);
    });
  }

  listTokens(playerId?: string): Promise<StoredToken[]> {
    return this.read(() =>
      (playerId === undefined ? this.tokenStmts.all.all() : this.tokenStmts.ofPlayer.all(playerId)).map(tokenOf),
    );
  }

  revokeToken(id: string): Promise<string | undefined> {
    let hash: string | undefined;
    return this.enqueue(() => {
      hash = this.tokenStmts.revoke.get(new Date().toISOString(), id)?.hash;
      return hash !== undefined;
    }).then(() => hash);
  }

  validTokenHashes(hashes: readonly string[]): Promise<string[]> {
    return this.read(() => this.tokenStmts.valid.all(JSON.stringify(hashes)).map(row => row.hash));
  }

  tokensIssued(): Promise<boolean> {
    return this.read(() => this.tokenStmts.any.get() !== undefined);
  }

  knownPlayer(playerId: string): Promise<PlayerInfo | undefined> {
    return this.read(() => {
      const row = this.challengeStmts.knownPlayer.get(params([playerId]));
      return row && { id: row.player_id, displayName: row.display_name };
    });
  }

  makeBot(playerId: string, since: string): Promise<boolean> {
    return this.enqueue(() => this.tokenStmts.makeBot.run(playerId, since).changes === 1);
  }

  botsAmong(playerIds: readonly string[]): Promise<string[]> {
    return this.read(() => this.tokenStmts.botsAmong.all(JSON.stringify(playerIds)).map(row => row.player_id));
  }

  insertChallenge(challenge: Challenge, maxPending = Infinity): Promise<InsertedChallenge> {
    const values = params(challengeColumns(challenge));
    const pending = params([challenge.challenger.id, challenge.createdAt]);
    let result: InsertedChallenge = 'taken';
    // Counted and inserted in one write transaction: no other write comes between.
    return this.enqueue(() => {
      if (this.challengeStmts.count.get(pending)!.n >= maxPending) result = 'limit';
      else if (this.challengeStmts.insert.run(values).changes === 1) result = 'inserted';
      return result === 'inserted';
    }).then(() => result);
  }

  challenge(id: string): Promise<Challenge | undefined> {
    return this.read(() => {
      const row = this.challengeStmts.select.get(params([id]));
      return row && challengeOf(row);
    });
  }

  claimChallenge(next: Challenge, expectedVersion: number): Promise<boolean> {
    const values = params([next.id, next.version, next.status, JSON.stringify(next), expectedVersion]);
    return this.enqueue(() => this.challengeStmts.claim.run(values).changes === 1);
  }

  pendingChallenges(playerId: string, now: number): Promise<Challenge[]> {
    return this.read(() =>
      this.challengeStmts.pending
        .all(params([playerId, now]))
        .map(challengeOf)
        .sort(byAge),
    );
  }

  pendingCount(challengerId: string, now: number): Promise<number> {
    return this.read(() => this.challengeStmts.count.get(params([challengerId, now]))!.n);
  }

  expiringChallenges(limit: number): Promise<Challenge[]> {
    return this.read(() => this.challengeStmts.expiring.all(params([limit])).map(challengeOf));
  }

  challengesWithoutGame(since: number): Promise<Challenge[]> {
    return this.read(() => this.challengeStmts.withoutGame.all(params([since])).map(challengeOf));
  }

  insertSeek(seek: Seek, maxCorrespondence?: number): Promise<InsertedSeek> {
    return this.seeks.insertSeek(seek, maxCorrespondence);
  }

  seek(id: string): Promise<Seek | undefined> {
    return this.seeks.seek(id);
  }

  openSeeks(pool: string, now: number, limit: number): Promise<Seek[]> {
    return this.seeks.openSeeks(pool, now, limit);
  }

  pairSeeks(a: Seek, b: Seek): Promise<boolean> {
    return this.seeks.pairSeeks(a, b);
  }

  withdrawSeek(id: string): Promise<boolean> {
    return this.seeks.withdrawSeek(id);
  }

  keepSeeksAlive(ids: readonly string[], aliveUntil: number): Promise<void> {
    return this.seeks.keepSeeksAlive(ids, aliveUntil);
  }

  seeksWithoutGame(since: number): Promise<Seek[]> {
    return this.seeks.seeksWithoutGame(since);
  }

  markPresent(keys: readonly PresenceKey[], instanceId: string, until: number): Promise<void> {
    const rows = keys.map(({ gameId, playerId }) => params([gameId, playerId, instanceId, until]));
    return this.enqueue(() => {
      for (const row of rows) this.presenceStmts.present.run(row);
      return true;
    }).then(() => undefined);
  }

  markLeft({ gameId, playerId }: PresenceKey, instanceId: string, at: number): Promise<void> {
    const row = params([gameId, playerId, instanceId, at]);
    return this.enqueue(() => this.presenceStmts.left.run(row).changes === 1).then(() => undefined);
  }

  lastSeen(gameIds: readonly string[]): Promise<SeenAt[]> {
    return this.read(() => this.presenceStmts.lastSeen.all(JSON.stringify(gameIds)).map(seenOf));
  }

  prunePresence(before: number): Promise<void> {
    return this.enqueue(() => this.presenceStmts.prune.run(params([before])).changes > 0).then(() => undefined);
  }

  claimEngineTurn({ gameId, version, instanceId, until }: EngineTurn, now: number): Promise<boolean> {
    const row = params([gameId, version, instanceId, until, now]);
    return this.enqueue(() => this.presenceStmts.engineTurn.run(row).changes === 1);
  }

  appendChat(line: NewChatLine, limit: ChatLimit): Promise<AppendedChat> {
    const recent = params([line.player.id, line.at - limit.windowMs, limit.lines]);
    const values = params(chatColumns(line));
    const trim = params([line.gameId, line.room, limit.kept]);
    let result: AppendedChat | undefined;
    // Counted and added in one write transaction: no other write comes between.
    return this.enqueue(() => {
      const times = this.chatStmts.recent.all(recent).map(row => row.created_at);
      const retryAt = chatRetryAt(times, line.at, limit);
      if (retryAt !== undefined) {
        result = { retryAt };
        return false;
      }
      result = { line: chatLineOf(this.chatStmts.insert.get(values)!) };
      this.chatStmts.trim.run(trim);
      return true;
    }).then(() => result!);
  }

  chatLines(gameId: string, room: ChatRoom): Promise<ChatLine[]> {
    return this.read(() => this.chatStmts.lines.all(params([gameId, room])).map(chatLineOf));
  }

  secret(): Promise<string> {
    return this.read(
      () => (this.db.prepare('SELECT secret FROM service_secret WHERE id = 1').get() as { secret: string }).secret,
    );
  }

  /** A read of the file: UNAVAILABLE saying why when the file is at fault. */
  private read<T>(query: () => T): Promise<T> {
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
        this.games.probe.run(new Date().toISOString());
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
