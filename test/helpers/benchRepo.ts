/**
 * A scratch clone of this repository with one commit on top of HEAD that appends code to a source file: the
 * benchmarks' A/B tests compare such a commit (made slower on purpose) against its parent.
 *
 * ```ts
 * const { clone, base, changed } = commitOnTop(dir, 'src/service/games.ts', SLOWDOWN, 'A slower move');
 * const { code, stdout, stderr } = await runBench(['bench/run.ts', '--against', base], { ROUNDS: '2' });
 * ```
 */
import { appendFileSync } from 'node:fs';
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-C', cwd, '-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();

/** Clones this repository into `dir`/repo and commits `code` appended to `file` there. */
export function commitOnTop(
  dir: string,
  file: string,
  code: string,
  message: string,
): { clone: string; base: string; changed: string } {
  const clone = join(dir, 'repo');
  execFileSync('git', ['clone', '--quiet', '--shared', ROOT, clone], { stdio: ['ignore', 'pipe', 'pipe'] });
  const base = git(clone, 'rev-parse', 'HEAD');
  appendFileSync(join(clone, file), code);
  git(clone, 'commit', '--quiet', '--no-verify', '-am', message);
  return { clone, base, changed: git(clone, 'rev-parse', 'HEAD') };
}

/** Runs a benchmark script of this repository (through tsx) with `env` added, to its end. */
export async function runBench(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  run.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  run.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>(resolve => run.once('exit', resolve));
  return { code, stdout, stderr };
}
