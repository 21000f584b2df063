/**
 * The project's test suites, in one place:
 *
 * - `unit`: the pure domain, the service, HTTP through `app.inject`, the stores, the bus, the engine pool
 *   against a fake UCI engine (small processes of its own, no server, no browser), and the typed client's
 *   generated files, types and the document's lint; the loop to run while working (well under a minute).
 * - `system`: real server processes and sockets (streams, shutdown, crash, restart), the cluster, the guards
 *   (fuzzing, limits, memory), the browser, the differential tests against reference programs, the request
 *   benchmark's A/B mode (two commits built and compared; no figure is timed against a limit), and the real
 *   engines (Stockfish's levels and its clock).
 * - `runtime`: the few system tests of the process on its runtime (start-up, crash and restart, shutdown), which CI
 *   runs on every other Node.js line beside its unit suite.
 *
 * `npm test` runs the unit suite with the coverage gate (V8's coverage of each shard, merged and checked by c8; the
 * floors below are the levels reached, to be raised, never lowered), then the system suite. Extra arguments go to
 * `node --test`.
 *
 * ```sh
 * npm run test:unit                 # unit, no coverage
 * npm run test:coverage             # unit with the coverage gate
 * npm run test:system
 * npm run test:runtime              # a part of system: the process on this runtime
 * npm test                          # unit with the coverage gate, then system
 * ```
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const SUITES = {
  unit: [
    'test/domain',
    'test/service',
    'test/config',
    'test/http',
    'test/store',
    'test/bus',
    'test/web',
    'test/engine',
    'test/client',
  ],
  system: [
    'test/stream',
    'test/guard',
    'test/cluster',
    'test/browser',
    'test/differential',
    'test/bench',
    'test/engine-system',
  ],
  // lichess's own clients (berserk, lichess-bot), whose sources are not in the repository: `npm run test:clients`
  // with LICHESS_CLIENTS_DIR (test/clients/realClients.test.ts). Not part of `npm test`.
  clients: ['test/clients'],
  // The system tests of the process on its runtime (part of `system`): the versions it refuses, a start-up failure,
  // SIGKILL and restart with nothing lost, SIGTERM with its streams. CI runs them on each other Node.js line it
  // checks, beside that line's unit suite; the rest of `system` (browsers, cluster, reference programs, benchmarks)
  // tests the service, not the runtime, and runs on the default line (.ci/run).
  runtime: [
    'test/guard/runtime.test.ts',
    'test/guard/startup.test.ts',
    'test/guard/crash.test.ts',
    'test/stream/shutdown.test.ts',
  ],
} as const;

/**
 * Coverage floors of the unit suite over src/ (the board page aside), in percent, as c8 counts them: the levels
 * reached (97.8, 93.8 and 96.5 on Node.js 24) less a point or so, since the property tests draw new cases every run
 * and reach a few branches only in some of them. Raise them as coverage grows; never lower them.
 */
const COVERAGE_FLOORS = { lines: 96, branches: 92, functions: 95 } as const;

/** The test files of the suite's folders and files, sorted. */
function testFiles(suite: keyof typeof SUITES): string[] {
  return SUITES[suite]
    .flatMap((entry: string) =>
      entry.endsWith('.test.ts')
        ? [entry]
        : readdirSync(join(ROOT, entry), { recursive: true, encoding: 'utf8' })
            .filter(name => name.endsWith('.test.ts'))
            .map(name => relative(ROOT, join(ROOT, entry, name))),
    )
    .sort();
}

/**
 * The unit suite runs in a few processes at once, each running its share of the files in the one process
 * (`--test-isolation=none`): a file then costs no process of its own, no loading of the TypeScript loader and the
 * server's modules again, and no compiling of the route schemas again, which was most of a unit file's time. The
 * shards are twice the cores, so that a shard waiting on a real socket, timer or PostgreSQL leaves its core to another,
 * and the files are shared out by how long each took in the last runs (the longest first, each to the shard with the
 * least so far; a file not timed yet counts as the median, and a store file also weighs its part of the contracts
 * it runs; durationFiles). With the coverage gate (`npm test`) the shards run the same way, each process (and each
 * it starts) writing V8's coverage to one folder (NODE_V8_COVERAGE), which c8 then merges, maps back to the
 * TypeScript sources and checks against the floors. The system suite's files, whose tests time real processes,
 * streams and clocks, keep a process each (runEach).
 */
