/**
 * The API's read latency while the computer thinks (issue 30, item 6): `GET /api/board/game/{id}` at a steady rate
 * against the real service (its bundle, on a SQLite file), with no engine game, then with 20 engine games searching
 * (level 8 by default, the longest thought), round after round. A player script answers each engine move at once
 * with a random legal move (the games' streams tell it when), so the engine always has work; a game that ends is
 * replaced. The engine is the default one, or ENGINE_PATH's; ENGINE_WORKERS processes (the service's default, 1).
 *
 * ```sh
 * npm run bench:engine -- --api
 * ROUNDS=5 DURATION=10 RATE=500 CONNECTIONS=10 GAMES=20 LEVEL=8 npm run bench:engine -- --api
 * ENGINE_PATH=/usr/games/stockfish ENGINE_WORKERS=2 npm run bench:engine -- --api
 * ```
 *
 * Printed: each round's p50 and p99 (ms) with and without the engine games, the searches the engine finished per
 * second, and the ratios with/without (the median of the rounds' ratios); the target is a p99 ratio of at most 2.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServer, SERVER_OUTPUT } from '../scripts/build.ts';
import { ENDED_STATUSES } from '../src/contract/vocabulary.ts';
import { exportPgn } from '../src/domain/pgn.ts';
import { isOver } from '../src/domain/status.ts';
import { legalMovesOf } from '../src/domain/views.ts';
import { newGame, type Game } from '../src/domain/game.ts';
import { makeMove } from '../src/domain/transitions.ts';
import { freePort, median, quantile, randomGame, wholeSetting as setting } from './common.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

interface Latency {
  p50: number;
  p99: number;
  requests: number;
  failed: number; // non-2xx answers, errors and timeouts
}

type Autocannon = (options: Record<string, unknown>) => Promise<{
  requests: { total: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}> & { on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void };

/** GET `path` at `rate` requests per second over `connections` for `seconds`: the 2xx answers' p50 and p99. */
async function measure(url: string, path: string, rate: number, connections: number, seconds: number) {
  const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
  const instance = autocannon({ url: `${url}${path}`, connections, overallRate: rate, duration: seconds });
  const latencies: number[] = [];
  instance.on('response', (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const result = await instance;
  const sorted = Float64Array.from(latencies).sort();
  return {
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    requests: result.requests.total,
    failed: result.non2xx + result.errors + result.timeouts,
  } satisfies Latency;
}

async function json(url: string, init?: RequestInit): Promise<any> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** The sum of a metric's samples (all labels) in the service's /metrics. */
async function metricSum(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`))
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/**
 * `count` games against the computer, each played by a script that answers every engine move at once with a
 * seeded random legal move, followed on the game's stream; a game that ends is replaced. `stop()` ends the
 * streams, resigns the games and resolves once the engine has no search left.
 */
function enginePlayers(url: string, count: number, level: number) {
  let running = true;
  let seed = 1;
  const controllers = new Set<AbortController>();
  const ongoing = new Set<string>();
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };

  async function playOne(): Promise<void> {
    const { id } = await json(`${url}/api/challenge/ai`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `level=${level}&color=white`,
    });
    ongoing.add(id);
    const controller = new AbortController();
    controllers.add(controller);
    let game: Game = newGame({ id, createdAt: new Date().toISOString() });
    const answer = async (moves: string[]) => {
      // The script's copy of the game follows the stream's move list, then plays one random legal move.
      for (const uci of moves.slice(game.record.moves.length)) {
        const result = makeMove(game, uci);
        if (!result.ok) throw result.error;
        game = result.value.game;
      }
      if (!running || isOver(game) || game.pos.turn !== 'white') return;
      const legal = legalMovesOf(game);
      const uci = legal[Math.floor(random() * legal.length)]!.uci;
      await fetch(`${url}/api/board/game/${id}/move/${uci}`, { method: 'POST' });
    };
    try {
      const res = await fetch(`${url}/api/board/game/${id}/stream`, { signal: controller.signal });
      const decoder = new TextDecoder();
      let buffer = '';
      const reader = res.body!.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line === '') continue;
          const event = JSON.parse(line);
          const state = event.type === 'gameFull' ? event.game.state : event.state;
          if (!state) continue;
          if (ENDED_STATUSES.has(state.status)) {
            ongoing.delete(id);
            controller.abort();
            break;
          }
          await answer(state.moves as string[]);
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    } finally {
      controllers.delete(controller);
    }
    if (running) return playOne(); // the game ended: another takes its place
  }

  const players = Array.from({ length: count }, () => playOne());
  return {
    async stop(): Promise<void> {
      running = false;
      for (const controller of controllers) controller.abort();
      await Promise.allSettled(players);
      await Promise.all(
        [...ongoing].map(id => fetch(`${url}/api/board/game/${id}/resign`, { method: 'POST' }).catch(() => undefined)),
      );
      ongoing.clear();
      // The searches already asked for finish (or leave the queue) before the next quiet phase.
      while ((await metricSum(url, 'engine_searches_queued')) + (await metricSum(url, 'engine_searches_running')) > 0) {
        await sleep(200);
      }
    },
  };
}

export async function measureApiLatency(): Promise<void> {
  const rounds = setting('ROUNDS', 3);
  const seconds = setting('DURATION', 10);
  const rate = setting('RATE', 500);
  const connections = setting('CONNECTIONS', 10);
  const count = setting('GAMES', 20);
  const level = setting('LEVEL', 8);
  const workers = setting('ENGINE_WORKERS', 1);
  await buildServer({ ifStale: true });
  const dir = mkdtempSync(join(tmpdir(), 'bench-engine-api-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, [SERVER_OUTPUT], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: join(dir, 'chess.sqlite'),
      RATE_LIMIT_MAX: '0',
      MAX_STREAMS_PER_CLIENT: '0',
      ENGINE_WORKERS: String(workers),
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', // 'info' adds one log line per request
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const cleanUp = () => {
    // As bench/run.ts ends its services: the measure is over, the shutdown is not measured.
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', cleanUp);
  try {
    for (let attempt = 0; ; attempt++) {
      if (server.exitCode !== null) throw new Error(`the service exited with ${server.exitCode}`);
      if (
        await fetch(`${url}/healthz`).then(
          res => res.ok,
          () => false,
        )
      )
        break;
      if (attempt > 300) throw new Error('the service did not start');
      await sleep(100);
    }
    // The game read: 80 plies, as in the request benchmark (bench/run.ts).
    const { gameId } = await json(`${url}/api/board/game/import/pgn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pgn: exportPgn(randomGame(80, 7), { site: '?' }) }),
    });
    const path = `/api/board/game/${gameId}`;
    console.log(`Node.js ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}`);
    console.log(
      `GET ${path} (80 plies) at ${rate} requests/s over ${connections} connections, ${rounds} rounds of ${seconds} s;` +
        ` ${count} engine games at level ${level}, engine ${process.env.ENGINE_PATH ?? 'default (npm stockfish, WebAssembly)'},` +
        ` ${workers} worker(s); load average at the start ${loadavg()
          .map(n => n.toFixed(2))
          .join(' ')}`,
    );
    await measure(url, path, rate, connections, 2); // warm-up
    const ratios: { p50: number; p99: number }[] = [];
    console.log('round  phase            p50 ms  p99 ms  requests  failed  searches/s');
    const row = (round: number, phase: string, latency: Latency, searches: string) =>
      console.log(
        `${String(round).padStart(5)}  ${phase.padEnd(15)} ${latency.p50.toFixed(2).padStart(7)} ${latency.p99
          .toFixed(2)
          .padStart(7)} ${String(latency.requests).padStart(9)} ${String(latency.failed).padStart(7)}  ${searches}`,
      );
    for (let round = 1; round <= rounds; round++) {
      const quiet = await measure(url, path, rate, connections, seconds);
      row(round, 'no engine game', quiet, '');
      const players = enginePlayers(url, count, level);
      // Until searches wait for the engine: every worker is busy.
      const started = performance.now();
      const waiting = async () =>
        (await metricSum(url, 'engine_searches_queued')) + (await metricSum(url, 'engine_searches_running'));
      while ((await waiting()) < Math.min(count, workers + 1) && performance.now() - started < 10_000) await sleep(100);
      await sleep(1_000);
      const before = await metricSum(url, 'engine_search_duration_seconds_count');
      const busy = await measure(url, path, rate, connections, seconds);
      const searched = (await metricSum(url, 'engine_search_duration_seconds_count')) - before;
      row(round, `${count} engine games`, busy, (searched / seconds).toFixed(1));
      await players.stop();
      ratios.push({ p50: busy.p50 / quiet.p50, p99: busy.p99 / quiet.p99 });
    }
    const p99 = median(ratios.map(r => r.p99));
    console.log(
      `\nwith/without, median of ${rounds} rounds: p50 ${median(ratios.map(r => r.p50)).toFixed(2)}, p99 ${p99.toFixed(2)}` +
        ` (target: p99 at most 2: ${p99 <= 2 ? 'met' : 'NOT met'}); rounds' p99 ratios ${ratios.map(r => r.p99.toFixed(2)).join(', ')}` +
        `; load average at the end ${loadavg()
          .map(n => n.toFixed(2))
          .join(' ')}`,
    );
  } finally {
    cleanUp();
  }
}
