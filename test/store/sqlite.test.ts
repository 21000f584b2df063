/** The store contract on SQLite in memory and in a file, plus what only a file store can show. */
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test, type TestContext } from 'node:test';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import { Checkpointer, type CheckpointDone } from '../../src/store/sqlite/checkpoints.ts';
import { runChallengeStoreContract } from './challengeStore.contract.ts';
import { runSeekStoreContract } from './seekStore.contract.ts';
import { runChatStoreContract } from './chatStore.contract.ts';
import { runHistoryStoreContract } from './historyStore.contract.ts';
import { runRatingStoreContract } from './ratingStore.contract.ts';
import { runAccountStoreContract } from './accountStore.contract.ts';
import { makeRecord, runGameStoreContract, stateEvent, VARIED_RECORDS } from './gameStore.contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'chess-sqlite-store-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newFile = () => join(dir, `store-${++files}.sqlite`);

runGameStoreContract('SqliteGameStore :memory:', async () => SqliteGameStore.open(':memory:'));
runGameStoreContract('SqliteGameStore file', async () => SqliteGameStore.open(newFile()));
runChallengeStoreContract('SqliteGameStore :memory:', async () => SqliteGameStore.open(':memory:'));
runChallengeStoreContract('SqliteGameStore file', async () => SqliteGameStore.open(newFile()));
runSeekStoreContract('SqliteGameStore :memory:', async () => SqliteGameStore.open(':memory:'));
runSeekStoreContract('SqliteGameStore file', async () => SqliteGameStore.open(newFile()), {
  sameData: async () => {
    const path = newFile();
    return async () => SqliteGameStore.open(path);
  },
});
runChatStoreContract('SqliteGameStore :memory:', async () => SqliteGameStore.open(':memory:'));
runChatStoreContract('SqliteGameStore file', async () => SqliteGameStore.open(newFile()));
runHistoryStoreContract('SqliteGameStore file', async () => SqliteGameStore.open(newFile()));
runRatingStoreContract('SqliteGameStore :memory:', async () => SqliteGameStore.open(':memory:'));
runRatingStoreContract('SqliteGameStore file', async () => SqliteGameStore.open(newFile()));
runAccountStoreContract('SqliteGameStore file', async () => SqliteGameStore.open(newFile()));

test('SQLite file: records survive closing and opening the file again', async (t: TestContext) => {
  const path = newFile();
  const first = SqliteGameStore.open(path);
  const records = VARIED_RECORDS();
  for (const record of records) t.assert.equal(await first.create(record), true);
  const updated = { ...records[1]!, version: records[1]!.version + 1, moves: [...records[1]!.moves, 'b8c6'] };
  t.assert.equal(await first.update(updated, records[1]!.version), true);
  const secret = await first.secret();
  await first.close();

  const second = SqliteGameStore.open(path); // migrations run again on an existing file
  t.after(() => second.close());
  t.assert.deepEqual(await second.get(records[0]!.id), records[0]);
  t.assert.deepEqual(await second.get(updated.id), updated);
  for (const record of records.slice(2)) t.assert.deepEqual(await second.get(record.id), record);
  // The version check holds across the reopening.
  t.assert.equal(await second.update({ ...updated, version: updated.version + 1 }, records[1]!.version), false);
  t.assert.equal(await second.create(records[0]!), false);
  // The secret is the file's: kept by a reopening, another file's is another.
  t.assert.equal(await second.secret(), secret);
  const other = SqliteGameStore.open(newFile());
  t.after(() => other.close());
  t.assert.notEqual(await other.secret(), secret);
});

