/**
 * The engine pool with real engines: the default one (the npm package `stockfish`, WebAssembly, run on this Node.js)
 * and Debian's `stockfish` binary (as ENGINE_PATH would name it; skipped loudly when absent, a failure under
 * CI_REQUIRE_EXTERNAL=1).
 *
 * 1. Every level answers a legal move (checked with chessops) from a few positions, with either engine.
 * 2. Its clock: at 15 s and no increment, the default engine at level 8 answers each of 40 moves within its
 *    budget (plus a margin for the process's round trip), and never runs out.
 * 3. Its levels: over the same twelve positions (the first of the Bratko-Kopec test), the average centipawn loss of each level's move, judged by a
 *    deeper search of Debian's Stockfish, falls from the weak levels to the strong ones, and level 8's is small.
 *
 * About a minute on two cores: the levels take about 25 s (level 8 alone thinks a second a position), the clock
 * about 12 s.
 */
import { test, type TestContext } from 'node:test';
import { Chess, normalizeMove } from 'chessops/chess';
import { INITIAL_FEN, parseFen } from 'chessops/fen';
import { makeUci, parseUci } from 'chessops/util';
import {
  ENGINE_LEVELS,
  createEnginePool,
  moveBudgetMs,
  type EngineLevel,
  type EnginePool,
} from '../../src/engine/index.ts';
import { lastIteration } from '../../src/engine/uci.ts';
import { UciProcess, engineCommand } from '../../src/engine/uciProcess.ts';
import { BRATKO_KOPEC } from '../fixtures/bratkoKopec.ts';
import { findExecutable, skipReason } from '../helpers/external.ts';

const stockfish = findExecutable('stockfish');

/** The first twelve Bratko-Kopec positions, where one move stands out, so that a weak move costs. */
const POSITIONS = BRATKO_KOPEC.slice(0, 12);

