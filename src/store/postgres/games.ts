/**
 * The shared store's games (postgres.ts): a read takes a game and its moves in one round trip (moves.ts); creates and
 * updates are group-committed (writes.ts), each with its change logged in `game_changes` and announced to every
 * instance when it commits. The change log keeps each entry at least CHANGE_LOG_RETENTION_MS: every PRUNE_EVERY
 * updates, older entries are deleted. A real-time game against the computer is counted and inserted as one step
 * (engine.ts).
 *
 * ```ts
 * const games = new PostgresGames(pool);
 * await games.get('AbCd1234');
 * ```
 */
import type pg from 'pg';
import { cappedEngineGameOf } from '../../domain/engineGames.ts';
import type { GameRecord } from '../../domain/game.ts';
import { engineGamesLimited } from '../engineGames.ts';
import type { GamesPart, GameUpdate } from '../parts.ts';
import { Rollback, run, transaction } from '../postgresTransaction.ts';
import { CHANGE_LOG_RETENTION_MS, NO_INDEX, type GameIndex, type StateEvent, type StoredChange } from '../store.ts';
import { createEngineGame } from './engine.ts';
import { LINE_SQL, recordOfRow, type GameRow } from './moves.ts';
import { writeRatedEnd } from './ratings.ts';
import { PostgresWrites } from './writes.ts';

/** Updates between two prunes of the change log. */
const PRUNE_EVERY = 1000;

export class PostgresGames implements GamesPart {
  private readonly writes: PostgresWrites;
  private updates = 0;

  constructor(private readonly pool: pg.Pool) {
    this.writes = new PostgresWrites(pool);
  }

  async create(record: GameRecord, index: GameIndex = NO_INDEX, event?: StateEvent): Promise<boolean> {
    const cap = cappedEngineGameOf(record);
    if (!cap) return this.writes.create(record, index, event);
    // A real-time game against the computer: counted and inserted as one step (engineGames.ts).
    const created = await run(() =>
      createEngineGame(this.pool, cap, client => this.writes.createOn(client, record, index, event)),
    );
    if (created === 'limit') throw engineGamesLimited(cap.max);
    return created;
  }

  get(id: string): Promise<GameRecord | undefined> {
    return run(async () => {
      const result = await this.pool.query<GameRow>({
        name: 'chess-select-game',
        text: `SELECT id, version, created_at, data, ${LINE_SQL('games')} FROM games WHERE id = $1`,
        values: [id],
      });
      const row = result.rows[0];
      return row && recordOfRow(row);
    });
  }

  update({ record, expectedVersion, event, index, stored, rated }: GameUpdate): Promise<boolean> {
    // A rated end: its perfs and the game in one transaction of their own, both checked (ratings.ts).
    const write = rated
      ? run(() =>
          transaction(this.pool, async client => {
            const saved =
              (await writeRatedEnd(client, rated)) &&
              (await this.writes.updateOn(client, record, expectedVersion, event, index, stored));
            if (!saved) throw new Rollback(false);
            return true;
          }),
        )
      : this.writes.update(record, expectedVersion, event, index, stored);
    return write.then(saved => {
      if (saved && ++this.updates % PRUNE_EVERY === 0) void this.prune();
      return saved;
    });
  }

  changesSince(id: string, afterVersion: number): Promise<StoredChange[]> {
    return run(async () => {
      const result = await this.pool.query<{ version: number; event: string }>(
        'SELECT version, event FROM game_changes WHERE game_id = $1 AND version > $2 ORDER BY version',
        [id, afterVersion],
      );
      return result.rows.map(row => ({ gameId: id, version: row.version, event: JSON.parse(row.event) as StateEvent }));
    });
  }

  private async prune(): Promise<void> {
    try {
      await this.pool.query("DELETE FROM game_changes WHERE created_at < now() - $1 * interval '1 millisecond'", [
        CHANGE_LOG_RETENTION_MS,
      ]);
    } catch {
      // The next prune tries again.
    }
  }
}
