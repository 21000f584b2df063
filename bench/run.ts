/**
 * Request throughput: the real service against a bare Fastify server (`bench/bare.ts`) answering constant JSON of
 * the same shapes, on the same machine in one run. Both run as their own processes; the load comes from a third
 * process (autocannon's programmatic API). Rounds alternate service, bare (and PostgreSQL for the move workload
 * when it is reachable), and the table shows the median of the rounds.
 *
 * ```sh
 * npm run bench                    # full: 3 rounds of 10 s per workload and target
 * QUICK=1 npm run bench            # about a minute: 2 rounds of 2 s
 * ROUNDS=5 DURATION=8 CONNECTIONS=10 npm run bench
 * POSTGRES=0 npm run bench          # without the PostgreSQL move workload
 * PROFILE_DIR=./profiles npm run bench   # also a CPU profile of the service (SQLite)
 * WORKLOADS=move,import npm run bench      # some of getGame, move, moves, create, import
 * ```
 *
 * Workloads: GET a game of 80 plies, POST a move (each game gets a fixed cycle of knight moves, spread over
 * enough fresh games that none reaches fivefold repetition), GET the legal moves of a middlegame position, POST
 * create, POST import of an 80-ply PGN. After the last round the SQLite service is killed with SIGKILL and the
 * file is read back: every acknowledged move must be there.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { buildServer, SERVER_OUTPUT } from '../scripts/build.ts';
import { exportPgn } from '../src/domain/pgn.ts';
import { cpuMs, freePort, quantile, randomGame } from './common.ts';
import type { Fixtures } from './bare.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);

const setting = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+(\.\d+)?$/.test(raw)) throw new Error(`${name} must be a number; got '${raw}'`);
  return Number(raw);
};
const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

// Each move cycle returns to its start after 8 plies with 8 distinct positions in between, so the start position
// is seen for the fifth time (fivefold repetition, the game ends) at ply 32: a game takes at most 32 moves here.
const CYCLE = ['g1f3', 'g8f6', 'b1c3', 'b8c6', 'f3g1', 'f6g8', 'c3b1', 'c6b8'];
const PLIES_PER_GAME = 32;

// ---------------------------------------------------------------------------------------------------------
// Load process: runs one round with autocannon and reports what it measured.

type Workload = 'getGame' | 'move' | 'moves' | 'create' | 'import';

interface Job {
  url: string;
  workload: Workload;
  seconds: number;
  connections: number;
  gameId: string; // for getGame and moves
  pgn: string; // for import
  games: number; // for move: fresh games to spread the moves over
  track: boolean; // for move: report the acknowledged moves per game
  pid: number; // the target's process, whose CPU time the round measures
}

interface RoundResult {
  rps: number; // 2xx and other answers per second
  p50: number; // ms
  p99: number;
  total: number;
  non2xx: number;
  errors: number; // connection errors and timeouts
  refused: Record<number, number>; // non-2xx answers by status
  acked?: Record<string, number>; // move: 2xx answers per game
  cpuUs: number; // CPU time of the target's process per request, in µs
}

interface AutocannonRequest {
  method?: string;
  path?: string;
  body?: string;
  headers?: Record<string, string>;
  setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest;
  onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
}
interface AutocannonResult {
  duration: number;
  requests: { total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
// Without a callback autocannon answers an event emitter that is also a promise of the result.
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult> & {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
};

async function createGames(url: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  const lane = async () => {
    while (next < count) {
      next++;
      const res = await fetch(`${url}/api/board/game`, { method: 'POST' });
      if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
      ids.push(((await res.json()) as { gameId: string }).gameId);
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
  return ids;
}

async function runRound(job: Job): Promise<RoundResult> {
  const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
  const base = '/api/board/game';
  let requests: AutocannonRequest[];
  const acked: Record<string, number> = {};
  if (job.workload === 'move') {
    // Request k goes to game k mod G at ply k div G: the previous move of a game was sent G requests earlier,
    // long before (G is many times the number of connections), and one game's moves are applied in arrival order.
    const ids = await createGames(job.url, job.games);
    let k = 0;
    requests = [
      {
        method: 'POST',
        setupRequest: (request, context) => {
          const game = k % ids.length;
          const ply = Math.floor(k / ids.length) % PLIES_PER_GAME;
          k++;
          context.gameId = ids[game];
          return { ...request, path: `${base}/${ids[game]}/move/${CYCLE[ply % CYCLE.length]}` };
        },
        onResponse: (status, _body, context) => {
          if (job.track && status >= 200 && status < 300) {
            const id = context.gameId as string;
            acked[id] = (acked[id] ?? 0) + 1;
          }
        },
      },
    ];
  } else if (job.workload === 'getGame') requests = [{ method: 'GET', path: `${base}/${job.gameId}` }];
  else if (job.workload === 'moves') requests = [{ method: 'GET', path: `${base}/${job.gameId}/moves` }];
  else if (job.workload === 'create') requests = [{ method: 'POST', path: base }];
  else {
    requests = [
      {
        method: 'POST',
        path: `${base}/import/pgn`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pgn: job.pgn }),
      },
    ];
  }
  const cpuBefore = cpuMs(job.pid); // after the games of the move workload were created
  const instance = autocannon({
    url: job.url,
    connections: job.connections,
    pipelining: 1,
    duration: job.seconds,
    requests,
  });
  // autocannon's own histogram has whole milliseconds; the latencies of 2xx answers are kept here in full.
  const latencies: number[] = [];
  const refused: Record<number, number> = {};
  instance.on('response', (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) latencies.push(ms);
    else refused[status] = (refused[status] ?? 0) + 1;
  });
  const result = await instance;
  const cpuUs = ((cpuMs(job.pid) - cpuBefore) * 1000) / Math.max(1, result.requests.total);
  const sorted = Float64Array.from(latencies).sort();
  return {
    rps: result.requests.total / result.duration,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    refused,
    cpuUs,
    ...(job.track ? { acked } : {}),
  };
}

function loadProcess(): void {
  process.on('message', (job: Job) => {
    runRound(job).then(
      result => process.send?.({ ok: true, result }),
      (error: unknown) => process.send?.({ ok: false, error: String(error) }),
    );
  });
}

// ---------------------------------------------------------------------------------------------------------
// Conductor.

interface Target {
  name: string;
  url: string;
  proc: ChildProcess;
}

async function startTarget(name: string, args: string[], env: Record<string, string>): Promise<Target> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let attempt = 0; ; attempt++) {
    if (proc.exitCode !== null) throw new Error(`${name} exited with ${proc.exitCode}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (attempt > 300) throw new Error(`${name} did not start`);
    await sleep(100);
  }
  return { name, url, proc };
}

async function json(url: string, init?: RequestInit): Promise<unknown> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function postgresDatabase(): Promise<{ url: string; drop: () => Promise<void> } | undefined> {
  if (process.env.POSTGRES === '0') return undefined;
  const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `bench_${process.pid}_${Date.now()}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  try {
    await admin(`CREATE DATABASE ${name}`);
  } catch (error) {
    process.stderr.write(`PostgreSQL not used (${String(error)})\n`);
    return undefined;
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function main(): Promise<void> {
  const quick = process.env.QUICK === '1';
  const rounds = setting('ROUNDS', quick ? 2 : 3);
  const seconds = setting('DURATION', quick ? 2 : 10);
  const connections = setting('CONNECTIONS', 10);
  const dir = mkdtempSync(join(tmpdir(), 'bench-run-'));
  const sqlitePath = join(dir, 'chess.sqlite');
  const profileDir = process.env.PROFILE_DIR;
  const children: ChildProcess[] = [];
  let database: Awaited<ReturnType<typeof postgresDatabase>>;
  const cleanUp = () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', cleanUp);
  const serviceEnv = {
    RATE_LIMIT_MAX: '0',
    MAX_STREAMS_PER_CLIENT: '0',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', // 'info' adds one log line per request
  };
  try {
    const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
    await buildServer({ ifStale: true }); // the service runs as npm start runs it, from its bundle
    const service = await startTarget('service', [...profile, SERVER_OUTPUT], {
      ...serviceEnv,
      DATABASE_URL: sqlitePath,
    });
    children.push(service.proc);
    database = await postgresDatabase();
    let postgres: Target | undefined;
    if (database) {
      postgres = await startTarget('postgres', [SERVER_OUTPUT], {
        ...serviceEnv,
        DATABASE_URL: database.url,
      });
      children.push(postgres.proc);
    }

    // Fixtures: an 80-ply game, a middlegame (the first 30 plies of it), recorded answers for the bare server.
    const full = randomGame(80, 1);
    const pgn = exportPgn(full, { site: '?' });
    const middle = exportPgn(randomGame(30, 1), { site: '?' });
    const api = `${service.url}/api/board/game`;
    const post = { method: 'POST', headers: { 'content-type': 'application/json' } };
    const imported = (await json(`${api}/import/pgn`, { ...post, body: JSON.stringify({ pgn }) })) as {
      gameId: string;
    };
    const middlegame = (await json(`${api}/import/pgn`, { ...post, body: JSON.stringify({ pgn: middle }) })) as {
      gameId: string;
    };
    const created = (await json(api, { method: 'POST' })) as { gameId: string };
    const fixtures: Fixtures = {
      game: await json(`${api}/${imported.gameId}`),
      moves: await json(`${api}/${middlegame.gameId}/moves`),
      move: await json(`${api}/${created.gameId}/move/g1f3`, { method: 'POST' }),
      created,
      imported,
    };
    const fixturesPath = join(dir, 'fixtures.json');
    writeFileSync(fixturesPath, JSON.stringify(fixtures));
    const bare = await startTarget('bare', ['--import', 'tsx', 'bench/bare.ts'], { FIXTURES: fixturesPath });
    children.push(bare.proc);

    // The load process.
    const load = spawn(process.execPath, ['--import', 'tsx', SELF, 'load'], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.push(load);
    const round = (job: Job): Promise<RoundResult> =>
      new Promise((resolve, reject) => {
        load.once('message', (message: { ok: boolean; result?: RoundResult; error?: string }) => {
          if (message.ok) resolve(message.result!);
          else reject(new Error(message.error));
        });
        load.send(job);
      });

    const workloads: { workload: Workload; title: string; targets: Target[] }[] = [
      { workload: 'getGame', title: 'GET game (80 plies)', targets: [service, bare] },
      { workload: 'move', title: 'POST move', targets: postgres ? [service, bare, postgres] : [service, bare] },
      { workload: 'moves', title: 'GET moves (middlegame)', targets: [service, bare] },
      { workload: 'create', title: 'POST create', targets: [service, bare] },
      { workload: 'import', title: 'POST import/pgn (80 plies)', targets: [service, bare] },
    ];
    const only = process.env.WORKLOADS?.split(','); // e.g. 'move,import'; all by default
    const chosen = only ? workloads.filter(w => only.includes(w.workload)) : workloads;
    const acked = new Map<string, number>();
    let sent = 0;
    const rows: string[] = [];
    const estimate = new Map<string, number>(); // move rps per target, to size the games of the next round
    for (const { workload, title, targets } of chosen) {
      const results: Record<string, RoundResult[]> = {};
      for (let r = -1; r < rounds; r++) {
        for (const target of targets) {
          const warmup = r < 0;
          const duration = warmup ? Math.min(2, seconds) : seconds;
          const rate = estimate.get(target.name) ?? 3000;
          const job: Job = {
            url: target.url,
            workload,
            seconds: duration,
            connections,
            gameId: workload === 'moves' ? middlegame.gameId : imported.gameId, // postgres: the move workload only
            pgn,
            games: Math.max(connections * 20, Math.ceil((rate * duration * 3) / PLIES_PER_GAME)),
            track: target === service && workload === 'move',
            pid: target.proc.pid!,
          };
          const result = await round(job);
          if (workload === 'move') estimate.set(target.name, result.rps);
          if (result.acked) {
            for (const [id, count] of Object.entries(result.acked)) acked.set(id, (acked.get(id) ?? 0) + count);
            sent += result.total;
          }
          if (!warmup) (results[target.name] ??= []).push(result);
          process.stderr.write(
            `${title} ${target.name}${warmup ? ' (warm-up)' : ` round ${r + 1}`}: ${result.rps.toFixed(0)}/s, ` +
              `p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, CPU ${result.cpuUs.toFixed(0)} µs/request, non-2xx ${result.non2xx} ${JSON.stringify(result.refused)}, errors ${result.errors}\n`,
          );
        }
      }
      const of = (name: string) => {
        const list = results[name]!;
        return {
          rps: median(list.map(x => x.rps)),
          p50: median(list.map(x => x.p50)),
          p99: median(list.map(x => x.p99)),
          cpu: median(list.map(x => x.cpuUs)),
          non2xx: list.reduce((sum, x) => sum + x.non2xx + x.errors, 0),
          total: list.reduce((sum, x) => sum + x.total, 0),
        };
      };
      const b = of('bare');
      for (const target of targets) {
        if (target === bare) continue;
        const s = of(target.name);
        const name = target === postgres ? `${title}, PostgreSQL` : title;
        const extra = target === postgres ? ` (${(s.rps / of('service').rps).toFixed(2)} of SQLite)` : '';
        rows.push(
          `| ${name} | ${s.rps.toFixed(0)} | ${b.rps.toFixed(0)} | **${(s.rps / b.rps).toFixed(2)}**${extra} | ` +
            `${s.p50.toFixed(2)} / ${s.p99.toFixed(2)} | ${b.p50.toFixed(2)} / ${b.p99.toFixed(2)} | ` +
            `${(s.p99 / b.p99).toFixed(1)} | ${s.cpu.toFixed(0)} / ${b.cpu.toFixed(0)} | ` +
            `${s.non2xx} of ${s.total} | ${b.non2xx} |`,
        );
      }
    }

    // Durability: kill the SQLite service without warning and read every game back (SIGTERM when profiling, so
    // that the profile is written).
    service.proc.kill(profileDir ? 'SIGTERM' : 'SIGKILL');
    await new Promise(resolve => service.proc.once('exit', resolve));
    const db = new Database(sqlitePath, { readonly: true });
    const select = db.prepare<[string], { data: string }>('SELECT data FROM games WHERE id = ?');
    let lost = 0;
    let unacknowledged = 0;
    for (const [id, count] of acked) {
      const row = select.get(id);
      const stored = row ? (JSON.parse(row.data) as { moves: string[] }).moves.length : 0;
      if (stored < count) lost += count - stored;
      else unacknowledged += stored - count;
    }
    db.close();
    const ackedTotal = [...acked.values()].reduce((a, b) => a + b, 0);

    const cpu = cpus()[0]?.model ?? 'unknown';
    const out = [
      `Node ${process.version}, ${availableParallelism()} cores (${cpu}), load average before ${loadavg()
        .map(x => x.toFixed(1))
        .join(' / ')}; ${rounds} rounds of ${seconds} s per target and workload, ${connections} connections, ` +
        `pipelining 1, medians over rounds.`,
      '',
      '| Workload | service req/s | bare req/s | ratio | service p50 / p99 ms | bare p50 / p99 ms | p99 ratio | CPU µs per request, service / bare | service non-2xx | bare non-2xx |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      ...rows,
    ];
    if (sent > 0) {
      out.push(
        '',
        `POST move durability (SQLite, read back after SIGKILL): ${ackedTotal} moves acknowledged in ${acked.size} ` +
          `games (of ${sent} sent), ${lost} lost, ${unacknowledged} stored without an answer (in flight when a ` +
          `round ended).`,
      );
    }
    process.stdout.write(`${out.join('\n')}\n`);
    if (lost > 0) process.exitCode = 1;
    load.kill();
  } finally {
    cleanUp();
    await database?.drop().catch((error: unknown) => process.stderr.write(`drop: ${String(error)}\n`));
  }
}

if (process.argv[2] === 'load') loadProcess();
else await main();
