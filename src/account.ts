/**
 * The command line for accounts (DECISIONS §20), on the store of DATABASE_URL, for an operator: make an account
 * (whatever SIGNUP says), set a password, close an account. A password is read as one line from standard input,
 * never from the arguments (which other users of the machine can see). It works whether or not a server runs on the
 * store: a closed account's sessions and tokens are refused by every server within a second.
 *
 * ```sh
 * printf '%s\n' 'correct horse battery' | npm run account -- create ann "Ann"   # {"id":"ann","displayName":"Ann"}
 * printf '%s\n' 'another long phrase' | npm run account -- reset-password ann   # {"ok":true}
 * npm run account -- close ann                                                  # {"ok":true}
 * ```
 */
import { createInterface } from 'node:readline';
import { loadConfig } from './config.ts';
import { runCommand } from './commandLine.ts';
import { DomainError } from './domain/errors.ts';
import { Accounts } from './service/accounts.ts';
import { PasswordHasher } from './service/passwords.ts';
import { PlayerTokens } from './service/tokens.ts';
import { openStore } from './store/open.ts';

const USAGE = `usage: npm run account -- create ID "Name"   (the password: one line on standard input)
       npm run account -- reset-password ID  (the password: one line on standard input)
       npm run account -- close ID`;

class UsageError extends Error {}

/** The first line of standard input, without its line end. */
async function readPassword(): Promise<string> {
  const lines = createInterface({ input: process.stdin, terminal: false });
  for await (const line of lines) {
    lines.close();
    return line.replace(/\r$/, '');
  }
  throw new UsageError('give the password as one line on standard input');
}

async function main(args: readonly string[]): Promise<void> {
  const [command, ...rest] = args;
  const config = loadConfig(process.env);
  const store = await openStore(config.databaseUrl);
  const tokens = new PlayerTokens({ store, now: Date.now });
  const accounts = new Accounts({ store, tokens, passwords: new PasswordHasher(), now: Date.now });
  try {
    if (command === 'create' && rest.length === 2) {
      // The id's case is the name's: `create ann "Ann"` makes the username Ann (player id ann).
      if (rest[0]!.toLowerCase() !== rest[1]!.toLowerCase()) {
        throw new UsageError('the name is the id with its letters in the case to show: e.g. create ann "Ann"');
      }
      const player = await accounts.signUp(rest[1]!, await readPassword(), { operator: true });
      process.stdout.write(`${JSON.stringify(player)}\n`);
    } else if (command === 'reset-password' && rest.length === 1) {
      await accounts.resetPassword(rest[0]!, await readPassword());
      process.stdout.write(`${JSON.stringify({ ok: true })}\n`);
    } else if (command === 'close' && rest.length === 1) {
      await accounts.close(rest[0]!);
      process.stdout.write(`${JSON.stringify({ ok: true })}\n`);
    } else {
      throw new UsageError(USAGE);
    }
  } finally {
    await store.close();
  }
}

if (process.argv[1] === import.meta.filename)
  await runCommand(main, error => error instanceof UsageError || error instanceof DomainError);
