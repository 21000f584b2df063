/**
 * The engine pool against a fake UCI engine (fakeEngine.mjs, real processes): the commands it sends per level,
 * the queue and its bound, restarts after a crash or a hang, the retry bound, an engine that cannot start,
 * aborts and close. Timeouts are real and short; each test takes well under a few seconds.
 */
import { existsSync, copyFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { test, type TestContext } from 'node:test';
import { INITIAL_FEN } from 'chessops/fen';
import { DomainError } from '../../src/domain/errors.ts';
import { createEnginePool, type EngineMetrics, type SearchRequest } from '../../src/engine/index.ts';
import { defaultEnginePath, engineCommand } from '../../src/engine/uciProcess.ts';
import { fakeEngine, type FakeBehaviour } from './fakeEngine.ts';

/** The first legal moves in UCI order from the start position, as the fake engine ranks them. */
const FIRST_MOVES = ['a2a3', 'a2a4', 'b1a3', 'b1c3'];

const request = (overrides: Partial<SearchRequest> = {}): SearchRequest => ({
  fen: INITIAL_FEN,
  moves: [],
  level: 5,
  ...overrides,
});

function recorder() {
  const seen = { queued: [] as number[], running: [] as number[], searched: [] as number[], restarts: 0 };
  const metrics: EngineMetrics = {
    queued: count => seen.queued.push(count),
    running: count => seen.running.push(count),
    searched: level => seen.searched.push(level),
    restarted: () => seen.restarts++,
  };
  return { seen, metrics };
}

/** A pool on a fake engine with `behaviour`, closed and cleaned up after the test. */
function setup(t: TestContext, behaviour: FakeBehaviour = {}, options: Parameters<typeof createEnginePool>[0] = {}) {
  const fake = fakeEngine(behaviour);
  const { seen, metrics } = recorder();
  const warnings: string[] = [];
  const pool = createEnginePool({
    enginePath: fake.path,
    metrics,
    log: { warn: message => warnings.push(message) },
    ...options,
  });
  t.after(async () => {
    await pool.close();
    fake.remove();
  });
  const lines = () => fake.commands().map(c => c.line);
  const pids = () => [...new Set(fake.commands().map(c => c.pid))];
  return { pool, fake, seen, warnings, lines, pids };
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Whether process `pid` has ended within a second (a killed process lingers until its parent reaps it). */
async function ended(pid: number): Promise<boolean> {
  for (let i = 0; i < 20 && isAlive(pid); i++) await sleep(50);
  return !isAlive(pid);
}

const rejection = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    value => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );

test('a search at a level the engine takes: handshake, then the level set on the engine and a legal move', async (t: TestContext) => {
  const { pool, lines, seen } = setup(t);
  const { uci } = await pool.search(request({ moves: ['e2e4'], level: 5 }));
  t.assert.equal(uci, 'a7a5');
  t.assert.deepEqual(lines(), [
    'uci',
    'isready',
    'ucinewgame',
    'setoption name Skill Level value 7',
    'setoption name MultiPV value 1',
    `position fen ${INITIAL_FEN} moves e2e4`,
    'isready',
    'go movetime 300 depth 5',
  ]);
  t.assert.deepEqual(seen.searched, [5]);
  t.assert.deepEqual(seen.running, [1, 0]);
});

test('level 8 plays at full strength, within its clock', async (t: TestContext) => {
  const { pool, lines } = setup(t);
  t.assert.equal(await pool.available(), true); // started: its start does not count against the clock here
  await pool.search(request({ level: 8, clock: { wtime: 3_000, btime: 60_000, winc: 0, binc: 0 } }));
  t.assert.ok(lines().includes('setoption name Skill Level value 20'));
  t.assert.ok(lines().includes('setoption name MultiPV value 1'));
  const go = /^go movetime (\d+) depth 22$/.exec(lines().at(-1)!);
  const movetime = Number(go?.[1]);
  // A thirtieth of the 3 s white has left, less the few milliseconds from the request to the search.
  t.assert.ok(movetime <= 100 && movetime >= 90, `movetime ${movetime}`);
});

test('a negative skill level on an engine whose minimum is 0: four lines at full strength, one chosen by weakness', async (t: TestContext) => {
  // random() = 0: no random push, so level 1 (weakness 138) takes the worst line and level 3 (122) the best.
  const { pool, lines } = setup(t, {}, { random: () => 0 });
  t.assert.equal((await pool.search(request({ level: 1 }))).uci, FIRST_MOVES[3]);
  t.assert.ok(lines().includes('setoption name Skill Level value 20'));
  t.assert.ok(lines().includes('setoption name MultiPV value 4'));
  t.assert.equal(lines().at(-1), 'go movetime 50 depth 5');
  t.assert.equal((await pool.search(request({ level: 3 }))).uci, FIRST_MOVES[0]);
});

test('an engine that takes negative skill levels gets them as they are', async (t: TestContext) => {
  const { pool, lines } = setup(t, { skill: [-20, 20] });
  t.assert.equal((await pool.search(request({ level: 1 }))).uci, FIRST_MOVES[0]);
  t.assert.ok(lines().includes('setoption name Skill Level value -9'));
  t.assert.ok(lines().includes('setoption name MultiPV value 1'));
});

test('an engine with neither Skill Level nor MultiPV is only limited by depth and time', async (t: TestContext) => {
  const { pool, lines } = setup(t, { skill: null, multipv: null });
  t.assert.equal((await pool.search(request({ level: 2 }))).uci, FIRST_MOVES[0]);
  t.assert.ok(!lines().some(line => line.startsWith('setoption')), lines().join('\n'));
  t.assert.equal(lines().at(-1), 'go movetime 100 depth 5');
});

test('one worker: searches queue and run one at a time, first come first served', async (t: TestContext) => {
  const { pool, lines, seen, pids } = setup(t, { searchMs: 50 });
  const openings = [['e2e4'], ['d2d4'], ['c2c4'], ['g1f3']];
  const answers = await Promise.all(openings.map(moves => pool.search(request({ moves }))));
  t.assert.equal(answers.length, 4);
  const positions = lines().filter(line => line.startsWith('position'));
  t.assert.deepEqual(
    positions.map(line => line.split(' moves ')[1]),
    openings.map(moves => moves[0]),
  );
  t.assert.equal(Math.max(...seen.running), 1, 'never two searches at once');
  t.assert.equal(Math.max(...seen.queued), 3, 'the other three waited');
  t.assert.equal(seen.queued.at(-1), 0);
  t.assert.equal(pids().length, 1, 'one process for all');
});

test('two workers: two processes search at once, never more', async (t: TestContext) => {
  const { pool, seen, pids } = setup(t, { searchMs: 150 }, { workers: 2 });
  await Promise.all(Array.from({ length: 5 }, () => pool.search(request())));
  t.assert.equal(Math.max(...seen.running), 2);
  t.assert.equal(seen.running.at(-1), 0);
  t.assert.equal(pids().length, 2);
  t.assert.equal(seen.searched.length, 5);
});

test('an engine that exits mid-search is replaced and the search tried again', async (t: TestContext) => {
  const { pool, seen, pids, warnings } = setup(t, { crashOn: [1] });
  t.assert.equal((await pool.search(request())).uci, FIRST_MOVES[0]);
  t.assert.equal(seen.restarts, 1);
  t.assert.equal(pids().length, 2, 'a second process');
  t.assert.equal(await ended(pids()[0]!), true);
  t.assert.match(warnings.join('\n'), /attempt 1 of 3\): the engine exited with code 3/);
});

