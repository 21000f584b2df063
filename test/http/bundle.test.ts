/**
 * What `npm start` runs: the bundle dist/server.mjs, started from another working directory, finds the board
 * page and the migrations (src/paths.ts) and serves the API. The other process tests run the same bundle.
 */
import { mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { SERVER_OUTPUT, buildServer } from '../../scripts/build.ts';
import { startServer } from '../helpers/server.ts';

test('the bundle npm start runs serves the API and the board page from any working directory', async (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'chess-bundle-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const server = await startServer({ DATABASE_URL: join(dir, 'chess.sqlite') }, { cwd: dir });
  t.after(() => server.stop('SIGKILL'));

  const created = await fetch(`${server.url}/api/board/game`, { method: 'POST' });
  t.assert.equal(created.status, 201);
  const { gameId } = (await created.json()) as { gameId: string };
  const moved = await fetch(`${server.url}/api/board/game/${gameId}/move/e2e4`, { method: 'POST' });
  t.assert.equal(moved.status, 200);
  t.assert.equal(((await moved.json()) as { pgn: string }).pgn, '1. e4');

  const page = await fetch(`${server.url}/`);
  t.assert.equal(page.status, 200);
  t.assert.match(await page.text(), /<script type="module" src="\/assets\/app-[A-Za-z0-9]+\.js"/);
  t.assert.equal(await server.stop('SIGTERM'), 0);
});

test('the bundle is built again when a source is newer, and only then', async (t: TestContext) => {
  await buildServer({ ifStale: true });
  const before = statSync(SERVER_OUTPUT).mtimeMs;
  t.assert.equal((await buildServer({ ifStale: true })).built, false);
  t.assert.equal(statSync(SERVER_OUTPUT).mtimeMs, before);
  // A source touched after the bundle was written (its content unchanged) makes it stale.
  await sleep(20);
  const now = new Date();
  utimesSync(fileURLToPath(new URL('../../src/paths.ts', import.meta.url)), now, now);
  t.assert.equal((await buildServer({ ifStale: true })).built, true);
  t.assert.ok(statSync(SERVER_OUTPUT).mtimeMs > before);
  t.assert.equal((await buildServer({ ifStale: true })).built, false);
});
