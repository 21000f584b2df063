/**
 * Stream fan-out: one game, many subscribers. Starts the real server (SQLite in a temporary folder) as its
 * own process, opens SUBSCRIBERS streams on one game from WORKERS separate load processes, waits until every
 * stream has its gameFull, then plays MOVES moves one at a time and measures, for every subscriber and move,
 * the time from sending the move request to receiving the gameState line. Also reports the server's resident
 * memory before and after the subscribers connect, and the shutdown with every stream open.
 *
 * ```sh
 * npm run bench:stream                                # 10000 subscribers, 20 moves, 2 load processes
 * SUBSCRIBERS=2000 MOVES=50 WORKERS=1 npm run bench:stream
 * PROFILE_DIR=/tmp/profiles npm run bench:stream     # also writes a CPU profile of the server there
 * BASELINE=net npm run bench:stream                    # the same load against a bare TCP server, for scale
 * ```
 *
 * Timestamps come from process.hrtime (the system's monotonic clock), so the load processes and this one
 * measure on the same clock.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServer, SERVER_OUTPUT } from '../scripts/build.ts';
import { newGame } from '../src/domain/game.ts';
import { makeMove } from '../src/domain/transitions.ts';
import { isOver } from '../src/domain/status.ts';
import { legalMovesOf } from '../src/domain/views.ts';
import { freePort, quantile, rssKiB, wholeSetting as setting } from './common.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);

const now = (): number => Number(process.hrtime.bigint()) / 1e6; // ms, monotonic, shared by all processes

// ---------------------------------------------------------------------------------------------------------
// Load process: opens its share of the streams and timestamps every event line it receives.

type ToWorker = { type: 'start'; url: string; path: string; count: number; moves: number } | { type: 'report' };

type FromWorker =
  | { type: 'ready'; connected: number; failed: number }
  | { type: 'received'; event: number }
  | { type: 'report'; times: number[][]; counts: number[]; errors: number; shutdowns: number; closed: number };

interface Subscriber {
  socket: Socket;
  events: number; // event lines received: the gameFull, then one per move
  times: Float64Array; // times[i]: when event i arrived (0 is the gameFull)
  tail: string; // the end of the previous chunk, so that a marker split between chunks is still found
  errorTail: string;
  errors: number;
  shutdown: boolean;
  closed: boolean;
}

// Each event line is one HTTP chunk `<size>\r\n{...}\n\r\n`; a heartbeat's chunk is `1\r\n\n\r\n`.
const EVENT_END = '}\n\r\n';
const ERROR_MARK = '"type":"error"';
const SHUTDOWN_MARK = 'SERVER_SHUTDOWN';

function worker(): void {
  const subscribers: Subscriber[] = [];
  let moves = 0;
  let reportedEvent = 0;
  const send = (message: FromWorker) => process.send?.(message);

  let reached = new Uint32Array(1); // reached[i]: subscribers that have event i
  const progress = () => {
    // Tell the conductor when every subscriber of this process has the next event.
    while (reportedEvent < moves && reached[reportedEvent + 1]! >= subscribers.length) {
      reportedEvent++;
      send({ type: 'received', event: reportedEvent });
    }
  };

  const open = (url: string, path: string): Promise<Subscriber> =>
    new Promise((resolve, reject) => {
      const { hostname, port } = new URL(url);
      const socket = connect({ host: hostname, port: Number(port) });
      const subscriber: Subscriber = {
        socket,
        events: 0,
        times: new Float64Array(moves + 1),
        tail: '',
        errorTail: '',
        errors: 0,
        shutdown: false,
        closed: false,
      };
      socket.setNoDelay(true);
      socket.once('connect', () => {
        socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: application/x-ndjson\r\n\r\n`);
      });
      socket.on('data', (chunk: Buffer) => {
        const at = now();
        const text = chunk.toString('latin1');
        const scan = subscriber.tail + text;
        let from = scan.indexOf(EVENT_END);
        while (from >= 0) {
          if (subscriber.events <= moves) {
            subscriber.times[subscriber.events] = at;
            reached[subscriber.events]!++;
          }
          subscriber.events++;
          if (subscriber.events === 1) resolve(subscriber);
          from = scan.indexOf(EVENT_END, from + EVENT_END.length);
        }
        subscriber.tail = scan.slice(-(EVENT_END.length - 1));
        const errorScan = subscriber.errorTail + text;
        if (errorScan.includes(ERROR_MARK)) {
          if (errorScan.includes(SHUTDOWN_MARK)) subscriber.shutdown = true;
          else subscriber.errors++;
        }
        subscriber.errorTail = errorScan.slice(-(SHUTDOWN_MARK.length - 1));
        if (subscriber.events > 1) progress();
      });
      socket.on('error', error => {
        if (subscriber.events === 0) reject(error);
      });
      socket.on('close', () => {
        subscriber.closed = true;
        if (subscriber.events === 0) reject(new Error('closed before the gameFull'));
      });
    });

  process.on('message', (message: ToWorker) => {
    if (message.type === 'start') {
      moves = message.moves;
      reached = new Uint32Array(moves + 1);
      void (async () => {
        let failed = 0;
        // A window of connections in flight keeps the server's accept queue short.
        const window = 200;
        let next = 0;
        const lane = async () => {
          while (next < message.count) {
            next++;
            try {
              subscribers.push(await open(message.url, message.path));
            } catch {
              failed++;
            }
          }
        };
        await Promise.all(Array.from({ length: window }, lane));
        send({ type: 'ready', connected: subscribers.length, failed });
      })();
    } else {
      send({
        type: 'report',
        times: subscribers.map(s => Array.from(s.times)),
        counts: subscribers.map(s => s.events),
        errors: subscribers.reduce((sum, s) => sum + s.errors, 0),
        shutdowns: subscribers.filter(s => s.shutdown).length,
        closed: subscribers.filter(s => s.closed).length,
      });
    }
  });
}

// ---------------------------------------------------------------------------------------------------------
// Baseline (BASELINE=net): the same protocol from a bare TCP server with no framework, store or JSON, to
// show what one process can do on this machine: the cost of one socket write per subscriber and event.

const BASELINE_HEAD =
  'HTTP/1.1 200 OK\r\ncontent-type: application/x-ndjson\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n';

const chunk = (text: string) => Buffer.from(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`);

function baselineServer(): void {
  const streams = new Set<Socket>();
  // A gameState line of the size the service sends early in a game.
  const event = chunk(
    `${JSON.stringify({ type: 'gameState', state: { fen: 'x'.repeat(56), pgn: 'y'.repeat(300) } })}\n`,
  );
  const full = chunk(`${JSON.stringify({ type: 'gameFull', game: { gameId: 'Baseline' } })}\n`);
  const answer = (socket: Socket, status: string, body: string) =>
    socket.write(
      `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
  const server = createServer(socket => {
    socket.setNoDelay(true);
    let pending = '';
    socket.on('data', (data: Buffer) => {
      pending += data.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        const [method, path = ''] = pending.slice(0, pending.indexOf(' ', pending.indexOf(' ') + 1)).split(' ');
        pending = pending.slice(end + 4);
        if (path.endsWith('/stream')) {
          streams.add(socket);
          socket.once('close', () => streams.delete(socket));
          socket.write(BASELINE_HEAD);
          socket.write(full);
        } else if (path.includes('/move/')) {
          answer(socket, '200 OK', '{}');
          setImmediate(() => {
            for (const stream of streams) stream.write(event);
          });
        } else if (method === 'POST') {
          answer(socket, '201 Created', '{"gameId":"Baseline"}');
        } else {
          answer(socket, '200 OK', '{"status":"ok"}');
        }
      }
    });
    socket.on('error', () => undefined);
  });
  server.listen({ port: Number(process.env.PORT), host: '127.0.0.1', backlog: 4096 });
  process.once('SIGTERM', () => {
    for (const stream of streams) stream.end(chunk('{"type":"error","error":{"code":"SERVER_SHUTDOWN"}}\n'));
    server.close(() => process.exit(0));
  });
}

// ---------------------------------------------------------------------------------------------------------
// Conductor: server, load processes, moves, figures.

/** `moves` legal moves from the start, none of which ends the game, chosen by a seeded generator. */
function movesFor(count: number): string[] {
  let seed = 2024;
  const random = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  let game = newGame({ id: 'Bench000', createdAt: new Date().toISOString() });
  const moves: string[] = [];
  while (moves.length < count) {
    const candidates = legalMovesOf(game)
      .map(move => makeMove(game, move.uci))
      .flatMap(result => (result.ok && !isOver(result.value.game) ? [result.value] : []));
    if (candidates.length === 0) throw new Error(`no move keeps the game going after ${moves.length} moves`);
    const next = candidates[random(candidates.length)]!;
    moves.push(next.game.record.moves.at(-1)!);
    game = next.game;
  }
  return moves;
}

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/** The open-files limits of this shell: [soft, hard]. */
function fileLimits(): [number, number] {
  const out = execFileSync('sh', ['-c', 'ulimit -Sn; ulimit -Hn'], { encoding: 'utf8' }).trim().split('\n');
  const parse = (text: string | undefined) => (text === 'unlimited' ? Infinity : Number(text));
  return [parse(out[0]), parse(out[1])];
}

