/**
 * Builds what the service runs and serves, from src into dist:
 *
 * - `dist/server.mjs` (+ `.map`): src/server.ts and the modules it imports, bundled by esbuild into one ES module
 *   that `npm start` runs with plain Node (packages stay in node_modules). Running the TypeScript through a loader
 *   instead costs the process about 40 MiB more memory (the loader's own thread and the compiled sources).
 * - `dist/token.mjs` (+ `.map`): the command line for player tokens (src/token.ts, `npm run token`), likewise.
 * - `dist/account.mjs` (+ `.map`): the command line for accounts (src/account.ts, `npm run account`), likewise.
 * - The board page (src/web) into dist/web, which the service serves at `/` and `/assets/...`:
 *
 *   - `assets/app-HASH.js` (+ `.map`): src/web/main.ts bundled with chessground and chessops by esbuild;
 *   - `assets/app-HASH.css` (+ `.map`): src/web/style.css (the rules of each panel in src/web/styles/) with chessground's board and piece styles;
 *   - `assets/favicon-HASH.svg`;
 *   - `index.html`: src/web/index.html with the hashed asset names filled in, written last.
 *
 *   Asset names carry a hash of their content, so they can be cached forever; index.html is what changes.
 *   Assets of the build before the previous one are removed.
 *
 * Every file is written to a temporary name and renamed, so a server (or a second build running at the same
 * time) never reads half a file.
 *
 * ```sh
 * npm run build                                   # always builds both
 * node --import tsx scripts/build.ts --if-stale   # builds each only when one of its inputs is newer than it
 * ```
 * ```ts
 * await buildWeb({ ifStale: true }); // tests: make sure the page exists and is current
 * await buildServer({ ifStale: true }); // the same for the bundle a test starts as a process
 * ```
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ROOT, WEB_ROOT } from '../src/paths.ts';

export const WEB_SOURCE = join(ROOT, 'src', 'web');
export const SERVER_ENTRY = join(ROOT, 'src', 'server.ts');
export const SERVER_OUTPUT = join(ROOT, 'dist', 'server.mjs');
export const TOKEN_ENTRY = join(ROOT, 'src', 'token.ts');
export const TOKEN_OUTPUT = join(ROOT, 'dist', 'token.mjs');
export const ACCOUNT_ENTRY = join(ROOT, 'src', 'account.ts');
export const ACCOUNT_OUTPUT = join(ROOT, 'dist', 'account.mjs');

/** Files whose change makes the board page stale besides src/web itself. */
const EXTRA_INPUTS = [
  fileURLToPath(import.meta.url),
  join(ROOT, 'package-lock.json'),
  join(ROOT, 'node_modules', '@lichess-org', 'chessground', 'package.json'),
  join(ROOT, 'node_modules', 'chessops', 'package.json'),
  join(ROOT, 'node_modules', 'openapi-fetch', 'package.json'),
  // The service's typed client, which the page calls the service through.
  join(ROOT, 'client', 'src', 'index.ts'),
  join(ROOT, 'client', 'src', 'streams.ts'),
];

/**
 * Bundles the server into dist/server.mjs (or another Node entry point, `entry`, into `outFile`). The bundle sits
 * one folder below the root, as src/server.ts does, so that src/paths.ts finds the same files from either.
 */
export async function buildServer(
  options: { ifStale?: boolean; outFile?: string; entry?: string } = {},
): Promise<{ built: boolean; ms: number }> {
  const started = performance.now();
  const startedAt = new Date();
  const outFile = options.outFile ?? SERVER_OUTPUT;
  if (options.ifStale && !(await isStale(outFile, await serverInputs()))) return { built: false, ms: 0 };
  const result = await build({
    entryPoints: [options.entry ?? SERVER_ENTRY],
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node22',
    sourcemap: 'linked',
    outfile: outFile,
    write: false,
    logLevel: 'silent',
  });
  await mkdir(dirname(outFile), { recursive: true });
  // The map first: the bundle's time is what the staleness check compares, and it is the time the build
  // started, so that a source saved while it ran still counts as newer.
  const files = [...result.outputFiles].sort((a, b) => Number(a.path === outFile) - Number(b.path === outFile));
  for (const file of files) await writeAtomically(file.path, file.contents, startedAt);
  return { built: true, ms: Math.round(performance.now() - started) };
}

async function serverInputs(): Promise<string[]> {
  const sources = (await listFiles(join(ROOT, 'src'))).filter(file => !file.startsWith(WEB_SOURCE + sep));
  return [...sources, fileURLToPath(import.meta.url), join(ROOT, 'package-lock.json'), join(ROOT, 'tsconfig.json')];
}

export interface BuildResult {
  built: boolean;
  /** Asset file names (inside dist/web/assets) that index.html references. */
  assets: string[];
  ms: number;
}

