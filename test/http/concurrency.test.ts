/**
 * Concurrent requests on one game (DECISIONS §11, STYLE §6): changes are serialized, none is lost and none is
 * applied twice, on one app and on two apps sharing one SQLite file. A burst of mixed requests must end in a
 * state that some serial order of the acknowledged ones reaches: the test searches for such an order with the
 * domain transitions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { restoreGame } from '../../src/domain/game.ts';
import { MemoryGameStore } from '../../src/store/memory.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import type { GameStore } from '../../src/store/store.ts';
import {
  assertError,
  gameWithMoves,
  json,
  makeCheckedApp,
  responseChecker,
  type CheckedTestApp,
  type Inject,
} from '../helpers/app.ts';
import { findSerialOrder, labelOf, random, shuffled, urlOf, type Op } from '../helpers/serialOrder.ts';
import type { ErrorCode } from '../../src/contract/vocabulary.ts';

const game = (id: string) => `/api/board/game/${id}`;
/** The kinds of request these bursts send. */
type BurstKind = 'move' | 'undo' | 'redo' | 'offer';
/** The only rejection each kind of request may get in these bursts. */
const REJECTION: Record<BurstKind, [ErrorCode, string | undefined]> = {
  move: ['INVALID_MOVE', 'uci'],
  undo: ['NO_UNDO', undefined],
  redo: ['NO_REDO', undefined],
  offer: ['DRAW_ALREADY_OFFERED', undefined],
};
const rejectionOf = (op: Op) => REJECTION[op.kind as BurstKind];

/** Twenty requests: nine moves (some legal only in some orders), four undos, four redos, three draw offers. */
const BURST: Op[] = [
  ...['g1f3', 'b8c6', 'f1c4', 'g8f6', 'd2d4', 'd7d6', 'b1c3', 'f8c5', 'a2a3'].map(uci => ({
    kind: 'move' as const,
    uci,
  })),
  ...Array.from({ length: 4 }, () => ({ kind: 'undo' as const })),
  ...Array.from({ length: 4 }, () => ({ kind: 'redo' as const })),
  ...Array.from({ length: 3 }, () => ({ kind: 'offer' as const })),
];

/**
 * Sends `ops` at once, each through one of `calls` in turn, on a game with moves e4 e5 and Nf3 Nc6 undone (so
 * redo has work), and checks the end state against the acknowledged requests.
 */
async function mixedBurst(
  t: TestContext,
  calls: Inject[],
  read: Inject, // reads the game after the burst
  store: GameStore,
  id: string,
  ops: Op[],
): Promise<void> {
  const start = (await store.get(id))!;
  const responses = await Promise.all(
    ops.map((op, i) => calls[i % calls.length]!({ method: 'POST', url: urlOf(id, op) })),
  );
  const acknowledged: Op[] = [];
  responses.forEach((res, i) => {
    const op = ops[i]!;
    if (res.statusCode === 200) acknowledged.push(op);
    else assertError(res, ...rejectionOf(op));
  });
  const final = (await store.get(id))!;
  const count = (kind: Op['kind']) => acknowledged.filter(op => op.kind === kind).length;

  // 1. Every acknowledged change is one version, no more, no less.
  t.assert.equal(final.version, start.version + acknowledged.length, 'one version per acknowledged request');
  // 2. Moves = moves before + acknowledged moves - acknowledged undos + acknowledged redos.
  t.assert.equal(final.moves.length, start.moves.length + count('move') - count('undo') + count('redo'));
  // 3. The stored game replays cleanly, and the API shows it.
  const replayed = restoreGame(final);
  const shown = json(await read(game(id))).state;
  t.assert.deepEqual(shown.moves, final.moves);
  t.assert.equal(shown.fen, replayed.fen);
  // 4. Some serial order of exactly the acknowledged requests leads there.
  const order = findSerialOrder(restoreGame(start), acknowledged, final);
  t.assert.ok(order, `no serial order of [${acknowledged.map(labelOf).join(' ')}] gives ${JSON.stringify(final)}`);
}

async function startPosition(app: CheckedTestApp['app']): Promise<string> {
  const id = await gameWithMoves(app, ['e2e4', 'e7e5', 'g1f3', 'b8c6']);
  for (let i = 0; i < 2; i++) {
    const res = await app.inject({ method: 'POST', url: `${game(id)}/undo` });
    if (res.statusCode !== 200) throw new Error(res.body);
  }
  return id;
}

const STORES: Array<[string, () => GameStore]> = [
  ['SQLite', () => SqliteGameStore.open(':memory:')],
  ['memory', () => new MemoryGameStore()],
];

