/**
 * What `npm start` runs: the bundle dist/server.mjs, started from another working directory, finds the board
 * page and the migrations (src/paths.ts) and serves the API. The other process tests run the same bundle.
 */
import { mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { buildServer } from '../../scripts/build.ts';
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

test('a bundle is built again when a source is newer than it, and only then', async (t: TestContext) => {
  // A bundle of its own, so that the one the other process tests start is left alone.
  const dir = mkdtempSync(join(tmpdir(), 'chess-bundle-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const outFile = join(dir, 'server.mjs');
  t.assert.equal((await buildServer({ ifStale: true, outFile })).built, true, 'a missing bundle is built');
  t.assert.equal((await buildServer({ ifStale: true, outFile })).built, false, 'a fresh bundle is kept');
  // Dated before every source, the bundle is older than them all.
  const old = new Date('2000-01-01T00:00:00Z');
  utimesSync(outFile, old, old);
  t.assert.equal((await buildServer({ ifStale: true, outFile })).built, true, 'a stale bundle is built again');
  t.assert.ok(statSync(outFile).mtimeMs > old.getTime());
  t.assert.equal((await buildServer({ ifStale: true, outFile })).built, false);
  t.assert.ok(statSync(`${outFile}.map`).isFile());
});
