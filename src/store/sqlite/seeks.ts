/**
 * The embedded store's seeks (../seeks.ts): each change is one write of the store's group commit, judged and written in
 * one write transaction, so that no other write comes between a count and an insert or a check and a pairing.
 *
 * One process serves a SQLite file: the real-time seeks held by the process before it (killed or restarted, its
 * requests gone with it) are withdrawn when the store opens, so that they are never paired, even before their
 * lease lapses. Should that write fail then (a full disk), it is made in the transaction of the next seek's write.
 *
 * ```ts
 * const seeks = new SqliteSeeks(connection, instanceId);
 * seeks.withdrawStale(); // at open
 * ```
 */
import type { Seek } from '../../domain/seek.ts';
import { pairColumns, SEEK_SQL, seekColumns, seekOf } from '../seeks.ts';
import type { InsertedSeek, SeekRow, SeekStore } from '../seeks.ts';
import type { SqliteConnection } from './connection.ts';
import { params } from './params.ts';

/** SQLite's own SQL of the seeks, beside the SQL shared with PostgreSQL (seeks.ts). */
const SQLITE_SEEK_SQL = {
  keepAlive: "UPDATE seeks SET alive_until = @p2 WHERE status = 'open' AND id IN (SELECT value FROM json_each(@p1))",
  // The real-time seeks that another store inserted: of a process before this one (DECISIONS §16a).
  withdrawHeldElsewhere:
    "UPDATE seeks SET status = 'withdrawn' WHERE status = 'open' AND holder IS NOT NULL AND holder <> @p1",
} as const;

export class SqliteSeeks implements SeekStore {
  /** Whether real-time seeks of an earlier process may still be open (until a withdrawal of them commits). */
  private stale = true;

  constructor(
    private readonly connection: SqliteConnection<unknown>,
    /** The store's id: the holder of the real-time seeks it inserts. */
    private readonly instanceId: string,
  ) {}

  /** The statement of `sql`, prepared once per connection. */
  private sql<Row = unknown>(sql: string) {
    return this.connection.statement<Row>(sql);
  }

  /** Withdraws the real-time seeks of the process before this one, at once; false when the file cannot be written. */
  withdrawStale(): boolean {
    try {
      this.sql(SQLITE_SEEK_SQL.withdrawHeldElsewhere).run(params([this.instanceId]));
    } catch {
      return false; // made in the next seek's write
    }
    this.stale = false;
    return true;
  }

  /** A write of seeks, after the withdrawal of the earlier process's seeks while that is still to be made. */
  private write(change: () => boolean): Promise<boolean> {
    const stale = this.stale;
    return this.connection
      .enqueue(() => {
        if (stale) this.sql(SQLITE_SEEK_SQL.withdrawHeldElsewhere).run(params([this.instanceId]));
        return change();
      })
      .then(saved => {
        if (stale) this.stale = false;
        return saved;
      });
  }

  insertSeek(seek: Seek, maxCorrespondence = Infinity): Promise<InsertedSeek> {
    const values = params(seekColumns(seek, this.instanceId));
    const realTime = values.p8 !== null;
    let inserted: InsertedSeek = { result: 'taken', withdrawn: [] };
    return this.write(() => {
      inserted = { result: 'taken', withdrawn: [] }; // a write tried again after its batch failed starts afresh
      if (
        !realTime &&
        this.sql<{ n: number }>(SEEK_SQL.countCorrespondence).get(params([seek.player.id]))!.n >= maxCorrespondence
      ) {
        inserted = { result: 'limit', withdrawn: [] };
        return false;
      }
      if (this.sql(SEEK_SQL.insert).run(values).changes !== 1) return false;
      const withdrawn = realTime
        ? this.sql<{ id: string }>(SEEK_SQL.withdrawOlder).all(params([seek.player.id, seek.id]))
        : [];
      inserted = { result: 'inserted', withdrawn: withdrawn.map(row => row.id) };
      return true;
    }).then(() => inserted);
  }

  seek(id: string): Promise<Seek | undefined> {
    return this.connection.read(() => {
      const row = this.sql<SeekRow>(SEEK_SQL.select).get(params([id]));
      return row && seekOf(row);
    });
  }

  openSeeks(pool: string, now: number, limit: number): Promise<Seek[]> {
    return this.connection.read(() =>
      this.sql<SeekRow>(SEEK_SQL.open)
        .all(params([pool, now, limit]))
        .map(seekOf),
    );
  }

  pairSeeks(a: Seek, b: Seek): Promise<boolean> {
    const isOpen = (id: string) => this.sql<SeekRow>(SEEK_SQL.select).get(params([id]))?.status === 'open';
    return this.write(() => {
      if (!isOpen(a.id) || !isOpen(b.id)) return false;
      this.sql(SEEK_SQL.pair).run(params(pairColumns(a)));
      this.sql(SEEK_SQL.pair).run(params(pairColumns(b)));
      return true;
    });
  }

  withdrawSeek(id: string): Promise<boolean> {
    return this.connection.enqueue(() => this.sql(SEEK_SQL.withdraw).run(params([id])).changes === 1);
  }

  keepSeeksAlive(ids: readonly string[], aliveUntil: number): Promise<void> {
    const values = params([JSON.stringify(ids), aliveUntil]);
    return this.connection
      .enqueue(() => this.sql(SQLITE_SEEK_SQL.keepAlive).run(values).changes > 0)
      .then(() => undefined);
  }

  seeksWithoutGame(since: number): Promise<Seek[]> {
    return this.connection.read(() =>
      this.sql<SeekRow>(SEEK_SQL.withoutGame)
        .all(params([since]))
        .map(seekOf),
    );
  }
}
