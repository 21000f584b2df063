/**
 * What the SQLite store does when its file cannot take a write (DECISIONS §15): a full disk and a database file
 * removed while the store runs. UNAVAILABLE saying why, never an acknowledged write that is not on disk, a
 * readiness check that fails until writes succeed again, and nothing acknowledged lost, across a reopening.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { DomainError } from '../../src/domain/errors.ts';
import type { GameRecord } from '../../src/domain/game.ts';
import { describeFailure, SqliteGameStore } from '../../src/store/sqlite.ts';
import { fullDisk } from '../helpers/fullDisk.ts';
import { makeRecord } from './gameStore.contract.ts';

/** A record with a long move list, so that every create needs new pages. */
const bigRecord = (): GameRecord => makeRecord({ redo: Array.from({ length: 400 }, () => 'e2e4') });

async function assertAllStored(t: TestContext, path: string, records: GameRecord[], absent: GameRecord[] = []) {
  const reopened = SqliteGameStore.open(path);
  try {
    for (const record of records) t.assert.deepEqual(await reopened.get(record.id), record);
    for (const record of absent) t.assert.equal(await reopened.get(record.id), undefined, 'a refused write was kept');
  } finally {
    await reopened.close();
  }
}

test('a full disk: UNAVAILABLE and not ready until space is freed, then writes resume; nothing acknowledged is lost', async (t: TestContext) => {
  const disk = fullDisk();
  t.after(() => disk.cleanup());
  t.diagnostic(`full disk made by: ${disk.kind}`);
  const path = join(disk.dir, 'chess.sqlite');
  const store = SqliteGameStore.open(path);
  const acknowledged: GameRecord[] = [];
  for (let i = 0; i < 20; i++) {
    const record = bigRecord();
    t.assert.equal(await store.create(record), true);
    acknowledged.push(record);
  }
  await store.ping();

  disk.fill(store);
  const refused: GameRecord[] = [];
  let failure: unknown;
  for (let i = 0; i < 2000 && failure === undefined; i++) {
    const record = bigRecord();
    try {
      t.assert.equal(await store.create(record), true);
      acknowledged.push(record); // it fitted in space SQLite already had
    } catch (error) {
      failure = error;
      refused.push(record);
    }
  }
  t.assert.ok(failure instanceof DomainError, `the write failed with ${String(failure)}`);
  t.assert.equal(failure.code, 'UNAVAILABLE');
  t.assert.match(failure.message, /disk is full/);
  if (disk.kind === 'tmpfs') {
    await t.assert.rejects(
      store.ping(),
      (error: unknown) => error instanceof DomainError && /disk is full/.test(error.message),
    );
  } else {
    // SQLite's page limit refuses only writes that need new pages; the readiness check's one-row write needs
    // none, so in this mode readiness is back at once (the same store on a real full disk is not).
    t.diagnostic('readiness on a full disk is checked with a real filesystem only');
  }
  // An update fails the same way, and reads still answer.
  const first = acknowledged[0]!;
  await t.assert.rejects(store.update({ ...first, version: 2, moves: Array(300).fill('e2e4') }, 1), {
    code: 'UNAVAILABLE',
  });
  t.assert.deepEqual(await store.get(first.id), first);

  disk.free(store);
  await store.ping(); // ready again by itself: its own write succeeded
  const after = bigRecord();
  t.assert.equal(await store.create(after), true);
  acknowledged.push(after);
  await store.close();
  await assertAllStored(t, path, acknowledged, refused);
});

test('on a full disk a store either cannot open, saying why, or opens not ready until a write succeeds', async (t: TestContext) => {
  const disk = fullDisk();
  t.after(() => disk.cleanup());
  t.diagnostic(`full disk made by: ${disk.kind}`);
  if (disk.kind !== 'tmpfs') {
    t.diagnostic('without a real filesystem to fill there is no disk that is full before the store opens');
    return;
  }
  const path = join(disk.dir, 'chess.sqlite');
  const before = SqliteGameStore.open(path);
  const record = bigRecord();
  t.assert.equal(await before.create(record), true);
  await before.close();
  disk.fill();
  let store: SqliteGameStore;
  try {
    store = SqliteGameStore.open(path);
  } catch (error) {
    // SQLite needs room for the WAL index it creates at open: a start-up failure, told in one line by the server.
    t.diagnostic(`open failed: ${String(error)}`);
    t.assert.match(describeFailure(error) ?? '', /cannot be read or written|disk is full|cannot be opened/);
    disk.free();
    const reopened = SqliteGameStore.open(path);
    t.assert.deepEqual(await reopened.get(record.id), record);
    await reopened.close();
    return;
  }
  t.after(() => store.close());
  t.assert.deepEqual(await store.get(record.id), record);
  await t.assert.rejects(store.ping(), { code: 'UNAVAILABLE' });
  disk.free();
  await store.ping();
});