const UNIT_SHARDS = Math.max(2, availableParallelism() * 2);

/**
 * The unit files' durations of the last runs, file (relative to the root) -> ms: those without coverage and those
 * with (under V8's coverage every file is slower, and not alike: the perft tests take ten times as long, the HTTP
 * tests twice), each kept in node_modules/.cache, and those a fresh clone starts from (CI's is always one),
 * committed: a run's own here, rounded. Without them every file counted alike, and one of CI's shards took half as
 * long again as the others. Refresh them now and then from a run's own:
 * `cp node_modules/.cache/chess-game-service/unit-durations*.json scripts/`.
 */
const durationFiles = (coverage: boolean) => {
  const name = coverage ? 'unit-durations-coverage.json' : 'unit-durations.json';
  return { last: join(ROOT, 'node_modules', '.cache', 'chess-game-service', name), seed: join(ROOT, 'scripts', name) };
};

function lastDurations(coverage: boolean): Record<string, number> {
  const read = (path: string) => {
    try {
      return JSON.parse(readFileSync(path, 'utf8')) as Record<string, number>;
    } catch {
      return {}; // the first run, or a cache cleared
    }
  };
  const { seed, last } = durationFiles(coverage);
  return { ...read(seed), ...read(last) };
}

/**
 * The contracts each test file runs: the `*.contract.ts` modules (relative to the root) from which it imports a
 * `run…Contract` function. A contract's tests are timed under the contract's own file, where they are written, not
 * under the files that run them (the store files, one per store).
 */
function contractsRunBy(file: string): string[] {
  const imports = readFileSync(join(ROOT, file), 'utf8').matchAll(
    /import\s*\{([^}]*)\}\s*from\s*'([^']+\.contract\.ts)'/g,
  );
  return [...imports]
    .filter(([, names]) => /\brun\w*Contract\b/.test(names!))
    .map(([, , from]) => relative(ROOT, join(ROOT, dirname(file), from!)));
}

/**
 * The files in `count` lists of about equal time: the longest first, each to the list with the least so far. A file
 * weighs its own tests' time and an equal part of each contract's it runs; a file not timed yet, the median.
 */
function shareOut(
  files: string[],
  durations: Record<string, number>,
  count: number,
): { files: string[]; ms: number }[] {
  const known = files.map(file => durations[file]).filter((ms): ms is number => ms !== undefined);
  const typical = known.length > 0 ? known.sort((x, y) => x - y)[known.length >> 1]! : 1;
  const contracts = new Map(files.map(file => [file, contractsRunBy(file)]));
  const runners = new Map<string, number>();
  for (const contract of [...contracts.values()].flat()) runners.set(contract, (runners.get(contract) ?? 0) + 1);
  const weights = new Map(
    files.map(file => {
      const runs = contracts.get(file)!;
      const own = durations[file] ?? (runs.length > 0 ? 0 : typical);
      return [
        file,
        runs.reduce((sum, contract) => sum + (durations[contract] ?? typical) / runners.get(contract)!, own),
      ];
    }),
  );
  const weight = (file: string) => weights.get(file)!;
  const shares = Array.from({ length: count }, () => ({ files: [] as string[], ms: 0 }));
  for (const file of [...files].sort((x, y) => weight(y) - weight(x) || x.localeCompare(y))) {
    const least = shares.reduce((min, share) => (share.ms < min.ms ? share : min));
    least.files.push(file);
    least.ms += weight(file);
  }
  return shares.filter(share => share.files.length > 0).map(share => ({ files: share.files.sort(), ms: share.ms }));
}

/**
 * The tests' processes (and the processes they start: servers, fake engines) keep V8's compiled code of the modules
 * they load on disk (Node.js's compile cache, keyed by each module's text), so that each of them does not compile
 * TypeScript's, ESLint's, Fastify's and the service's modules again.
 */
