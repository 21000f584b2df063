/**
 * The computer opponent's reply time per level (DECISIONS §18): how long the engine pool takes from a request to
 * the engine's move, with the default engine (the npm package `stockfish`, WebAssembly) and, when ENGINE_PATH
 * names one, with that engine too. No clock is given, so each level thinks up to its own move time.
 *
 * ```sh
 * npm run bench:engine                                    # the default engine, 24 positions, each level once
 * ENGINE_PATH=/usr/games/stockfish npm run bench:engine   # and that binary
 * POSITIONS=8 ROUNDS=2 npm run bench:engine
 * npm run bench:engine -- --api                           # the API's GET latency with 20 engine games searching
 * ```
 *
 * One pool of one worker per engine, one search at a time. The positions are the Bratko-Kopec test's
 * (test/fixtures/bratkoKopec.ts). For each level: the median, the 95th percentile and the largest reply time, in
 * milliseconds; and the time the first engine process took to start (its handshake).
 */
import { cpus } from 'node:os';
import { createEnginePool, ENGINE_LEVELS, LEVELS, type EngineLevel } from '../src/engine/index.ts';
import { BRATKO_KOPEC } from '../test/fixtures/bratkoKopec.ts';
import { quantile } from './common.ts';
import { measureApiLatency } from './engineApi.ts';

const POSITIONS = BRATKO_KOPEC.slice(0, Number(process.env.POSITIONS ?? BRATKO_KOPEC.length));
const ROUNDS = Number(process.env.ROUNDS ?? 1);

async function measure(label: string, enginePath: string | undefined): Promise<void> {
  const pool = createEnginePool({ enginePath });
  try {
    const started = performance.now();
    if (!(await pool.available())) throw new Error(`${label}: the engine does not start`);
    const startMs = performance.now() - started;
    const times = new Map<EngineLevel, number[]>(ENGINE_LEVELS.map(level => [level, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const fen of POSITIONS) {
        for (const level of ENGINE_LEVELS) {
          const asked = performance.now();
          await pool.search({ fen, moves: [], level });
          times.get(level)!.push(performance.now() - asked);
        }
      }
    }
    console.log(`\n${label}: started in ${Math.round(startMs)} ms; ${POSITIONS.length} positions × ${ROUNDS}`);
    console.log('level  move time  median    p95    max');
    for (const level of ENGINE_LEVELS) {
      const sorted = times.get(level)!.sort((a, b) => a - b);
      const cells = [0.5, 0.95, 1].map(q => String(Math.round(quantile(sorted, q))).padStart(6));
      console.log(`${String(level).padStart(5)}  ${String(LEVELS[level].moveTimeMs).padStart(9)}  ${cells.join(' ')}`);
    }
  } finally {
    await pool.close();
  }
}

if (process.argv.includes('--api')) {
  await measureApiLatency();
} else {
  console.log(`Node.js ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}`);
  await measure('default engine (npm stockfish, lite single-threaded WebAssembly)', undefined);
  if (process.env.ENGINE_PATH) await measure(`ENGINE_PATH=${process.env.ENGINE_PATH}`, process.env.ENGINE_PATH);
}