test('SQLite in memory: each store is a database of its own, migrated as a file is, with a secret of its own', async (t: TestContext) => {
  const [one, two] = [SqliteGameStore.open(':memory:'), SqliteGameStore.open(':memory:')];
  const file = SqliteGameStore.open(newFile());
  t.after(() => Promise.all([one.close(), two.close(), file.close()]));
  t.assert.notEqual(await one.secret(), await two.secret());
  t.assert.match(await one.secret(), /^[0-9a-f]{64}$/);
  const record = makeRecord();
  t.assert.equal(await one.create(record), true);
  t.assert.deepEqual(await one.get(record.id), record);
  t.assert.equal(await two.get(record.id), undefined);
  t.assert.equal(await two.create(record), true, 'the same id is free in another store');
  // The same tables, indexes and migrations as a file's.
  const schema = (store: SqliteGameStore) =>
    (store as unknown as { db: Database.Database }).db
      .prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
      .all();
  t.assert.deepEqual(schema(two), schema(file));
  const versions = (store: SqliteGameStore) =>
    (store as unknown as { db: Database.Database }).db.prepare('SELECT version, name FROM schema_migrations').all();
  t.assert.deepEqual(versions(two), versions(file));
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
  t.assert.equal(await one.secret(), await two.secret(), 'one secret for every connection to the file');
});

