/**
 * A real server process for tests about processes and sockets (streams, shutdown, crashes, several
 * instances). It runs what `npm start` runs, the bundle dist/server.mjs (built first if a source is newer), with
 * the given settings on a free port and resolves once it listens.
 *
 * ```ts
 * const server = await startServer({ DATABASE_URL: join(dir, 'chess.sqlite') });
 * await fetch(`${server.url}/healthz`);
 * const code = await server.stop('SIGTERM'); // exit code
 * ```
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { after, before } from 'node:test';
import { buildServer, SERVER_OUTPUT } from '../../scripts/build.ts';
import { createTestDatabase, type TestDatabase } from './postgres.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServerProcess {
  url: string;
  port: number;
  proc: ChildProcess;
  /** Every log line the process printed so far (pino JSON, or plain text for errors). */
  logs: string[];
  /** Sends the signal and resolves with the exit code (or the signal name when killed by one). */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>;
}

export async function startServer(
  env: Record<string, string>,
  {
    timeoutMs = 20_000,
    cwd = ROOT,
    node = process.execPath,
  }: { timeoutMs?: number; cwd?: string; node?: string /* the Node.js binary, this one by default */ } = {},
): Promise<ServerProcess> {
  await buildServer({ ifStale: true });
  const proc = spawn(node, [SERVER_OUTPUT], {
    cwd,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const exited = new Promise<number | string>(resolve => {
    proc.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  const listening = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server did not listen in ${timeoutMs} ms:\n${logs.join('\n')}`)),
      timeoutMs,
    );
    const onLine = (text: string) => {
      logs.push(text);
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    createInterface({ input: proc.stdout }).on('line', onLine);
    createInterface({ input: proc.stderr }).on('line', onLine);
    void exited.then(code => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening:\n${logs.join('\n')}`));
    });
  });
  // A server that never listens must not outlive the test.
  const url = await listening.catch((error: unknown) => {
    proc.kill('SIGKILL');
    throw error;
  });
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    return exited;
  };
  return { url, port: Number(new URL(url).port), proc, logs, stop, exited };
}

/** Resolves like `promise`, or fails after `ms` naming what did not happen. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A request to a server as the holder of `token`: its status and its body, parsed when there is one. */
export async function callAs(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

/**
 * In a suite: two server processes on one fresh PostgreSQL database, with `serviceToken` and no rate limit, started
 * before its tests and stopped (then the database dropped) after them. `urls()` answers their base URLs once started.
 *
 * ```ts
 * suite('...', { skip: await postgresSkip() }, () => {
 *   const instances = twoPostgresInstances('service-token');
 *   test('...', async () => { const [a, b] = instances.urls(); ... });
 * });
 * ```
 */
export function twoPostgresInstances(serviceToken: string): { urls(): [string, string] } {
  let db: TestDatabase | undefined;
  const servers: ServerProcess[] = [];
  before(async () => {
    db = await createTestDatabase();
    const env = { DATABASE_URL: db.url, API_TOKENS: serviceToken, RATE_LIMIT_MAX: '0' };
    servers.push(...(await Promise.all([startServer(env), startServer(env)])));
  });
  after(async () => {
    await Promise.all(servers.map(server => server.stop('SIGTERM')));
    await db?.drop();
  });
  return { urls: () => servers.map(server => server.url) as [string, string] };
}
