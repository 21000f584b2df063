/**
 * Clocks over HTTP (DECISIONS §14), on fake time (node:test's mock timers drive both Date and setTimeout): the
 * clock of create and the imports and its validation, the clock fields of every answer, the abort, and games that
 * end by themselves at their deadline, with no request, once.
 */
import { test, type TestContext } from 'node:test';
import { assertError, json, makeCheckedApp, type CheckedTestApp } from '../helpers/app.ts';
import { settle } from '../helpers/store.ts';

const BASE = '/api/board/game';
const T0 = Date.parse('2026-03-01T10:00:00.000Z');

/** An app on fake time, starting at T0. */
async function onFakeTime(t: TestContext): Promise<CheckedTestApp> {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: T0 });
  return makeCheckedApp(t);
}

const create = (call: CheckedTestApp['call'], payload: object) => call({ method: 'POST', url: BASE, payload });
const post = (call: CheckedTestApp['call'], id: string, path: string) =>
  call({ method: 'POST', url: `${BASE}/${id}/${path}` });

test('a bad clock is INVALID_BODY naming its field, on create and both imports, and creates nothing', async (t: TestContext) => {
  const { call } = await makeCheckedApp(t);
  const rows: Array<[unknown, string]> = [
    [{ initial: 999, increment: 0 }, 'clock.initial'],
    [{ initial: 10_800_001, increment: 0 }, 'clock.initial'],
    [{ initial: 60_000.5, increment: 0 }, 'clock.initial'],
    [{ initial: '60000', increment: 0 }, 'clock.initial'],
    [{ initial: 60_000, increment: 180_001 }, 'clock.increment'],
    [{ initial: 60_000, increment: -1 }, 'clock.increment'],
    [{ initial: 60_000 }, 'clock.increment'],
    [{ increment: 0 }, 'clock.initial'],
    [{ daysPerMove: 0 }, 'clock.daysPerMove'],
    [{ daysPerMove: 15 }, 'clock.daysPerMove'],
    [{ daysPerMove: 3, initial: 60_000, increment: 0 }, 'clock'],
    [{}, 'clock'],
    ['5+3', 'clock'],
  ];
  for (const [clock, field] of rows) {
    assertError(await create(call, { clock }), 'INVALID_BODY', field);
    const fen = '7k/8/8/8/8/8/8/K5R1 w - - 0 1';
    assertError(
      await call({ method: 'POST', url: `${BASE}/import/fen`, payload: { fen, clock } }),
      'INVALID_BODY',
      field,
    );
    assertError(
      await call({ method: 'POST', url: `${BASE}/import/pgn`, payload: { pgn: '1. e4 *', clock } }),
      'INVALID_BODY',
      field,
    );
  }
  for (const clock of [
    { initial: 1_000, increment: 0 },
    { initial: 10_800_000, increment: 180_000 },
    { daysPerMove: 14 },
  ]) {
    t.assert.equal((await create(call, { clock })).statusCode, 201, JSON.stringify(clock));
  }
});

test('a clocked game answers its clock and the times of both sides, read when the answer is made', async (t: TestContext) => {
  const { call } = await onFakeTime(t);
  const created = json(await create(call, { clock: { initial: 180_000, increment: 2_000 } }));
  t.assert.deepEqual(created.clock, { initial: 180_000, increment: 2_000 });
  const fields = (state: any) => [state.wtime, state.btime, state.winc, state.binc, state.serverTime];
  t.assert.deepEqual(fields(created.state), [180_000, 180_000, 2_000, 2_000, T0]);
  t.mock.timers.tick(10_000);
  t.assert.deepEqual(fields(json(await post(call, created.gameId, 'move/e2e4'))), [
    180_000,
    180_000,
    2_000,
    2_000,
    T0 + 10_000,
  ]);
  t.mock.timers.tick(20_000);
  await post(call, created.gameId, 'move/e7e5'); // both have moved: white's clock runs from now
  t.mock.timers.tick(7_000);
  const read = json(await call(`${BASE}/${created.gameId}`)).state;
  t.assert.deepEqual(fields(read), [173_000, 180_000, 2_000, 2_000, T0 + 37_000]);
  t.mock.timers.tick(1_000);
  t.assert.equal(
    json(await call(`${BASE}/${created.gameId}`)).state.wtime,
    172_000,
    'each read reads the clock afresh',
  );
  const moved = json(await post(call, created.gameId, 'move/g1f3'));
  t.assert.deepEqual(fields(moved), [174_000, 180_000, 2_000, 2_000, T0 + 38_000]);

  const untimed = json(await create(call, {}));
  t.assert.equal(untimed.clock, null);
  t.assert.deepEqual(
    Object.keys(untimed.state).filter(key => /time|inc|deadline/.test(key)),
    [],
  );
});

