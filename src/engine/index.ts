/**
 * The computer opponent's engine (DECISIONS §18): Stockfish, or any UCI engine, in child processes, at lichess's
 * eight levels, within its own clock. The service asks for a move; the pool queues the search, runs it on an
 * engine process (never on the event loop), restarts an engine that crashes or hangs, and says when no engine can
 * run. The levels are in `levels.ts`, the protocol in `uci.ts`, one process in `uciProcess.ts`, the pool in
 * `pool.ts`; docs/engine.md describes them.
 *
 * ```ts
 * const engine = createEnginePool({ enginePath: process.env.ENGINE_PATH, workers: 1, log: app.log });
 * if (!(await engine.available())) app.log.warn('the computer opponent is unavailable');
 * const { uci } = await engine.search({
 *   fen: INITIAL_FEN,
 *   moves: ['e2e4'],
 *   level: 3,
 *   clock: { wtime: 180_000, btime: 175_000, winc: 2_000, binc: 2_000 },
 * }); // e.g. 'c7c5'; rejects with DomainError UNAVAILABLE when no engine can answer
 * await engine.close();
 * ```
 */
export {
  createEnginePool,
  type EngineMetrics,
  type EnginePool,
  type EnginePoolOptions,
  type SearchRequest,
} from './pool.ts';
export { ENGINE_LEVELS, LEVELS, isEngineLevel, moveBudgetMs, type EngineClock, type EngineLevel } from './levels.ts';
export { defaultEnginePath } from './uciProcess.ts';
