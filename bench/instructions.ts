/**
 * Instructions per request, this build against another commit, counted by valgrind's callgrind: the same count for
 * the same work however busy the machine is, so that a change of a few per cent shows where the A/B mode's rates
 * (`npm run bench:ab`) cannot tell it from the machine's noise (docs/benchmarks.md, "Instructions per request").
 *
 * ```sh
 * npm run bench:instructions -- --against REF                  # this work tree against commit REF
 * npm run bench:instructions -- --against REF --build OTHER    # commit OTHER instead of the work tree
 * MOVES=5000 WARM=20000 npm run bench:instructions -- --against REF --json counts.json
 * npm run bench:instructions -- --against REF --keep DIR   # also each build's dumps in DIR/LABEL, for callgrind_annotate
 * ```
 *
 * Each build's bundled server (`dist/server.mjs`, on this runtime, a fresh SQLite file) runs under
 * `valgrind --tool=callgrind --instr-atstart=no`, one build after the other. A client in this process creates GAMES
 * games and plays one more to 30 plies; then, over 10 connections, READS reads of that game uncounted, and as many
 * counted (`callgrind_control` turns the count on, zeroes it, and dumps it after them); then the request benchmark's
 * knight cycle in the GAMES games: WARM moves uncounted, and MOVES moves counted the same way. The reads come first,
 * so that what the moves leave V8 to do later (its collector's work, its compilers') cannot fall on them. Under
 * valgrind the server runs tens of times slower than the client, so every connection's next request is waiting at
 * each commit and both builds commit 10 moves a sync.
 *
 * What the counts are: every instruction of every thread of the server in user space (V8, its collector,
 * SQLite, the checkpoint thread), not the kernel's (system calls, syncs, page writes: the A/B mode's CPU figures
 * include those). A timer's work falls on fewer requests than at full speed (the engine's look at its games once
 * a second, for instance), the same for both builds.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { buildCommit, ROOT, type Build } from './builds.ts';
import { sharesOf, type Shares } from './callgrind.ts';
import { freePort, inParallel, wholeSetting } from './common.ts';
import { buildServer } from '../scripts/build.ts';

const CYCLE = ['g1f3', 'g8f6', 'b1c3', 'b8c6', 'f3g1', 'f6g8', 'c3b1', 'c6b8'];
const PLIES_PER_GAME = 32; // the start position's fifth time ends the game at ply 32 (bench/run.ts)
const READ_PLIES = 30;
const CONNECTIONS = 10;

export interface Counts {
  label: string;
  commit: string | undefined; // undefined: the work tree
  move: Shares; // instructions per move
  getGame: Shares; // instructions per read
}

interface Sizes {
  games: number;
  warm: number;
  moves: number;
  reads: number;
}

/** The server's environment: callgrind_control finds a valgrind process by the HOST and USER it was started with. */
function serverEnv(port: number, database: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: database,
    RATE_LIMIT_MAX: '0',
    MAX_STREAMS_PER_CLIENT: '0',
    LOG_LEVEL: 'warn',
  };
}

function control(pid: number, env: NodeJS.ProcessEnv, ...args: string[]): void {
  const result = spawnSync('callgrind_control', [...args, String(pid)], { env, encoding: 'utf8' });
  if (result.status !== 0 || !/OK\./.test(result.stdout))
    throw new Error(`callgrind_control ${args.join(' ')}: ${result.stdout}${result.stderr}`);
}

/** The instructions of dump `index` of the server `pid`, in `dir`, by share. */
function dumpShares(dir: string, pid: number, index: number): Shares {
  const file = join(dir, `callgrind.${pid}.${index}`);
  const text = readFileSync(file, 'utf8');
  const totals = /^totals: (\d+)/m.exec(text);
  if (!totals) throw new Error(`no totals in ${file}`);
  const shares = sharesOf(text);
  if (shares.all !== Number(totals[1]))
    throw new Error(`${file}: the functions' costs add up to ${shares.all}, its totals say ${totals[1]}`);
  return shares;
}

const per = (shares: Shares, count: number): Shares => ({
  all: shares.all / count,
  collector: shares.collector / count,
  sqlite: shares.sqlite / count,
});

async function request(url: string, method: 'GET' | 'POST', expected: number): Promise<string> {
  const res = await fetch(url, { method });
  const body = await res.text();
  if (res.status !== expected) throw new Error(`${method} ${url}: ${res.status} ${body}`);
  return body;
}

