/**
 * The command line for player tokens (DECISIONS §13), on the store of DATABASE_URL, for an operator: issue one
 * (printing the same object as `POST /api/tokens`, its secret shown this once), list them, revoke one. It works
 * whether or not a server runs on the store: a running server turns authentication on within a second of the
 * first token, and refuses a revoked token within a second.
 *
 * ```sh
 * npm run token -- issue ann "Ann Smith"   # {"id":"...","token":"cpt_...","player":{...},"createdAt":"..."}
 * npm run token -- list [ann]
 * npm run token -- revoke Xk3pQ9aB27cd
 * ```
 */
import { loadConfig } from './config.ts';
import { runCommand } from './commandLine.ts';
import { PlayerInfo } from './contract/shapes.ts';
import { PlayerTokens } from './service/tokens.ts';
import { openStore } from './store/open.ts';
import { Value } from 'typebox/value';

const USAGE = `usage: npm run token -- issue PLAYER_ID "Display Name"
       npm run token -- list [PLAYER_ID]
       npm run token -- revoke TOKEN_ID`;

class UsageError extends Error {}

async function main(args: readonly string[]): Promise<void> {
  const [command, ...rest] = args;
  const config = loadConfig(process.env);
  const store = await openStore(config.databaseUrl);
  const tokens = new PlayerTokens({ store, now: Date.now });
  try {
    if (command === 'issue' && rest.length === 2) {
      const player = { id: rest[0]!, displayName: rest[1]! };
      if (!Value.Check(PlayerInfo, player)) {
        throw new UsageError('a player id has 1-64 characters and a display name 1-100, without control characters');
      }
      process.stdout.write(`${JSON.stringify(await tokens.issue(player))}\n`);
    } else if (command === 'list' && rest.length <= 1) {
      for (const { id, player, createdAt } of await tokens.list(rest[0])) {
        process.stdout.write(`${JSON.stringify({ id, player, createdAt })}\n`);
      }
    } else if (command === 'revoke' && rest.length === 1) {
      if (!(await tokens.revoke(rest[0]!))) throw new UsageError(`there is no token ${rest[0]!}`);
      process.stdout.write(`${JSON.stringify({ ok: true })}\n`);
    } else {
      throw new UsageError(USAGE);
    }
  } finally {
    await store.close();
  }
}

if (process.argv[1] === import.meta.filename) await runCommand(main, error => error instanceof UsageError);