const TEST_ENV = {
  ...process.env,
  NODE_COMPILE_CACHE:
    process.env.NODE_COMPILE_CACHE ?? join(ROOT, 'node_modules', '.cache', 'chess-game-service', 'v8'),
};

/**
 * Where the unit suite's scratch files go (the SQLite stores and data folders its tests make, through `os.tmpdir()`):
 * a folder in memory where the machine has one (/dev/shm, a tmpfs), else the usual place. What those tests check is
 * what the store does, not that the disk keeps it; there every commit's fsync costs nothing instead of a wait on the
 * disk. The system suite, whose crash and restart tests are about the disk, keeps the usual place. The folder stays
 * from run to run, since the TypeScript loader keeps its cache of compiled files under the same `os.tmpdir()`; each
 * test removes what it made.
 */
function scratchFolder(): string | undefined {
  const folder = `/dev/shm/chess-game-service-tests-${process.getuid?.() ?? 0}`;
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    return folder;
  } catch {
    return undefined; // no such tmpfs here
  }
}

/** Node.js 24 names the flag `--test-isolation`; 22 has it as experimental only. */
const NO_ISOLATION =
  Number(process.versions.node.split('.')[0]) >= 24 ? '--test-isolation=none' : '--experimental-test-isolation=none';

/**
 * Merges the V8 coverage in `folder` (c8: mapped back to the TypeScript sources through tsx's source maps), prints
 * it file by file and checks it against the floors: 0 when they hold.
 */
function coverageGate(folder: string): number {
  const args = [
    join(ROOT, 'node_modules', 'c8', 'bin', 'c8.js'),
    'report',
    `--temp-directory=${folder}`,
    '--include=src/**',
    '--exclude=src/web/**',
    '--reporter=text',
    '--check-coverage',
    ...Object.entries(COVERAGE_FLOORS).map(([metric, floor]) => `--${metric}=${floor}`),
  ];
  process.stdout.write('\n# coverage of src/ by the unit suite (the board page aside)\n');
  return spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' }).status ?? 1;
}

/**
 * Runs the suite's files, a process each (Node's own runner): the system suite two at a time on two cores (as many
 * as the machine has: its files wait on real processes, sockets and clocks a good part of their time, and their
 * margins are made for a loaded machine), the others one at a time.
 */
function runEach(suite: keyof typeof SUITES, extra: string[]): number {
  const concurrency = suite === 'system' ? [`--test-concurrency=${Math.max(1, availableParallelism())}`] : [];
  const args = ['--import', 'tsx', '--test', '--test-reporter=spec', ...concurrency, ...extra, ...testFiles(suite)];
  process.stdout.write(`\n# ${suite} suite\n`);
  const result = spawnSync(process.execPath, args, { cwd: ROOT, env: TEST_ENV, stdio: 'inherit' });
  return result.status ?? 1;
}

/** The figures of a spec report's summary (`ℹ tests 12`...). */
const SUMMARY = ['tests', 'pass', 'fail', 'cancelled', 'skipped', 'todo'] as const;
type Summary = Record<(typeof SUMMARY)[number], number>;
const summaryOf = (output: string): Summary =>
  Object.fromEntries(
    SUMMARY.map(name => [name, Number(new RegExp(`^ℹ ${name} (\\d+)$`, 'm').exec(output)?.[1] ?? 0)]),
  ) as Summary;

/**
 * Runs the unit suite in UNIT_SHARDS processes at once; each shard's report is printed whole when it ends. With
 * `coverage`, the shards' coverage is merged and held to the floors.
 */