/** Positions for legality: castling on offer, a promotion, an en-passant capture, a Bratko-Kopec middlegame. */
const LEGALITY: { fen: string; moves: string[] }[] = [
  { fen: INITIAL_FEN, moves: ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4', 'g8f6'] },
  { fen: '8/P6k/8/8/8/8/6K1/8 w - - 0 1', moves: [] },
  { fen: 'rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1', moves: [] },
  { fen: POSITIONS[4]!, moves: [] },
];

/** The position after `moves`, by chessops. */
function positionAfter(fen: string, moves: readonly string[]): Chess {
  const pos = Chess.fromSetup(parseFen(fen).unwrap()).unwrap();
  for (const uci of moves) pos.play(normalizeMove(pos, parseUci(uci)!));
  return pos;
}

function isLegal(fen: string, moves: readonly string[], uci: string): boolean {
  const pos = positionAfter(fen, moves);
  const move = parseUci(uci);
  return move !== undefined && pos.isLegal(normalizeMove(pos, move));
}

async function everyLevelPlaysLegally(t: TestContext, pool: EnginePool): Promise<void> {
  t.assert.equal(await pool.available(), true);
  for (const { fen, moves } of LEGALITY) {
    for (const level of ENGINE_LEVELS) {
      const { uci } = await pool.search({ fen, moves, level });
      t.assert.ok(isLegal(fen, moves, uci), `level ${level} played ${uci} after ${moves.join(' ')} from ${fen}`);
    }
  }
}

test('the default engine (npm stockfish, WebAssembly): a legal move at every level', async (t: TestContext) => {
  const pool = createEnginePool({});
  t.after(() => pool.close());
  await everyLevelPlaysLegally(t, pool);
});

test(
  'Debian’s stockfish as ENGINE_PATH: a legal move at every level',
  { skip: skipReason('stockfish', stockfish) },
  async (t: TestContext) => {
    const pool = createEnginePool({ enginePath: stockfish! });
    t.after(() => pool.close());
    await everyLevelPlaysLegally(t, pool);
  },
);

/** A seeded generator (mulberry32) for the opponent's moves. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let n = Math.imul(state ^ (state >>> 15), 1 | state);
    n = (n + Math.imul(n ^ (n >>> 7), 61 | n)) ^ n;
    return ((n ^ (n >>> 14)) >>> 0) / 4294967296;
  };
}

test('the clock: 15 s and no increment, level 8 answers each of 40 moves within its budget and never runs out', async (t: TestContext) => {
  // The engine plays white on the default engine; black answers at once with a random legal move, and a game
  // that ends starts again, the engine's clock running on.
  const pool = createEnginePool({});
  t.after(() => pool.close());
  t.assert.equal(await pool.available(), true);
  const random = seeded(7);
  const MARGIN_MS = 250; // the round trip to the process and its reading of the position
  let left = 15_000;
  let moves: string[] = [];
  const late: string[] = [];
  let closest = -Infinity; // the most a move took beyond its budget (negative: within it)
  for (let move = 1; move <= 40; move++) {
    const clock = { wtime: left, btime: 15_000, winc: 0, binc: 0 };
    const budget = moveBudgetMs(8, clock, 'white');
    const started = performance.now();
    const { uci } = await pool.search({ fen: INITIAL_FEN, moves, level: 8, clock });
    const spent = performance.now() - started;
    closest = Math.max(closest, spent - budget);
    if (spent > budget + MARGIN_MS) late.push(`move ${move}: ${Math.round(spent)} ms for a budget of ${budget}`);
    left -= spent;
    t.assert.ok(isLegal(INITIAL_FEN, moves, uci));
    const pos = positionAfter(INITIAL_FEN, [...moves, uci]);
    if (pos.isEnd()) moves = [];
    else {
      const reply = randomMove(pos, random);
      moves = positionAfter(INITIAL_FEN, [...moves, uci, reply]).isEnd() ? [] : [...moves, uci, reply];
    }
  }
  t.assert.deepEqual(late, []);
  t.assert.ok(left > 3_000, `the engine has ${Math.round(left)} ms left after 40 moves`);
  t.diagnostic(
    `40 moves in ${Math.round(15_000 - left)} ms of the engine's 15 s; at most ${Math.round(closest)} ms past a budget`,
  );
});

/** A random legal move in UCI as engines write it (castling as the king's two-square move, promotion to a queen). */
function randomMove(pos: Chess, random: () => number): string {
  const moves = [...pos.allDests()].flatMap(([from, dests]) => [...dests].map(to => ({ from, to })));
  const { from, to } = moves[Math.floor(random() * moves.length)]!;
  const role = pos.board.get(from)?.role;
  const castles = role === 'king' && pos.board[pos.turn].has(to);
  const promotes = role === 'pawn' && (to >> 3 === 0 || to >> 3 === 7);
  return makeUci({
    from,
    to: castles ? (to > from ? from + 2 : from - 2) : to,
    ...(promotes && { promotion: 'queen' }),
  });
}

test(
  'levels: the average centipawn loss falls as the level rises, and level 8’s is small',
  { skip: skipReason('stockfish', stockfish) },
  async (t: TestContext) => {
    // The levels play on Debian's Stockfish; the same binary judges at depth 15: a move's loss is the best eval
    // less the eval after it, each clamped to ±1000 (a mate counts as a 10-pawn swing at most).
    const pool = createEnginePool({ enginePath: stockfish!, random: seeded(1982) });
    const judge = await UciProcess.start(engineCommand(stockfish!), 10_000);
    t.after(async () => {
      await pool.close();
      await judge.quit();
    });
    const judgePlan = { skillOption: 20, multiPv: 1, pickSkill: undefined, depth: 15, moveTimeMs: 10_000 };
    const evalOf = async (fen: string, moves: string[]) => {
      const { lines } = await judge.search(fen, moves, judgePlan, 20_000);
      const best = lastIteration(lines)[0];
      if (!best) return 0; // no move: the game is over after this one (a mate scores as its own line)
      return Math.max(-1000, Math.min(1000, best.score));
    };
    const losses = new Map<EngineLevel, number[]>(ENGINE_LEVELS.map(level => [level, []]));
    for (const fen of POSITIONS) {
      const best = await evalOf(fen, []);
      const after = new Map<string, number>();
      for (const level of ENGINE_LEVELS) {
        // The weakest levels choose at random among lines: two draws each, for a steadier average.
        for (let draw = 0; draw < (level <= 3 ? 2 : 1); draw++) {
          const { uci } = await pool.search({ fen, moves: [], level });
          if (!after.has(uci)) after.set(uci, -(await evalOf(fen, [uci])));
          losses.get(level)!.push(Math.max(0, best - after.get(uci)!));
        }
      }
    }
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const average = (levels: EngineLevel[]) => mean(levels.flatMap(level => losses.get(level)!));
    const perLevel = ENGINE_LEVELS.map(level => `${level}: ${Math.round(average([level]))}`).join(', ');
    t.diagnostic(`average centipawn loss by level: ${perLevel}`);
    const [low, middle, high] = [average([1, 2, 3]), average([4, 5]), average([6, 7, 8])];
    t.assert.ok(low > high + 100, `levels 1-3 lose ${low}, levels 6-8 ${high}`);
    t.assert.ok(middle > high, `levels 4-5 lose ${middle}, levels 6-8 ${high}`);
    t.assert.ok(average([1]) > average([8]) + 100, perLevel);
    t.assert.ok(average([8]) < 50, `level 8 loses ${average([8])} on average`);
  },
);
