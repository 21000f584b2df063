/**
 * Tests that need a program or service this machine may lack (Stockfish, pgn-extract, PostgreSQL,
 * Chromium) ask here first. Without it they are skipped with a loud notice, unless CI_REQUIRE_EXTERNAL=1,
 * which CI sets: then a missing dependency fails the test instead of skipping it silently.
 *
 * ```ts
 * const stockfish = findExecutable('stockfish');
 * test('differential', { skip: skipReason('stockfish', stockfish) }, async () => { ... });
 * ```
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join, sep } from 'node:path';

export const externalRequired = process.env.CI_REQUIRE_EXTERNAL === '1';

/** The path of an executable on PATH or in the usual Debian folders, or undefined. */
export function findExecutable(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/games', '/usr/local/games', '/usr/bin'];
  for (const dir of dirs) {
    // The machine's tools, not the project's own packages' commands (npm puts node_modules/.bin first on the
    // PATH of `npm test`, and the npm package `stockfish` has a command of that name).
    if (!dir || dir.split(sep).includes('node_modules')) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * `false` when the dependency is present (run the test); a skip message when it is absent. When CI requires
 * external dependencies an absent one throws, so the test file fails instead of skipping.
 */
export function skipReason(what: string, present: unknown): string | false {
  if (present) return false;
  const message = `${what} is not available: these tests are SKIPPED (install it, or set CI_REQUIRE_EXTERNAL=1 to make this a failure)`;
  if (externalRequired) throw new Error(`${what} is required (CI_REQUIRE_EXTERNAL=1) but not available`);
  process.stderr.write(`\n*** ${message}\n\n`);
  return message;
}
