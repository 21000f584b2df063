/**
 * A restart on the same SQLite file: close the app and the store, open new ones on the file, and every game
 * reads the same (full GET, legal moves, export/fen, export/pgn) and keeps working from where it was.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import { gameWithMoves, importFen, json, makeTestApp, snapshotGame, type Inject } from '../helpers/app.ts';

const game = (id: string) => `/api/board/game/${id}`;

async function ok(call: Inject, method: 'GET' | 'POST', url: string, payload?: object) {
  const res = await call({ method, url, ...(payload ? { payload } : {}) });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res;
}

/** Opens an app on the file; `stop` closes the app and then the store, as a shutdown does. */
async function start(path: string) {
  const store = SqliteGameStore.open(path);
  const { app } = await makeTestApp({ store });
  const call: Inject = request => app.inject(request);
  return {
    app,
    call,
    stop: async () => {
      await app.close();
      await store.close();
    },
  };
}

test('after a restart on the same SQLite file every game reads the same and keeps working', async (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'chess-restart-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'data', 'chess.sqlite');

  // 1. Before: one game for each kind of stored state.
  const before = await start(path);
  const { app, call } = before;
  const movesId = await gameWithMoves(app, ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1b5', 'a7a6', 'e1g1'], {
    white: { id: 'w-1', displayName: 'White "Quoted" Ü' },
    black: { id: 'b-1', displayName: 'Black 😀' },
  });
  const undoneId = await gameWithMoves(app, ['d2d4', 'd7d5', 'c2c4', 'e7e6']);
  await ok(call, 'POST', `${game(undoneId)}/undo`);
  await ok(call, 'POST', `${game(undoneId)}/undo`);
  const promotionId = await importFen(app, '1n6/P6k/8/8/8/8/8/K7 w - - 0 40');
  await ok(call, 'POST', `${game(promotionId)}/move/a7b8`);
  const drawOfferId = await gameWithMoves(app, ['e2e4', 'c7c5']);
  await ok(call, 'POST', `${game(drawOfferId)}/draw/offer`);
  const resignedId = await gameWithMoves(app, ['e2e4', 'e7e5']);
  await ok(call, 'POST', `${game(resignedId)}/undo`);
  await ok(call, 'POST', `${game(resignedId)}/resign`);
  const agreedId = await gameWithMoves(app, ['g1f3']);
  await ok(call, 'POST', `${game(agreedId)}/draw/offer`);
  await ok(call, 'POST', `${game(agreedId)}/draw/accept`);
  const claimableId = await importFen(app, '7k/8/8/8/8/8/8/K5R1 w - - 99 80');
  await ok(call, 'POST', `${game(claimableId)}/move/g1g2`);
  const matedId = await gameWithMoves(app, ['f2f3', 'e7e5', 'g2g4', 'd8h4']);
  const fenId = json(
    await ok(call, 'POST', '/api/board/game/import/fen', {
      fen: 'r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 3 20',
      white: { id: 'fw', displayName: 'Fen White' },
    }),
  ).gameId;
  const pgnId = json(
    await ok(call, 'POST', '/api/board/game/import/pgn', {
      pgn: '[White "Pgn White"]\n[Black "Pgn Black"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. O-O Be7 *',
    }),
  ).gameId;
  await ok(call, 'POST', `${game(pgnId)}/undo`);

  const ids = {
    moves: movesId,
    undone: undoneId,
    promotion: promotionId,
    drawOffer: drawOfferId,
    resigned: resignedId,
    agreed: agreedId,
    claimable: claimableId,
    mated: matedId,
    fen: fenId,
    pgn: pgnId,
  };
  const states: Record<string, Record<string, unknown>> = {};
  for (const [kind, id] of Object.entries(ids)) states[kind] = await snapshotGame(call, id);
  // The kinds are what they claim to be.
  const status = (kind: string) => (states[kind]!.game as any).state;
  t.assert.equal(status('undone').redoAvailable, true);
  t.assert.equal(status('promotion').status, 'promotionPending');
  t.assert.equal(status('drawOffer').status, 'drawOffered');
  t.assert.deepEqual([status('resigned').status, status('resigned').winner], ['resign', 'white']); // black resigned
  t.assert.equal(status('agreed').status, 'draw');
  t.assert.equal(status('claimable').status, 'fiftyMoveAvailable');
  t.assert.equal(status('mated').status, 'checkmate');
  t.assert.deepEqual([status('pgn').undoAvailable, status('pgn').redoAvailable], [true, true]);
  await before.stop();

  // 2. After: new store, new service (empty cache), new app on the same file.
  const after = await start(path);
  t.after(() => after.stop());
  for (const [kind, id] of Object.entries(ids)) {
    t.assert.deepEqual(await snapshotGame(after.call, id), states[kind], `${kind} game ${id} after the restart`);
  }

  // 3. The games go on from where they were.
  const post = async (id: string, suffix: string) => json(await ok(after.call, 'POST', `${game(id)}${suffix}`));
  t.assert.deepEqual((await post(undoneId, '/redo')).moves, ['d2d4', 'd7d5', 'c2c4']);
  t.assert.equal((await post(promotionId, '/move/a7b8q')).pgn, '40. axb8=Q');
  await post(drawOfferId, '/draw/accept');
  t.assert.equal(json(await after.call(game(drawOfferId))).state.status, 'draw');
  await post(claimableId, '/draw/claim');
  t.assert.equal(json(await after.call(game(claimableId))).state.status, 'draw');
  t.assert.equal((await post(matedId, '/undo')).status, 'started');
  t.assert.equal((await post(fenId, '/move/e8c8')).pgn, '20... O-O-O');
  t.assert.equal((await post(pgnId, '/redo')).pgn, '1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. O-O Be7');
  t.assert.equal((await post(movesId, '/move/g8f6')).moves.length, 8);
  for (const id of [resignedId, agreedId]) {
    const res = await after.call({ method: 'POST', url: `${game(id)}/undo` });
    t.assert.deepEqual([res.statusCode, json(res).code], [400, 'GAME_OVER']);
  }
  // New games get new ids next to the old ones.
  const fresh = await gameWithMoves(after.app);
  t.assert.ok(!Object.values(ids).includes(fresh));
});

test('a change acknowledged by a running app is read by a second app opened on the same file', async (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'chess-restart-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'chess.sqlite');
  const first = await start(path);
  const id = await gameWithMoves(first.app, ['e2e4', 'e7e5']);
  await ok(first.call, 'POST', `${game(id)}/draw/offer`);
  const expected = await snapshotGame(first.call, id);
  // A second process opens the file while the first still runs: it reads the committed state.
  const second = await start(path);
  t.after(() => second.stop());
  t.assert.deepEqual(await snapshotGame(second.call, id), expected);
  await first.stop();
  t.assert.deepEqual(await snapshotGame(second.call, id), expected);
});
