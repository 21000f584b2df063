/**
 * A player's events across an outage of one instance's pool (DECISIONS §13a): while the connections of instance A's
 * pool are cut (its LISTEN connection stays up, so nothing tells A to look again), instance B creates three games for
 * Ann and ends one. A hears of each, but cannot read them from the change log; once the database is back, Ann's
 * event stream on A shows the three starts and the end, in order, exactly once: a failed read is retried, never
 * skipped.
 */
import { after, before, describe, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, type ServerProcess } from '../helpers/server.ts';
import { clientOf } from '../helpers/client.ts';
import { createTestDatabase, postgresSkip, type TestDatabase } from '../helpers/postgres.ts';
import { Outage } from '../helpers/outage.ts';
import { openStream } from '../stream/helpers.ts';

const skip = await postgresSkip();
const SERVICE = 'cluster-outage-service-token';

describe("a player's events across an outage of one instance's pool", { skip, timeout: 120_000 }, () => {
  let db: TestDatabase;
  const outage = new Outage();
  const servers: ServerProcess[] = [];

  before(async () => {
    db = await createTestDatabase();
    await outage.start();
    const env = { API_TOKENS: SERVICE, RATE_LIMIT_MAX: '0', STREAM_HEARTBEAT_MS: '500' };
    servers.push(await startServer({ ...env, DATABASE_URL: outage.url(db.url) })); // A, through the proxy
    servers.push(await startServer({ ...env, DATABASE_URL: db.url })); // B
  });
  after(async () => {
    await Promise.all(servers.map(server => server.stop('SIGKILL')));
    await outage.close();
    await db.drop();
  });

  test('three games created and one ended meanwhile: each gameStart and the gameFinish once, in order, once the database is back', async (t: TestContext) => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const ann = { id: 'ann', displayName: 'Ann' };
    const stream = await openStream(`${a.url}/api/stream/event?player=ann`, {
      headers: { authorization: `Bearer ${SERVICE}` },
    });
    t.after(() => stream.close());
    t.assert.equal(stream.status, 200);
    t.assert.equal(outage.open().listening, 1, "A's LISTEN connection goes through the proxy");

    outage.cut({ listening: 'kept' });
    const ready = await fetch(`${a.url}/readyz`);
    t.assert.equal(ready.status, 503, "A's pool cannot reach the database");
    const service = clientOf(b.url, SERVICE);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await service.api.POST('/api/board/game', {
        body: { white: ann, black: { id: `o${i}`, displayName: 'O' } },
      });
      t.assert.equal(res.response.status, 201);
      ids.push(res.data!.gameId);
    }
    const resigned = await service.api.POST('/api/board/game/{gameId}/resign', {
      params: { path: { gameId: ids[1]! } },
    });
    t.assert.equal(resigned.response.status, 200);
    await sleep(2500); // A hears of them and fails to read them, more than once
    t.assert.deepEqual(stream.events, [], 'nothing can be read while the pool is cut');
    t.assert.equal(outage.open().listening, 1, 'the LISTEN connection is still up');

    outage.restore();
    await stream.waitForEvents(4, 15_000);
    await sleep(1000); // a duplicate would be here by now
    t.assert.deepEqual(
      stream.events.map(event => `${event.type} ${event.game.gameId}`),
      [`gameStart ${ids[0]}`, `gameStart ${ids[1]}`, `gameStart ${ids[2]}`, `gameFinish ${ids[1]}`],
    );
    t.assert.equal(stream.events[3].game.state.status, 'resign', 'the finish carries the game as it ended');
    t.assert.ok(
      !a.logs.some(line => line.includes('change announcements lost')),
      'A never lost its LISTEN connection: no look again repaired anything',
    );
  });
});
