/**
 * The levels, the choice among candidate lines and the clock's budget, as pure functions.
 */
import { test, type TestContext } from 'node:test';
import {
  CANDIDATE_LINES,
  ENGINE_LEVELS,
  LEVELS,
  MIN_MOVE_TIME_MS,
  isEngineLevel,
  moveBudgetMs,
  pickCandidate,
  planSearch,
  type CandidateLine,
  type EngineCaps,
  type EngineLevel,
} from '../../src/engine/levels.ts';

/** A seeded generator (mulberry32), so that the statistical tests below draw the same numbers every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('levels grow stronger: skill, depth and move time never fall, and level 8 is full strength', (t: TestContext) => {
  for (const level of ENGINE_LEVELS.slice(1)) {
    const [weaker, stronger] = [LEVELS[(level - 1) as EngineLevel], LEVELS[level]];
    t.assert.ok(stronger.skill > weaker.skill, `skill ${level}`);
    t.assert.ok(stronger.depth >= weaker.depth, `depth ${level}`);
    t.assert.ok(stronger.moveTimeMs > weaker.moveTimeMs, `move time ${level}`);
  }
  t.assert.deepEqual(LEVELS[8], { skill: 20, depth: 22, moveTimeMs: 1000 });
  t.assert.deepEqual(LEVELS[1], { skill: -9, depth: 5, moveTimeMs: 50 });
  t.assert.equal(isEngineLevel(8), true);
  t.assert.equal(isEngineLevel(0), false);
  t.assert.equal(isEngineLevel('3'), false);
});

const STOCKFISH: EngineCaps = { skill: { min: 0, max: 20 }, multiPv: { max: 500 } };
const FAIRY: EngineCaps = { skill: { min: -20, max: 20 }, multiPv: { max: 500 } };
const BARE: EngineCaps = {};
const NO_MULTIPV: EngineCaps = { skill: { min: 0, max: 20 } };

test('planSearch: a skill the engine takes is set on it; one below its minimum is played over four lines', (t: TestContext) => {
  const rows: [EngineLevel, EngineCaps, number, ReturnType<typeof planSearch>][] = [
    [1, STOCKFISH, 1000, { skillOption: 20, multiPv: CANDIDATE_LINES, pickSkill: -9, depth: 5, moveTimeMs: 50 }],
    [3, STOCKFISH, 1000, { skillOption: 20, multiPv: CANDIDATE_LINES, pickSkill: -1, depth: 5, moveTimeMs: 150 }],
    [4, STOCKFISH, 1000, { skillOption: 3, multiPv: 1, pickSkill: undefined, depth: 5, moveTimeMs: 200 }],
    [7, STOCKFISH, 1000, { skillOption: 16, multiPv: 1, pickSkill: undefined, depth: 13, moveTimeMs: 500 }],
    [8, STOCKFISH, 1000, { skillOption: 20, multiPv: 1, pickSkill: undefined, depth: 22, moveTimeMs: 1000 }],
    [8, STOCKFISH, 120, { skillOption: 20, multiPv: 1, pickSkill: undefined, depth: 22, moveTimeMs: 120 }],
    [1, FAIRY, 1000, { skillOption: -9, multiPv: 1, pickSkill: undefined, depth: 5, moveTimeMs: 50 }],
    [
      2,
      { ...STOCKFISH, multiPv: { max: 3 } },
      1000,
      { skillOption: 20, multiPv: 3, pickSkill: -5, depth: 5, moveTimeMs: 100 },
    ],
    [1, NO_MULTIPV, 1000, { skillOption: 0, multiPv: 1, pickSkill: undefined, depth: 5, moveTimeMs: 50 }],
    [1, BARE, 1000, { skillOption: undefined, multiPv: 1, pickSkill: undefined, depth: 5, moveTimeMs: 50 }],
    [8, BARE, 1000, { skillOption: undefined, multiPv: 1, pickSkill: undefined, depth: 22, moveTimeMs: 1000 }],
  ];
  for (const [level, caps, budget, plan] of rows) {
    t.assert.deepEqual(planSearch(level, caps, budget), plan, `level ${level}, ${JSON.stringify(caps)}`);
  }
});

const LINES: CandidateLine[] = [
  { move: 'best', score: 50 },
  { move: 'second', score: 10 },
  { move: 'third', score: -30 },
  { move: 'worst', score: -70 },
];

test('pickCandidate without its random part: the weakest levels take the worst line, the others the best', (t: TestContext) => {
  // Weakness 120 - 2 × skill: above 128 (skill -9, -5) a line's push more than makes up its loss.
  t.assert.equal(
    pickCandidate(LINES, -9, () => 0),
    'worst',
  );
  t.assert.equal(
    pickCandidate(LINES, -5, () => 0),
    'worst',
  );
  t.assert.equal(
    pickCandidate(LINES, -1, () => 0),
    'best',
  );
  t.assert.equal(
    pickCandidate(LINES, 19, () => 0),
    'best',
  );
  t.assert.equal(pickCandidate([{ move: 'only', score: -300 }], -9, Math.random), 'only');
  t.assert.throws(() => pickCandidate([], 0, Math.random));
});

test('pickCandidate over many draws: the weaker the skill, the more it loses on average', (t: TestContext) => {
  const averageLoss = (skill: number, lines: CandidateLine[]) => {
    const random = seeded(skill + 100);
    const score = new Map(lines.map(line => [line.move, line.score]));
    let loss = 0;
    for (let i = 0; i < 2000; i++) loss += lines[0]!.score - score.get(pickCandidate(lines, skill, random))!;
    return loss / 2000;
  };
  // Close lines (all within a pawn) and lines with a blunder among them.
  const close = LINES;
  const blunder = [...LINES.slice(0, 3), { move: 'blunder', score: -850 }];
  for (const lines of [close, blunder]) {
    const losses = [-9, -5, -1, 3, 19].map(skill => averageLoss(skill, lines));
    for (let i = 1; i < losses.length; i++) t.assert.ok(losses[i]! <= losses[i - 1]!, `losses ${losses.join(', ')}`);
    t.assert.ok(losses[0]! > 2 * losses[4]!, `skill -9 loses much more than 19: ${losses.join(', ')}`);
  }
  // A blunder among the four lines: the weakest levels mostly play it, from skill -1 on mostly not.
  const [weakest, , third] = [-9, -5, -1].map(skill => averageLoss(skill, blunder));
  t.assert.ok(weakest! > 5 * third!, `${weakest} against ${third}`);
});

test('moveBudgetMs: the level’s move time, at most a thirtieth of what is left plus half the increment', (t: TestContext) => {
  const clock = (wtime: number, winc = 0, btime = 60_000, binc = 0) => ({ wtime, btime, winc, binc });
  const rows: [EngineLevel, ReturnType<typeof clock> | undefined, 'white' | 'black', number, number][] = [
    [8, undefined, 'white', 0, 1000],
    [1, undefined, 'black', 0, 50],
    [8, clock(15_000), 'white', 0, 500],
    [8, clock(15_000), 'white', 3_000, 400], // 3 s waited in the queue
    [8, clock(15_000), 'black', 0, 1000], // black has 60 s
    [3, clock(15_000), 'white', 0, 150],
    [8, clock(3_000, 2_000), 'white', 0, 1000], // 100 + 1000
    [8, clock(600, 5_000), 'white', 0, 300], // never more than half of what is left
    [8, clock(0), 'white', 0, MIN_MOVE_TIME_MS],
    [8, clock(1_000), 'white', 5_000, MIN_MOVE_TIME_MS],
  ];
  for (const [level, c, turn, elapsed, budget] of rows) {
    t.assert.equal(moveBudgetMs(level, c, turn, elapsed), budget, JSON.stringify({ level, c, turn, elapsed }));
  }
});

test('moveBudgetMs: a side that spends its whole budget on every move of a long game never runs out', (t: TestContext) => {
  for (const [initial, increment] of [
    [15_000, 0],
    [60_000, 0],
    [3_000, 2_000],
    [1_000, 0],
  ] as const) {
    let left = initial;
    for (let move = 1; move <= 100; move++) {
      const spent = moveBudgetMs(8, { wtime: left, btime: left, winc: increment, binc: increment }, 'white');
      t.assert.ok(spent <= 1000 && spent >= MIN_MOVE_TIME_MS);
      left = left - spent + increment;
      t.assert.ok(left > 0, `${initial}+${increment}: ran out at move ${move}`);
    }
  }
});
