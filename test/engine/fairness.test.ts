/**
 * The computer is fair to everyone (DECISIONS §16a): the engine's queue takes searches in turn by player, so that
 * one player's many games cannot delay another's, and its clock budget still holds for every game. First the queue
 * (fairQueue.ts) and the budget (`sharedBudgetMs`) as pure functions, the time a variable; then the pool on the fake
 * UCI engine (real processes): one player's 30 queued searches delay another player's one search by the search
 * running when it came, no more, and the move times the pool gives a burst of clocked searches fit their clocks.
 */
import { test, type TestContext } from 'node:test';
import { INITIAL_FEN } from 'chessops/fen';
import { FairQueue } from '../../src/engine/fairQueue.ts';
import { clockShareMs, moveBudgetMs, sharedBudgetMs, type QueuedSearch } from '../../src/engine/levels.ts';
import { createEnginePool, type SearchRequest } from '../../src/engine/index.ts';
import { fakeEngine } from './fakeEngine.ts';

test('the queue takes searches in turn by player; a newcomer is next; each player’s own in order', (t: TestContext) => {
  const queue = new FairQueue<string>();
  for (let i = 1; i <= 30; i++) queue.push('ann', `a${i}`);
  t.assert.equal(queue.shift(), 'a1'); // running when Bob and Cid come
  queue.push('bob', 'b1');
  queue.push('cid', 'c1');
  queue.push('bob', 'b2');
  t.assert.deepEqual(queue.order().slice(0, 6), ['b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
  t.assert.deepEqual([queue.shift(), queue.shift(), queue.shift()], ['b1', 'c1', 'a2']);
  // Bob's next search waits for Cid's and Ann's turns, not Ann's other 28.
  queue.push('cid', 'c2');
  t.assert.deepEqual(queue.order().slice(0, 4), ['b2', 'c2', 'a3', 'a4']);
  t.assert.equal(queue.length, 30);
  t.assert.equal(queue.remove('a4'), true);
  t.assert.equal(queue.remove('a4'), false);
  const rest = queue.clear();
  t.assert.deepEqual(rest.slice(0, 4), ['b2', 'c2', 'a3', 'a5']);
  t.assert.deepEqual([queue.length, queue.shift()], [0, undefined]);
});

test('nobody waits long: a stream of newcomers each joins the end of the ring; memory is bounded', (t: TestContext) => {
  const queue = new FairQueue<string>();
  queue.push('ann', 'a1');
  queue.push('ann', 'a2');
  const taken: string[] = [];
  for (let i = 0; i < 10_000; i++) {
    queue.push(`player-${i}`, `p${i}`);
    taken.push(queue.shift()!);
  }
  // Ann's second search comes after the newcomers who came before her turn was over, not after all of them.
  t.assert.ok(taken.indexOf('a2') < 4, taken.slice(0, 6).join(' '));
  // Kept: the two players waiting (one search more was asked for than taken), and the one served last.
  t.assert.equal(queue.length, 2);
  t.assert.ok(queue['lines'].size <= 3, `${queue['lines'].size} players kept`);
});

/** Runs a burst of searches through the queue and the budget in virtual time: each thinks its whole budget. */
function simulate(searches: (QueuedSearch & { own: number; id: string })[], overheadMs = 0) {
  const queue = new FairQueue<(typeof searches)[number]>();
  for (const search of searches) queue.push(search.player, search);
  const done: { id: string; budget: number; at: number; deadline: number }[] = [];
  let now = 0;
  for (let next = queue.shift(); next; next = queue.shift()) {
    const budget = sharedBudgetMs(next.own, next, queue.order(), now, 1);
    now += budget + overheadMs;
    done.push({ id: next.id, budget, at: now, deadline: next.deadline });
  }
  return done;
}

test('the clock budget holds for every game: a burst of searches all answer within their clocks’ share', (t: TestContext) => {
  // Ann has 30 level-8 games at 15+0 (a share of 500 ms each), Bob one at 3+0 (6 s, level 8 thinks 1 s).
  const clock = (ms: number) => ({ wtime: ms, btime: ms, winc: 0, binc: 0 });
  const ann = Array.from({ length: 30 }, (_, i) => ({
    id: `a${i + 1}`,
    player: 'ann',
    deadline: clockShareMs(clock(15_000), 'white'),
    own: moveBudgetMs(8, clock(15_000), 'white'),
  }));
  const bob = { id: 'b1', player: 'bob', deadline: clockShareMs(clock(180_000), 'white'), own: 1_000 };
  const done = simulate([...ann, bob]);
  t.assert.deepEqual(
    done.slice(0, 3).map(d => d.id),
    ['a1', 'b1', 'a2'],
  );
  for (const { id, at, deadline } of done) t.assert.ok(at <= deadline, `${id} answered at ${at} ms, past ${deadline}`);
  // Ann's many games thin her own searches, not Bob's: he gets half the window they all share.
  const bobs = done.find(d => d.id === 'b1')!;
  t.assert.ok(bobs.budget >= 240, `Bob thinks ${bobs.budget} ms`);
  t.assert.ok(done.filter(d => d.id !== 'b1').every(d => d.budget <= 17));
  // Alone, a search keeps its own budget; without clocks, nobody is thinned.
  t.assert.deepEqual(
    simulate([bob]).map(d => d.budget),
    [1_000],
  );
  const unclocked = simulate([0, 1, 2].map(i => ({ id: `u${i}`, player: 'ann', deadline: Infinity, own: 1_000 })));
  t.assert.deepEqual(
    unclocked.map(d => d.budget),
    [1_000, 1_000, 1_000],
  );
});

test('searches without a clock think within the clocked ones’ windows; an hopeless one gets the floor', (t: TestContext) => {
  // Cid's unclocked level-8 search would take 1 s; Ann's 15 s game, waiting behind it, allows 500 ms in all.
  const done = simulate([
    { id: 'c1', player: 'cid', deadline: Infinity, own: 1_000 },
    { id: 'a1', player: 'ann', deadline: 500, own: 500 },
  ]);
  t.assert.deepEqual(
    done.map(d => [d.id, d.budget]),
    [
      ['c1', 250],
      ['a1', 250],
    ],
  );
  // Asked for so long ago that its share is spent: a move at once (the floor), not a flag.
  t.assert.equal(sharedBudgetMs(500, { player: 'ann', deadline: 100 }, [], 400, 1), 1);
  // Two processes: two players' searches each have a process to themselves.
  t.assert.equal(
    sharedBudgetMs(1_000, { player: 'ann', deadline: 500 }, [{ player: 'bob', deadline: 500 }], 0, 2),
    500,
  );
});

const request = (player: string, moves: string[], clock?: SearchRequest['clock']): SearchRequest => ({
  fen: INITIAL_FEN,
  moves,
  level: 8,
  player,
  ...(clock ? { clock } : {}),
});

test('the pool: one player’s 30 queued searches delay another player’s one search by one search, no more', async (t: TestContext) => {
  const fake = fakeEngine({ searchMs: 30 });
  const pool = createEnginePool({ enginePath: fake.path });
  t.after(async () => {
    await pool.close();
    fake.remove();
  });
  t.assert.equal(await pool.available(), true);
  const answered: string[] = [];
  const search = (player: string, moves: string[]) =>
    pool.search(request(player, moves)).then(() => void answered.push(`${player} ${moves[0]}`));
  // Ann asks for 30 searches (the first one runs at once), then Bob for one.
  const anns = Array.from({ length: 30 }, (_, i) => search('ann', [i % 2 ? 'e2e4' : 'd2d4']));
  await search('bob', ['c2c4']);
  t.assert.deepEqual(answered, ['ann d2d4', 'bob c2c4'], 'Bob waited for the search running when he came');
  const positions = fake.commands().filter(c => c.line.startsWith('position'));
  t.assert.equal(positions[1]!.line, `position fen ${INITIAL_FEN} moves c2c4`);
  await Promise.all(anns);
  t.assert.equal(answered.length, 31);
});

test('the pool: a burst of clocked searches is given move times that fit every game’s share of its clock', async (t: TestContext) => {
  const fake = fakeEngine({ searchMs: 60_000 }); // thinks its whole move time
  // The budgets' clock is virtual: time passes only as the engine thinks (the move times it was given so far), so
  // the figures are the clocks' shares alone, whatever a busy machine adds to each search's start.
  const thought = () =>
    fake
      .commands()
      .filter(c => c.line.startsWith('go'))
      .reduce((sum, c) => sum + Number(/movetime (\d+)/.exec(c.line)![1]), 0);
  const pool = createEnginePool({ enginePath: fake.path, now: thought });
  t.after(async () => {
    await pool.close();
    fake.remove();
  });
  t.assert.equal(await pool.available(), true);
  const blitz = { wtime: 15_000, btime: 15_000, winc: 0, binc: 0 }; // a share of 500 ms
  const searches = [
    ...Array.from({ length: 10 }, () => pool.search(request('ann', ['e2e4'], blitz))),
    pool.search(request('bob', ['d2d4'], blitz)),
  ];
  await Promise.all(searches);
  const times = fake
    .commands()
    .filter(c => c.line.startsWith('go'))
    .map(c => Number(/movetime (\d+)/.exec(c.line)![1]));
  t.assert.equal(times.length, 11);
  // Taken in turn: Ann's first, Bob's, then Ann's. Bob's share of the window is his player's: half of it.
  t.assert.ok(times[1]! >= 200 && times[1]! <= 250, `Bob's move time ${times[1]}`);
  const total = times.reduce((sum, ms) => sum + ms, 0);
  t.assert.ok(total <= 500, `the 11 move times add up to ${total} ms, within the 500 ms every game allows`);
  t.assert.ok(
    times.every(ms => ms >= 1),
    times.join(' '),
  );
});
