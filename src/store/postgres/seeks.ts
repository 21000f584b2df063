/**
 * The shared store's seeks (../seeks.ts) on PostgreSQL. A new seek is inserted under an advisory lock of its player, so
 * that one player's inserts run one at a time on every instance and each counts what the one before committed: the
 * player's other real-time seeks are withdrawn (and the withdrawal announced, so that the instance holding their
 * requests ends them), or a correspondence seek past the bound is refused. A real-time seek is held by the store that
 * inserted it; it is paired only while its holder's presence is connected to the database (instance.ts),
 * which a killed or restarted process's is not.
 *
 * ```ts
 * const seeks = new PostgresSeeks(pool, presence.instanceId);
 * await seeks.insertSeek(seek, 10);
 * ```
 */
import type pg from 'pg';
import type { Seek } from '../../domain/seek.ts';
import { SEEKS_CHANNEL } from '../notifications.ts';
import { Rollback, run, transaction } from '../postgresTransaction.ts';
import { pairColumns, SEEK_COLUMNS, SEEK_SQL, seekColumns, seekOf } from '../seeks.ts';
import type { InsertedSeek, SeekRow, SeekStore } from '../seeks.ts';
import { LIVE_SQL } from './instance.ts';
import { lockFor, SEEKER_LOCK } from './locks.ts';

/** A seek's holder is alive: none (correspondence), this instance (`$me`), or one whose presence is connected. */
const holderAlive = (me: string) => `(holder IS NULL OR holder = ${me} OR holder IN ${LIVE_SQL})`;

const OPEN_SQL =
  `SELECT ${SEEK_COLUMNS} FROM seeks WHERE pool = $1 AND status = 'open' AND alive_until > $2 ` +
  `AND ${holderAlive('$4')} ORDER BY created_at, id LIMIT $3`;

/**
 * Both rows locked, in the order of their ids (two pairings of the same seeks never wait on each other in a circle),
 * and counted only if still open once locked and held by live instances.
 */
const LOCK_PAIR_SQL = `SELECT id FROM seeks WHERE id = ANY($1) AND status = 'open' AND ${holderAlive('$2')} ORDER BY id FOR UPDATE`;

export class PostgresSeeks implements SeekStore {
  constructor(
    private readonly pool: pg.Pool,
    /** This store's id: the holder of the real-time seeks it inserts. */
    private readonly instanceId: string,
  ) {}

  insertSeek(seek: Seek, maxCorrespondence = Infinity): Promise<InsertedSeek> {
    const values = seekColumns(seek, this.instanceId);
    const realTime = values[7] !== null;
    return run(() =>
      transaction<InsertedSeek>(this.pool, async client => {
        await lockFor(client, SEEKER_LOCK, seek.player.id);
        if (!realTime && maxCorrespondence !== Infinity) {
          const { rows } = await client.query<{ n: string }>(SEEK_SQL.countCorrespondence, [seek.player.id]);
          if (Number(rows[0]!.n) >= maxCorrespondence) return { result: 'limit', withdrawn: [] };
        }
        if ((await client.query(SEEK_SQL.insert, [...values])).rowCount !== 1)
          return { result: 'taken', withdrawn: [] };
        if (!realTime) return { result: 'inserted', withdrawn: [] };
        const { rows } = await client.query<{ id: string }>(SEEK_SQL.withdrawOlder, [seek.player.id, seek.id]);
        const withdrawn = rows.map(row => row.id);
        // Heard by every instance once the withdrawal commits: the one holding a withdrawn seek's request ends it.
        if (withdrawn.length > 0) {
          await client.query('SELECT pg_notify($1, $2)', [SEEKS_CHANNEL, JSON.stringify({ withdrawn })]);
        }
        return { result: 'inserted', withdrawn };
      }),
    );
  }

  seek(id: string): Promise<Seek | undefined> {
    return run(async () => {
      const row = (await this.pool.query<SeekRow>(SEEK_SQL.select, [id])).rows[0];
      return row && seekOf(row);
    });
  }

  openSeeks(pool: string, now: number, limit: number): Promise<Seek[]> {
    return run(async () =>
      (await this.pool.query<SeekRow>(OPEN_SQL, [pool, now, limit, this.instanceId])).rows.map(seekOf),
    );
  }

  pairSeeks(a: Seek, b: Seek): Promise<boolean> {
    return run(() =>
      transaction(this.pool, async client => {
        const { rowCount } = await client.query(LOCK_PAIR_SQL, [[a.id, b.id], this.instanceId]);
        if (rowCount !== 2) throw new Rollback(false);
        await client.query(SEEK_SQL.pair, [...pairColumns(a)]);
        await client.query(SEEK_SQL.pair, [...pairColumns(b)]);
        await client.query('SELECT pg_notify($1, $2)', [
          SEEKS_CHANNEL,
          JSON.stringify({ paired: [a.id, b.id], gameId: a.gameId }),
        ]);
        return true;
      }),
    );
  }

  withdrawSeek(id: string): Promise<boolean> {
    return run(async () => (await this.pool.query(SEEK_SQL.withdraw, [id])).rowCount === 1);
  }

  keepSeeksAlive(ids: readonly string[], aliveUntil: number): Promise<void> {
    return run(async () => {
      await this.pool.query("UPDATE seeks SET alive_until = $2 WHERE status = 'open' AND id = ANY($1)", [
        [...ids],
        aliveUntil,
      ]);
    });
  }

  seeksWithoutGame(since: number): Promise<Seek[]> {
    return run(async () => (await this.pool.query<SeekRow>(SEEK_SQL.withoutGame, [since])).rows.map(seekOf));
  }
}
