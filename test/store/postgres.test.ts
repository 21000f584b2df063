/** The store contract on PostgreSQL, plus what only a shared database shows: migrations and announcements. */
import { after, before, describe, test, type TestContext } from 'node:test';
import pg from 'pg';
import { CHANGES_CHANNEL, parseChangeNotifications } from '../../src/store/notifications.ts';
import { PostgresGameStore } from '../../src/store/postgres.ts';
import { INSTANCE_APPLICATION, InstancePresence } from '../../src/store/postgres/instance.ts';
import { createTestDatabase, postgresSkip, type TestDatabase } from '../helpers/postgres.ts';
import { runChallengeStoreContract } from './challengeStore.contract.ts';
import { runSeekStoreContract } from './seekStore.contract.ts';
import { runChatStoreContract } from './chatStore.contract.ts';
import { runHistoryStoreContract } from './historyStore.contract.ts';
import { runRatingStoreContract } from './ratingStore.contract.ts';
import { runAccountStoreContract } from './accountStore.contract.ts';
import { makeRecord, runGameStoreContract, stateEvent } from './gameStore.contract.ts';

const skip = await postgresSkip();

describe('PostgreSQL store', { skip }, () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(() => db.drop());

  // Each test of the contracts opens its own store on the file's database, and closes it at its end, so that what
  // one test's store still writes after the test (a token's use noted in the background) ends with it.
  const open = () => PostgresGameStore.open(db.url);
  runGameStoreContract('PostgresGameStore', open);
  runChallengeStoreContract('PostgresGameStore', open);
  runSeekStoreContract('PostgresGameStore', open, { sameData: async () => open });
  runChatStoreContract('PostgresGameStore', open);
  runHistoryStoreContract('PostgresGameStore', open);
  runRatingStoreContract('PostgresGameStore', open);
  runAccountStoreContract('PostgresGameStore', open);

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
    // One secret for every instance of the database, made once by the migration that raced four ways.
    const secrets = new Set(await Promise.all([...stores, again].map(store => store.secret())));
    t.assert.equal(secrets.size, 1);
    const client = new pg.Client({ connectionString: empty.url });
    await client.connect();
    open.push({ close: () => client.end() });
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    t.assert.deepEqual(
      rows.map(row => row.version),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 20, 30, 40],
    );
  });

  test('creations and committed updates are announced, one NOTIFY per batch, with their events; a refused update is not', async (t: TestContext) => {
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
    // Asked for in one turn: one batch, one statement, one announcement of the one saved.
    const [won, lost] = await Promise.all([
      store.update({ ...record, version: 3, moves: [] }, 2, stateEvent([])),
      store.update({ ...makeRecord(), version: 2 }, 1, stateEvent([])), // no such game
    ]);
    t.assert.deepEqual([won, lost], [true, false]);
    t.assert.equal(await store.update({ ...record, version: 3, moves: ['d2d4'] }, 2, stateEvent(['d2d4'])), false);
    for (let i = 0; i < 100 && heard.length < 3; i++) await new Promise(resolve => setTimeout(resolve, 20));
    await new Promise(resolve => setTimeout(resolve, 100)); // a fourth, wrong, announcement would be here by now
    const item = (version: number, moves: string[] | null) => ({
      g: record.id,
      v: version,
      d: null,
      t: version === 1 ? 's' : null,
      w: 'p1',
      b: 'p2',
      e: moves && stateEvent(moves),
    });
    t.assert.deepEqual(
      heard.map(payload => JSON.parse(payload)),
      [[item(1, null)], [item(2, ['e2e4'])], [item(3, [])]],
    );
    t.assert.deepEqual(parseChangeNotifications(heard[1])[0]?.event, stateEvent(['e2e4']));
  });

  test('a game is stored as its small fields and a row per move: a change writes the rows that changed', async (t: TestContext) => {
    const store = await PostgresGameStore.open(db.url);
    t.after(() => store.close());
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    t.after(() => client.end());
    const record = makeRecord({ moves: ['e2e4', 'e7e5'], redo: ['b8c6', 'g1f3'] });
    await store.create(record);
    const rows = async () =>
      (await client.query('SELECT ply, uci FROM game_moves WHERE game_id = $1 ORDER BY ply', [record.id])).rows;
    t.assert.deepEqual(await rows(), [
      { ply: 0, uci: 'e2e4' },
      { ply: 1, uci: 'e7e5' },
      { ply: 2, uci: 'g1f3' },
      { ply: 3, uci: 'b8c6' },
    ]);
    const next = { ...record, version: 2, moves: ['e2e4', 'e7e5', 'd2d4'], redo: [] };
    t.assert.equal(await store.update(next, 1, undefined, undefined, record), true);
    t.assert.deepEqual(
      (await rows()).map(row => row.uci),
      ['e2e4', 'e7e5', 'd2d4'],
    );
    t.assert.deepEqual(await store.get(record.id), next);
  });

  test("an instance's presence: named in pg_stat_activity while it lives; its connection ended, it reconnects", async (t: TestContext) => {
    const errors: Error[] = [];
    const presence = new InstancePresence(db.url, `p${Date.now()}`, error => errors.push(error));
    await presence.start();
    t.after(() => presence.close());
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    t.after(() => admin.end());
    const sessions = async () =>
      (
        await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [
          `${INSTANCE_APPLICATION}${presence.instanceId}`,
        ])
      ).rows.map(row => row.pid);
    const [pid] = await sessions();
    t.assert.ok(pid !== undefined && presence.connected);
    // The database ends the session (a restart, a failover): the presence connects again, under the same name.
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    const reconnected = async () => {
      const now = await sessions();
      return presence.connected && now.length === 1 && now[0] !== pid;
    };
    for (let i = 0; i < 200 && !(await reconnected()); i++) await new Promise(resolve => setTimeout(resolve, 25));
    t.assert.ok(await reconnected(), 'a new session names the instance');
    t.assert.match(errors[0]?.message ?? '', /presence in the database was lost/);
    await presence.close();
    t.assert.equal(presence.connected, false);
    t.assert.deepEqual(await sessions(), [], 'closed: no session names it');
  });

  test('an unreachable database is UNAVAILABLE, quickly', async (t: TestContext) => {
    await t.assert.rejects(PostgresGameStore.open('postgres://postgres@127.0.0.1:1/none', { connectTimeoutMs: 500 }), {
      code: 'UNAVAILABLE',
    });
  });
});
