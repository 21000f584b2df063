/**
 * The migrations to a player's games (SQLite 0007, PostgreSQL 0005) and to moves rows (0008, 0006): games stored
 * before them get their seats, their place in the order of changes (that of their last change) and whether they are
 * over, worked out from each game as the store opens (a mate is over by its position alone); their moves and redo
 * stack become rows; then they read back whole and list like any other.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite, test, type TestContext } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { migrations } from '../../src/store/migrations.ts';
import { PostgresGameStore } from '../../src/store/postgres.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import type { GameStore } from '../../src/store/store.ts';
import type { HistoryStore } from '../../src/store/history.ts';
import type { HistoryQuery } from '../../src/domain/history.ts';
import { makeRecord } from './gameStore.contract.ts';
import { createTestDatabase, postgresSkip } from '../helpers/postgres.ts';

const ANN = { id: 'ann', displayName: 'Ann' };
const BOB = { id: 'bob', displayName: 'Bob' };

/** Games as a version before the listing stored them: data JSON of three fields fewer, and their update times. */
const OLD_GAMES = [
  {
    record: makeRecord({ white: ANN, black: BOB, moves: ['e2e4', 'e7e5'], redo: ['b8c6', 'g1f3'] }),
    updatedAt: '2026-01-01T10:00:03.000Z',
  },
  {
    record: makeRecord({ white: BOB, black: ANN, moves: ['f2f3', 'e7e5', 'g2g4', 'd8h4'] }), // mated
    updatedAt: '2026-01-01T10:00:01.000Z',
  },
  {
    record: makeRecord({ white: ANN, black: BOB, result: { kind: 'resign', winner: 'black' } }),
    updatedAt: '2026-01-01T10:00:02.000Z',
  },
];

/** The data JSON a version before the listing wrote: the record but for id, version, date and later fields. */
const oldData = (record: (typeof OLD_GAMES)[number]['record']) => {
  const { id: _i, version: _v, createdAt: _d, takebackOffer: _t, clock: _c, moveClocks: _m, ...data } = record;
  return JSON.stringify(data);
};

async function checkListing(t: TestContext, store: GameStore): Promise<void> {
  const [ongoing, mated, resigned] = OLD_GAMES.map(({ record }) => record.id);
  const ids = async (status: 'ongoing' | 'ended' | 'all') =>
    (await store.listGames({ player: 'ann', status, limit: 10 })).map(({ record }) => record.id);
  t.assert.deepEqual(await ids('all'), [ongoing, resigned, mated], 'in the order of their last change');
  t.assert.deepEqual(await ids('ongoing'), [ongoing]);
  t.assert.deepEqual(await ids('ended'), [resigned, mated], 'the mate is over by its position');
  t.assert.deepEqual((await store.get(mated!))?.takebackOffer, null, 'older records read with today’s fields');
  for (const { record } of OLD_GAMES) {
    t.assert.deepEqual(await store.get(record.id), record, 'each game as it was: its moves now rows of their own');
  }
  // A player's games for export (migration 0040): the games stored before are indexed, by creation then id.
  const history = store as GameStore & HistoryStore;
  const exported = async (query: Partial<HistoryQuery>) =>
    (await history.playerGames({ player: 'ann', order: 'desc', limit: 10, ...query })).map(record => record.id);
  const byId = [ongoing!, mated!, resigned!].sort();
  t.assert.deepEqual(await exported({}), [...byId].reverse(), 'one creation time: by id');
  t.assert.deepEqual(await exported({ ended: true }), [resigned, mated].sort().reverse());
  t.assert.deepEqual(await exported({ color: 'black' }), [mated]);
  t.assert.deepEqual(await exported({ vs: 'bob', ended: false }), [ongoing]);
  // A new write takes the next place.
  const record = (await store.get(mated!))!;
  t.assert.equal(await store.update({ ...record, version: record.version + 1 }, record.version), true);
  t.assert.deepEqual((await ids('all'))[0], mated);
}

const pgSkip = await postgresSkip();

suite('the migration to the listing of games', () => {
  test('SQLite: games stored before it are listed, with whether they are over worked out at open', async (t: TestContext) => {
    const dir = mkdtempSync(join(tmpdir(), 'chess-migration-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'chess.sqlite');
    const db = new Database(path);
    db.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
    );
    for (const { version, name, sql } of migrations('sqlite').filter(m => m.version < 7)) {
      db.exec(sql);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(version, name, new Date().toISOString());
    }
    const insert = db.prepare('INSERT INTO games (id, version, created_at, updated_at, data) VALUES (?, ?, ?, ?, ?)');
    for (const { record, updatedAt } of OLD_GAMES) {
      insert.run(record.id, record.version, record.createdAt, updatedAt, oldData(record));
    }
    db.close();
    const store = SqliteGameStore.open(path);
    t.after(() => store.close());
    await checkListing(t, store);
  });

  test('PostgreSQL: the same', { skip: pgSkip }, async (t: TestContext) => {
    const database = await createTestDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    );
    for (const { version, name, sql } of migrations('postgres').filter(m => m.version < 5)) {
      await client.query(sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [version, name]);
    }
    for (const { record, updatedAt } of OLD_GAMES) {
      await client.query('INSERT INTO games (id, version, created_at, updated_at, data) VALUES ($1, $2, $3, $4, $5)', [
        record.id,
        record.version,
        record.createdAt,
        updatedAt,
        oldData(record),
      ]);
    }
    await client.end();
    const store = await PostgresGameStore.open(database.url);
    t.after(async () => {
      await store.close();
      await database.drop();
    });
    await checkListing(t, store);
  });
});
