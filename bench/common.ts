/**
 * What the benchmark scripts share: a free port, a process's resident memory and CPU time, quantiles and medians, a
 * seeded legal game.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { newGame, type Game } from '../src/domain/game.ts';
import { makeMove } from '../src/domain/transitions.ts';
import { isOver } from '../src/domain/status.ts';
import { legalMovesOf } from '../src/domain/views.ts';

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });

/** The resident set size of a process, in KiB (Linux). */
export const rssKiB = (pid: number): number => {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]);
};

/** CPU time a process has used so far, all its threads, user and system, in ms (Linux, 10 ms resolution). */
export const cpuMs = (pid: number): number => {
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis are fixed.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime in clock ticks (USER_HZ)
};

/** The nearest-rank quantile `q` (0 to 1) of sorted values: the smallest value with at least `q` of them at or
 * below it; NaN when there are none. */
export const quantile = (sorted: ArrayLike<number>, q: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1))]!;

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * The median of the rounds' ratios, each two consecutive rounds (one with each build first) taken together as the
 * geometric mean of their ratios. A build can fare worse when it runs second (it inherits the other's writes on
 * their way to the disk: over five runs against one commit, 0.80 against 0.87 when first), and an odd number of
 * rounds, or a median that falls on one kind of round, would judge it mostly in one place. A last, odd round counts
 * alone.
 */
export function pairedMedian(ratios: number[]): number {
  const pairs: number[] = [];
  for (let i = 0; i < ratios.length; i += 2)
    pairs.push(i + 1 < ratios.length ? Math.sqrt(ratios[i]! * ratios[i + 1]!) : ratios[i]!);
  return median(pairs);
}

/** A legal game of `plies` moves from a seeded random walk that never ends the game early. */
export function randomGame(plies: number, seed: number): Game {
  let state = seed;
  const random = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let attempt = 0; attempt < 1000; attempt++) {
    let game = newGame({ id: 'fixture0', createdAt: new Date().toISOString() });
    while (game.record.moves.length < plies && !isOver(game)) {
      const moves = legalMovesOf(game);
      const result = makeMove(game, moves[Math.floor(random() * moves.length)]!.uci);
      if (!result.ok) throw result.error;
      game = result.value.game;
    }
    if (game.record.moves.length === plies && !isOver(game)) return game;
  }
  throw new Error('no game of that length');
}

/** A number from the environment variable `name`, or `fallback` when it is unset or empty. */
export const setting = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+(\.\d+)?$/.test(raw)) throw new Error(`${name} must be a number; got '${raw}'`);
  return Number(raw);
};

/** A whole number from the environment variable `name`, or `fallback` when it is unset or empty. */
export const wholeSetting = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number; got '${raw}'`);
  return Number(raw);
};

/** Calls `task` for 0 to count - 1, `lanes` at a time. */
export async function inParallel<T>(count: number, lanes: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, count) }, lane));
  return results;
}
