/**
 * The request benchmark's load process (bench/run.ts starts it): it runs each round the conductor sends over IPC
 * with autocannon, measuring the target's CPU time (and its proxy's and database server's apart) from /proc, and
 * answers what it measured. The requests of each workload are bench/workloads.ts.
 */
import { createRequire } from 'node:module';
import pg from 'pg';
import { cpuMs, quantile } from './common.ts';
import { requestsOf, type Job, type RoundResult } from './workloads.ts';

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

async function runRound(job: Job): Promise<RoundResult> {
  const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
  const acked: Record<string, number> = {};
  const requests = await requestsOf(job, acked);
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

loadProcess();
