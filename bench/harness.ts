/**
 * The request benchmark's harness (bench/run.ts): the processes it starts and stops (services, the bare server, the
 * proxy, the load process), PostgreSQL databases of their own, what a service reads back after a crash, and the
 * medians and tables of the rounds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort, inParallel, median } from './common.ts';
import type { Job, RoundResult } from './workloads.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

export interface Target {
  name: string;
  url: string;
  procs: ChildProcess[]; // whose CPU is the target's
  proxy?: ChildProcess;
  database?: string;
}

export type Store = 'sqlite' | 'postgres';
export const STORE_LABEL: Record<Store, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

export async function startProcess(name: string, args: string[], env: Record<string, string>, cwd = ROOT) {
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

export async function json(url: string, init?: RequestInit): Promise<unknown> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

export async function createDatabase(
  adminUrl: string,
  name: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
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

export interface Summary {
  rps: number;
  p50: number;
  p99: number;
  cpu: number;
  proxyCpu: number;
  databaseCpu: number;
  non2xx: number;
  total: number;
}
export const summarize = (list: RoundResult[]): Summary => ({
  rps: median(list.map(x => x.rps)),
  p50: median(list.map(x => x.p50)),
  p99: median(list.map(x => x.p99)),
  cpu: median(list.map(x => x.cpuUs)),
  proxyCpu: median(list.map(x => x.proxyCpuUs ?? NaN)),
  databaseCpu: median(list.map(x => x.databaseCpuUs ?? NaN)),
  non2xx: list.reduce((sum, x) => sum + x.non2xx + x.errors, 0),
  total: list.reduce((sum, x) => sum + x.total, 0),
});
export const latency = (s: Summary) => `${s.p50.toFixed(2)} / ${s.p99.toFixed(2)}`;
export const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
export const table = (header: string[], rows: string[]) => [row(header), row(header.map(() => '---')), ...rows];

/** Stops a process with `signal` and waits for its end. */
export async function stop(proc: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise(resolve => proc.once('exit', resolve));
  proc.kill(signal);
  await exited;
}

/** Starts a store's service again and reads back through the API every game that took acknowledged moves. */
export async function readBack(
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

/**
 * Starts the load process (bench/load.ts); `round(job)` runs one round in it and resolves with what it measured.
 */
export function startLoad(children: ChildProcess[]): { round: (job: Job) => Promise<RoundResult>; stop: () => void } {
  const load = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('load.ts', import.meta.url))], {
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
  return { round, stop: () => load.kill() };
}
