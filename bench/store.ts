/**
 * The SQLite store alone: what a durable write costs in CPU and how long its commit takes, without HTTP or a
 * load generator sharing the cores, so that store settings can be compared more steadily than the request
 * rates of `npm run bench` allow.
 *
 * ```sh
 * npm run bench:store                            # 30000 creates and 30000 moves, batches of 6, the service's checkpoint interval
 * EVERY=25,250 BATCH=1,6 npm run bench:store     # compare settings, alternating, one line each
 * WRITES=60000 REPEAT=3 npm run bench:store
 * ```
 *
 * Each line: a fresh SQLite file through `SqliteGameStore`; a warm-up of 3600 creates; then WRITES creates and
 * WRITES moves (updates with their change-log event), BATCH at a time (asked for together, so one group commit
 * each, as concurrent requests make), the next batch as soon as the last has committed. The games and moves are
 * made before the clock starts, so the figures are the store's alone. CPU is the whole process (the checkpoint
 * thread and Node's own threads included) per write; latency is per batch, from asking to the last promise
 * settled; WAL is the largest size of the WAL file seen after a batch (one `stat` per batch, measured with it).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { newGame, type Game } from '../src/domain/game.ts';
import { indexOfGame, makeMove } from '../src/domain/transitions.ts';
import { CHECKPOINT_EVERY_WRITES, SqliteGameStore } from '../src/store/sqlite.ts';
import { quantile } from './common.ts';

const list = (name: string, fallback: string): number[] => (process.env[name] ?? fallback).split(',').map(Number);
const writes = Number(process.env.WRITES ?? 30_000);
const repeat = Number(process.env.REPEAT ?? 1);
const everies = list('EVERY', String(CHECKPOINT_EVERY_WRITES));
const batches = list('BATCH', '6');
/** The knight shuffle of the request benchmark: always legal, never ending the game before ply 32. */
const CYCLE = ['g1f3', 'g8f6', 'b1c3', 'b8c6', 'f3g1', 'f6g8', 'c3b1', 'c6b8'];

interface Figures {
  perSecond: number;
  cpuUs: number;
  p50: number;
  p99: number;
  max: number;
}

/** `count` writes, `batch` at a time; `afterBatch` runs once each batch has settled, inside the measurement. */
async function timed(
  count: number,
  batch: number,
  write: (i: number) => Promise<boolean>,
  afterBatch: () => void,
): Promise<Figures> {
  const latencies: number[] = [];
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < count; i += batch) {
    const asked = performance.now();
    const saved = await Promise.all(Array.from({ length: Math.min(batch, count - i) }, (_, j) => write(i + j)));
    latencies.push(performance.now() - asked);
    if (saved.includes(false)) throw new Error('a write was refused');
    afterBatch();
  }
  const elapsed = performance.now() - start;
  const used = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  return {
    perSecond: (count / elapsed) * 1000,
    cpuUs: (used.user + used.system) / count,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    max: quantile(latencies, 1),
  };
}

async function run(every: number, batch: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'chess-bench-store-'));
  const path = join(dir, 'chess.sqlite');
  const store = SqliteGameStore.open(path, { checkpointEveryWrites: every });
  let largestWal = 0;
  const watchWal = () => {
    largestWal = Math.max(largestWal, statSync(`${path}-wal`).size);
  };
  try {
    let next = 0;
    const fresh = (): Game =>
      newGame({ id: `b${String(next++).padStart(7, '0')}`, createdAt: new Date().toISOString() });
    for (let i = 0; i < 3600; i++) await store.create(fresh().record);
    // The moves, made before the clock starts: write i moves game i mod G to its ply i div G.
    const games = Array.from({ length: Math.ceil(writes / 32) }, fresh);
    for (const game of games) await store.create(game.record);
    const changes = Array.from({ length: writes }, (_, i) => {
      const game = games[i % games.length]!;
      const result = makeMove(game, CYCLE[game.record.moves.length % CYCLE.length]!);
      if (!result.ok) throw result.error;
      games[i % games.length] = result.value.game;
      return { ...result.value, previous: game.record };
    });
    const creates = await timed(writes, batch, () => store.create(fresh().record), watchWal);
    const moves = await timed(
      writes,
      batch,
      i => {
        // As the service writes a change: with its index and the record it replaces, so that only what differs
        // is written (the games row and one moves row).
        const { game, event, previous } = changes[i]!;
        return store.update(game.record, previous.version, event, indexOfGame(game), previous);
      },
      watchWal,
    );
    const show = (f: Figures) =>
      `${f.perSecond.toFixed(0)}/s, CPU ${f.cpuUs.toFixed(1)} µs, batch p50 / p99 / max ${f.p50.toFixed(2)} / ${f.p99.toFixed(2)} / ${f.max.toFixed(2)} ms`;
    return `| ${every} | ${batch} | ${show(creates)} | ${show(moves)} | ${(largestWal / 1048576).toFixed(1)} MiB |`;
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const [load] = loadavg();
process.stdout.write(
  `Node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? '?'}), load average ${load!.toFixed(1)}; ${writes} creates and ${writes} moves per line.\n\n`,
);
process.stdout.write('| checkpoint every | batch | creates | moves | largest WAL |\n| --- | --- | --- | --- | --- |\n');
for (let r = 0; r < repeat; r++) {
  for (const batch of batches) for (const every of everies) process.stdout.write(`${await run(every, batch)}\n`);
}
