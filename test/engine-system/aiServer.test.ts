/**
 * The computer opponent through real server processes on a SQLite file, when processes die (DECISIONS §18):
 *
 * 1. A restart with the engine to move: the server is killed (SIGKILL) while the engine searches its move at
 *    level 8; started again on the same file, it makes that move within a few seconds (the dead process's lease on
 *    the turn lapses first).
 * 2. An engine process killed mid-search (SIGKILL, found among the server's child processes): the pool starts
 *    another and searches again, and the move still comes, once.
 * 3. An engine binary that does not exist (`ENGINE_PATH`): the server starts with a warning line, `POST
 *    /api/challenge/ai` answers 503 UNAVAILABLE, `/readyz` is 200, and games are made and played as ever.
 *
 * The default engine (npm `stockfish`, WebAssembly) plays. About 12 s on two cores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LEASE_MS } from '../../src/service/engineMoves.ts';
import { LEVELS } from '../../src/engine/index.ts';
import { startServer, type ServerProcess } from '../helpers/server.ts';
import { clientOf } from '../helpers/client.ts';
import {
  childrenOf,
  gameOf,
  illegalMove,
  isRunning,
  legalUcis,
  metric,
  play,
  playComputer,
  positionAfter,
  waitForMetric,
  waitForPlies,
} from '../helpers/aiGames.ts';

function scratch(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'ai-server-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A server that is stopped (and whose engine processes are gone) when the test ends. */
async function serve(t: TestContext, env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServer(env);
  const pid = server.proc.pid!;
  t.after(async () => {
    const engines = isRunning(pid) ? childrenOf(pid) : [];
    await server.stop('SIGKILL');
    for (const child of engines) if (isRunning(child)) process.kill(child, 'SIGKILL');
  });
  return server;
}

test('a restart with the engine to move: the restarted server makes the move within a few seconds; then an engine process killed mid-search is replaced and the move still comes', async (t: TestContext) => {
  const env = { DATABASE_URL: join(scratch(t), 'chess.sqlite') };
  const level8 = LEVELS[8].moveTimeMs;
  // 1. The person is white and moves; the engine (level 8: a second's thought) searches, and the server dies.
  const first = await serve(t, env);
  const { status, data, error } = await playComputer(first.url, { level: 8, color: 'white' });
  t.assert.equal(status, 201, JSON.stringify(error));
  const id = data!.id;
  await play(first.url, id, 'e2e4');
  await waitForMetric(first.url, 'engine_searches_running', running => running === 1, 5_000);
  const engines = childrenOf(first.proc.pid!);
  t.assert.equal(await first.stop('SIGKILL'), 'SIGKILL');
  // Its engine process ends with it (its input closed), or the test ends it.
  for (const child of engines) if (isRunning(child)) process.kill(child, 'SIGKILL');

  // 2. Started again on the same file: the engine's move is not there yet, and then it comes.
  const second = await serve(t, env);
  const listening = performance.now();
  t.assert.deepEqual((await gameOf(second.url, id)).state.moves, ['e2e4'], 'the kill came before the move');
  const bound = LEASE_MS + level8 + 4_000; // the dead lease's lapse, the search, and a margin for a loaded machine
  const game = await waitForPlies(second.url, id, 2, bound);
  t.assert.equal(game.state.moves.length, 2);
  t.assert.equal(illegalMove(game.state.moves), undefined);
  t.diagnostic(`the engine moved ${Math.round(performance.now() - listening)} ms after the restart`);

  // 3. The person moves again; while the engine searches, its process is killed.
  const [engine] = childrenOf(second.proc.pid!);
  t.assert.ok(engine !== undefined, 'the server runs an engine process');
  await play(second.url, id, legalUcis(positionAfter(game.state.moves))[0]!);
  await waitForMetric(second.url, 'engine_searches_running', running => running === 1, 5_000);
  process.kill(engine, 'SIGKILL');
  const killed = performance.now();
  t.assert.equal((await gameOf(second.url, id)).state.moves.length, 3, 'the kill came before the move');
  // A fresh process searches the position again: its start, a second's thought, and a margin.
  const after = await waitForPlies(second.url, id, 4, level8 + 9_000);
  t.assert.equal(after.state.moves.length, 4);
  t.assert.equal(illegalMove(after.state.moves), undefined);
  t.assert.equal(await metric(second.url, 'engine_restarts_total'), 1);
  const [replacement] = childrenOf(second.proc.pid!);
  t.assert.ok(replacement !== undefined && replacement !== engine, 'another engine process');
  t.assert.equal(isRunning(engine), false);
  t.diagnostic(`the move came ${Math.round(performance.now() - killed)} ms after the engine was killed`);
  // Once: the person's turn now, and it stays so.
  await new Promise(resolve => setTimeout(resolve, 1_000));
  t.assert.equal((await gameOf(second.url, id)).state.moves.length, 4);
});

test('an engine binary that does not exist: a warning at start, 503 UNAVAILABLE for the computer, everything else works', async (t: TestContext) => {
  const server = await serve(t, { DATABASE_URL: join(scratch(t), 'chess.sqlite'), ENGINE_PATH: '/nonexistent' });
  // 1. The start said so, once.
  const warnings = server.logs.filter(line => line.includes('/nonexistent'));
  t.assert.equal(warnings.length, 1, server.logs.join('\n'));
  t.assert.match(warnings[0]!, /the computer opponent is unavailable/);
  // 2. The computer: 503 UNAVAILABLE, as a form and as JSON. The form is sent raw: the client speaks JSON.
  const form = await fetch(`${server.url}/api/challenge/ai`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'level=3&color=white',
  });
  t.assert.equal(form.status, 503);
  t.assert.equal(((await form.json()) as { code: string }).code, 'UNAVAILABLE');
  const json = await playComputer(server.url, { level: 8, color: 'black' });
  t.assert.equal(json.status, 503);
  t.assert.equal(json.error?.code, 'UNAVAILABLE');
  // 3. The service: ready, and games are made and played.
  t.assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
  t.assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
  const client = clientOf(server.url);
  const created = await client.api.POST('/api/board/game', { body: {} });
  t.assert.equal(created.response.status, 201);
  const { gameId } = created.data!;
  await play(server.url, gameId, 'e2e4');
  await play(server.url, gameId, 'e7e5');
  t.assert.deepEqual((await gameOf(server.url, gameId)).state.moves, ['e2e4', 'e7e5']);
  const legal = await client.api.GET('/api/board/game/{gameId}/moves', { params: { path: { gameId } } });
  t.assert.equal(legal.response.status, 200);
  t.assert.equal((await fetch(`${server.url}/metrics`)).status, 200);
  t.assert.equal(childrenOf(server.proc.pid!).length, 0, 'no engine process');
});