async function runShards(extra: string[], coverage = false): Promise<number> {
  const files = testFiles('unit');
  const started = performance.now();
  const durations = lastDurations(coverage);
  const shares = shareOut(files, durations, UNIT_SHARDS);
  const times = mkdtempSync(join(tmpdir(), 'unit-durations-'));
  const covered = coverage ? mkdtempSync(join(tmpdir(), 'unit-coverage-')) : undefined;
  const scratch = scratchFolder();
  const env = {
    ...TEST_ENV,
    ...(scratch ? { TMPDIR: scratch } : {}),
    ...(covered ? { NODE_V8_COVERAGE: covered } : {}),
  };
  process.stdout.write(
    `\n# unit suite${coverage ? ', with the coverage gate' : ''}: ${files.length} files in ${shares.length} processes ` +
      `(by the last runs' durations: ${shares.map(share => (share.ms / 1000).toFixed(0)).join(', ')} s)\n`,
  );
  const shards = shares.map((share, k) => {
    const timesOf = join(times, `${k}.ndjson`);
    const reporters = ['spec', 'stdout', './scripts/testDurations.ts', timesOf].flatMap((value, i) =>
      i % 2 === 0 ? [`--test-reporter=${value}`] : [`--test-reporter-destination=${value}`],
    );
    const args = ['--import', 'tsx', '--test', NO_ISOLATION, ...reporters, ...extra, ...share.files];
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    return new Promise<{ status: number; output: string }>(resolve =>
      child.on('close', (code, signal) => {
        process.stdout.write(`\n# unit shard ${k + 1}/${shares.length}${signal ? ` (${signal})` : ''}\n${output}`);
        resolve({ status: code ?? 1, output });
      }),
    );
  });
  const results = await Promise.all(shards);
  // This run's durations, each the mean of this run's and the last one's (a file's time varies from run to run with
  // what runs beside it), replace the last ones file by file (a run of some tests leaves the others' as they were).
  const measured: Record<string, number> = {};
  for (const name of readdirSync(times)) {
    for (const line of readFileSync(join(times, name), 'utf8').split('\n').filter(Boolean)) {
      const { file, ms } = JSON.parse(line) as { file: string; ms: number };
      const key = relative(ROOT, file);
      measured[key] = (measured[key] ?? 0) + ms;
    }
  }
  rmSync(times, { recursive: true, force: true });
  for (const [file, ms] of Object.entries(measured)) {
    const last = durations[file];
    measured[file] = Math.round(last === undefined ? ms : (last + ms) / 2);
  }
  if (extra.length === 0) {
    const { last } = durationFiles(coverage);
    mkdirSync(dirname(last), { recursive: true });
    writeFileSync(last, `${JSON.stringify({ ...durations, ...measured }, null, 1)}\n`);
  }
  const total = (name: (typeof SUMMARY)[number]) =>
    results.reduce((sum, { output }) => sum + summaryOf(output)[name], 0);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(`\n# unit suite: ${SUMMARY.map(name => `${name} ${total(name)}`).join(', ')}; ${seconds} s\n`);
  const failed = results.some(result => result.status !== 0);
  const gate = covered ? coverageGate(covered) : 0;
  if (covered) rmSync(covered, { recursive: true, force: true });
  return failed || gate !== 0 ? 1 : 0;
}

/** Test files in no suite: a new folder under test/ must join one, or its tests would never run. */
function orphans(): string[] {
  const listed = new Set([...testFiles('unit'), ...testFiles('system'), ...testFiles('clients')]);
  return readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
    .filter(name => name.endsWith('.test.ts'))
    .map(name => relative(ROOT, join(ROOT, 'test', name)))
    .filter(file => !listed.has(file));
}

const [which = 'all', ...extra] = process.argv.slice(2);
const unlisted = orphans();
if (unlisted.length > 0) {
  process.stderr.write(
    `test files in no suite (add their folder to SUITES in scripts/test.ts): ${unlisted.join(', ')}\n`,
  );
  process.exitCode = 1;
} else if (which === 'unit') process.exitCode = await runShards(extra);
else if (which === 'coverage') process.exitCode = await runShards(extra, true);
else if (which === 'system') process.exitCode = runEach('system', extra);
else if (which === 'clients') process.exitCode = runEach('clients', extra);
else if (which === 'runtime') process.exitCode = runEach('runtime', extra);
else if (which === 'all') process.exitCode = (await runShards(extra, true)) || runEach('system', extra);
else {
  process.stderr.write(`unknown suite '${which}': unit, coverage, system, runtime, clients or all\n`);
  process.exitCode = 2;
}
