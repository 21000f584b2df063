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
import type { components } from 'chess-game-service-client';
import { clientOf, gameAction } from '../helpers/client.ts';

const probe = fullDisk(1);
const mountable = probe.kind === 'tmpfs';
probe.cleanup();

interface Acknowledged {
  gameId: string;
  moves: string[];
}

/** A new game, through the client: its status, and its data or its error. */
async function create(server: ServerProcess, body: components['schemas']['CreateGameRequest'] = {}) {
  const { data, error, response } = await clientOf(server.url).api.POST('/api/board/game', { body });
  return { status: response.status, data, error };
}

/** A move, through the client. */
const move = (server: ServerProcess, gameId: string, uci: string) =>
  gameAction(clientOf(server.url), gameId, `move/${uci}`);

/** The game's state, through the client. */
async function stateOf(server: ServerProcess, gameId: string) {
  const client = clientOf(server.url);
  return (await client.unwrap(client.api.GET('/api/board/game/{gameId}', { params: { path: { gameId } } }))).state;
}

/** Every acknowledged game is there with its moves. */
async function assertAll(t: TestContext, server: ServerProcess, games: Acknowledged[]): Promise<void> {
  for (const game of games) {
    const res = await clientOf(server.url).api.GET('/api/board/game/{gameId}', {
      params: { path: { gameId: game.gameId } },
    });
    t.assert.equal(res.response.status, 200, `game ${game.gameId}`);
    t.assert.deepStrictEqual(res.data!.state.moves, game.moves);
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
      const created = await create(server);
      t.assert.equal(created.status, 201);
      const gameId = created.data!.gameId;
      t.assert.equal((await move(server, gameId, 'e2e4')).status, 200);
      games.push({ gameId, moves: ['e2e4'] });
    }

    disk.fill();
    let refusal: Awaited<ReturnType<typeof create>> | undefined;
    for (let i = 0; i < 5000 && !refusal; i++) {
      const created = await create(server);
      if (created.status === 201) games.push({ gameId: created.data!.gameId, moves: [] });
      else refusal = created;
    }
    t.assert.ok(refusal, 'a write was refused');
    t.assert.equal(refusal.status, 503);
    t.assert.equal(refusal.error?.code, 'UNAVAILABLE');
    t.assert.match(refusal.error?.message ?? '', /disk is full/);
    const moved = await move(server, games[0]!.gameId, 'e7e5');
    t.assert.ok(moved.status === 503 || moved.status === 200, `a move answers ${moved.status}`);
    if (moved.status === 200) games[0]!.moves.push('e7e5');
    const ready = await fetch(`${server.url}/readyz`);
    t.assert.equal(ready.status, 503);
    t.assert.match(((await ready.json()) as { message: string }).message, /disk is full/);
    await assertAll(t, server, games); // reads still answer

    disk.free();
    t.assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
    const after = await create(server);
    t.assert.equal(after.status, 201);
    games.push({ gameId: after.data!.gameId, moves: [] });

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
    const created = await create(server);
    games.push({ gameId: created.data!.gameId, moves: [] });
  }
  rmSync(path);
  const moved = await move(server, games[0]!.gameId, 'e2e4');
  t.assert.equal(moved.status, 200);
  games[0]!.moves.push('e2e4');
  t.assert.ok(existsSync(path), 'the file is there again');
  const created = await create(server);
  t.assert.equal(created.status, 201);
  games.push({ gameId: created.data!.gameId, moves: [] });
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
    const game = (gameId: string) => stateOf(server, gameId);
    const listed = async (status: 'ongoing' | 'ended', gameId: string) => {
      const client = clientOf(server.url);
      const page = await client.unwrap(
        client.api.GET('/api/board/game', { params: { query: { status, limit: 100 } } }),
      );
      return page.games.some(g => g.gameId === gameId);
    };
    const created = await create(server, { clock: { initial: 5_000, increment: 0 } });
    const gameId = created.data!.gameId;
    t.assert.equal((await move(server, gameId, 'e2e4')).status, 200);
    const moved = await clientOf(server.url).api.POST('/api/board/game/{gameId}/move/{uci}', {
      params: { path: { gameId, uci: 'e7e5' } },
    });
    t.assert.equal(moved.response.status, 200);
    const deadline = moved.data!.serverTime! + 5_000;
    const stream = await openStream(`${server.url}/api/board/game/${gameId}/stream`);
    t.after(() => stream.close());
    await stream.waitFor(() => stream.events.length >= 1, 'the gameFull', 5_000);

    // The disk fills up before the deadline: writes are refused from then on.
    disk.fill();
    let writes = 0; // those that still went through
    for (; writes < 5000; writes++) if ((await create(server)).status === 503) break;
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
