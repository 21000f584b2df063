/**
 * A start-up failure is one line that names the setting, no stack trace, and a non-zero exit code (DECISIONS
 * §15): a database that cannot be opened, a bad setting, a port that is taken. The real bundle, as `npm start`
 * runs it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { buildServer, SERVER_OUTPUT } from '../../scripts/build.ts';

function start(env: Record<string, string>) {
  return spawnSync(process.execPath, [SERVER_OUTPUT], {
    encoding: 'utf8',
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    timeout: 20_000,
  });
}

function assertOneLine(t: TestContext, run: ReturnType<typeof start>, line: RegExp): void {
  t.assert.equal(run.status, 2, `exit code; stderr: ${run.stderr}`);
  const lines = run.stderr.split('\n');
  t.assert.equal(lines.length, 2, `one line and its end, got:\n${run.stderr}`);
  t.assert.equal(lines[1], '');
  t.assert.match(lines[0]!, line);
  t.assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
}

test('a database file that is not a database: one line naming DATABASE_URL', async (t: TestContext) => {
  await buildServer({ ifStale: true });
  const dir = mkdtempSync(join(tmpdir(), 'chess-startup-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'chess.sqlite');
  writeFileSync(
    path,
    'these are not the bytes of a database, and there are enough of them to be read as a header\n'.repeat(100),
  );
  assertOneLine(
    t,
    start({ DATABASE_URL: path }),
    /^DATABASE_URL: cannot open the SQLite database '.*chess\.sqlite': the database file is damaged \(SQLITE_NOTADB\)$/,
  );
});

test('a database folder that cannot be made: one line naming DATABASE_URL', async (t: TestContext) => {
  await buildServer({ ifStale: true });
  const dir = mkdtempSync(join(tmpdir(), 'chess-startup-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'a-file');
  writeFileSync(file, 'x');
  assertOneLine(
    t,
    start({ DATABASE_URL: join(file, 'data', 'chess.sqlite') }),
    /^DATABASE_URL: cannot open the SQLite database '.*a-file\/data\/chess\.sqlite': .*ENOTDIR/,
  );
});

test('a PostgreSQL server that cannot be reached: one line naming DATABASE_URL, without the password', async (t: TestContext) => {
  await buildServer({ ifStale: true });
  // Port 1 on the loopback: nothing listens there, so the connection is refused at once.
  const run = start({ DATABASE_URL: 'postgres://chess:s3cret-password@127.0.0.1:1/chess' });
  assertOneLine(
    t,
    run,
    /^DATABASE_URL: cannot open the PostgreSQL database postgres:\/\/chess:\*\*\*@127\.0\.0\.1:1\/chess: /,
  );
  t.assert.doesNotMatch(run.stderr, /s3cret-password/);
});

test('bad settings: one line naming each of them', async (t: TestContext) => {
  await buildServer({ ifStale: true });
  assertOneLine(
    t,
    start({ PORT: 'eighty', LOG_LEVEL: 'loud' }),
    /^invalid settings: LOG_LEVEL must be one of .*; got 'loud' \| PORT must be an integer from 0 to 65535; got 'eighty'$/,
  );
});

test('a port already taken: one line naming PORT', async (t: TestContext) => {
  await buildServer({ ifStale: true });
  const taken = createServer();
  await new Promise<void>(resolve => taken.listen(0, '127.0.0.1', resolve));
  t.after(() => taken.close());
  const { port } = taken.address() as { port: number };
  assertOneLine(
    t,
    start({ PORT: String(port), DATABASE_URL: ':memory:' }),
    new RegExp(`^PORT: 127\\.0\\.0\\.1:${port} is already in use$`),
  );
});
