/**
 * Request throughput: the real service on SQLite and on PostgreSQL against a bare Fastify server (`bench/bare.ts`)
 * answering constant JSON of the same shapes, on the same machine in one run. Each runs as its own process; the
 * load comes from another process (autocannon's programmatic API). Rounds alternate SQLite, PostgreSQL and bare,
 * and the table shows the median of the rounds: each store as a ratio to bare, side by side, and PostgreSQL's
 * ratio as a fraction of SQLite's. CPU per request is read from /proc for the target's processes and, on
 * PostgreSQL, apart for the database server's backends of the target's database (they share the same cores).
 *
 * ```sh
 * npm run bench                                   # full: 3 rounds of 10 s per workload and target, both stores
 * QUICK=1 npm run bench                           # 2 rounds of 2 s
 * npm run bench -- --store postgres               # one store (sqlite, postgres or both, the default)
 * POSTGRES=0 npm run bench                        # the same as --store sqlite
 * npm run bench -- --store postgres --instances 2 # also two PostgreSQL instances behind one port
 * WORKLOADS=move,import npm run bench             # some of getGame, move, moves, create, import, growth
 * WORKLOADS=growth npm run bench                  # what a durable write costs at 10 and at 400 plies
 * ROUNDS=5 DURATION=8 CONNECTIONS=10 npm run bench
 * PROFILE_DIR=./profiles npm run bench            # also a CPU profile of each store's service
 * npm run bench:ab -- REF                         # A/B: this work tree against commit REF (--against REF)
 * QUICK=1 WORKLOADS=getGame,move BARE=0 npm run bench:ab -- HEAD~1 --store sqlite --json ab.json
 * npm run bench -- --against REF --build OTHER --repo ../clone  # two commits of another repository
 * ```
 *
 * A/B (`--against REF`): REF is built in a scratch folder (bench/builds.ts: `git archive`, this tree's node_modules
 * when the package-lock.json is the same, else `npm ci`; the build is kept for later runs) and runs as one more
 * service per store, on the same runtime, alternating with this build's round by round (every other round in the
 * opposite order). A table then gives each figure as this build over REF: requests per second, requests per
 * CPU-second of the service, p50 and p99, each the median of the rounds' pairwise ratios (two rounds, one with each
 * build first, taken together: pairedMedian), with a verdict (slower or faster when both throughput ratios are
 * beyond 5 %). `--build C` measures commit C instead of the work tree, `--repo DIR` looks both commits up in another
 * repository, `--json FILE` writes the figures, `BARE=0` leaves the bare server out.
 *
 * Workloads: GET a game of 80 plies, POST a move (each game gets a fixed cycle of knight moves, spread over
 * enough fresh games that none reaches fivefold repetition), GET the legal moves of a middlegame position, POST
 * create, POST import of an 80-ply PGN; by default all five. `growth` (only when named) imports 32 games of 10
 * plies and 32 of 400 plies into each store and sends them alternating undo and redo: the writes per second and
 * the service's CPU per write at both lengths.
 *
 * `--instances N` starts N more PostgreSQL services on a database of their own and a round-robin TCP proxy in
 * front of them (this file, run as `proxy`), and runs POST move and GET game through it as one more target.
 *
 * After the last round each store's service is killed with SIGKILL (SIGTERM when profiling), started again on
 * the same file or database, and every game that took moves is read back through the API: every acknowledged
 * move must be there.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildServer, SERVER_OUTPUT } from '../scripts/build.ts';
import { buildCommit, type Build } from './builds.ts';
import { exportPgn } from '../src/domain/pgn.ts';
import { cpuMs, freePort, inParallel, median, pairedMedian, quantile, randomGame, setting } from './common.ts';
import type { Fixtures } from './bare.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

// Each move cycle returns to its start after 8 plies with 8 distinct positions in between, so the start position
// is seen for the fifth time (fivefold repetition, the game ends) at ply 32: a game takes at most 32 moves here.
const CYCLE = ['g1f3', 'g8f6', 'b1c3', 'b8c6', 'f3g1', 'f6g8', 'c3b1', 'c6b8'];
const PLIES_PER_GAME = 32;

const GROWTH_GAMES = 32;
const GROWTH_PLIES = [10, 400] as const;
const GROWTH_TARGET = 1.25; // CPU per write at 400 plies over that at 10, at most
// PostgreSQL's ratio to bare as a fraction of SQLite's, at least.
const STORE_TARGETS: Partial<Record<Workload, number>> = { getGame: 0.8, move: 0.5 };

// ---------------------------------------------------------------------------------------------------------
// Load process: runs one round with autocannon and reports what it measured.

type Workload = 'getGame' | 'move' | 'moves' | 'create' | 'import' | 'growth';
const THROUGHPUT: Workload[] = ['getGame', 'move', 'moves', 'create', 'import'];

interface Job {
  url: string;
  workload: Workload;
  seconds: number;
  connections: number;
  gameId: string; // for getGame and moves
  gameIds: string[]; // for growth: the games to undo and redo in
  pgn: string; // for import
  games: number; // for move: fresh games to spread the moves over
  track: boolean; // for move: report the acknowledged moves per game
  pids: number[]; // the target's processes, whose CPU time the round measures
  proxyPid?: number; // the proxy in front of them, measured apart
  database?: string; // PostgreSQL: the target's database, whose server processes are measured apart
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
  cpuUs: number; // CPU time of the target's processes per request, in µs
  window: [number, number]; // when the load ran, in µs of the monotonic clock (that of CPU profiles)
  proxyCpuUs?: number;
  databaseCpuUs?: number; // the PostgreSQL server processes serving the target's database
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
  return inParallel(count, 16, async () => {
    const res = await fetch(`${url}/api/board/game`, { method: 'POST' });
    if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { gameId: string }).gameId;
  });
}

const safeCpuMs = (pid: number): number => {
  try {
    return cpuMs(pid);
  } catch {
    return 0; // gone: a backend that ended (its time is lost to the measure) or one not yet started
  }
};

// The PostgreSQL backends of a database: their pids are asked of the server before and after the round (a pool
// may open a connection during it), through a connection of the load process's own, which is left out.
const databaseClients = new Map<string, pg.Client>();
async function databaseCpuMs(url: string): Promise<Map<number, number>> {
  let client = databaseClients.get(url);
  if (!client) {
    client = new pg.Client({ connectionString: url });
    await client.connect();
    databaseClients.set(url, client);
  }
  const { rows } = await client.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
  return new Map(rows.map(row => [row.pid, safeCpuMs(row.pid)]));
}

// Growth: how many undo and redo requests each game was sent, over all rounds, so that every game alternates.
const growthSent = new Map<string, number>();

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
  } else if (job.workload === 'growth') {
    // The games take turns, so a game's previous request was sent 32 requests earlier and has been answered
    // (with at most 32 connections); each game alternates undo and redo and stays within a ply of its length.
    const ids = job.gameIds;
    let k = 0;
    requests = [
      {
        method: 'POST',
        setupRequest: request => {
          const id = ids[k++ % ids.length]!;
          const sent = growthSent.get(id) ?? 0;
          growthSent.set(id, sent + 1);
          return { ...request, path: `${base}/${id}/${sent % 2 ? 'redo' : 'undo'}` };
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
  // After the games of the move workload were created.
  const databaseBefore = job.database ? await databaseCpuMs(job.database) : undefined;
  const proxyBefore = job.proxyPid ? cpuMs(job.proxyPid) : 0;
  const cpuBefore = job.pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  const startedAt = process.hrtime.bigint();
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
  const window: [number, number] = [Number(startedAt / 1000n), Number(process.hrtime.bigint() / 1000n)];
  const requestsDone = Math.max(1, result.requests.total);
  const perRequest = (ms: number) => (ms * 1000) / requestsDone;
  const cpuUs = perRequest(job.pids.reduce((sum, pid) => sum + cpuMs(pid), 0) - cpuBefore);
  const proxyCpuUs = job.proxyPid ? perRequest(cpuMs(job.proxyPid) - proxyBefore) : undefined;
  let databaseCpuUs: number | undefined;
  if (job.database && databaseBefore) {
    let used = 0;
    for (const [pid, ms] of await databaseCpuMs(job.database)) used += ms - (databaseBefore.get(pid) ?? 0);
    databaseCpuUs = perRequest(used);
  }
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
    window,
    ...(proxyCpuUs === undefined ? {} : { proxyCpuUs }),
    ...(databaseCpuUs === undefined ? {} : { databaseCpuUs }),
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
// Proxy process: PORT on 127.0.0.1 to the ports of BACKENDS (comma-separated), one connection each in turn.

function proxyProcess(): void {
  const backends = process.env.BACKENDS!.split(',').map(Number);
  let next = 0;
  const server = createServer({ noDelay: true }, client => {
    const upstream = connect({ port: backends[next++ % backends.length]!, host: '127.0.0.1', noDelay: true });
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
    client.pipe(upstream).pipe(client);
  });
  server.listen(Number(process.env.PORT), '127.0.0.1');
}

// ---------------------------------------------------------------------------------------------------------
// Conductor.

interface Target {
  name: string;
  url: string;
  procs: ChildProcess[]; // whose CPU is the target's
  proxy?: ChildProcess;
  database?: string;
}

type Store = 'sqlite' | 'postgres';
const STORE_LABEL: Record<Store, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

async function startProcess(name: string, args: string[], env: Record<string, string>, cwd = ROOT) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = spawn(process.execPath, args, {
    cwd,
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
  return { url, port, proc };
}

async function json(url: string, init?: RequestInit): Promise<unknown> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function createDatabase(adminUrl: string, name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

interface Options {
  stores: Store[];
  explicit: boolean;
  instances: number;
  against: string | undefined; // A/B: the commit to compare with
  build: string | undefined; // A/B: the commit measured as "this" build instead of the work tree
  repo: string | undefined; // A/B: the repository those commits are in, this one by default
  json: string | undefined; // a file for the A/B figures as JSON
}

function options(): Options {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      store: { type: 'string' }, // sqlite, postgres or both (the default)
      instances: { type: 'string' }, // PostgreSQL instances behind one port, besides the single one
      against: { type: 'string' },
      build: { type: 'string' },
      repo: { type: 'string' },
      json: { type: 'string' },
    },
  });
  if ((values.build ?? values.repo ?? values.json) !== undefined && values.against === undefined)
    throw new Error('--build, --repo and --json go with --against REF');
  const store = values.store ?? (process.env.POSTGRES === '0' ? 'sqlite' : 'both');
  if (!['sqlite', 'postgres', 'both'].includes(store))
    throw new Error(`--store: sqlite, postgres or both; got '${store}'`);
  if (process.env.POSTGRES === '0' && store !== 'sqlite') throw new Error(`POSTGRES=0 means --store sqlite`);
  const raw = values.instances ?? '1';
  if (!/^[1-9]\d*$/.test(raw)) throw new Error(`--instances must be a whole number from 1; got '${raw}'`);
  const instances = Number(raw);
  const stores: Store[] = store === 'both' ? ['sqlite', 'postgres'] : [store as Store];
  if (instances > 1 && !stores.includes('postgres')) throw new Error('--instances needs PostgreSQL (--store postgres)');
  if (instances > 1 && values.against !== undefined) throw new Error('--instances and --against: one at a time');
  return {
    stores,
    explicit: values.store !== undefined || instances > 1,
    instances,
    against: values.against,
    build: values.build,
    repo: values.repo,
    json: values.json,
  };
}

interface Summary {
  rps: number;
  p50: number;
  p99: number;
  cpu: number;
  proxyCpu: number;
  databaseCpu: number;
  non2xx: number;
  total: number;
}
const summarize = (list: RoundResult[]): Summary => ({
  rps: median(list.map(x => x.rps)),
  p50: median(list.map(x => x.p50)),
  p99: median(list.map(x => x.p99)),
  cpu: median(list.map(x => x.cpuUs)),
  proxyCpu: median(list.map(x => x.proxyCpuUs ?? NaN)),
  databaseCpu: median(list.map(x => x.databaseCpuUs ?? NaN)),
  non2xx: list.reduce((sum, x) => sum + x.non2xx + x.errors, 0),
  total: list.reduce((sum, x) => sum + x.total, 0),
});
const latency = (s: Summary) => `${s.p50.toFixed(2)} / ${s.p99.toFixed(2)}`;
const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
const table = (header: string[], rows: string[]) => [row(header), row(header.map(() => '---')), ...rows];

// ---------------------------------------------------------------------------------------------------------
// A/B (--against REF): this build against another, store by store, as ratios this / REF.

/** Each figure of one workload and store as this build over the other, over the rounds (pairedMedian). */
interface AbFigures {
  rps: number; // requests per second: below 1, this build answers fewer
  cpuRate: number; // requests per CPU-second of the service (1 / CPU per request): below 1, this build costs more
  p50: number; // latency: above 1, this build is slower
  p99: number;
}
interface AbEntry {
  workload: Workload;
  title: string;
  stores: { store: string; self: Summary; other: Summary; ratio: AbFigures; verdict: string }[];
}

