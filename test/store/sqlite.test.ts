/** The store contract on SQLite in memory and in a file, plus what only a file store can show. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test, type TestContext } from 'node:test';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import { makeRecord, runGameStoreContract, VARIED_RECORDS } from './gameStore.contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'chess-sqlite-store-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newFile = () => join(dir, `store-${++files}.sqlite`);

runGameStoreContract('SqliteGameStore :memory:', async () => SqliteGameStore.open(':memory:'));
runGameStoreContract('SqliteGameStore file', async () => SqliteGameStore.open(newFile()));

test('SQLite file: records survive closing and opening the file again', async (t: TestContext) => {
  const path = newFile();
  const first = SqliteGameStore.open(path);
  const records = VARIED_RECORDS();
  for (const record of records) t.assert.equal(await first.create(record), true);
  const updated = { ...records[1]!, version: records[1]!.version + 1, moves: [...records[1]!.moves, 'b8c6'] };
  t.assert.equal(await first.update(updated, records[1]!.version), true);
  await first.close();

  const second = SqliteGameStore.open(path); // migrations run again on an existing file
  t.after(() => second.close());
  t.assert.deepEqual(await second.get(records[0]!.id), records[0]);
  t.assert.deepEqual(await second.get(updated.id), updated);
  for (const record of records.slice(2)) t.assert.deepEqual(await second.get(record.id), record);
  // The version check holds across the reopening.
  t.assert.equal(await second.update({ ...updated, version: updated.version + 1 }, records[1]!.version), false);
  t.assert.equal(await second.create(records[0]!), false);
});

test('SQLite file: two connections to one file see each other and keep the version check', async (t: TestContext) => {
  const path = newFile();
  const one = SqliteGameStore.open(path);
  const two = SqliteGameStore.open(path);
  t.after(() => Promise.all([one.close(), two.close()]));
  const record = makeRecord();
  await one.create(record);
  t.assert.deepEqual(await two.get(record.id), record);
  t.assert.equal(await two.update({ ...record, version: 2, moves: ['e2e4'] }, 1), true);
  t.assert.equal(await one.update({ ...record, version: 2, moves: ['d2d4'] }, 1), false);
  t.assert.deepEqual((await one.get(record.id))!.moves, ['e2e4']);
  t.assert.equal(await one.create({ ...makeRecord(), id: record.id }), false);
});

test('SQLite file: open creates missing parent folders', async (t: TestContext) => {
  const path = join(dir, 'nested', 'deeper', 'games.sqlite');
  const store = SqliteGameStore.open(path);
  t.after(() => store.close());
  t.assert.ok(existsSync(path));
  await store.ping();
});

test('SQLite: ping rejects after close; close twice is harmless', async (t: TestContext) => {
  const store = SqliteGameStore.open(':memory:');
  await store.close();
  await t.assert.rejects(async () => store.ping());
  await store.close();
});