test('an engine that hangs past its move time and the margin is killed, replaced, and the search tried again', async (t: TestContext) => {
  // The budget's clock stands still, so that the move time is level 1's 50 ms however long the engine took to start
  // on a busy machine (its share of a clock is what fairness.test.ts checks); the hang itself is waited out in real
  // time, with the service's own margin (2 s): the engine runs below the service's priority, and on a machine busy
  // with other processes a shorter margin took the replacement's first answer for a hang too.
  const { pool, seen, pids, warnings } = setup(t, { hangOn: [1] }, { random: () => 0, now: () => 0 });
  const started = performance.now();
  t.assert.equal((await pool.search(request({ level: 1 }))).uci, FIRST_MOVES[3]);
  t.assert.ok(performance.now() - started >= 2_050, 'the hang was waited out: 50 ms move time + 2000 ms margin');
  t.assert.equal(seen.restarts, 1);
  t.assert.equal(await ended(pids()[0]!), true, 'the hung process was killed');
  t.assert.match(warnings.join('\n'), /did not answer within 2050 ms/);
});

test('an illegal answer counts as a fault: the engine is replaced and the search tried again', async (t: TestContext) => {
  const { pool, seen } = setup(t, { illegalOn: [1] });
  t.assert.equal((await pool.search(request())).uci, FIRST_MOVES[0]);
  t.assert.equal(seen.restarts, 1);
});