/** Beyond this, both throughput ratios the same way, a change is reported as slower or faster. */
const AB_MARGIN = 0.05;

/**
 * Ratios of round i of this build to round i of the other (the two ran one after the other, alternating which
 * first), combined over the rounds by pairedMedian: a round shares the machine's state of its moment, which the
 * medians of each side alone would not.
 */
function abReport(
  input: {
    workload: Workload;
    title: string;
    stores: { store: string; self: RoundResult[]; other: RoundResult[] }[];
  }[],
): AbEntry[] {
  return input.map(({ workload, title, stores }) => ({
    workload,
    title,
    stores: stores.map(({ store, self, other }) => {
      const pairs = self.map((mine, i) => [mine, other[i]!] as const);
      const ratio: AbFigures = {
        rps: pairedMedian(pairs.map(([a, b]) => a.rps / b.rps)),
        cpuRate: pairedMedian(pairs.map(([a, b]) => b.cpuUs / a.cpuUs)),
        p50: pairedMedian(pairs.map(([a, b]) => a.p50 / b.p50)),
        p99: pairedMedian(pairs.map(([a, b]) => a.p99 / b.p99)),
      };
      const side = (x: number) => (x < 1 - AB_MARGIN ? -1 : x > 1 + AB_MARGIN ? 1 : 0);
      const [a, b] = [side(ratio.rps), side(ratio.cpuRate)];
      const verdict =
        a === b
          ? ['slower', `within ${AB_MARGIN * 100} %`, 'faster'][a + 1]!
          : a * b < 0
            ? 'mixed: run it again'
            : `${['slower', '', 'faster'][a + b + 1]} by one measure`;
      return { store, self: summarize(self), other: summarize(other), ratio, verdict };
    }),
  }));
}

