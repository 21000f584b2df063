/**
 * The request benchmark's A/B mode (`npm run bench:ab -- REF`, bench/run.ts `--against`): it builds two commits in
 * scratch folders, runs them alternately and reports each figure as a ratio. Here the two commits are this
 * repository's HEAD and a commit made on top of it, in a scratch clone, whose moves each burn 5 ms of CPU: the report
 * must rank that build slower, with ratios well below 1. No figure is timed against a limit of its own: a busy-wait
 * of 5 ms against a move of well under 1 ms leaves the ratio far from 1 however loaded the machine is.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { commitOnTop, runBench } from '../helpers/benchRepo.ts';

// Appended to the service module of the slowed commit: every change of a game (a move among them) first burns 5 ms
// of the process's user CPU.
const SLOWDOWN = `
const slowedChange = GameService.prototype.change;
GameService.prototype.change = function (...args) {
  const start = process.cpuUsage();
  while (process.cpuUsage(start).user < 5000);
  return slowedChange.apply(this, args);
};
`;

interface Report {
  self: { label: string; commit: string };
  other: { label: string; commit: string };
  workloads: {
    workload: string;
    stores: { store: string; ratio: { rps: number; cpuRate: number; p50: number }; verdict: string }[];
  }[];
}

test('A/B: a commit that slows the move down is reported slower, with ratios well below 1', async (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'chess-bench-ab-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const {
    clone,
    base,
    changed: slowed,
  } = commitOnTop(dir, join('src', 'service', 'games.ts'), SLOWDOWN, 'A move that burns 5 ms of CPU');

  const json = join(dir, 'ab.json');
  const args = ['bench/run.ts', '--against', base, '--build', slowed, '--repo', clone, '--store', 'sqlite'];
  const { code, stdout, stderr } = await runBench([...args, '--json', json], {
    ROUNDS: '2',
    DURATION: '1',
    WORKLOADS: 'move',
    BARE: '0',
    BENCH_BUILDS: join(dir, 'builds'),
    LOG_LEVEL: 'warn',
  });
  t.assert.equal(code, 0, `the benchmark's exit code; stderr:\n${stderr}`);

  // Both builds were made from the commits named, in the scratch folder, with this tree's packages.
  t.assert.match(stderr, new RegExp(`build of ${slowed.slice(0, 7)}: \\d+ ms, packages from this tree's node_modules`));
  t.assert.match(stderr, new RegExp(`build of ${base.slice(0, 7)}: \\d+ ms, packages from this tree's node_modules`));

  const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
  t.assert.deepEqual(
    [report.self.commit, report.other.commit],
    [slowed, base],
    'this build is the slowed commit, REF its parent',
  );
  t.assert.deepEqual(
    report.workloads.map(w => w.workload),
    ['move'],
  );
  const [move] = report.workloads[0]!.stores;
  t.assert.equal(move!.store, 'SQLite');
  t.assert.equal(move!.verdict, 'slower', JSON.stringify(move));
  t.assert.ok(move!.ratio.cpuRate < 0.5, `moves per CPU-second, slowed / base: ${move!.ratio.cpuRate}`);
  t.assert.ok(move!.ratio.rps < 0.9, `moves per second, slowed / base: ${move!.ratio.rps}`);
  t.assert.ok(move!.ratio.p50 > 1, `p50 latency, slowed / base: ${move!.ratio.p50}`);

  // The printed table says the same, and no acknowledged move was lost by either build.
  const line = stdout.split('\n').find(text => text.startsWith('| POST move | SQLite |'));
  t.assert.ok(line, `a POST move row in:\n${stdout}`);
  t.assert.match(line, /\| slower \|$/);
  t.assert.match(stdout, new RegExp(`A/B: ${slowed.slice(0, 7)} against ${base.slice(0, 7)}`));
  const durability = stdout.split('\n').filter(text => text.startsWith('POST move durability'));
  t.assert.equal(durability.length, 2, stdout);
  for (const text of durability) t.assert.match(text, /, 0 lost,/);
});
