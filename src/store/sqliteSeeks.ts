/**
 * The embedded store's seeks (seeks.ts): each change is one write of the store's group commit, judged and written in
 * one write transaction, so that no other write comes between a count and an insert or a check and a pairing.
 *
 * One process serves a SQLite file: the real-time seeks held by the process before it (killed or restarted, its
 * requests gone with it) are withdrawn when the store opens, so that they are never paired, even before their
 * lease lapses. Should that write fail then (a full disk), it is made in the transaction of the next seek's write.
 *
 * ```ts
 * const seeks = new SqliteSeeks({ statements: () => seekStmts, enqueue, read, instanceId });
 * seeks.withdrawStale(); // at open
 * ```
 */
import type { Seek } from '../domain/seek.ts';
import { params, type prepareSeekStatements } from './sqliteChallenges.ts';
import { pairColumns, seekColumns, seekOf, type InsertedSeek, type SeekStore } from './seeks.ts';

export interface SqliteSeeksDeps {
  /** The statements of the store's current connection. */
  statements: () => ReturnType<typeof prepareSeekStatements>;
  /** Runs a write in the store's next group commit; resolves once it is committed (true: it saved something). */
  enqueue: (write: () => boolean) => Promise<boolean>;
  /** Runs a read; rejects with UNAVAILABLE when the file is at fault. */
  read: <T>(query: () => T) => Promise<T>;
  /** The store's id: the holder of the real-time seeks it inserts. */
  instanceId: string;
}

export class SqliteSeeks implements SeekStore {
  /** Whether real-time seeks of an earlier process may still be open (until a withdrawal of them commits). */
  private stale = true;

  constructor(private readonly deps: SqliteSeeksDeps) {}

  private get stmts() {
    return this.deps.statements();
  }

  /** Withdraws the real-time seeks of the process before this one, at once; false when the file cannot be written. */
  withdrawStale(): boolean {
    try {
      this.stmts.withdrawHeldElsewhere.run(params([this.deps.instanceId]));
    } catch {
      return false; // made in the next seek's write
    }
    this.stale = false;
    return true;
  }

  /** A write of seeks, after the withdrawal of the earlier process's seeks while that is still to be made. */
  private write(change: () => boolean): Promise<boolean> {
    const stale = this.stale;
    return this.deps
      .enqueue(() => {
        if (stale) this.stmts.withdrawHeldElsewhere.run(params([this.deps.instanceId]));
        return change();
      })
      .then(saved => {
        if (stale) this.stale = false;
        return saved;
      });
  }

  insertSeek(seek: Seek, maxCorrespondence = Infinity): Promise<InsertedSeek> {
    const values = params(seekColumns(seek, this.deps.instanceId));
    const realTime = values.p8 !== null;
    let inserted: InsertedSeek = { result: 'taken', withdrawn: [] };
    return this.write(() => {
      inserted = { result: 'taken', withdrawn: [] }; // a write tried again after its batch failed starts afresh
      if (!realTime && this.stmts.countCorrespondence.get(params([seek.player.id]))!.n >= maxCorrespondence) {
        inserted = { result: 'limit', withdrawn: [] };
        return false;
      }
      if (this.stmts.insert.run(values).changes !== 1) return false;
      const withdrawn = realTime ? this.stmts.withdrawOlder.all(params([seek.player.id, seek.id])) : [];
      inserted = { result: 'inserted', withdrawn: withdrawn.map(row => row.id) };
      return true;
    }).then(() => inserted);
  }

  seek(id: string): Promise<Seek | undefined> {
    return this.deps.read(() => {
      const row = this.stmts.select.get(params([id]));
      return row && seekOf(row);
    });
  }

  openSeeks(pool: string, now: number, limit: number): Promise<Seek[]> {
    return this.deps.read(() => this.stmts.open.all(params([pool, now, limit])).map(seekOf));
  }

  pairSeeks(a: Seek, b: Seek): Promise<boolean> {
    const isOpen = (id: string) => this.stmts.select.get(params([id]))?.status === 'open';
    return this.write(() => {
      if (!isOpen(a.id) || !isOpen(b.id)) return false;
      this.stmts.pair.run(params(pairColumns(a)));
      this.stmts.pair.run(params(pairColumns(b)));
      return true;
    });
  }

  withdrawSeek(id: string): Promise<boolean> {
    return this.deps.enqueue(() => this.stmts.withdraw.run(params([id])).changes === 1);
  }

  keepSeeksAlive(ids: readonly string[], aliveUntil: number): Promise<void> {
    const values = params([JSON.stringify(ids), aliveUntil]);
    return this.deps.enqueue(() => this.stmts.keepAlive.run(values).changes > 0).then(() => undefined);
  }

  seeksWithoutGame(since: number): Promise<Seek[]> {
    return this.deps.read(() => this.stmts.withoutGame.all(params([since])).map(seekOf));
  }
}