test('SQLite file: writes through two connections to one file list most recently changed first', async (t: TestContext) => {
  // Each connection keeps the highest seq it gave and reads it again only when the other has committed since.
  const path = newFile();
  const one = SqliteGameStore.open(path);
  const two = SqliteGameStore.open(path);
  t.after(() => Promise.all([one.close(), two.close()]));
  const [a, b, c] = [makeRecord(), makeRecord(), makeRecord()];
  await one.create(a);
  await one.create(b);
  await two.create(c); // after b, though `one` wrote the last two
  t.assert.equal(await one.update({ ...a, version: 2, moves: ['e2e4'] }, 1), true); // a is changed last
  const ids = async (store: SqliteGameStore) =>
    (await store.listGames({ status: 'all', limit: 10 })).map(({ record }) => record.id);
  t.assert.deepEqual(await ids(one), [a.id, c.id, b.id]);
  t.assert.deepEqual(await ids(two), [a.id, c.id, b.id]);
  t.assert.equal(await two.update({ ...b, version: 2, moves: ['d2d4'] }, 1), true);
  t.assert.equal(await one.update({ ...c, version: 2, moves: ['c2c4'] }, 1), true);
  t.assert.deepEqual(await ids(two), [c.id, b.id, a.id]);
  const seqs = (await one.listGames({ status: 'all', limit: 10 })).map(({ seq }) => seq);
  t.assert.equal(new Set(seqs).size, 3, `distinct places in the order: ${seqs.join(', ')}`);
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

test('SQLite group commit: writes asked for together all land, each judged in the order asked', async (t: TestContext) => {
  const path = newFile();
  const store = SqliteGameStore.open(path);
  const records = Array.from({ length: 200 }, () => makeRecord());
  // Asked for in one turn of the event loop: one batch.
  const created = await Promise.all(records.map(record => store.create(record)));
  t.assert.deepEqual(
    created,
    records.map(() => true),
  );
  // Two updates of one game from the same version in one batch: the first asked wins, the second loses.
  const first = records.map(record =>
    store.update({ ...record, version: 2, moves: ['e2e4'] }, 1, stateEvent(['e2e4'])),
  );
  const second = records.map(record => store.update({ ...record, version: 2, moves: ['d2d4'] }, 1));
  t.assert.deepEqual(
    await Promise.all(first),
    records.map(() => true),
  );
  t.assert.deepEqual(
    await Promise.all(second),
    records.map(() => false),
  );
  for (const record of records) {
    t.assert.deepEqual(
      (await store.changesSince(record.id, 1)).map(change => change.event.state.moves),
      [['e2e4']],
    );
  }
  await store.close();

  const reopened = SqliteGameStore.open(path);
  t.after(() => reopened.close());
  for (const record of records) {
    t.assert.deepEqual(await reopened.get(record.id), { ...record, version: 2, moves: ['e2e4'] });
    // The change log is the process's own (in memory): a reopened store starts with an empty one.
    t.assert.deepEqual(await reopened.changesSince(record.id, 0), []);
  }
});

test('SQLite group commit: a write asked for in the next turn of the event loop joins the batch', async (t: TestContext) => {
  const path = newFile();
  const store = SqliteGameStore.open(path);
  t.after(() => store.close());
  const [early, late] = [makeRecord(), makeRecord()];
  let earlyDone = false;
  const first = store.create(early).finally(() => (earlyDone = true));
  // This immediate runs in the turn of the first write, after the store's own: the batch has not committed, and
  // waits for the next turn, whose poll would read the requests other connections sent meanwhile. A write asked
  // for now, as such a request's would be, goes into the same batch.
  const { second } = await new Promise<{ second: Promise<boolean> }>(resolve =>
    setImmediate(() => {
      t.assert.equal(earlyDone, false, 'the first write is not committed before the next turn');
      resolve({ second: store.create(late) });
    }),
  );
  let lateDone = false;
  void second.finally(() => (lateDone = true));
  t.assert.equal(await first, true);
  // Settled by the same commit: no other turn of the event loop comes between the two.
  await new Promise<void>(resolve => queueMicrotask(resolve));
  t.assert.equal(lateDone, true, 'the second write was committed with the first');
  t.assert.equal(await second, true);
  t.assert.deepEqual(await store.get(late.id), late);
});

test('SQLite group commit: a write that fails takes no other write of its batch with it', async (t: TestContext) => {
  const store = SqliteGameStore.open(newFile());
  t.after(() => store.close());
  const [bad, good] = [makeRecord(), makeRecord()];
  await Promise.all([store.create(bad), store.create(good)]);
  // Asked for first, so that it runs in the batch that is rolled back, then again alone.
  const logged = store.update({ ...good, version: 2, moves: ['g1f3'] }, 1, stateEvent(['g1f3']));
  // A version the table refuses (NOT NULL): this write throws inside the batch's transaction.
  const failing = store.update({ ...bad, version: null as unknown as number, moves: ['d2d4'] }, 1);
  const fresh = makeRecord();
  const others = [logged, store.create(fresh)];
  await t.assert.rejects(failing, /NOT NULL constraint failed/);
  t.assert.deepEqual(await Promise.all(others), [true, true]);
  t.assert.deepEqual(await store.get(fresh.id), fresh);
  t.assert.deepEqual((await store.get(good.id))!.moves, ['g1f3']);
  t.assert.deepEqual(await store.get(bad.id), bad);
  // The update ran in the batch rolled back, then alone, and committed once: its change is logged once, by the
  // retry.
  t.assert.deepEqual(
    (await store.changesSince(good.id, 0)).map(change => [change.version, change.event.state.moves]),
    [[2, ['g1f3']]],
  );
});

test('SQLite group commit: close commits the writes still waiting; writes after close reject', async (t: TestContext) => {
  const path = newFile();
  const store = SqliteGameStore.open(path);
  const record = makeRecord();
  const created = store.create(record);
  await store.close(); // before the batch's turn came
  t.assert.equal(await created, true);
  await t.assert.rejects(store.create(makeRecord()), /not open/);

  const reopened = SqliteGameStore.open(path);
  t.after(() => reopened.close());
  t.assert.deepEqual(await reopened.get(record.id), record);
});

test('SQLite file: a thread of its own checkpoints the WAL into the database file', async (t: TestContext) => {
  const path = newFile();
  // The thread checkpoints every 250 writes here (the service's interval is longer), and 500 creates in batches of
  // 50 are twice that, so that its second checkpoint comes after the last write, with far fewer WAL pages (about
  // 1500) than the store connection's own threshold (8000), so only the thread can move these pages out of the WAL.
  const done: CheckpointDone[] = [];
  let second: () => void = () => undefined;
  const secondDone = new Promise<void>(resolve => (second = resolve));
  const store = SqliteGameStore.open(path, {
    checkpointEveryWrites: 250,
    onCheckpoint: checkpoint => {
      if (done.push(checkpoint) === 2) second();
    },
  });
  t.after(() => store.close());
  const records = Array.from({ length: 500 }, () => makeRecord());
  for (let i = 0; i < records.length; i += 50) {
    const batch = records.slice(i, i + 50);
    t.assert.deepEqual(
      await Promise.all(batch.map(record => store.create(record))),
      batch.map(() => true),
    );
  }
  // Once the thread has reported its second checkpoint, asked for after the last write, nothing writes the database
  // file any more: a copy of it (without its WAL) is exactly what the file itself holds, never a page half written.
  await secondDone;
  t.assert.equal(done.length, 2, 'a checkpoint at 250 and one at 500 writes');
  t.assert.deepEqual(
    { busy: done[1]!.busy, copied: done[1]!.checkpointed },
    { busy: false, copied: done[1]!.log },
    'the whole WAL was copied',
  );
  const copy = `${path}.copy`;
  copyFileSync(path, copy);
  const db = new Database(copy, { readonly: true });
  t.after(() => db.close());
  const tables = db.prepare<[], { n: number }>("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'games'");
  t.assert.equal(tables.get()!.n, 1);
  t.assert.equal(db.prepare<[], { n: number }>('SELECT count(*) AS n FROM games').get()!.n, records.length);
});

test('SQLite file: under a steady stream of writes the WAL is rewound and stays small', async (t: TestContext) => {
  const path = newFile();
  const store = SqliteGameStore.open(path);
  t.after(() => store.close());
  // 40,000 creates in batches of 10, the next asked for as soon as one commits: a WAL that is never rewound
  // holds every page these commits wrote (68 MiB with a checkpoint thread alone, the store's own checkpoints off);
  // one that is rewound at the connection's 8000 pages of 4 KiB (31.25 MiB) never holds more than those pages and
  // the pages of the batch that crossed the threshold (a few KiB).
  let largest = 0;
  for (let i = 0; i < 4000; i++) {
    const batch = Array.from({ length: 10 }, () => makeRecord());
    await Promise.all(batch.map(record => store.create(record)));
    largest = Math.max(largest, statSync(`${path}-wal`).size);
  }
  t.diagnostic(`largest WAL ${(largest / 1048576).toFixed(1)} MiB`);
  t.assert.ok(largest <= (8000 + 256) * 4096, `the WAL reached ${(largest / 1048576).toFixed(1)} MiB`);
});

test(
  'SQLite file: a checkpoint thread that opens after its file was removed stops, and makes no file there',
  { timeout: 10_000 },
  async (t: TestContext) => {
    // As when a store's file is removed before its thread has opened its connection (a busy machine): the thread must
    // not leave an empty database where the store will write its own again.
    const path = newFile();
    let checkpoints: Checkpointer | undefined;
    t.after(() => checkpoints?.close());
    // The thread keeps no event loop alive; this does meanwhile, else a run with nothing else to do ends before it.
    const alive = setInterval(() => undefined, 1_000);
    try {
      await new Promise<void>(lost => (checkpoints = new Checkpointer(path, lost)));
    } finally {
      clearInterval(alive);
    }
    t.assert.equal(existsSync(path), false);
  },
);

test('SQLite file: a second close waits for the first; then the WAL is gone', async (t: TestContext) => {
  const path = newFile();
  const store = SqliteGameStore.open(path);
  await Promise.all(Array.from({ length: 100 }, () => store.create(makeRecord())));
  await sleep(500); // the checkpoint thread has its connection open by now
  t.assert.ok(existsSync(`${path}-wal`));
  void store.close();
  await store.close();
  // The last connection to close (the checkpoint thread's) checkpoints the WAL and deletes it.
  t.assert.equal(existsSync(`${path}-wal`), false);
});

/** Moves that are only strings to the store: ply i of a line is `a${i}b${i}`, for plies from to to (excluded). */
const plies = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `a${from + i}b${from + i}`);

test('a game is stored as its small fields, a row per move before its tail, and its last moves in its games row: a change writes only what changed', async (t: TestContext) => {
  const store = SqliteGameStore.open(':memory:');
  t.after(() => store.close());
  // 19 rows: 17 played, 2 to redo. Rows 0-15 go to game_moves, the last 3 (fewer than 16) stay in the games row.
  const record = makeRecord({ moves: plies(0, 17), redo: ['r18', 'r17'] });
  await store.create(record);
  const db = (store as unknown as { db: Database.Database }).db;
  const rows = () =>
    db.prepare('SELECT ply, uci FROM game_moves WHERE game_id = ? ORDER BY ply').all(record.id) as Array<{
      ply: number;
      uci: string;
    }>;
  const written = (write: () => Promise<boolean>) => async () => {
    const before = (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
    t.assert.equal(await write(), true);
    return (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n - before;
  };
  t.assert.deepEqual(
    rows().map(row => row.uci),
    plies(0, 16),
  );
  t.assert.deepEqual(await store.get(record.id), record);
  // An undo: the line's rows are the same (no clock here), so only the games row is written.
  const undone = { ...record, version: 2, moves: plies(0, 16), redo: ['r18', 'r17', 'a16b16'] };
  t.assert.equal(await written(() => store.update(undone, 1, undefined, undefined, record))(), 1);
  t.assert.deepEqual(await store.get(record.id), undone);
  // A move after the undo replaces the tail: the games row alone.
  const moved = { ...undone, version: 3, moves: [...plies(0, 16), 'd2d4'], redo: [] };
  t.assert.equal(await written(() => store.update(moved, 2, undefined, undefined, undone))(), 1);
  t.assert.deepEqual(await store.get(record.id), moved);
  t.assert.equal(rows().length, 16);
  // Moves up to a full tail: the games row alone each, then the move that fills it writes the tail's 16 rows.
  let previous = moved;
  for (let length = 18; length <= 32; length++) {
    const next = { ...previous, version: previous.version + 1, moves: [...previous.moves, `a${length}b${length}`] };
    const changes = await written(() => store.update(next, previous.version, undefined, undefined, previous))();
    t.assert.equal(changes, length === 32 ? 17 : 1, `the move to ${length} plies`);
    previous = next;
  }
  t.assert.deepEqual(
    rows().map(row => row.uci),
    previous.moves,
  );
  t.assert.deepEqual(await store.get(record.id), previous);
  // A takeback to 10 plies: the rows of game_moves are deleted, the 10 moves are the games row's tail.
  const takenBack = { ...previous, version: previous.version + 1, moves: previous.moves.slice(0, 10) };
  t.assert.equal(await written(() => store.update(takenBack, previous.version, undefined, undefined, previous))(), 33);
  t.assert.deepEqual(rows(), []);
  t.assert.deepEqual(await store.get(record.id), takenBack);
});

test('a game stored before tails were kept (every move a row of game_moves) is read and changed as any other', async (t: TestContext) => {
  const store = SqliteGameStore.open(':memory:');
  t.after(() => store.close());
  const record = makeRecord({ moves: plies(0, 20), redo: [] });
  await store.create(record);
  // As the service wrote it before: all 20 rows in game_moves, no tail in the games row.
  const db = (store as unknown as { db: Database.Database }).db;
  const put = db.prepare('INSERT OR REPLACE INTO game_moves (game_id, ply, uci, clock) VALUES (?, ?, ?, NULL)');
  record.moves.forEach((uci, ply) => put.run(record.id, ply, uci));
  db.prepare("UPDATE games SET data = json_remove(data, '$.tailFrom', '$.tail') WHERE id = ?").run(record.id);
  t.assert.deepEqual(await store.get(record.id), record);
  let previous = (await store.get(record.id))!;
  for (let length = 21; length <= 33; length++) {
    const next = { ...previous, version: previous.version + 1, moves: [...previous.moves, `a${length}b${length}`] };
    t.assert.equal(await store.update(next, previous.version, undefined, undefined, previous), true);
    t.assert.deepEqual(await store.get(record.id), next, `after the move to ${length} plies`);
    previous = next;
  }
  const undone = { ...previous, version: previous.version + 1, moves: previous.moves.slice(0, 18) };
  t.assert.equal(await store.update(undone, previous.version, undefined, undefined, previous), true);
  t.assert.deepEqual(await store.get(record.id), undone);
});
