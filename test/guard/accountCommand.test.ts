/**
 * The operator's command line for accounts (DECISIONS §20), the real bundle as `npm run account` runs it: it makes an
 * account whatever SIGNUP says, with the password read as one line from standard input; it refuses a taken id and a
 * password that breaks the rules; it resets a password and closes an account, whose id stays taken.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { ACCOUNT_OUTPUT, buildServer } from '../../scripts/build.ts';
import { PasswordHasher } from '../../src/service/passwords.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the account command on `database` with `input` on standard input. */
function account(database: string, args: string[], input: string): Promise<Ran> {
  return new Promise(resolve => {
    const child = execFile(
      process.execPath,
      [ACCOUNT_OUTPUT, ...args],
      { env: { ...process.env, DATABASE_URL: `sqlite:${database}`, SIGNUP: 'closed' } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(input);
  });
}

test('npm run account: create, a taken id and a weak password refused, reset-password, close', async (t: TestContext) => {
  await buildServer({ ifStale: true, entry: join('src', 'account.ts'), outFile: ACCOUNT_OUTPUT });
  const dir = mkdtempSync(join(tmpdir(), 'account-command-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const database = join(dir, 'chess.sqlite');

  const made = await account(database, ['create', 'ann', 'Ann'], 'correct horse battery\n');
  t.assert.equal(made.code, 0, made.stderr);
  t.assert.deepEqual(JSON.parse(made.stdout), { id: 'ann', displayName: 'Ann' });
  t.assert.doesNotMatch(made.stdout + made.stderr, /correct horse/, 'the password is never echoed');

  const taken = await account(database, ['create', 'ANN', 'ANN'], 'another long phrase\n');
  t.assert.notEqual(taken.code, 0);
  t.assert.match(taken.stderr, /taken|held|already/i);
  const weak = await account(database, ['create', 'bob', 'Bob'], 'password\n');
  t.assert.notEqual(weak.code, 0);
  t.assert.match(weak.stderr, /password/i);
  const noPassword = await account(database, ['create', 'cat', 'Cat'], '');
  t.assert.notEqual(noPassword.code, 0);

  const reset = await account(database, ['reset-password', 'ann'], 'a new long phrase\n');
  t.assert.equal(reset.code, 0, reset.stderr);
  const closed = await account(database, ['close', 'ann'], '');
  t.assert.equal(closed.code, 0, closed.stderr);

  const store = SqliteGameStore.open(database);
  try {
    const stored = await store.account('ann');
    t.assert.equal(stored?.displayName, 'Ann');
    t.assert.notEqual(stored?.closedAt, null, 'closed, and its row kept');
    const passwords = new PasswordHasher();
    t.assert.equal((await passwords.verify('a new long phrase', stored?.passwordHash)).ok, true);
    t.assert.equal((await passwords.verify('correct horse battery', stored?.passwordHash)).ok, false);
    t.assert.equal(await store.account('bob'), undefined, 'a refused account is not made');
  } finally {
    await store.close();
  }
  const again = await account(database, ['create', 'ann', 'Ann'], 'correct horse battery\n');
  t.assert.notEqual(again.code, 0, 'a closed account’s id is never given again');
});
