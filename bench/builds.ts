/**
 * Builds of other commits for the request benchmark's A/B mode (`bench/run.ts --against REF`): a commit's files
 * are taken from the repository with `git archive` into a scratch folder, given packages and built there with the
 * commit's own build script, so that its `dist/server.mjs` runs beside this build's on the same runtime.
 *
 * - Packages: when the commit's package-lock.json is this tree's, the scratch folder links to this tree's
 *   node_modules (nothing is installed); otherwise `npm ci` installs the commit's own.
 * - A build is kept under BENCH_BUILDS (the system's temporary folder by default), one folder per commit, and used
 *   again by later runs: a commit's files never change. A folder is made under a temporary name and renamed once
 *   complete, so a run never uses half a build and two runs may build the same commit at once.
 *
 * ```ts
 * const build = await buildCommit('ed7b78f'); // { commit, dir, server: `${dir}/dist/server.mjs`, label }
 * const slowed = await buildCommit('HEAD', { repo: '/tmp/clone' }); // a commit of another repository
 * ```
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface Build {
  commit: string; // the full hash
  label: string; // the short hash
  dir: string; // the scratch folder: the commit's files, node_modules, dist
  server: string; // its dist/server.mjs
}

const MARKER = '.bench-build'; // written last: the commit the folder holds, complete

const git = (repo: string, args: string[]): string =>
  execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The folder that keeps the builds: BENCH_BUILDS, or one in the system's temporary folder. */
export const buildsFolder = (): string => process.env.BENCH_BUILDS || join(tmpdir(), 'chess-bench-builds');

/** Whether `dir` holds a complete build of `commit` whose packages are still there. */
function usable(dir: string, commit: string): boolean {
  try {
    return (
      readFileSync(join(dir, MARKER), 'utf8') === commit &&
      existsSync(join(dir, 'dist', 'server.mjs')) &&
      existsSync(join(dir, 'node_modules', '.package-lock.json'))
    );
  } catch {
    return false;
  }
}

function run(command: string, args: string[], cwd: string, what: string): void {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0)
    throw new Error(`${what} failed (${result.status ?? result.signal}):\n${result.stdout}${result.stderr}`);
}

/**
 * The build of `ref` (anything git names a commit by) of `repo` (this repository by default), made or found in
 * the builds folder. Logs what it does to stderr.
 */
export async function buildCommit(ref: string, { repo = ROOT }: { repo?: string } = {}): Promise<Build> {
  let commit: string;
  try {
    commit = git(repo, ['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`]);
  } catch {
    throw new Error(`'${ref}' is not a commit of the repository at ${repo}`);
  }
  const label = commit.slice(0, 7);
  const folder = buildsFolder();
  const dir = join(folder, commit);
  const build = { commit, label, dir, server: join(dir, 'dist', 'server.mjs') };
  if (usable(dir, commit)) {
    process.stderr.write(`build of ${label}: kept from an earlier run (${dir})\n`);
    return build;
  }
  rmSync(dir, { recursive: true, force: true }); // an incomplete folder, or one whose packages are gone
  const started = performance.now();
  const scratch = join(folder, `${commit}.${process.pid}.tmp`);
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  try {
    // The commit's files, without touching the repository's work trees, index or refs.
    const archive = spawnSync('git', ['-C', repo, 'archive', '--format=tar', commit], { maxBuffer: 1 << 30 });
    if (archive.status !== 0) throw new Error(`git archive ${label} failed: ${String(archive.stderr)}`);
    const unpacked = spawnSync('tar', ['-x', '-f', '-', '-C', scratch], { input: archive.stdout });
    if (unpacked.status !== 0) throw new Error(`unpacking ${label} failed: ${String(unpacked.stderr)}`);

    const lock = (root: string) => readFileSync(join(root, 'package-lock.json'), 'utf8');
    const ownModules = join(ROOT, 'node_modules');
    let packages: string;
    if (lock(scratch) === lock(ROOT) && existsSync(ownModules)) {
      symlinkSync(realpathSync(ownModules), join(scratch, 'node_modules'), 'dir');
      packages = "this tree's node_modules (the same package-lock.json)";
    } else {
      run('npm', ['ci', '--no-audit', '--no-fund'], scratch, `npm ci for ${label}`);
      packages = 'npm ci (another package-lock.json)';
    }
    // The commit's own build script, on this runtime: what `npm run build` does there.
    run(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], scratch, `the build of ${label}`);
    if (!existsSync(join(scratch, 'dist', 'server.mjs')))
      throw new Error(`the build of ${label} made no dist/server.mjs`);
    writeFileSync(join(scratch, MARKER), commit);
    try {
      renameSync(scratch, dir);
    } catch (error) {
      // Another run finished the same build first: use it.
      if (!usable(dir, commit)) throw error;
      rmSync(scratch, { recursive: true, force: true });
    }
    const ms = Math.round(performance.now() - started);
    process.stderr.write(`build of ${label}: ${ms} ms, packages from ${packages} (${dir})\n`);
    return build;
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
}