/** Runs node with `args` under an open-files limit of `limit` (raised in a shell first when needed). */
function spawnNode(args: string[], limit: number | undefined, options: Parameters<typeof spawn>[2]): ChildProcess {
  if (limit === undefined) return spawn(process.execPath, args, options);
  const quoted = [process.execPath, ...args].map(arg => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ');
  return spawn('sh', ['-c', `ulimit -n ${limit} && exec ${quoted}`], options);
}

async function conduct(): Promise<void> {
  const subscribers = setting('SUBSCRIBERS', 10_000);
  const moveCount = setting('MOVES', 20);
  const workerCount = Math.max(1, setting('WORKERS', 2));
  const spacingMs = setting('SPACING_MS', 100);
  const log = (text: string) => process.stdout.write(`${text}\n`);
  const loadBefore = loadavg();

  // 1. Open files: the server holds one socket per subscriber, each load process its share. (Node raises its
  //    own soft limit to the hard one at start, so the hard limit is what counts.)
  const [soft, hard] = fileLimits();
  const needed = subscribers + 256;
  let limit: number | undefined;
  if (needed > hard) {
    process.stderr.write(
      `open-files limit too low: ${subscribers} subscribers need about ${needed} descriptors in the server ` +
        `process, the hard limit is ${hard}. Raise it (ulimit -Hn as root, or /etc/security/limits.conf) or set ` +
        `SUBSCRIBERS lower.\n`,
    );
    process.exit(2);
  }
  if (needed > soft) limit = needed;
  const ports = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  const portCount = ports[1]! - ports[0]! + 1;
  if (subscribers > portCount) {
    process.stderr.write(`warning: ${subscribers} subscribers from one address, only ${portCount} local ports\n`);
  }
  const limitNote =
    `${needed} needed; ` + (limit === undefined ? `limit ${soft} (hard ${hard})` : `soft ${soft} raised to ${limit}`);

  // 2. The server, alone in its process.
  const dir = mkdtempSync(join(tmpdir(), 'bench-stream-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const profileDir = process.env.PROFILE_DIR; // a folder for a CPU profile of the server, e.g. ./profiles
  const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  const baseline = process.env.BASELINE === 'net';
  // The service runs as npm start runs it, from its bundle; the baseline is this script.
  if (!baseline) await buildServer({ ifStale: true });
  const serverArgs = baseline ? ['--import', 'tsx', SELF, 'baseline'] : [SERVER_OUTPUT];
  const server = spawnNode([...profile, ...serverArgs], limit, {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: join(dir, 'chess.sqlite'),
      MAX_STREAMS_PER_CLIENT: '0',
      RATE_LIMIT_MAX: '0', // every subscriber comes from 127.0.0.1
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const serverExit = new Promise<number | string>(resolve =>
    server.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const workers: ChildProcess[] = [];
  const cleanUp = () => {
    for (const child of [server, ...workers]) if (child.exitCode === null && child.signalCode === null) child.kill();
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', cleanUp);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        if ((await fetch(`${url}/healthz`)).ok) break;
      } catch {
        // not listening yet
      }
      if (attempt > 300) throw new Error('the server did not start');
      await sleep(100);
    }
    const pid = server.pid!; // sh execs node: same pid

    const created = await fetch(`${url}/api/board/game`, { method: 'POST' });
    const gameId = ((await created.json()) as { gameId: string }).gameId;
    const moves = movesFor(moveCount);
    await sleep(500);
    const rssBefore = rssKiB(pid);

    // 3. Subscribers, from separate load processes.
    const messages: ((message: FromWorker, from: number) => void)[] = [];
    for (let i = 0; i < workerCount; i++) {
      const child = spawnNode(['--import', 'tsx', SELF, 'worker'], limit, {
        cwd: ROOT,
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      child.on('message', (message: FromWorker) => {
        for (const listener of messages) listener(message, i);
      });
      workers.push(child);
    }
    const waitFor = <T extends FromWorker>(type: T['type'], match: (m: T) => boolean, ms: number): Promise<T[]> =>
      new Promise((resolve, reject) => {
        const got = new Map<number, T>();
        const timer = setTimeout(() => {
          messages.splice(messages.indexOf(listener), 1);
          reject(new Error(`timed out waiting for '${type}' from ${workerCount - got.size} load processes`));
        }, ms);
        const listener = (message: FromWorker, from: number) => {
          if (message.type !== type || !match(message as T)) return;
          got.set(from, message as T);
          if (got.size === workerCount) {
            clearTimeout(timer);
            messages.splice(messages.indexOf(listener), 1);
            resolve([...got.values()]);
          }
        };
        messages.push(listener);
      });

    const connectStart = now();
    const ready = waitFor<Extract<FromWorker, { type: 'ready' }>>('ready', () => true, 600_000);
    workers.forEach((child, i) => {
      const count = Math.floor(subscribers / workerCount) + (i < subscribers % workerCount ? 1 : 0);
      const start: ToWorker = { type: 'start', url, path: `/api/board/game/${gameId}/stream`, count, moves: moveCount };
      child.send(start);
    });
    const readies = await ready;
    const connectMs = now() - connectStart;
    const connected = readies.reduce((sum, r) => sum + r.connected, 0);
    const failed = readies.reduce((sum, r) => sum + r.failed, 0);
    await sleep(2000);
    const rssAfter = rssKiB(pid);

    // 4. The moves, one at a time; the next once every subscriber has the previous one.
    const sentAt: number[] = [];
    const answerMs: number[] = [];
    let complete = 0;
    for (const [i, uci] of moves.entries()) {
      const received = waitFor<Extract<FromWorker, { type: 'received' }>>(
        'received',
        message => message.event === i + 1,
        60_000,
      );
      const t0 = now();
      sentAt.push(t0);
      const res = await fetch(`${url}/api/board/game/${gameId}/move/${uci}`, { method: 'POST' });
      answerMs.push(now() - t0);
      if (res.status !== 200) throw new Error(`move ${uci}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
      try {
        await received;
        complete++;
      } catch (error) {
        log(`move ${i + 1} (${uci}): ${(error as Error).message}`);
        break;
      }
      await sleep(spacingMs);
    }

    // 5. What every subscriber received, and when.
    const reportsPromise = waitFor<Extract<FromWorker, { type: 'report' }>>('report', () => true, 120_000);
    for (const child of workers) child.send({ type: 'report' } satisfies ToWorker);
    const reports = await reportsPromise;
    const latencies = new Float64Array(connected * moveCount);
    let samples = 0;
    let received = 0;
    let errors = 0;
    for (const report of reports) {
      errors += report.errors;
      for (const [s, times] of report.times.entries()) {
        received += Math.min(report.counts[s]!, moveCount + 1) - 1; // gameState lines
        for (let m = 0; m < moveCount; m++) {
          if (times[m + 1]! > 0) latencies[samples++] = times[m + 1]! - sentAt[m]!;
        }
      }
    }
    const sorted = latencies.slice(0, samples).sort();
    // Per move: when the first and the last subscriber got it, relative to the request.
    const firsts = new Float64Array(moveCount).fill(Infinity);
    const lasts = new Float64Array(moveCount);
    for (const report of reports) {
      for (const times of report.times) {
        for (let m = 0; m < moveCount; m++) {
          if (times[m + 1]! <= 0) continue;
          firsts[m] = Math.min(firsts[m]!, times[m + 1]! - sentAt[m]!);
          lasts[m] = Math.max(lasts[m]!, times[m + 1]! - sentAt[m]!);
        }
      }
    }
    const firstSorted = firsts.slice().sort();
    const spreads = lasts.map((last, m) => last - firsts[m]!).sort();
    const answers = Float64Array.from(answerMs).sort();

    // 6. Shutdown with every stream open.
    const stopStart = now();
    server.kill('SIGTERM');
    const exitCode = await serverExit;
    const stopMs = now() - stopStart;
    await sleep(500);
    const finalPromise = waitFor<Extract<FromWorker, { type: 'report' }>>('report', () => true, 60_000);
    for (const child of workers) child.send({ type: 'report' } satisfies ToWorker);
    const final = await finalPromise;
    const shutdowns = final.reduce((sum, r) => sum + r.shutdowns, 0);
    const closed = final.reduce((sum, r) => sum + r.closed, 0);

    const p99 = quantile(sorted, 0.99);
    const perSubscriber = (rssAfter - rssBefore) / Math.max(1, connected);
    const kib = (n: number) => `${Math.round(n).toLocaleString('en-US')} KiB`;
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    log(baseline ? 'Stream fan-out: BASELINE, a bare TCP server (not the service)' : 'Stream fan-out');
    log(`  machine             ${availableParallelism()} cores, Node ${process.version}`);
    log(`  open files          ${limitNote}`);
    log(
      `  subscribers         ${connected} connected of ${subscribers} (${failed} failed), ${workerCount} load processes`,
    );
    log(`  connect all         ${ms(connectMs)} (until every gameFull was in)`);
    log(`  moves               ${complete} of ${moveCount} fully delivered, ${spacingMs} ms apart`);
    log(`  events              expected ${connected * moveCount}, received ${received}, errors ${errors}`);
    log(
      `  broadcast latency   p50 ${ms(quantile(sorted, 0.5))}, p99 ${ms(p99)}, ` +
        `max ${ms(sorted.at(-1) ?? NaN)} (move request sent -> line received, ${samples} samples)`,
    );
    log(`  move answer         p50 ${ms(quantile(answers, 0.5))}, max ${ms(answers.at(-1) ?? NaN)}`);
    log(
      `  first subscriber    p50 ${ms(quantile(firstSorted, 0.5))}, max ${ms(firstSorted.at(-1) ?? NaN)}; ` +
        `first to last p50 ${ms(quantile(spreads, 0.5))}, max ${ms(spreads.at(-1) ?? NaN)}`,
    );
    log(
      `  server RSS          before ${kib(rssBefore)}, after ${kib(rssAfter)}: ` +
        `${perSubscriber.toFixed(1)} KiB per idle subscriber`,
    );
    log(
      `  shutdown            exit ${exitCode} after ${ms(stopMs)}; SERVER_SHUTDOWN on ${shutdowns}, closed ${closed} ` +
        `of ${connected}`,
    );
    const verdict = (met: boolean) => (met ? 'met' : 'MISSED');
    log(
      `  targets             every event delivered: ${verdict(received === subscribers * moveCount)}; ` +
        `p99 <= 100 ms: ${verdict(p99 <= 100)}; <= 16 KiB per idle subscriber: ${verdict(perSubscriber <= 16)}`,
    );
    log(`  load average        ${loadBefore.map(load => load.toFixed(2)).join(' ')} before the run (other processes)`);
    const ok = received === connected * moveCount && errors === 0 && failed === 0 && exitCode === 0;
    if (!ok) process.exitCode = 1;
  } finally {
    for (const child of workers) child.kill();
    cleanUp();
  }
}

if (process.argv[2] === 'worker') worker();
else if (process.argv[2] === 'baseline') baselineServer();
else await conduct();
