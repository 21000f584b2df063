/**
 * Players across instances on one PostgreSQL database (DECISIONS §13): a token revoked through one instance is
 * refused by another within a second, and a takeback offered through one instance is accepted through another,
 * with every instance's streams seeing each change once.
 */
import { describe, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { callAs, twoPostgresInstances } from '../helpers/server.ts';
import { openStream } from '../stream/helpers.ts';
import { postgresSkip } from '../helpers/postgres.ts';

const skip = await postgresSkip();
const SERVICE = 'cluster-service-token-0001';

interface Issued {
  id: string;
  token: string;
  player: { id: string; displayName: string };
}

const call = callAs;

describe('players across instances on one PostgreSQL database', { skip, timeout: 120_000 }, () => {
  const instances = twoPostgresInstances(SERVICE);

  const issue = async (base: string, id: string): Promise<Issued> => {
    const res = await call(base, SERVICE, 'POST', '/api/tokens', { player: { id, displayName: id.toUpperCase() } });
    if (res.status !== 201) throw new Error(`issue: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Issued;
  };

  test('a token revoked through one instance is refused by the other within 1 s', async (t: TestContext) => {
    const [a, b] = instances.urls();
    const ann = await issue(a, 'ann');
    // The other instance accepts it, and so holds it among its recent lookups.
    t.assert.equal((await call(b, ann.token, 'GET', '/api/account')).status, 200);
    t.assert.equal((await call(b, ann.token, 'GET', '/api/account')).status, 200);
    const revoked = await call(a, SERVICE, 'DELETE', `/api/tokens/${ann.id}`);
    t.assert.equal(revoked.status, 200);
    const since = performance.now();
    let status = 200;
    while (status !== 401 && performance.now() - since < 2000) {
      status = (await call(b, ann.token, 'GET', '/api/account')).status;
      if (status !== 401) await sleep(10);
    }
    const took = performance.now() - since;
    t.diagnostic(`refused by the other instance ${took.toFixed(0)} ms after the revocation was acknowledged`);
    t.assert.equal(status, 401);
    t.assert.ok(took < 1000, `refused after ${took.toFixed(0)} ms`);
    t.assert.equal((await call(a, ann.token, 'GET', '/api/account')).status, 401);
  });

  test('a takeback offered through one instance is accepted through the other; both streams see it once', async (t: TestContext) => {
    const [a, b] = instances.urls();
    const [ann, bob] = [await issue(a, 'ann2'), await issue(b, 'bob2')];
    const created = await call(a, SERVICE, 'POST', '/api/board/game', { white: ann.player, black: bob.player });
    t.assert.equal(created.status, 201);
    const id = created.body.gameId as string;
    const streams = await Promise.all(
      [a, b].map(base =>
        openStream(`${base}/api/board/game/${id}/stream`, { headers: { authorization: `Bearer ${ann.token}` } }),
      ),
    );
    t.after(() => streams.forEach(stream => stream.close()));
    const steps: Array<[string, Issued, string]> = [
      [a, ann, 'move/e2e4'],
      [b, bob, 'move/e7e5'],
      [b, ann, 'takeback/offer'],
      [a, bob, 'takeback/accept'],
    ];
    for (const [base, who, path] of steps) {
      const res = await call(base, who.token, 'POST', `/api/board/game/${id}/${path}`);
      t.assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    }
    const final = (await call(b, bob.token, 'GET', `/api/board/game/${id}`)).body.state;
    t.assert.deepEqual([final.moves, final.turn, final.takebackOfferedBy], [[], 'white', null]);
    for (const stream of streams) {
      const events = await stream.waitForEvents(5);
      const offers = events.slice(1).map(line => [line.state.moves.length, line.state.takebackOfferedBy]);
      t.assert.deepEqual(offers, [
        [1, null],
        [2, null],
        [2, 'white'],
        [0, null],
      ]);
    }
  });
});
