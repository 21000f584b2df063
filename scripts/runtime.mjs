/**
 * Which Node.js runs the project's npm scripts (`npm start`, `npm test`, the build, the benchmarks). Prints the
 * path of its binary:
 *
 * - this machine's own Node.js when its version is one package.json `engines.node` supports;
 * - otherwise the project's own runtime, the registry's `node` package at the version of package.json
 *   `config.node`, installed into node_modules/.runtime the first time it is needed (`npm ci` does it, through the
 *   `prepare` script). The rest of the project never runs on an unsupported Node.js.
 *
 * Plain JavaScript that older Node.js versions can run, since its job is to run on them.
 *
 * ```sh
 * "$(node scripts/runtime.mjs)" --version   # what scripts/node does
 * ```
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const supported = pkg.engines.node;
const pinned = pkg.config.node;
const prefix = join(ROOT, 'node_modules', '.runtime');
const binary = join(prefix, 'node_modules', 'node', 'bin', 'node');

function installedVersion() {
  try {
    return JSON.parse(readFileSync(join(prefix, 'node_modules', 'node', 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

function install() {
  process.stderr.write(
    `Node.js ${process.versions.node} is not supported (${supported}): this project runs on its own Node.js ${pinned}, ` +
      'installed from the npm registry into node_modules/.runtime\n',
  );
  // npm itself, as the npm that runs this script names it; `npm` on the PATH otherwise.
  const npmCli = process.env.npm_execpath;
  const [command, args] = npmCli && /\.[cm]?js$/.test(npmCli) ? [process.execPath, [npmCli]] : ['npm', []];
  const run = spawnSync(
    command,
    [
      ...args,
      'install',
      '--prefix',
      prefix,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `node@${pinned}`,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, npm_config_global: 'false' } },
  );
  if (run.status !== 0 || !existsSync(binary)) {
    process.stderr.write(`installing Node.js ${pinned} failed; install Node.js ${supported} yourself\n`);
    process.exit(1);
  }
}

if (semver.satisfies(process.versions.node, supported)) {
  process.stdout.write(process.execPath);
} else {
  if (installedVersion() !== pinned) install();
  process.stdout.write(binary);
}
