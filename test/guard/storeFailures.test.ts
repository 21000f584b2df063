/**
 * The real server when its SQLite file cannot take a write (DECISIONS §15): on a full disk (a real tmpfs, which
 * needs root, as CI has) writes answer 503 UNAVAILABLE saying why and /readyz is 503, until space is freed, when
 * both recover by themselves; a database file removed while the server runs is written again. Nothing
 * acknowledged is lost: a restart (a SIGKILL for the removed file) reads every acknowledged game back.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { skipReason } from '../helpers/external.ts';
import { fullDisk } from '../helpers/fullDisk.ts';
import { startServer, type ServerProcess } from '../helpers/server.ts';
import { openStream } from '../stream/helpers.ts';

const probe = fullDisk(1);
const mountable = probe.kind === 'tmpfs';
probe.cleanup();

interface Acknowledged {
  gameId: string;
  moves: string[];
}

async function post(server: ServerProcess, path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}/api/board/game${path}`, { method: 'POST' });
  return { status: res.status, body: await res.json() };
}

/** Every acknowledged game is there with its moves. */
async function assertAll(t: TestContext, server: ServerProcess, games: Acknowledged[]): Promise<void> {
  for (const game of games) {
    const res = await fetch(`${server.url}/api/board/game/${game.gameId}`);
    t.assert.equal(res.status, 200, `game ${game.gameId}`);
    t.assert.deepStrictEqual(((await res.json()) as { state: { moves: string[] } }).state.moves, game.moves);
  }
}

test(
  'a full disk: 503 UNAVAILABLE and /readyz 503 until space is freed; nothing acknowledged is lost',
  { skip: skipReason('a tmpfs the test can mount (root)', mountable) },
  async (t: TestContext) => {
    const disk = fullDisk(8);
    t.after(() => disk.cleanup());
    const env = { DATABASE_URL: join(disk.dir, 'chess.sqlite'), RATE_LIMIT_MAX: '0' };
    let server = await startServer(env);
    t.after(() => server.stop('SIGKILL'));
    const games: Acknowledged[] = [];
    for (let i = 0; i < 10; i++) {
      const created = await post(server, '');
      t.assert.equal(created.status, 201);
      const gameId = created.body.gameId as string;
      t.assert.equal((await post(server, `/${gameId}/move/e2e4`)).status, 200);
      games.push({ gameId, moves: ['e2e4'] });
    }

    disk.fill();
    let refusal: { status: number; body: any } | undefined;
    for (let i = 0; i < 5000 && !refusal; i++) {
      const created = await post(server, '');
      if (created.status === 201) games.push({ gameId: created.body.gameId, moves: [] });
      else refusal = created;
    }
    t.assert.ok(refusal, 'a write was refused');
    t.assert.equal(refusal.status, 503);
    t.assert.equal(refusal.body.code, 'UNAVAILABLE');
    t.assert.match(refusal.body.message, /disk is full/);
    const move = await post(server, `/${games[0]!.gameId}/move/e7e5`);
    t.assert.ok(move.status === 503 || move.status === 200, `a move answers ${move.status}`);
    if (move.status === 200) games[0]!.moves.push('e7e5');
    const ready = await fetch(`${server.url}/readyz`);
    t.assert.equal(ready.status, 503);
    t.assert.match(((await ready.json()) as { message: string }).message, /disk is full/);
    await assertAll(t, server, games); // reads still answer

    disk.free();
    t.assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
    const after = await post(server, '');
    t.assert.equal(after.status, 201);
    games.push({ gameId: after.body.gameId, moves: [] });

    t.assert.equal(await server.stop('SIGTERM'), 0);
    server = await startServer(env);
    await assertAll(t, server, games);
  },
);