for (const [name, makeStore] of STORES) {
  test(`${name}: twenty parallel identical moves apply exactly once`, async (t: TestContext) => {
    const { app, call, store } = await makeCheckedApp(t, { store: makeStore() });
    const id = await gameWithMoves(app);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => call({ method: 'POST', url: `${game(id)}/move/e2e4` })),
    );
    const applied = responses.filter(res => res.statusCode === 200);
    t.assert.equal(applied.length, 1);
    for (const res of responses) if (res.statusCode !== 200) assertError(res, 'INVALID_MOVE', 'uci');
    const state = json(await call(game(id))).state;
    t.assert.deepEqual(state.moves, ['e2e4']);
    t.assert.deepEqual(json(applied[0]!), state);
    t.assert.equal(state.turn, 'black');
    t.assert.equal((await store.get(id))!.version, 2); // created at 1, one change
  });

  test(`${name}: twenty parallel mixed requests end where a serial order of the acknowledged ones leads`, async (t: TestContext) => {
    const { app, call, store } = await makeCheckedApp(t, { store: makeStore() });
    for (let seed = 1; seed <= 6; seed++) {
      const id = await startPosition(app);
      await mixedBurst(t, [call], call, store, id, shuffled(BURST, random(seed)));
    }
  });
}

test('two apps on one SQLite file: parallel identical moves apply once, mixed bursts stay serializable', async (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'chess-concurrency-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'games.sqlite');
  const stores = [SqliteGameStore.open(path), SqliteGameStore.open(path), SqliteGameStore.open(path)];
  t.after(() => Promise.all(stores.map(store => store.close())));
  const [one, two] = [await makeCheckedApp(t, { store: stores[0] }), await makeCheckedApp(t, { store: stores[1] })];
  const calls = [one.call, two.call];
  // SQLite promises no cache coherence between instances (DECISIONS §11 promises several instances for
  // PostgreSQL only), so results are read through a third app, which reads each game once, after its burst.
  const reader = await makeCheckedApp(t, { store: stores[2] });

  const id = await gameWithMoves(one.app);
  await two.call(game(id)); // the second app has the game cached from here on
  const responses = await Promise.all(
    Array.from({ length: 20 }, (_, i) => calls[i % 2]!({ method: 'POST', url: `${game(id)}/move/e2e4` })),
  );
  t.assert.equal(responses.filter(res => res.statusCode === 200).length, 1);
  for (const res of responses) if (res.statusCode !== 200) assertError(res, 'INVALID_MOVE', 'uci');
  const record = (await stores[0]!.get(id))!;
  t.assert.deepEqual([record.moves, record.version], [['e2e4'], 2]);

  for (let seed = 11; seed <= 14; seed++) {
    const burstId = await startPosition(one.app);
    await two.call(game(burstId));
    await mixedBurst(t, calls, reader.call, stores[0]!, burstId, shuffled(BURST, random(seed)));
  }
});

test('the response checker is used for concurrent responses too', async (t: TestContext) => {
  // Guards the helper this file relies on: a checker built for the app knows the makeMove operation.
  const { app } = await makeCheckedApp(t);
  const checker = await responseChecker(app);
  t.assert.ok(checker.operation('POST', '/api/board/game/AbCd1234/move/e2e4'));
  t.assert.equal(checker.operation('POST', '/api/board/game/AbCd1234/move'), undefined);
});

test('the serial-order search finds real orders and rejects states the requests cannot reach', (t: TestContext) => {
  const start = restoreGame({
    id: 'AbCd1234',
    version: 1,
    createdAt: '2026-01-01T00:00:00.000Z',
    white: { id: 'p1', displayName: 'Player 1' },
    black: { id: 'p2', displayName: 'Player 2' },
    startFen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
    moves: ['e2e4', 'e7e5'],
    redo: ['b8c6', 'g1f3'],
    pendingPromotion: null,
    drawOffer: null,
    takebackOffer: null,
    clock: null,
    moveClocks: [],
    result: null,
  });
  const ops: Op[] = [{ kind: 'redo' }, { kind: 'move', uci: 'g8f6' }, { kind: 'undo' }];
  // redo (Nf3), g8f6, undo: moves e4 e5 Nf3, redo [f6].
  const target = { ...start.record, moves: ['e2e4', 'e7e5', 'g1f3'], redo: ['g8f6'] };
  t.assert.deepEqual(findSerialOrder(start, ops, target)?.map(labelOf), ['redo', 'g8f6', 'undo']);
  // Two moves applied with only one acknowledged move request: no order.
  const twoMoves = { ...start.record, moves: ['e2e4', 'e7e5', 'g1f3', 'g8f6'], redo: [] };
  t.assert.equal(findSerialOrder(start, ops, twoMoves), undefined);
  // The right moves but a lost redo stack: no order either.
  t.assert.equal(findSerialOrder(start, ops, { ...target, redo: [] }), undefined);
});