function abTable(report: AbEntry[], self: string, other: string): string[] {
  const rows = report.flatMap(({ title, stores }) =>
    stores.map(({ store, self: a, other: b, ratio, verdict }) =>
      row([
        title,
        store,
        `${a.rps.toFixed(0)} / ${b.rps.toFixed(0)}`,
        `**${ratio.rps.toFixed(2)}**`,
        `${(1e6 / a.cpu).toFixed(0)} / ${(1e6 / b.cpu).toFixed(0)}`,
        `**${ratio.cpuRate.toFixed(2)}**`,
        `${a.cpu.toFixed(0)} / ${b.cpu.toFixed(0)}`,
        `${latency(a)}; ${latency(b)}`,
        `${ratio.p50.toFixed(2)} / ${ratio.p99.toFixed(2)}`,
        verdict,
      ]),
    ),
  );
  return [
    `A/B: ${self} against ${other}, each figure as ${self} / ${other} (the rounds alternate which build runs ` +
      `first; the median of the rounds' ratios, each two rounds' as their geometric mean). Throughput below 1 and ` +
      `latency above 1: ${self} is slower.`,
    '',
    ...table(
      [
        'Workload',
        'store',
        `req/s, ${self} / ${other}`,
        'req/s ratio',
        `req per CPU-second, ${self} / ${other}`,
        'req per CPU-second ratio',
        `CPU µs per request, ${self} / ${other}`,
        `p50 / p99 ms, ${self}; ${other}`,
        'p50 / p99 ratio',
        'verdict',
      ],
      rows,
    ),
  ];
}