/** Counts one build's instructions per move and per read. */
async function countBuild(
  server: string,
  label: string,
  commit: string | undefined,
  sizes: Sizes,
  keep: string | undefined,
): Promise<Counts> {
  const dir = mkdtempSync(join(tmpdir(), 'chess-bench-instructions-'));
  const port = await freePort();
  const env = serverEnv(port, join(dir, 'games.sqlite'));
  const base = `http://127.0.0.1:${port}/api/board/game`;
  let proc: ChildProcess | undefined;
  try {
    proc = spawn(
      'valgrind',
      [
        '--tool=callgrind',
        '--instr-atstart=no',
        `--callgrind-out-file=${join(dir, 'callgrind.%p')}`,
        process.execPath,
        server,
      ],
      { env, cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    let failed: Error | undefined; // valgrind could not be started (not installed: Debian's `valgrind`)
    proc.once('error', error => (failed = error));
    proc.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
    for (let waited = 0; ; waited += 250) {
      if (failed) throw new Error(`valgrind could not be started (${failed.message}): install Debian's valgrind`);
      if (proc.exitCode !== null) throw new Error(`the server under valgrind exited:\n${stderr}`);
      if (waited > 180_000) throw new Error(`the server under valgrind did not start in 180 s:\n${stderr}`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
      } catch {
        // not listening yet
      }
      await sleep(250);
    }
    const pid = proc.pid!;

    const ids = await inParallel(sizes.games, CONNECTIONS, async () => {
      const body = await request(base, 'POST', 201);
      return (JSON.parse(body) as { gameId: string }).gameId;
    });
    // First the reads: what the moves leave behind to do later (the collector's work, the optimizing compiler's, on
    // V8's helper threads) cannot fall on them. A game of 30 plies, read by every connection.
    const read = JSON.parse(await request(base, 'POST', 201)) as { gameId: string };
    for (let ply = 0; ply < READ_PLIES; ply++)
      await request(`${base}/${read.gameId}/move/${CYCLE[ply % CYCLE.length]}`, 'POST', 200);
    const reads = (count: number) =>
      inParallel(count, CONNECTIONS, () => request(`${base}/${read.gameId}`, 'GET', 200));
    await reads(sizes.reads);
    control(pid, env, '-i', 'on');
    control(pid, env, '-z');
    await reads(sizes.reads);
    control(pid, env, '-d');
    const getGame = per(dumpShares(dir, pid, 1), sizes.reads);
    control(pid, env, '-i', 'off');
    // Move k goes to game k mod G at ply k div G, as in bench/run.ts; one sequence over the warm-up and the count.
    let k = 0;
    const moves = (count: number) =>
      inParallel(count, CONNECTIONS, () => {
        const game = k % ids.length;
        const ply = Math.floor(k / ids.length);
        k++;
        return request(`${base}/${ids[game]}/move/${CYCLE[ply % CYCLE.length]}`, 'POST', 200);
      });
    await moves(sizes.warm);
    control(pid, env, '-i', 'on');
    control(pid, env, '-z');
    await moves(sizes.moves);
    control(pid, env, '-d');
    const move = per(dumpShares(dir, pid, 2), sizes.moves);

    return { label, commit, move, getGame };
  } finally {
    if (proc && proc.exitCode === null) {
      const exited = new Promise(resolve => proc!.once('exit', resolve));
      proc.kill('SIGKILL');
      await exited;
    }
    // The dumps, for callgrind_annotate: 1 the reads, 2 the moves.
    if (keep) cpSync(dir, join(keep, label), { recursive: true, filter: path => !/games\.sqlite/.test(path) });
    rmSync(dir, { recursive: true, force: true });
  }
}

function options() {
  const { values } = parseArgs({
    options: {
      against: { type: 'string' },
      build: { type: 'string' },
      repo: { type: 'string' },
      json: { type: 'string' },
      keep: { type: 'string' },
    },
  });
  if (values.against === undefined) throw new Error('--against REF: the commit to count against');
  const sizes: Sizes = {
    games: wholeSetting('GAMES', 1000),
    warm: wholeSetting('WARM', 10_000),
    moves: wholeSetting('MOVES', 3000),
    reads: wholeSetting('READS', 3000),
  };
  if (sizes.games < 1 || sizes.moves < 1 || sizes.reads < 1) throw new Error('GAMES, MOVES and READS: at least 1');
  if (sizes.warm + sizes.moves > sizes.games * PLIES_PER_GAME)
    throw new Error(`WARM + MOVES must be at most GAMES × ${PLIES_PER_GAME}: no game may end`);
  return { ...values, against: values.against, sizes };
}

async function main(): Promise<void> {
  const { against, build, repo, json, keep, sizes } = options();
  const where = repo ? { repo } : {};
  let self: Build | undefined;
  if (build) self = await buildCommit(build, where);
  else await buildServer({ ifStale: true });
  const other = await buildCommit(against, where);
  const counted: Counts[] = [];
  for (const [server, label, commit] of [
    [self?.server ?? join(ROOT, 'dist', 'server.mjs'), self?.label ?? 'this', self?.commit],
    [other.server, other.label, other.commit],
  ] as const) {
    const counts = await countBuild(server, label, commit, sizes, keep);
    process.stderr.write(
      `${label}: ${Math.round(counts.move.all)} instructions a move, ${Math.round(counts.getGame.all)} a read\n`,
    );
    counted.push(counts);
  }
  const [mine, theirs] = counted as [Counts, Counts];
  const pair = (a: number, b: number) =>
    `${Math.round(a)} / ${Math.round(b)} | ${b > 0 ? `**${(a / b).toFixed(3)}**` : '-'}`;
  const row = (name: string, a: Shares, b: Shares) => {
    const rest = (s: Shares) => s.all - s.collector - s.sqlite;
    return `| ${name} | ${pair(a.all, b.all)} | ${pair(a.collector, b.collector)} | ${pair(a.sqlite, b.sqlite)} | ${pair(rest(a), rest(b))} |`;
  };
  process.stdout.write(
    [
      `Node ${process.version}; ${sizes.games} games, ${sizes.warm} moves of warm-up, ${sizes.moves} moves and ` +
        `${sizes.reads} reads counted, ${CONNECTIONS} connections.`,
      '',
      `Instructions per request, ${mine.label} / ${theirs.label} (user space, every thread of the server; a ratio ` +
        `above 1: ${mine.label} does more work). The collector's share depends on whether its major collections ` +
        'fall into the counted requests; the rest is the code.',
      '',
      `| Workload | all, ${mine.label} / ${theirs.label} | ratio | the collector | ratio | SQLite | ratio | the rest | ratio |`,
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      row('POST move', mine.move, theirs.move),
      row(`GET game (${READ_PLIES} plies)`, mine.getGame, theirs.getGame),
      '',
    ].join('\n'),
  );
  if (json) writeFileSync(json, JSON.stringify({ sizes, self: mine, other: theirs }, null, 2));
}

await main();
