/**
 * How the operator's commands (src/token.ts, src/account.ts) run: refused on an unsupported Node.js, their
 * arguments given to `main`, and a mistake of the operator's (`expected`: a usage error, a bad setting, a store
 * that cannot be opened, a refusal) told in one line on stderr with exit code 2, never as a stack trace.
 *
 * ```ts
 * if (process.argv[1] === import.meta.filename) await runCommand(main, error => error instanceof UsageError);
 * ```
 */
import { ConfigError } from './config.ts';
import { StoreOpenError } from './store/open.ts';
import { unsupportedNode } from './runtime.ts';

export async function runCommand(
  main: (args: readonly string[]) => Promise<void>,
  expected: (error: unknown) => boolean,
): Promise<void> {
  const unsupported = unsupportedNode(process.versions.node);
  if (unsupported) {
    process.stderr.write(`${unsupported}\n`);
    process.exit(2);
  }
  try {
    await main(process.argv.slice(2));
  } catch (error) {
    if (expected(error) || error instanceof ConfigError || error instanceof StoreOpenError) {
      process.stderr.write(`${(error as Error).message}\n`);
      process.exit(2);
    }
    throw error;
  }
}