for (const what of ['the database file', 'the whole data folder'] as const) {
  test(`${what} removed while the store runs: written again from the open connection, nothing lost`, async (t: TestContext) => {
    const dir = mkdtempSync(join(tmpdir(), 'chess-removed-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const folder = join(dir, 'data');
    const path = join(folder, 'chess.sqlite');
    const store = SqliteGameStore.open(path);
    const records = Array.from({ length: 30 }, () => makeRecord());
    for (const record of records) t.assert.equal(await store.create(record), true);
    const moved = { ...records[0]!, version: 2, moves: ['e2e4'] };
    t.assert.equal(await store.update(moved, 1), true);

    if (what === 'the database file') rmSync(path);
    else rmSync(folder, { recursive: true });
    t.assert.equal(existsSync(path), false);

    const later = makeRecord();
    t.assert.equal(await store.create(later), true);
    t.assert.ok(existsSync(path), 'the file is there again');
    await store.ping();
    const again = { ...moved, version: 3, moves: ['e2e4', 'e7e5'] };
    t.assert.equal(await store.update(again, 2), true);
    await store.close();
    await assertAllStored(t, path, [...records.slice(1), later, again]);
  });
}

test('a removed file is noticed by the readiness check too, and written again there', async (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'chess-removed-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'chess.sqlite');
  const store = SqliteGameStore.open(path);
  const record = makeRecord();
  t.assert.equal(await store.create(record), true);
  rmSync(path);
  await store.ping();
  t.assert.ok(existsSync(path));
  await store.close();
  await assertAllStored(t, path, [record]);
});

test('a removed file that cannot be written again: UNAVAILABLE and not ready, until it can', async (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'chess-removed-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const folder = join(dir, 'data');
  const path = join(folder, 'chess.sqlite');
  const store = SqliteGameStore.open(path);
  const record = makeRecord();
  t.assert.equal(await store.create(record), true);
  // The folder goes, and a plain file takes its name: the database cannot be written there again.
  rmSync(folder, { recursive: true });
  writeFileSync(folder, 'in the way');
  await t.assert.rejects(store.create(makeRecord()), (error: unknown) => {
    t.assert.ok(error instanceof DomainError);
    t.assert.equal(error.code, 'UNAVAILABLE');
    t.assert.match(error.message, /was removed and could not be written again/);
    return true;
  });
  await t.assert.rejects(store.ping(), { code: 'UNAVAILABLE' });
  rmSync(folder);
  await store.ping(); // written again by the readiness check
  const later = makeRecord();
  t.assert.equal(await store.create(later), true);
  await store.close();
  await assertAllStored(t, path, [record, later]);
});

test('which SQLite errors are about the file or its disk, and what UNAVAILABLE says of each', (t: TestContext) => {
  const rows: Array<[string, RegExp | undefined]> = [
    ['SQLITE_FULL', /^the database disk is full; writes resume once space is freed$/],
    ['ENOSPC', /^the database disk is full/],
    ['SQLITE_READONLY', /^the database file cannot be written \(SQLITE_READONLY\)$/],
    ['SQLITE_READONLY_DBMOVED', /cannot be written \(SQLITE_READONLY_DBMOVED\)/],
    ['SQLITE_IOERR_WRITE', /^the database file cannot be read or written \(SQLITE_IOERR_WRITE\)$/],
    ['SQLITE_CANTOPEN', /^the database file cannot be opened/],
    ['SQLITE_CORRUPT', /^the database file is damaged \(SQLITE_CORRUPT\)$/],
    ['SQLITE_NOTADB', /is damaged \(SQLITE_NOTADB\)/],
    ['SQLITE_BUSY', /^the database is locked \(SQLITE_BUSY\)$/],
    ['SQLITE_LOCKED_SHAREDCACHE', /is locked/],
    ['SQLITE_NOMEM', /^the database ran out of memory$/],
    ['EACCES', /^the database folder cannot be written \(EACCES\)$/],
    ['EROFS', /folder cannot be written \(EROFS\)/],
    // Errors that are not about the file: a bug, answered as INTERNAL.
    ['SQLITE_CONSTRAINT_PRIMARYKEY', undefined],
    ['SQLITE_ERROR', undefined],
    ['ERR_INVALID_ARG_TYPE', undefined],
  ];
  for (const [code, message] of rows) {
    const described = describeFailure(Object.assign(new Error('x'), { code }));
    if (message === undefined) t.assert.equal(described, undefined, code);
    else t.assert.match(described ?? '', message, code);
  }
  t.assert.equal(describeFailure(new Error('no code')), undefined);
  t.assert.equal(describeFailure('a string'), undefined);
  t.assert.equal(describeFailure(null), undefined);
});