test('a search that fails on every attempt rejects with UNAVAILABLE; the next one gets a fresh engine', async (t: TestContext) => {
  const { pool, seen } = setup(t, { crashOn: [1, 2] }, { attempts: 2 });
  const error = await rejection(pool.search(request()));
  t.assert.ok(error instanceof DomainError);
  t.assert.equal(error.code, 'UNAVAILABLE');
  t.assert.match(error.message, /failed 2 times/);
  t.assert.equal(seen.restarts, 2);
  t.assert.equal((await pool.search(request())).uci, FIRST_MOVES[0]);
});

test('an engine path that does not exist: available() is false and searches reject with UNAVAILABLE at once', async (t: TestContext) => {
  const warnings: string[] = [];
  const pool = createEnginePool({ enginePath: '/nonexistent/engine', log: { warn: m => warnings.push(m) } });
  t.after(() => pool.close());
  t.assert.equal(warnings.length, 1, 'said at once: a service starts with a warning line');
  const started = performance.now();
  t.assert.equal(await pool.available(), false);
  const error = await rejection(pool.search(request()));
  t.assert.ok(error instanceof DomainError);
  t.assert.equal(error.code, 'UNAVAILABLE');
  t.assert.match(error.message, /the engine \/nonexistent\/engine cannot be run: ENOENT/);
  t.assert.ok(performance.now() - started < 2_000, 'no waiting for a start that cannot happen');
  t.assert.equal(warnings.length, 1, 'one warning, when the pool was made, not one per search');
});

test('an engine that exits at start: searches already queued reject too', async (t: TestContext) => {
  const { pool, pids } = setup(t, { exitAtStart: true }, { workers: 1 });
  const errors = await Promise.all([1, 2, 3].map(() => rejection(pool.search(request()))));
  for (const error of errors) {
    t.assert.ok(error instanceof DomainError);
    t.assert.equal(error.code, 'UNAVAILABLE');
    t.assert.match(error.message, /did not start: it exited with code 1/);
  }
  t.assert.equal(pids().length, 1, 'one start tried, not one per search');
  t.assert.equal(await pool.available(), false);
});

test('an engine that never finishes its handshake is given up after the start timeout', async (t: TestContext) => {
  const { pool, pids } = setup(t, { startHang: true }, { startTimeoutMs: 300 });
  t.assert.equal(await pool.available(), false);
  t.assert.equal(await ended(pids()[0]!), true, 'and killed');
});

test('an engine that could not start is tried again after retryStartMs, and then serves', async (t: TestContext) => {
  const fake = fakeEngine();
  t.after(() => fake.remove());
  const later = fake.path.replace(/engine\.mjs$/, 'later.mjs');
  const pool = createEnginePool({ enginePath: later, retryStartMs: 200 });
  t.after(() => pool.close());
  t.assert.equal(await pool.available(), false);
  copyFileSync(fake.path, later); // 1. the engine is installed
  t.assert.equal(await pool.available(), false, '2. not tried again yet');
  await sleep(250);
  t.assert.equal(await pool.available(), true, '3. tried again, and it starts');
  t.assert.equal((await pool.search(request())).uci, FIRST_MOVES[0]);
});

test('an aborted search: a queued one leaves the queue, a running one is stopped; the engine goes on', async (t: TestContext) => {
  const { pool, seen, pids, lines } = setup(t, { searchMs: 2_000 });
  t.assert.equal(await pool.available(), true);
  const running = new AbortController();
  const queued = new AbortController();
  const first = pool.search(request({ moves: ['e2e4'], level: 8 }), running.signal);
  const second = pool.search(request({ moves: ['d2d4'], level: 8 }), queued.signal);
  const third = pool.search(request({ moves: ['c2c4'] }));
  await sleep(300); // the first is on the engine, the two others wait
  queued.abort(new Error('player left'));
  t.assert.match(String(await rejection(second)), /player left/);
  t.assert.equal(seen.queued.at(-1), 1);
  running.abort(new Error('game over'));
  t.assert.match(String(await rejection(first)), /game over/);
  t.assert.equal((await third).uci, 'a7a5', 'the third runs');
  t.assert.ok(lines().includes('stop'), 'the first was stopped');
  t.assert.ok(!lines().some(line => line.includes('moves d2d4')), 'the aborted queued search never ran');
  t.assert.equal(pids().length, 1);
  t.assert.equal(seen.restarts, 0);
  t.assert.deepEqual(seen.searched, [5], 'only the third answered');
  const already = new AbortController();
  already.abort(new Error('too late'));
  t.assert.match(String(await rejection(pool.search(request(), already.signal))), /too late/);
});