test('a game flags by itself at its deadline, with no request: outOfTime, the other side wins, one change', async (t: TestContext) => {
  const { call, store } = await onFakeTime(t);
  const id = json(await create(call, { clock: { initial: 5_000, increment: 0 } })).gameId;
  await post(call, id, 'move/e2e4');
  await post(call, id, 'move/e7e5');
  const version = json(await call(`${BASE}/${id}`)).state.moves.length;
  t.assert.equal(version, 2);
  t.mock.timers.tick(4_999);
  await settle();
  t.assert.equal(json(await call(`${BASE}/${id}`)).state.status, 'started');
  t.mock.timers.tick(1);
  await settle();
  const state = json(await call(`${BASE}/${id}`)).state;
  t.assert.deepEqual([state.status, state.winner, state.wtime, state.btime], ['outOfTime', 'black', 0, 5_000]);
  const logged = await store.changesSince(id, 0);
  t.assert.deepEqual(
    logged.map(change => change.event.state.status),
    ['started', 'started', 'outOfTime'],
    'the flag is one change with its event',
  );
  t.mock.timers.tick(60_000);
  await settle();
  t.assert.equal((await store.changesSince(id, 0)).length, 3, 'and only one');
  assertError(await post(call, id, 'move/g1f3'), 'GAME_OVER');
  assertError(await post(call, id, 'undo'), 'GAME_OVER');
  assertError(await post(call, id, 'takeback/offer'), 'GAME_OVER');
});

test('a request after the deadline, before the timer has run, is judged on the flagged game; the flag is recorded once', async (t: TestContext) => {
  const { call, store } = await onFakeTime(t);
  const id = json(await create(call, { clock: { initial: 5_000, increment: 0 } })).gameId;
  await post(call, id, 'move/e2e4');
  await post(call, id, 'move/e7e5');
  t.mock.timers.setTime(T0 + 6_000); // the clock says so, but no timer has run yet
  const late = assertError(await post(call, id, 'move/g1f3'), 'GAME_OVER');
  t.assert.match(late.message, /outOfTime/);
  t.mock.timers.tick(1_000); // now the timer runs, and finds the game over
  await settle();
  const statuses = (await store.changesSince(id, 0)).map(change => change.event.state.status);
  t.assert.deepEqual(statuses, ['started', 'started', 'outOfTime']);
});

test('abort: until both sides have moved, by a seat or the service; then ABORT_NOT_AVAILABLE; an untimed game cannot', async (t: TestContext) => {
  const { call } = await onFakeTime(t);
  const clock = { initial: 60_000, increment: 0 };
  const fresh = json(await create(call, { clock })).gameId;
  t.assert.deepEqual(json(await post(call, fresh, 'abort')), { ok: true });
  const aborted = json(await call(`${BASE}/${fresh}`)).state;
  t.assert.deepEqual([aborted.status, aborted.winner], ['aborted', null]);
  assertError(await post(call, fresh, 'abort'), 'GAME_OVER');
  const started = json(await create(call, { clock })).gameId;
  await post(call, started, 'move/e2e4');
  await post(call, started, 'move/e7e5');
  assertError(await post(call, started, 'abort'), 'ABORT_NOT_AVAILABLE');
  assertError(await post(call, json(await create(call, {})).gameId, 'abort'), 'ABORT_NOT_AVAILABLE');
});

