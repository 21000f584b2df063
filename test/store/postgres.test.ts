/** The store contract on PostgreSQL, plus what only a shared database shows: migrations and announcements. */
import { after, before, describe, test, type TestContext } from 'node:test';
import pg from 'pg';
import { CHANGES_CHANNEL } from '../../src/store/notifications.ts';
import { PostgresGameStore } from '../../src/store/postgres.ts';
import { createTestDatabase, postgresSkip, type TestDatabase } from '../helpers/postgres.ts';
import { makeRecord, runGameStoreContract, stateEvent } from './gameStore.contract.ts';

const skip = await postgresSkip();

describe('PostgreSQL store', { skip }, () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(() => db.drop());

  runGameStoreContract('PostgresGameStore', () => PostgresGameStore.open(db.url));

  test('instances starting together migrate once; reopening keeps the data', async (t: TestContext) => {
    const empty = await createTestDatabase();
    const open: Array<{ close(): Promise<unknown> }> = [];
    // Hooks run in the order they were added: close every connection, then drop the database.
    t.after(async () => {
      await Promise.all(open.map(resource => resource.close()));
      await empty.drop();
    });
    const stores = await Promise.all([1, 2, 3, 4].map(() => PostgresGameStore.open(empty.url)));
    open.push(...stores);
    const record = makeRecord();
    t.assert.equal(await stores[0]!.create(record), true);
    t.assert.deepEqual(await stores[3]!.get(record.id), record);
    const again = await PostgresGameStore.open(empty.url);
    open.push(again);
    t.assert.deepEqual(await again.get(record.id), record);
    const client = new pg.Client({ connectionString: empty.url });
    await client.connect();
    open.push({ close: () => client.end() });
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    t.assert.deepEqual(
      rows.map(row => row.version),
      [1, 2, 3, 4, 5],
    );
  });

  test('a creation and a committed update are announced with the game, version, deadline, transition and seats; a refused update is not', async (t: TestContext) => {
    const store = await PostgresGameStore.open(db.url);
    t.after(() => store.close());
    const listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    t.after(() => listener.end());
    const heard: string[] = [];
    listener.on('notification', message => heard.push(message.payload ?? ''));
    await listener.query(`LISTEN ${CHANGES_CHANNEL}`);
    const record = makeRecord();
    await store.create(record);
    t.assert.equal(await store.update({ ...record, version: 2, moves: ['e2e4'] }, 1, stateEvent(['e2e4'])), true);
    t.assert.equal(await store.update({ ...record, version: 2, moves: ['d2d4'] }, 1, stateEvent(['d2d4'])), false);
    t.assert.equal(await store.update({ ...record, version: 3, moves: [] }, 2, stateEvent([])), true);
    for (let i = 0; i < 100 && heard.length < 3; i++) await new Promise(resolve => setTimeout(resolve, 20));
    const announced = (version: number) => ({ g: record.id, v: version, d: null, t: null, w: 'p1', b: 'p2' });
    t.assert.deepEqual(
      heard.map(payload => JSON.parse(payload)),
      [announced(1), announced(2), announced(3)].map(a => ({ ...a, t: a.v === 1 ? 's' : null })),
    );
  });

  test('an unreachable database is UNAVAILABLE, quickly', async (t: TestContext) => {
    await t.assert.rejects(PostgresGameStore.open('postgres://postgres@127.0.0.1:1/none', { connectTimeoutMs: 500 }), {
      code: 'UNAVAILABLE',
    });
  });
});
