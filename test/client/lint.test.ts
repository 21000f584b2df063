/**
 * The OpenAPI document (client/openapi.json, which test/client/generated.test.ts keeps equal to the served one)
 * passes @redocly/cli's lint with no error (DECISIONS §19). Warnings are allowed; redocly.yaml says which rules are
 * off and why.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: Array<{ pointer?: string }>;
}

test('the OpenAPI document passes redocly lint with no error', t => {
  // Redocly's own binary on this Node.js, with no telemetry and no update check (it must reach no network).
  const cli = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
  const run = spawnSync(process.execPath, [cli, 'lint', 'client/openapi.json', '--format=json'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    timeout: 120_000,
  });
  const start = run.stdout.indexOf('{');
  assert.ok(start >= 0, `redocly printed no report (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
  const report = JSON.parse(run.stdout.slice(start)) as { problems: LintProblem[] };
  const errors = report.problems
    .filter(problem => problem.severity === 'error')
    .map(problem => `${problem.ruleId} at ${problem.location[0]?.pointer ?? '?'}: ${problem.message}`);
  t.assert.deepEqual(errors, []);
});