test('a search aborted while its engine starts is never sent to it', async (t: TestContext) => {
  const { pool, lines, seen } = setup(t, { startDelayMs: 300 });
  const controller = new AbortController();
  const search = rejection(pool.search(request(), controller.signal));
  await sleep(50);
  controller.abort(new Error('player left'));
  t.assert.match(String(await search), /player left/);
  t.assert.equal(await pool.available(), true, 'the engine started all the same');
  t.assert.equal((await pool.search(request())).uci, FIRST_MOVES[0]);
  t.assert.equal(lines().filter(line => line.startsWith('go')).length, 1, 'only the second search ran');
  t.assert.equal(seen.restarts, 0);
});

test('close(): waiting and running searches reject with UNAVAILABLE, the processes end, later searches reject', async (t: TestContext) => {
  const { pool, pids } = setup(t, { searchMs: 5_000 }, { workers: 1 });
  const running = rejection(pool.search(request({ level: 8 })));
  const waiting = rejection(pool.search(request({ level: 8 })));
  await sleep(200);
  await pool.close();
  for (const error of await Promise.all([running, waiting, rejection(pool.search(request()))])) {
    t.assert.ok(error instanceof DomainError);
    t.assert.equal(error.code, 'UNAVAILABLE');
  }
  t.assert.equal(await ended(pids()[0]!), true);
  t.assert.equal(await pool.available(), false);
});

test('close() kills an engine that does not quit', async (t: TestContext) => {
  const { pool, pids } = setup(t, { ignoreQuit: true });
  t.assert.equal(await pool.available(), true);
  const started = performance.now();
  await pool.close();
  t.assert.equal(await ended(pids()[0]!), true);
  t.assert.ok(performance.now() - started >= 900, 'after its second of grace');
});

test('an engine that ended while idle is replaced at the next search', async (t: TestContext) => {
  const { pool, pids, seen } = setup(t);
  await pool.search(request());
  process.kill(pids()[0]!, 'SIGKILL');
  await sleep(100);
  t.assert.equal((await pool.search(request())).uci, FIRST_MOVES[0]);
  t.assert.equal(pids().length, 2);
  t.assert.equal(seen.restarts, 1);
});

test('a position that cannot be searched is refused before any engine is asked', async (t: TestContext) => {
  const { pool, lines } = setup(t);
  const cases: [Partial<SearchRequest>, string][] = [
    [{ fen: 'not a fen' }, 'INVALID_FEN'],
    [{ moves: ['e2e5'] }, 'INVALID_MOVE'],
    [{ moves: ['f2f3', 'e7e5', 'g2g4', 'd8h4'] }, 'GAME_OVER'],
  ];
  for (const [overrides, code] of cases) {
    const error = await rejection(pool.search(request(overrides)));
    t.assert.ok(error instanceof DomainError, String(error));
    t.assert.equal(error.code, code);
  }
  await t.assert.rejects(pool.search(request({ level: 9 as 1 })), RangeError);
  t.assert.deepEqual(lines(), []);
});

test('the default engine is the stockfish package’s lite single-threaded build, run on this Node.js', (t: TestContext) => {
  const path = defaultEnginePath();
  t.assert.match(path, /stockfish-\d+-lite-single\.js$/);
  t.assert.ok(existsSync(path));
  t.assert.deepEqual(engineCommand(path), { file: process.execPath, args: [path] });
  t.assert.deepEqual(engineCommand('/usr/games/stockfish'), { file: '/usr/games/stockfish', args: [] });
  t.assert.throws(() => createEnginePool({ workers: 0 }), RangeError);
});
