/**
 * The benchmark's instruction counts (`npm run bench:instructions -- --against REF`, bench/instructions.ts): both
 * builds run under callgrind and each request's instructions are counted, by share. Here the two commits are this
 * repository's HEAD and a commit made on top of it, in a scratch clone, whose every game change first runs a loop
 * of a fixed number of steps (about a million instructions): the moves must count far more instructions, the
 * reads, which change nothing, about as many. Counts, not times: the result does not depend on the machine's load.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { commitOnTop, runBench } from '../helpers/benchRepo.ts';
import { sharesOf, type Shares } from '../../bench/callgrind.ts';
import type { Counts } from '../../bench/instructions.ts';
import { findExecutable, skipReason } from '../helpers/external.ts';

// Appended to the service module of the slowed commit: every change of a game first runs 300,000 steps of a loop.
const SLOWDOWN = `
const countedChange = GameService.prototype.change;
GameService.prototype.change = function (...args) {
  let sum = 0;
  for (let i = 0; i < 300_000; i++) sum += i % 7;
  if (sum < 0) throw new Error('unreachable');
  return countedChange.apply(this, args);
};
`;

/** The costliest functions, by their own instructions, of the reads' dump (1) in a build's kept folder. */
function topFunctions(folder: string): string {
  const dump = readdirSync(folder).find(name => name.endsWith('.1'));
  if (!dump) return `${folder}: no dump`;
  const annotated = spawnSync('callgrind_annotate', ['--inclusive=no', join(folder, dump)], { encoding: 'utf8' });
  return `${folder}:\n${annotated.stdout.split('\n').slice(16, 46).join('\n')}${annotated.stderr}`;
}

test('callgrind dumps: self costs by share, without the inclusive costs of calls', (t: TestContext) => {
  const dump = [
    'version: 1',
    'events: Ir',
    'ob=(1) /usr/bin/node',
    'fl=(1) ???',
    'fn=(1) v8::internal::ConcurrentMarking::RunMajor(v8::JobDelegate*)',
    '0 100',
    'cfn=(2) Builtins_KeyedLoadIC_Megamorphic',
    'calls=3 0',
    '0 9999', // the call's inclusive cost: not RunMajor's own
    '+1 20',
    'fn=(2)',
    '0 30',
    'ob=(2) /app/node_modules/better-sqlite3/build/Release/better_sqlite3.node',
    'fn=(3) sqlite3VdbeExec',
    '0 40',
    '-1 2',
    'ob=(1)',
    'fn=(4) heap::base::Stack::IteratePointers()',
    '* 8',
    'totals: 200',
  ].join('\n');
  t.assert.deepEqual(sharesOf(dump), { all: 200, collector: 128, sqlite: 42 });
});

test('instruction counts: a commit whose moves run a long loop counts far more instructions a move, not a read', async (t: TestContext) => {
  const skip = skipReason('valgrind', findExecutable('valgrind') && findExecutable('callgrind_control'));
  if (skip) return t.skip(skip);
  const dir = mkdtempSync(join(tmpdir(), 'chess-bench-instructions-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const {
    clone,
    base,
    changed: slowed,
  } = commitOnTop(dir, join('src', 'service', 'games.ts'), SLOWDOWN, 'A move that runs a long loop');

  const json = join(dir, 'counts.json');
  const keep = join(dir, 'dumps');
  const args = ['bench/instructions.ts', '--against', base, '--build', slowed, '--repo', clone, '--json', json];
  args.push('--keep', keep);
  const sizes = { GAMES: '40', WARM: '400', MOVES: '300', READS: '300' };
  const { code, stdout, stderr } = await runBench(args, { ...sizes, BENCH_BUILDS: join(dir, 'builds') });
  t.assert.equal(code, 0, `the benchmark's exit code; stderr:\n${stderr}`);

  const report = JSON.parse(readFileSync(json, 'utf8')) as { self: Counts; other: Counts };
  t.assert.deepEqual([report.self.commit, report.other.commit], [slowed, base]);
  const rest = (s: Shares) => s.all - s.collector - s.sqlite;
  const { self, other } = report;
  t.diagnostic(`a move: ${Math.round(self.move.all)} against ${Math.round(other.move.all)} instructions`);
  t.diagnostic(`a read: ${Math.round(self.getGame.all)} against ${Math.round(other.getGame.all)} instructions`);
  // The loop is about 300,000 steps of several instructions each, against a few hundred thousand for a whole move.
  t.assert.ok(self.move.all > 2 * other.move.all, JSON.stringify(report));
  t.assert.ok(rest(self.move) - rest(other.move) > 500_000, JSON.stringify(report));
  // A read runs no change: the same code in both builds.
  const reads = self.getGame.all / other.getGame.all;
  if (!(reads > 0.8 && reads < 1.25)) {
    // What ran: each build's costliest functions while the reads were counted (dump 1).
    const tops = [slowed, base].map(commit => topFunctions(join(keep, commit.slice(0, 7))));
    t.assert.fail(`a read, slowed / base: ${reads}\n${JSON.stringify(report)}\n${tops.join('\n')}`);
  }
  t.assert.ok(other.move.sqlite > 0, 'a move runs SQLite');
  t.assert.match(stdout, new RegExp(`\\| POST move \\| \\d+ / \\d+ \\| \\*\\*\\d+\\.\\d+\\*\\* \\|`));
});