/** Stops a process with `signal` and waits for its end. */
async function stop(proc: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise(resolve => proc.once('exit', resolve));
  proc.kill(signal);
  await exited;
}

/** Starts a store's service again and reads back through the API every game that took acknowledged moves. */
async function readBack(
  restart: () => ReturnType<typeof startProcess>,
  acked: Map<string, number>,
  children: ChildProcess[],
) {
  const again = await restart();
  children.push(again.proc);
  const ids = [...acked.keys()];
  let lost = 0;
  let unacknowledged = 0;
  await inParallel(ids.length, 16, async index => {
    const id = ids[index]!;
    const res = await fetch(`${again.url}/api/board/game/${id}`);
    if (res.status !== 200 && res.status !== 404) throw new Error(`read back ${id}: ${res.status} ${await res.text()}`);
    const stored = res.status === 404 ? 0 : ((await res.json()) as { state: { moves: string[] } }).state.moves.length;
    const count = acked.get(id)!;
    if (stored < count) lost += count - stored;
    else unacknowledged += stored - count;
  });
  again.proc.kill('SIGKILL');
  const total = [...acked.values()].reduce((a, b) => a + b, 0);
  return { games: acked.size, total, lost, unacknowledged };
}

async function main(): Promise<void> {
  const { stores: wanted, explicit, instances, against, build, repo, json: jsonFile } = options();
  const loadBefore = loadavg(); // what the machine was doing before this run's own load
  const withBare = process.env.BARE !== '0';
  if (!withBare && !against) throw new Error('BARE=0 goes with --against REF (the ratios are to bare otherwise)');
  const quick = process.env.QUICK === '1';
  const rounds = setting('ROUNDS', quick ? 2 : 3);
  const seconds = setting('DURATION', quick ? 2 : 10);
  const connections = setting('CONNECTIONS', 10);
  const only = process.env.WORKLOADS?.split(','); // e.g. 'move,import'; the five throughput workloads by default
  const all: Workload[] = [...THROUGHPUT, 'growth'];
  const unknown = only?.filter(name => !all.some(w => w === name));
  if (unknown?.length) throw new Error(`WORKLOADS: some of ${all.join(', ')}; got '${unknown.join(',')}'`);
  const chosen = only ? all.filter(w => only.includes(w)) : THROUGHPUT;
  const dir = mkdtempSync(join(tmpdir(), 'bench-run-'));
  const sqlitePath = join(dir, 'chess.sqlite');
  const profileDir = process.env.PROFILE_DIR;
  const children: ChildProcess[] = [];
  const drops: (() => Promise<void>)[] = [];
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
    // With --against, each build's profiles go to a folder of its own under PROFILE_DIR, named by its label.
    const profileOf = (label: string | undefined) =>
      profileDir ? ['--cpu-prof', '--cpu-prof-dir', label ? join(profileDir, label) : profileDir] : [];
    // The service runs as npm start runs it, from its bundle: this work tree's, or with --build a commit's. With
    // --against, the other commit's too, built in a scratch folder (bench/builds.ts).
    let self: Build | undefined;
    if (build) self = await buildCommit(build, repo ? { repo } : {});
    else await buildServer({ ifStale: true });
    const other = against ? await buildCommit(against, repo ? { repo } : {}) : undefined;
    const selfLabel = self ? self.label : 'this';

    // The stores' services: a fresh SQLite file, fresh PostgreSQL databases (dropped at the end).
    const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    const databaseName = (suffix: string) => `bench_${process.pid}_${Date.now()}_${suffix}`;
    const databases: Partial<Record<Store, string>> = { sqlite: sqlitePath };
    const otherDatabases: Partial<Record<Store, string>> = { sqlite: join(dir, 'other.sqlite') };
    if (wanted.includes('postgres')) {
      try {
        const database = await createDatabase(adminUrl, databaseName('one'));
        drops.push(database.drop);
        databases.postgres = database.url;
        if (other) {
          const second = await createDatabase(adminUrl, databaseName('other'));
          drops.push(second.drop);
          otherDatabases.postgres = second.url;
        }
      } catch (error) {
        if (explicit) throw error;
        process.stderr.write(`PostgreSQL not used (${String(error)})\n`);
      }
    }
    const stores = wanted.filter(store => databases[store] !== undefined);
    const startService = (store: Store, extra: string[] = []) =>
      self
        ? startProcess(
            `${STORE_LABEL[store]} ${self.label}`,
            [...extra, self.server],
            { ...serviceEnv, DATABASE_URL: databases[store]! },
            self.dir,
          )
        : startProcess(STORE_LABEL[store], [...extra, SERVER_OUTPUT], {
            ...serviceEnv,
            DATABASE_URL: databases[store]!,
          });
    const startOther = (store: Store, extra: string[] = []) =>
      startProcess(
        `${STORE_LABEL[store]} ${other!.label}`,
        [...extra, other!.server],
        { ...serviceEnv, DATABASE_URL: otherDatabases[store]! },
        other!.dir,
      );
    const services = new Map<Store, Target>();
    const others = new Map<Store, Target>(); // the same stores on the build compared with (--against)
    for (const store of stores) {
      const database = store === 'postgres' ? databases.postgres : undefined;
      const { url, proc } = await startService(store, profileOf(other ? selfLabel : undefined));
      children.push(proc);
      const name = other ? `${STORE_LABEL[store]} ${selfLabel}` : STORE_LABEL[store];
      services.set(store, { name, url, procs: [proc], ...(database ? { database } : {}) });
      if (other) {
        const otherDatabase = store === 'postgres' ? otherDatabases.postgres : undefined;
        const started = await startOther(store, profileOf(other.label));
        children.push(started.proc);
        others.set(store, {
          name: `${STORE_LABEL[store]} ${other.label}`,
          url: started.url,
          procs: [started.proc],
          ...(otherDatabase ? { database: otherDatabase } : {}),
        });
      }
    }

    // N more PostgreSQL services on a database of their own (each instance hears every change on its database,
    // which would burden the single instance's rounds), behind the proxy.
    let group: Target | undefined;
    if (instances > 1) {
      const database = await createDatabase(adminUrl, databaseName('group'));
      drops.push(database.drop);
      const members = [];
      for (let i = 0; i < instances; i++) {
        const member = await startProcess(`PostgreSQL instance ${i + 1}`, [SERVER_OUTPUT], {
          ...serviceEnv,
          DATABASE_URL: database.url,
        });
        children.push(member.proc);
        members.push(member);
      }
      const proxy = await startProcess('proxy', ['--import', 'tsx', SELF, 'proxy'], {
        BACKENDS: members.map(member => member.port).join(','),
      });
      children.push(proxy.proc);
      group = {
        name: `PostgreSQL ×${instances}`,
        url: proxy.url,
        procs: members.map(member => member.proc),
        proxy: proxy.proc,
        database: database.url,
      };
    }

    // Fixtures: an 80-ply game, a middlegame (the first 30 plies of it) in every store; answers recorded from the
    // first store for the bare server.
    const full = randomGame(80, 1);
    const pgn = exportPgn(full, { site: '?' });
    const middle = exportPgn(randomGame(30, 1), { site: '?' });
    const post = { method: 'POST', headers: { 'content-type': 'application/json' } };
    const importPgn = async (target: Target, text: string) =>
      (await json(`${target.url}/api/board/game/import/pgn`, { ...post, body: JSON.stringify({ pgn: text }) })) as {
        gameId: string;
      };
    const fixtureIds = new Map<Target, { game: string; middlegame: string }>();
    let imported: unknown;
    for (const target of [...services.values(), ...others.values(), ...(group ? [group] : [])]) {
      const game = await importPgn(target, pgn);
      imported ??= game;
      fixtureIds.set(target, { game: game.gameId, middlegame: (await importPgn(target, middle)).gameId });
    }
    const first = services.get(stores[0]!)!;
    const api = `${first.url}/api/board/game`;
    const created = (await json(api, { method: 'POST' })) as { gameId: string };
    const fixtures: Fixtures = {
      game: await json(`${api}/${fixtureIds.get(first)!.game}`),
      moves: await json(`${api}/${fixtureIds.get(first)!.middlegame}/moves`),
      move: await json(`${api}/${created.gameId}/move/g1f3`, { method: 'POST' }),
      created,
      imported,
    };
    const fixturesPath = join(dir, 'fixtures.json');
    writeFileSync(fixturesPath, JSON.stringify(fixtures));
    let bare: Target | undefined; // BARE=0 (with --against): none
    if (withBare) {
      const bareProcess = await startProcess('bare', ['--import', 'tsx', 'bench/bare.ts'], { FIXTURES: fixturesPath });
      children.push(bareProcess.proc);
      bare = { name: 'bare', url: bareProcess.url, procs: [bareProcess.proc] };
      fixtureIds.set(bare, fixtureIds.get(first)!);
    }

    // The load process.
    const load = spawn(process.execPath, ['--import', 'tsx', SELF, 'load'], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.push(load);
    const round = (job: Job): Promise<RoundResult> =>
      new Promise((resolve, reject) => {
        load.once('message', (message: { ok: boolean; result?: RoundResult; error?: string }) => {
          if (!message.ok) {
            reject(new Error(message.error));
            return;
          }
          // A round without a 2xx answer has no latencies: NaN, which the message carried as null.
          const result = message.result as Omit<RoundResult, 'p50' | 'p99'> & {
            p50: number | null;
            p99: number | null;
          };
          resolve({ ...result, p50: result.p50 ?? NaN, p99: result.p99 ?? NaN });
        });
        load.send(job);
      });
    const jobOf = (target: Target, workload: Workload, duration: number): Job => ({
      url: target.url,
      workload,
      seconds: duration,
      connections,
      gameId: workload === 'moves' ? fixtureIds.get(target)!.middlegame : fixtureIds.get(target)!.game,
      gameIds: [],
      pgn,
      games: 0,
      track: false,
      pids: target.procs.map(proc => proc.pid!),
      ...(target.proxy ? { proxyPid: target.proxy.pid! } : {}),
      ...(target.database ? { database: target.database } : {}),
    });
    const report = (label: string, result: RoundResult) =>
      process.stderr.write(
        `${label}: ${result.rps.toFixed(0)}/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, ` +
          `CPU ${result.cpuUs.toFixed(0)} µs/request` +
          (result.proxyCpuUs === undefined ? '' : ` (proxy ${result.proxyCpuUs.toFixed(0)})`) +
          (result.databaseCpuUs === undefined ? '' : ` (database ${result.databaseCpuUs.toFixed(0)})`) +
          `, non-2xx ${result.non2xx} ${JSON.stringify(result.refused)}, errors ${result.errors}\n`,
      );

    const titles: Record<Workload, string> = {
      getGame: 'GET game (80 plies)',
      move: 'POST move',
      moves: 'GET moves (middlegame)',
      create: 'POST create',
      import: 'POST import/pgn (80 plies)',
      growth: 'growth',
    };
    const storeTargets = stores.map(store => services.get(store)!);
    const otherTargets = stores.flatMap(store => (others.has(store) ? [others.get(store)!] : []));
    const acked = new Map<Target, Map<string, number>>(
      [...storeTargets, ...otherTargets].map(target => [target, new Map()]),
    );
    const sent = new Map<Target, number>();
    const estimate = new Map<Target, number>(); // move rps per target, to size the games of the next round
    const results = new Map<Workload, Map<Target, Summary>>();
    // With PROFILE_DIR: when each round ran on each target, beside its profiles, so that bench/layers.ts can take a
    // workload's rounds out of a profile of the whole process and divide by their requests.
    const windows = new Map<Target, { workload: string; warmup: boolean; window: [number, number]; total: number }[]>();
    const noteWindow = (target: Target, workload: string, warmup: boolean, result: RoundResult) =>
      windows.set(target, [
        ...(windows.get(target) ?? []),
        { workload, warmup, window: result.window, total: result.total },
      ]);
    const roundsOf = new Map<Workload, Map<Target, RoundResult[]>>(); // each round's figures, for the A/B ratios
    for (const workload of chosen.filter(w => w !== 'growth')) {
      const title = titles[workload];
      const targets = [...storeTargets, ...otherTargets, ...(bare ? [bare] : [])];
      if (group && (workload === 'move' || workload === 'getGame')) targets.push(group);
      const perTarget = new Map<Target, RoundResult[]>();
      for (let r = -1; r < rounds; r++) {
        // A/B: every other round runs the targets in the opposite order, so that neither build always follows
        // the other (a round after a write workload inherits its checkpoints, the machine's load drifts).
        for (const target of other && r % 2 !== 0 ? [...targets].reverse() : targets) {
          const warmup = r < 0;
          const duration = warmup ? Math.min(2, seconds) : seconds;
          const rate = estimate.get(target) ?? 3000;
          const tracked = acked.get(target);
          const result = await round({
            ...jobOf(target, workload, duration),
            games: Math.max(connections * 20, Math.ceil((rate * duration * 3) / PLIES_PER_GAME)),
            track: tracked !== undefined && workload === 'move',
          });
          if (workload === 'move') estimate.set(target, result.rps);
          if (result.acked && tracked) {
            for (const [id, count] of Object.entries(result.acked)) tracked.set(id, (tracked.get(id) ?? 0) + count);
            sent.set(target, (sent.get(target) ?? 0) + result.total);
          }
          if (!warmup) perTarget.set(target, [...(perTarget.get(target) ?? []), result]);
          noteWindow(target, workload, warmup, result);
          report(`${title} ${target.name}${warmup ? ' (warm-up)' : ` round ${r + 1}`}`, result);
        }
      }
      results.set(workload, new Map([...perTarget].map(([target, list]) => [target, summarize(list)])));
      roundsOf.set(workload, perTarget);
    }

    // Growth: 32 games of each length per store, made by importing a PGN of that length.
    const growth = new Map<Target, Map<number, Summary>>();
    if (chosen.includes('growth')) {
      const games = new Map<Target, Map<number, string[]>>();
      for (const target of [...storeTargets, ...otherTargets]) {
        const byLength = new Map<number, string[]>();
        for (const plies of GROWTH_PLIES) {
          const text = exportPgn(randomGame(plies, plies), { site: '?' });
          byLength.set(plies, await inParallel(GROWTH_GAMES, 8, async () => (await importPgn(target, text)).gameId));
        }
        games.set(target, byLength);
      }
      const perCase = new Map<string, RoundResult[]>();
      for (let r = -1; r < rounds; r++) {
        for (const target of [...storeTargets, ...otherTargets]) {
          for (const plies of GROWTH_PLIES) {
            const warmup = r < 0;
            const result = await round({
              ...jobOf(target, 'growth', warmup ? Math.min(2, seconds) : seconds),
              gameIds: games.get(target)!.get(plies)!,
            });
            const key = `${target.name} ${plies}`;
            if (!warmup) perCase.set(key, [...(perCase.get(key) ?? []), result]);
            noteWindow(target, `growth${plies}`, warmup, result);
            report(`undo/redo at ${plies} plies ${target.name}${warmup ? ' (warm-up)' : ` round ${r + 1}`}`, result);
          }
        }
      }
      for (const target of [...storeTargets, ...otherTargets])
        growth.set(
          target,
          new Map(GROWTH_PLIES.map(plies => [plies, summarize(perCase.get(`${target.name} ${plies}`)!)])),
        );
    }
    load.kill();
    if (profileDir) {
      for (const [target, list] of windows) {
        const pid = target.procs[0]!.pid!;
        const folder = otherTargets.includes(target)
          ? join(profileDir, other!.label)
          : other
            ? join(profileDir, selfLabel)
            : profileDir;
        mkdirSync(folder, { recursive: true });
        writeFileSync(join(folder, `rounds-${pid}.json`), `${JSON.stringify({ target: target.name, rounds: list })}\n`);
      }
    }

    // Durability: kill each store's service without warning (SIGTERM when profiling, so that the profile is
    // written), start it again on the same store, and read back through the API every game that took moves.
    const durability: string[] = [];
    const signal = profileDir ? 'SIGTERM' : 'SIGKILL';
    const restarts = stores.flatMap(store => [
      { target: services.get(store)!, restart: () => startService(store) },
      ...(others.has(store) ? [{ target: others.get(store)!, restart: () => startOther(store) }] : []),
    ]);
    for (const { target, restart } of restarts) {
      await stop(target.procs[0]!, signal);
      const tracked = acked.get(target)!;
      if (tracked.size === 0) continue;
      const back = await readBack(restart, tracked, children);
      durability.push(
        `POST move durability (${target.name}, read back through the API after ${signal} and a restart): ` +
          `${back.total} moves acknowledged in ${back.games} games (of ${sent.get(target)} sent), ${back.lost} ` +
          `lost, ${back.unacknowledged} stored without an answer (in flight when a round ended).`,
      );
      if (back.lost > 0) process.exitCode = 1;
    }

    const cpu = cpus()[0]?.model ?? 'unknown';
    const cores = availableParallelism();
    const names = storeTargets.map(target => target.name);
    const both = stores.length === 2;
    const hasPostgres = stores.includes('postgres');
    const out = [
      `Node ${process.version}, ${cores} cores (${cpu}), load average before ${loadBefore
        .map(x => x.toFixed(1))
        .join(' / ')}; ${rounds} rounds of ${seconds} s per target and workload, ${connections} connections, ` +
        `pipelining 1, medians over rounds; stores: ${names.join(', ')}.`,
    ];
    const throughput = chosen.filter(w => w !== 'growth');
    if (throughput.length > 0 && bare) {
      const rows = throughput.map(workload => {
        const byTarget = results.get(workload)!;
        const b = byTarget.get(bare)!;
        const s = storeTargets.map(target => byTarget.get(target)!);
        const cells = [titles[workload], ...s.map(x => x.rps.toFixed(0)), b.rps.toFixed(0)];
        cells.push(...s.map(x => `**${(x.rps / b.rps).toFixed(2)}**`));
        if (both) {
          const target = STORE_TARGETS[workload];
          cells.push(`**${(s[1]!.rps / s[0]!.rps).toFixed(2)}**${target ? ` (target ${target})` : ''}`);
        }
        cells.push(...s.map(latency), latency(b), s.map(x => (x.p99 / b.p99).toFixed(1)).join(' / '));
        cells.push([...s, b].map(x => x.cpu.toFixed(0)).join(' / '));
        if (hasPostgres) cells.push(s[stores.indexOf('postgres')]!.databaseCpu.toFixed(0));
        cells.push([...s.map(x => `${x.non2xx} of ${x.total}`), String(b.non2xx)].join(' / '));
        return row(cells);
      });
      out.push(
        '',
        ...table(
          [
            'Workload',
            ...names.map(name => `${name} req/s`),
            'bare req/s',
            ...names.map(name => `${name} ratio`),
            ...(both ? ['PostgreSQL / SQLite'] : []),
            ...names.map(name => `${name} p50 / p99 ms`),
            'bare p50 / p99 ms',
            `p99 ratio, ${names.join(' / ')}`,
            `CPU µs per request, ${[...names, 'bare'].join(' / ')}`,
            ...(hasPostgres ? ['PostgreSQL server CPU µs per request'] : []),
            `non-2xx, ${[...names, 'bare'].join(' / ')}`,
          ],
          rows,
        ),
      );
    }

    if (group) {
      const single = services.get('postgres')!;
      const rows = throughput
        .filter(w => w === 'move' || w === 'getGame')
        .map(workload => {
          const one = results.get(workload)!.get(single)!;
          const many = results.get(workload)!.get(group)!;
          return row([
            titles[workload],
            one.rps.toFixed(0),
            many.rps.toFixed(0),
            `**${(many.rps / one.rps).toFixed(2)}**`,
            `${latency(one)}; ${latency(many)}`,
            `${one.cpu.toFixed(0)} / ${many.cpu.toFixed(0)} / ${many.proxyCpu.toFixed(0)}`,
            `${one.databaseCpu.toFixed(0)} / ${many.databaseCpu.toFixed(0)}`,
            `${one.non2xx} of ${one.total} / ${many.non2xx} of ${many.total}`,
          ]);
        });
      if (rows.length > 0) {
        out.push(
          '',
          ...table(
            [
              'Workload',
              'PostgreSQL req/s, 1 instance',
              `${instances} instances behind the proxy`,
              `${instances} / 1`,
              `p50 / p99 ms, 1; ${instances}`,
              `CPU µs per request: 1 instance / ${instances} together / proxy`,
              `PostgreSQL server CPU µs per request, 1 / ${instances}`,
              `non-2xx, 1 / ${instances}`,
            ],
            rows,
          ),
          '',
          `${instances} instances on one database behind a round-robin TCP proxy (one port). The proxy spreads ` +
            `connections, not requests: each instance holds a share of the ${connections} connections, and a ` +
            `game's successive changes arrive at any of them. On ${cores} cores shared by the instances, the proxy, ` +
            `the PostgreSQL server and the load generator, no core is left idle for another instance to use, so the ` +
            `total cannot be expected to grow with the instances and may fall (each instance also hears of the ` +
            `others' changes). This is a smoke test of scale-out (one address, one database, changes made through ` +
            `one instance taken up by the others, refusals counted), not a measure of it: that needs the instances, ` +
            `the database and the load on machines of their own.`,
        );
      }
    }

    if (growth.size > 0) {
      const [short, long] = GROWTH_PLIES;
      const rows = [...growth.keys()].map(target => {
        const at = growth.get(target)!;
        const a = at.get(short)!;
        const z = at.get(long)!;
        return row([
          target.name,
          a.rps.toFixed(0),
          z.rps.toFixed(0),
          `${a.cpu.toFixed(0)} / ${z.cpu.toFixed(0)}`,
          `**${(z.cpu / a.cpu).toFixed(2)}x**`,
          target.database ? `${a.databaseCpu.toFixed(0)} / ${z.databaseCpu.toFixed(0)}` : '-',
          `${latency(a)}; ${latency(z)}`,
          `${a.non2xx} of ${a.total} / ${z.non2xx} of ${z.total}`,
        ]);
      });
      out.push(
        '',
        ...table(
          [
            `Undo and redo, ${GROWTH_GAMES} games`,
            `writes/s at ${short} plies`,
            `writes/s at ${long} plies`,
            `CPU µs per write, ${short} / ${long} plies`,
            `CPU ${long} / ${short} (target at most ${GROWTH_TARGET}x)`,
            `PostgreSQL server CPU µs per write, ${short} / ${long}`,
            `p50 / p99 ms, ${short}; ${long}`,
            `non-2xx, ${short} / ${long}`,
          ],
          rows,
        ),
      );
    }

    if (other && throughput.length > 0) {
      const report = abReport(
        throughput.map(workload => ({
          workload,
          title: titles[workload],
          stores: stores.map(store => ({
            store: STORE_LABEL[store],
            self: roundsOf.get(workload)!.get(services.get(store)!)!,
            other: roundsOf.get(workload)!.get(others.get(store)!)!,
          })),
        })),
      );
      const sides = {
        self: { label: selfLabel, commit: self?.commit ?? null },
        other: { label: other.label, commit: other.commit },
      };
      out.push('', ...abTable(report, sides.self.label, sides.other.label));
      if (jsonFile) {
        const header = { node: process.version, cores, loadavg: loadBefore, rounds, seconds, connections };
        writeFileSync(jsonFile, `${JSON.stringify({ ...header, ...sides, workloads: report }, null, 2)}\n`);
      }
    }

    if (durability.length > 0) out.push('', ...durability);
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    cleanUp();
    for (const drop of drops) await drop().catch((error: unknown) => process.stderr.write(`drop: ${String(error)}\n`));
  }
}

if (process.argv[2] === 'load') loadProcess();
else if (process.argv[2] === 'proxy') proxyProcess();
else await main();
