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
 *
 * `npm test` runs the unit suite with the coverage gate (Node's own coverage; the floors below are the levels
 * reached, to be raised, never lowered), then the system suite. Extra arguments go to `node --test`.
 *
 * ```sh
 * npm run test:unit                 # unit, no coverage
 * npm run test:system
 * npm test                          # unit with the coverage gate, then system
 * ```
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
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
} as const;

/**
 * Coverage floors of the unit suite over src/ (the board page aside), in percent: the levels reached (96.0,
 * 93.2 and 87.3 on Node.js 24 and 26) less a point, since the property tests draw new cases every run and reach
 * a few branches only in some of them. Raise them as coverage grows; never lower them.
 */
const COVERAGE_FLOORS = { lines: 95, branches: 92, functions: 86 } as const;

/** The test files under the suite's folders, sorted. */
function testFiles(suite: keyof typeof SUITES): string[] {
  return SUITES[suite]
    .flatMap(dir =>
      readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
        .filter(name => name.endsWith('.test.ts'))
        .map(name => relative(ROOT, join(ROOT, dir, name))),
    )
    .sort();
}

/**
 * Test files run at once: the unit suite's files run two at a time whatever the machine (Node's default is one less
 * than the cores, one on two cores), since most of a unit file's time is starting its process; the system suite's
 * files, whose tests time real processes, streams and clocks, keep Node's default.
 */
const concurrency = (suite: keyof typeof SUITES): string[] =>
  suite === 'unit' ? [`--test-concurrency=${Math.max(2, availableParallelism() - 1)}`] : [];

function run(suite: keyof typeof SUITES, coverage: boolean, extra: string[]): number {
  const flags = coverage
    ? [
        '--experimental-test-coverage',
        '--test-coverage-include=src/**',
        '--test-coverage-exclude=src/web/**',
        `--test-coverage-lines=${COVERAGE_FLOORS.lines}`,
        `--test-coverage-branches=${COVERAGE_FLOORS.branches}`,
        `--test-coverage-functions=${COVERAGE_FLOORS.functions}`,
      ]
    : [];
  const args = [
    '--import',
    'tsx',
    '--test',
    '--test-reporter=spec',
    ...concurrency(suite),
    ...flags,
    ...extra,
    ...testFiles(suite),
  ];
  process.stdout.write(`\n# ${suite} suite${coverage ? ', with the coverage gate' : ''}\n`);
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  return result.status ?? 1;
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
} else if (which === 'unit') process.exitCode = run('unit', false, extra);
else if (which === 'system') process.exitCode = run('system', false, extra);
else if (which === 'clients') process.exitCode = run('clients', false, extra);
else if (which === 'all') process.exitCode = run('unit', true, extra) || run('system', false, extra);
else {
  process.stderr.write(`unknown suite '${which}': unit, system, clients or all\n`);
  process.exitCode = 2;
}
