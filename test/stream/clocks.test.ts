/**
 * Clocks in real time, on real server processes (DECISIONS §14): a game flags by itself within a second of its
 * deadline with no request, its streams get the end once; and after a SIGKILL the restarted server still flags
 * on time (and at once a game whose deadline passed while it was down). On SQLite and on PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, suite, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer } from '../helpers/server.ts';
import { databaseOfFile } from '../helpers/postgres.ts';
import { openStream } from './helpers.ts';
import { clientOf } from '../helpers/client.ts';

const BASE = '/api/board/game';

/** A game of `initial` ms a side whose two first moves are made: white's clock runs from the answer's serverTime. */
async function runningGame(base: string, initial: number): Promise<{ id: string; deadline: number }> {
  const client = clientOf(base);
  const move = (gameId: string, uci: string) =>
    client.unwrap(client.api.POST('/api/board/game/{gameId}/move/{uci}', { params: { path: { gameId, uci } } }));
  const { gameId } = await client.unwrap(
    client.api.POST('/api/board/game', { body: { clock: { initial, increment: 0 } } }),
  );
  await move(gameId, 'e2e4');
  const state = await move(gameId, 'e7e5');
  return { id: gameId, deadline: state.serverTime! + initial };
}

/** Waits for the stream's outOfTime line; answers how long after `deadline` it came. */
async function flagDelay(stream: Awaited<ReturnType<typeof openStream>>, deadline: number): Promise<number> {
  await stream.waitFor(() => stream.events.some(event => event.state?.status === 'outOfTime'), 'the flag', 5000);
  return Date.now() - deadline;
}

function clockSuite(name: string, settings: () => Promise<Record<string, string>>, skip: string | false) {
  suite(`clocks on ${name}, in real time`, { skip, timeout: 60_000 }, () => {
    test('a 1.5 s game flags by itself within a second of its deadline; its stream gets the end once', async (t: TestContext) => {
      const server = await startServer(await settings());
      t.after(() => server.stop('SIGTERM'));
      const { id, deadline } = await runningGame(server.url, 1_500);
      const stream = await openStream(`${server.url}${BASE}/${id}/stream`);
      t.after(() => stream.close());
      const delay = await flagDelay(stream, deadline);
      t.diagnostic(`flagged ${delay} ms after the deadline, with no request`);
      t.assert.ok(delay >= 0 && delay < 1_000, `${delay} ms`);
      await sleep(300);
      const ends = stream.events.filter(event => event.state?.status === 'outOfTime');
      t.assert.equal(ends.length, 1);
      t.assert.deepEqual([ends[0].state.winner, ends[0].state.wtime, ends[0].state.btime], ['black', 0, 1_500]);
    });

    test('after a SIGKILL the restarted server flags on time, and ends at once a game whose deadline passed while it was down', async (t: TestContext) => {
      const env = await settings();
      const first = await startServer(env);
      const late = await runningGame(first.url, 1_000); // its deadline passes while the server is down
      const running = await runningGame(first.url, 6_000);
      t.assert.equal(await first.stop('SIGKILL'), 'SIGKILL');
      await sleep(Math.max(0, late.deadline - Date.now() + 200));
      const second = await startServer(env);
      t.after(() => second.stop('SIGTERM'));
      const reader = clientOf(second.url);
      const lateState = () =>
        reader.unwrap(reader.api.GET('/api/board/game/{gameId}', { params: { path: { gameId: late.id } } }));
      for (let i = 0; i < 50 && (await lateState()).state.status !== 'outOfTime'; i++) await sleep(20);
      t.assert.equal((await lateState()).state.status, 'outOfTime', 'ended at start');
      const stream = await openStream(`${second.url}${BASE}/${running.id}/stream`);
      t.after(() => stream.close());
      t.assert.equal(stream.events[0]?.game?.state.status ?? 'started', 'started');
      const delay = await flagDelay(stream, running.deadline);
      t.diagnostic(`after the restart, flagged ${delay} ms after the deadline`);
      t.assert.ok(delay >= 0 && delay < 1_000, `${delay} ms`);
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'chess-clocks-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
clockSuite('SQLite', async () => ({ DATABASE_URL: join(dir, `clocks-${++files}.sqlite`) }), false);

const postgres = await databaseOfFile();
clockSuite('PostgreSQL', async () => ({ DATABASE_URL: postgres.url() }), postgres.skip);