export async function buildWeb(options: { ifStale?: boolean; outDir?: string } = {}): Promise<BuildResult> {
  const started = performance.now();
  const startedAt = new Date();
  const outDir = options.outDir ?? WEB_ROOT;
  const indexPath = join(outDir, 'index.html');
  if (options.ifStale && !(await isStale(indexPath, [...(await listFiles(WEB_SOURCE)), ...EXTRA_INPUTS]))) {
    return { built: false, assets: referencedAssets(await readFile(indexPath, 'utf8')), ms: 0 };
  }

  const assetsDir = join(outDir, 'assets');
  await mkdir(assetsDir, { recursive: true });
  const result = await build({
    entryPoints: { app: join(WEB_SOURCE, 'main.ts') },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome100', 'firefox100', 'safari15'],
    minify: true,
    sourcemap: 'linked',
    sourcesContent: true,
    entryNames: '[name]-[hash]',
    outdir: assetsDir,
    write: false,
    metafile: true,
    logLevel: 'silent',
    legalComments: 'eof',
  });

  const names = new Map<string, string>(); // logical name -> hashed file name
  const files: Array<{ name: string; contents: Uint8Array }> = [];
  for (const file of result.outputFiles) {
    const name = basename(file.path);
    files.push({ name, contents: file.contents });
    if (name.endsWith('.js')) names.set('app.js', name);
    if (name.endsWith('.css')) names.set('app.css', name);
  }
  if (!names.has('app.js') || !names.has('app.css')) {
    throw new Error(`esbuild did not produce app.js and app.css: ${[...names.values()].join(', ')}`);
  }
  const favicon = await readFile(join(WEB_SOURCE, 'favicon.svg'));
  const faviconName = `favicon-${createHash('sha256').update(favicon).digest('hex').slice(0, 8)}.svg`;
  names.set('favicon.svg', faviconName);
  files.push({ name: faviconName, contents: favicon });

  let html = await readFile(join(WEB_SOURCE, 'index.html'), 'utf8');
  html = html.replace(/\{\{(app\.js|app\.css|favicon\.svg)\}\}/g, (_match, key: string) => `/assets/${names.get(key)}`);
  if (/\{\{[^}]*\}\}/.test(html)) throw new Error('src/web/index.html has an unknown {{placeholder}}');

  for (const file of files) await writeAtomically(join(assetsDir, file.name), file.contents);
  const previous = await readFile(indexPath, 'utf8').catch(() => '');
  await writeAtomically(indexPath, html, startedAt); // its time is the build's start, as for the server bundle

  // Keep this build's assets and the previous build's (a page loaded a moment ago may still ask for them).
  const keep = new Set([...files.map(file => file.name), ...referencedAssets(previous)]);
  for (const name of keep) if (name.endsWith('.js') || name.endsWith('.css')) keep.add(`${name}.map`);
  for (const name of await readdir(assetsDir)) {
    if (!keep.has(name) && !name.endsWith('.tmp')) await rm(join(assetsDir, name), { force: true });
  }
  return { built: true, assets: referencedAssets(html), ms: Math.round(performance.now() - started) };
}

/** Asset file names referenced by an index.html (`/assets/NAME`). */
export function referencedAssets(html: string): string[] {
  return [...new Set([...html.matchAll(/\/assets\/([A-Za-z0-9._-]+)/g)].map(match => match[1]!))];
}

/** Whether the output is missing or older than one of the inputs. */
async function isStale(output: string, inputs: readonly string[]): Promise<boolean> {
  let built: number;
  try {
    built = (await stat(output)).mtimeMs;
  } catch {
    return true;
  }
  for (const input of inputs) {
    const modified = await stat(input).then(
      info => info.mtimeMs,
      () => 0,
    );
    if (modified > built) return true;
  }
  return false;
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter(entry => entry.isFile()).map(entry => join(entry.parentPath, entry.name));
}

/** Writes a file under a temporary name and renames it, so that no reader sees half of it; `time` sets its mtime. */
async function writeAtomically(path: string, contents: string | Uint8Array, time?: Date): Promise<void> {
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(temporary, contents);
  if (time) await utimes(temporary, time, time);
  await rename(temporary, path);
}

// Progress goes to stderr, so that what a script run after the build prints (npm run token) stays its own.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const ifStale = process.argv.includes('--if-stale');
  for (const [what, entry, outFile] of [
    ['server', SERVER_ENTRY, SERVER_OUTPUT],
    ['token command', TOKEN_ENTRY, TOKEN_OUTPUT],
    ['account command', ACCOUNT_ENTRY, ACCOUNT_OUTPUT],
  ] as const) {
    const bundled = await buildServer({ ifStale, entry, outFile });
    const bundle = relative(process.cwd(), outFile);
    process.stderr.write(
      bundled.built
        ? `${what} bundled into ${bundle} in ${bundled.ms} ms\n`
        : `${what} bundle ${bundle} is up to date\n`,
    );
  }
  const web = await buildWeb({ ifStale });
  const where = relative(process.cwd(), WEB_ROOT) || '.';
  process.stderr.write(
    web.built
      ? `board page built into ${where} in ${web.ms} ms: ${web.assets.join(', ')}\n`
      : `board page in ${where} is up to date\n`,
  );
}
