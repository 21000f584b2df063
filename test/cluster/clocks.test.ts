/**
 * Clocks across instances on one PostgreSQL database (DECISIONS §14): every instance has a timer for a running
 * game, exactly one records the flag (the version check), and every instance's streams get exactly one gameState
 * for it, within a second of the deadline; likewise the abort of a game whose first move does not come.
 */
import { after, before, describe, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { startServer, type ServerProcess } from '../helpers/server.ts';
import { createTestDatabase, postgresSkip, type TestDatabase } from '../helpers/postgres.ts';
import { openStream } from '../stream/helpers.ts';
import { clientOf } from '../helpers/client.ts';

const skip = await postgresSkip();
const BASE = '/api/board/game';

const move = (base: string, gameId: string, uci: string) => {
  const client = clientOf(base);
  return client.unwrap(client.api.POST('/api/board/game/{gameId}/move/{uci}', { params: { path: { gameId, uci } } }));
};

describe('clocks across instances on one PostgreSQL database', { skip, timeout: 60_000 }, () => {
  let db: TestDatabase;
  const servers: ServerProcess[] = [];

  before(async () => {
    db = await createTestDatabase();
    servers.push(...(await Promise.all([1, 2, 3].map(() => startServer({ DATABASE_URL: db.url })))));
  });

  after(async () => {
    await Promise.all(servers.map(server => server.stop('SIGTERM')));
    await db.drop();
  });

  test('three instances: one records the flag, each stream gets it once, within a second of the deadline', async (t: TestContext) => {
    const [a, b, c] = servers.map(server => server.url) as [string, string, string];
    const games: Array<{ id: string; deadline: number }> = [];
    for (let i = 0; i < 5; i++) {
      const creator = clientOf(a);
      const { gameId } = await creator.unwrap(
        creator.api.POST('/api/board/game', { body: { clock: { initial: 1_500, increment: 0 } } }),
      );
      await move(b, gameId, 'e2e4');
      const state = await move(i % 2 === 0 ? c : a, gameId, 'e7e5');
      games.push({ id: gameId, deadline: state.serverTime! + 1_500 });
    }
    const streams = await Promise.all(
      games.flatMap(({ id }) => [a, b, c].map(base => openStream(`${base}${BASE}/${id}/stream`))),
    );
    t.after(() => streams.forEach(stream => stream.close()));
    const delays: number[] = [];
    for (const [i, stream] of streams.entries()) {
      const { deadline } = games[Math.floor(i / 3)]!;
      await stream.waitFor(() => stream.events.some(event => event.state?.status === 'outOfTime'), 'the flag', 5000);
      delays.push(Date.now() - deadline);
    }
    await sleep(600); // an instance that lost the race would show up as a second end by now
    for (const stream of streams) {
      t.assert.equal(stream.events.filter(event => event.state?.status === 'outOfTime').length, 1);
    }
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    t.after(() => client.end());
    for (const { id } of games) {
      const { rows } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM game_changes WHERE game_id = $1 AND event LIKE '%"outOfTime"%'`,
        [id],
      );
      t.assert.equal(Number(rows[0]!.n), 1, `${id}: one flag in the change log`);
    }
    t.diagnostic(`flag seen by 15 streams ${Math.min(...delays)}-${Math.max(...delays)} ms after the deadlines`);
    t.assert.ok(Math.max(...delays) < 1_000, `${Math.max(...delays)} ms`);
  });
});