test('the database file removed while the server runs: written again, nothing lost across a SIGKILL', async (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'chess-removed-server-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'data', 'chess.sqlite');
  const env = { DATABASE_URL: path, RATE_LIMIT_MAX: '0' };
  let server = await startServer(env);
  t.after(() => server.stop('SIGKILL'));
  const games: Acknowledged[] = [];
  for (let i = 0; i < 10; i++) {
    const created = await post(server, '');
    games.push({ gameId: created.body.gameId, moves: [] });
  }
  rmSync(path);
  const moved = await post(server, `/${games[0]!.gameId}/move/e2e4`);
  t.assert.equal(moved.status, 200);
  games[0]!.moves.push('e2e4');
  t.assert.ok(existsSync(path), 'the file is there again');
  const created = await post(server, '');
  t.assert.equal(created.status, 201);
  games.push({ gameId: created.body.gameId, moves: [] });
  rmSync(join(dir, 'data'), { recursive: true });
  t.assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
  t.assert.ok(existsSync(path), 'the folder and the file are there again');

  t.assert.equal(await server.stop('SIGKILL'), 'SIGKILL');
  server = await startServer(env);
  await assertAll(t, server, games);
});

test(
  'a flag at a deadline during a full disk is recorded once space is freed (DECISIONS §13a)',
  { skip: skipReason('a tmpfs the test can mount (root)', mountable) },
  async (t: TestContext) => {
    const disk = fullDisk(8);
    t.after(() => disk.cleanup());
    const server = await startServer({ DATABASE_URL: join(disk.dir, 'chess.sqlite'), RATE_LIMIT_MAX: '0' });
    t.after(() => server.stop('SIGKILL'));
    const game = async (gameId: string) =>
      ((await (await fetch(`${server.url}/api/board/game/${gameId}`)).json()) as { state: any }).state;
    const listed = async (status: string, gameId: string) => {
      const res = await fetch(`${server.url}/api/board/game?status=${status}&limit=100`);
      return ((await res.json()) as { games: Array<{ gameId: string }> }).games.some(g => g.gameId === gameId);
    };
    const created = await fetch(`${server.url}/api/board/game`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clock: { initial: 5_000, increment: 0 } }),
    });
    const gameId = ((await created.json()) as { gameId: string }).gameId;
    t.assert.equal((await post(server, `/${gameId}/move/e2e4`)).status, 200);
    const moved = await post(server, `/${gameId}/move/e7e5`);
    t.assert.equal(moved.status, 200);
    const deadline = (moved.body.serverTime as number) + 5_000;
    const stream = await openStream(`${server.url}/api/board/game/${gameId}/stream`);
    t.after(() => stream.close());
    await stream.waitFor(() => stream.events.length >= 1, 'the gameFull', 5_000);

    // The disk fills up before the deadline: writes are refused from then on.
    disk.fill();
    let writes = 0; // those that still went through
    for (; writes < 5000; writes++) if ((await post(server, '')).status === 503) break;
    t.assert.ok(writes < 5000, 'a write was refused');
    t.diagnostic(`${writes} writes went through after the disk was filled`);
    t.assert.ok(Date.now() < deadline - 500, `the disk was full ${deadline - Date.now()} ms before the deadline`);
    const logged = server.logs.length;
    await sleep(Math.max(0, deadline + 2_000 - Date.now()));
    const failed = server.logs.slice(logged).filter(line => line.includes('clock timer'));
    t.assert.ok(failed.length >= 1, 'the flag could not be recorded on the full disk');
    const during = await game(gameId);
    t.assert.deepEqual([during.status, during.wtime], ['started', 0], 'the flag waits, its clock at zero');
    t.assert.ok(await listed('ongoing', gameId));

    disk.free();
    const freed = Date.now();
    await stream.waitFor(
      () => stream.events.some(event => event.state?.status === 'outOfTime'),
      'the flag once space is freed',
      15_000,
    );
    t.diagnostic(`${failed.length} tries failed; the flag came ${Date.now() - freed} ms after space was freed`);
    await sleep(1_000); // a second end would show up by now
    t.assert.equal(
      stream.events.filter(event => event.type === 'gameState' && event.state?.status === 'outOfTime').length,
      1,
      'one gameState for the flag',
    );
    const after = await game(gameId);
    t.assert.deepEqual([after.status, after.winner, after.wtime], ['outOfTime', 'black', 0]);
    t.assert.ok(await listed('ended', gameId), 'listed as ended');
    t.assert.ok(!(await listed('ongoing', gameId)), 'not listed as ongoing');
  },
);
