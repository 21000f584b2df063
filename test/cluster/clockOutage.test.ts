/**
 * A flag whose deadline falls during a PostgreSQL outage (DECISIONS §13a): the instance's clock timer cannot record
 * it then, and tries again with backoff until it can, so that the game ends as `outOfTime` once the database is
 * back: one change, one gameState on the stream, listed as ended. The outage is real: a TCP proxy between the
 * instance and PostgreSQL drops its connections and refuses new ones for 2.5 s around the deadline. Either only the
 * pool's connections drop (the one listening for announcements stays up, so no resynchronisation re-arms the clocks),
 * or all of them.
 */
import { after, before, describe, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { startServer, type ServerProcess } from '../helpers/server.ts';
import { createTestDatabase, postgresSkip, type TestDatabase } from '../helpers/postgres.ts';
import { Outage } from '../helpers/outage.ts';
import { openStream } from '../stream/helpers.ts';
import { clientOf } from '../helpers/client.ts';

const skip = await postgresSkip();
const BASE = '/api/board/game';

const move = (base: string, gameId: string, uci: string) => {
  const client = clientOf(base);
  return client.unwrap(client.api.POST('/api/board/game/{gameId}/move/{uci}', { params: { path: { gameId, uci } } }));
};
const listed = (base: string, status: 'ended' | 'ongoing') => {
  const client = clientOf(base);
  return client.unwrap(client.api.GET('/api/board/game', { params: { query: { status, limit: 100 } } }));
};

const sleepUntil = (at: number) => sleep(Math.max(0, at - Date.now()));

describe('a flag during a PostgreSQL outage', { skip, timeout: 120_000 }, () => {
  let db: TestDatabase;
  const outage = new Outage();
  let server: ServerProcess;

  before(async () => {
    db = await createTestDatabase();
    await outage.start();
    // One instance on its own database: no other one can record the flag for it.
    server = await startServer({ DATABASE_URL: outage.url(db.url), MAX_STREAMS_PER_CLIENT: '0', RATE_LIMIT_MAX: '0' });
  });
  after(async () => {
    await server.stop('SIGKILL');
    await outage.close();
    await db.drop();
  });

  for (const listening of ['kept', 'dropped'] as const) {
    const what = listening === 'kept' ? "the pool's connections" : 'every connection';
    test(`${what} cut for 2.5 s around the deadline: the game ends as outOfTime once the database is back`, async (t: TestContext) => {
      const base = server.url;
      const creator = clientOf(base);
      const { gameId } = await creator.unwrap(
        creator.api.POST('/api/board/game', { body: { clock: { initial: 3_000, increment: 0 } } }),
      );
      await move(base, gameId, 'e2e4');
      const moved = await move(base, gameId, 'e7e5');
      const deadline = moved.serverTime! + 3_000;
      const stream = await openStream(`${base}${BASE}/${gameId}/stream`);
      t.after(() => stream.close());
      await stream.waitFor(() => stream.events.length >= 1, 'the gameFull', 5_000);
      t.assert.equal(outage.open().listening, 1, 'the instance listens for announcements through the proxy');

      t.assert.ok(Date.now() < deadline - 1_000, `the stream was open ${deadline - Date.now()} ms before the deadline`);
      await sleepUntil(deadline - 1_000);
      const logged = server.logs.length;
      outage.cut({ listening });
      await sleepUntil(deadline + 1_500);
      const failed = server.logs.slice(logged).filter(line => line.includes('clock timer'));
      t.assert.ok(failed.length >= 1, 'the flag could not be recorded during the outage');
      t.assert.ok(
        !stream.events.some(event => event.state?.status === 'outOfTime'),
        'nor was it, before the database came back',
      );
      outage.restore();
      const restored = Date.now();

      await stream.waitFor(
        () => stream.events.some(event => event.state?.status === 'outOfTime'),
        'the flag after the outage',
        15_000,
      );
      t.diagnostic(`${failed.length} tries failed; the flag came ${Date.now() - restored} ms after the outage`);
      await sleep(1_000); // a second end would show up by now
      const ends = stream.events.filter(event => event.type === 'gameState' && event.state?.status === 'outOfTime');
      t.assert.equal(ends.length, 1, 'one gameState for the flag');

      const { state } = await creator.unwrap(
        creator.api.GET('/api/board/game/{gameId}', { params: { path: { gameId } } }),
      );
      t.assert.deepEqual([state.status, state.winner, state.wtime], ['outOfTime', 'black', 0]);
      const ended = await listed(base, 'ended');
      t.assert.ok(
        ended.games.some(game => game.gameId === gameId),
        'listed as ended',
      );
      const ongoing = await listed(base, 'ongoing');
      t.assert.ok(!ongoing.games.some(game => game.gameId === gameId), 'not listed as ongoing');
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      t.after(() => client.end());
      const { rows } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM game_changes WHERE game_id = $1 AND event LIKE '%"outOfTime"%'`,
        [gameId],
      );
      t.assert.equal(Number(rows[0]!.n), 1, 'one flag in the change log');
    });
  }
});