test('the service aborts a game whose first mover has not moved within 60 s, and one whose reply has not come within 60 s of it', async (t: TestContext) => {
  const { call } = await onFakeTime(t);
  const clock = { initial: 600_000, increment: 0 };
  const idle = json(await create(call, { clock })).gameId;
  const answered = json(await create(call, { clock })).gameId;
  t.mock.timers.tick(30_000);
  await post(call, answered, 'move/e2e4'); // black's 60 s start now
  t.mock.timers.tick(30_000);
  await settle();
  t.assert.equal(json(await call(`${BASE}/${idle}`)).state.status, 'aborted');
  t.assert.equal(json(await call(`${BASE}/${answered}`)).state.status, 'started');
  t.mock.timers.tick(30_000);
  await settle();
  t.assert.equal(json(await call(`${BASE}/${answered}`)).state.status, 'aborted');
});

test('an undo back before both first moves stops the clock again: abort is available, the first-move timeout restarts', async (t: TestContext) => {
  const { call } = await onFakeTime(t);
  const clock = { initial: 600_000, increment: 5_000 };
  const idle = json(await create(call, { clock })).gameId;
  const aborted = json(await create(call, { clock })).gameId;
  for (const id of [idle, aborted]) {
    await post(call, id, 'move/e2e4');
    await post(call, id, 'move/e7e5');
  }
  t.mock.timers.tick(30_000);
  for (const id of [idle, aborted]) t.assert.deepEqual(json(await post(call, id, 'undo')).moves, ['e2e4']);
  t.assert.deepEqual(json(await post(call, aborted, 'abort')), { ok: true });
  t.assert.equal(json(await call(`${BASE}/${aborted}`)).state.status, 'aborted');
  t.mock.timers.tick(59_999);
  await settle();
  const waiting = json(await call(`${BASE}/${idle}`)).state;
  t.assert.deepEqual([waiting.status, waiting.wtime, waiting.btime], ['started', 570_000, 600_000], 'no clock runs');
  t.mock.timers.tick(1);
  await settle();
  t.assert.equal(json(await call(`${BASE}/${idle}`)).state.status, 'aborted', "black's first move not made in 60 s");
});

test('a correspondence game tells its deadline; its PGN has TimeControl "-"; a real-time PGN has the clocks', async (t: TestContext) => {
  const { call } = await onFakeTime(t);
  const id = json(await create(call, { clock: { daysPerMove: 3 } })).gameId;
  t.assert.equal(json(await post(call, id, 'move/e2e4')).deadline, null);
  t.mock.timers.tick(3_600_000);
  const state = json(await post(call, id, 'move/e7e5'));
  t.assert.equal(state.deadline, new Date(T0 + 3_600_000 + 3 * 86_400_000).toISOString());
  t.assert.match((await call(`${BASE}/${id}/export/pgn`)).body, /\[TimeControl "-"\]/);

  const blitz = json(await create(call, { clock: { initial: 300_000, increment: 3_000 } })).gameId;
  for (const uci of ['e2e4', 'e7e5', 'g1f3']) {
    t.mock.timers.tick(1_500);
    await post(call, blitz, `move/${uci}`);
  }
  const pgn = (await call(`${BASE}/${blitz}/export/pgn`)).body;
  t.assert.match(pgn, /\[TimeControl "300\+3"\]/);
  t.assert.match(
    pgn.replace(/\s+/g, ' '),
    /1\. e4 \{\[%clk 0:05:00\]\} 1\.\.\. e5 \{\[%clk 0:05:00\]\} 2\. Nf3 \{\[%clk 0:05:01\]\} \*/,
  );
  const again = json(await call({ method: 'POST', url: `${BASE}/import/pgn`, payload: { pgn } }));
  t.assert.deepEqual(again.state.moves, ['e2e4', 'e7e5', 'g1f3']);
  t.assert.equal(again.clock, null, 'an import takes no clock from the PGN');
});
