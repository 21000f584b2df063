/**
 * The shared store's schema at open (postgres.ts): the migrations of `sql/postgres/NNNN_name.sql` (migrations.ts),
 * applied in one transaction under an advisory lock, so that instances may start together, then the games stored
 * before the listing's columns were filled given them.
 *
 * ```ts
 * await run(() => migrate(pool));
 * ```
 */
import type pg from 'pg';
import { restoreGame } from '../../domain/game.ts';
import { indexOfGame } from '../../domain/transitions.ts';
import { migrations } from '../migrations.ts';
import { transaction } from '../postgresTransaction.ts';
import { MIGRATION_LOCK } from './locks.ts';
import { LINE_SQL, recordOfRow, type GameRow } from './moves.ts';

export async function migrate(pool: pg.Pool): Promise<void> {
  await transaction(pool, async client => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    );
    const applied = new Set(
      (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map(row => row.version),
    );
    for (const { version, name, sql } of migrations('postgres')) {
      if (applied.has(version)) continue;
      await client.query(sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [version, name]);
    }
    await reindexGames(client);
  });
}

/**
 * Works out `ended` and `deadline` of the games stored before those columns were filled (migration 0005), from
 * each game itself: whether a game is over depends on its position. Runs under the migration lock.
 */
async function reindexGames(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<GameRow>(
    `SELECT id, version, created_at, data, ${LINE_SQL('games')} FROM games WHERE ended IS NULL`,
  );
  for (const row of rows) {
    const { ended, deadline } = indexOfGame(restoreGame(recordOfRow(row)));
    await client.query('UPDATE games SET ended = $2, deadline = $3 WHERE id = $1', [row.id, +ended, deadline]);
  }
}
