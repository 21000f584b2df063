/**
 * Players across instances on one PostgreSQL database (DECISIONS §13): a token revoked through one instance is
 * refused by another within a second, and a takeback offered through one instance is accepted through another,
 * with every instance's streams seeing each change once.
 */
import { describe, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { twoPostgresInstances } from '../helpers/server.ts';
import { openStream } from '../stream/helpers.ts';
import { postgresSkip } from '../helpers/postgres.ts';
import { clientOf } from '../helpers/client.ts';
import type { ApiAnswer, ChessClient } from 'chess-game-service-client';

const skip = await postgresSkip();
const SERVICE = 'cluster-service-token-0001';

/** `GET /api/account` as the holder of `token`: its status. */
const accountStatus = async (base: string, token: string) =>
  (await clientOf(base, token).api.GET('/api/account')).response.status;

describe('players across instances on one PostgreSQL database', { skip, timeout: 120_000 }, () => {
  const instances = twoPostgresInstances(SERVICE);

  const issue = async (base: string, id: string) => {
    const service = clientOf(base, SERVICE);
    const res = await service.api.POST('/api/tokens', { body: { player: { id, displayName: id.toUpperCase() } } });
    if (res.response.status !== 201) throw new Error(`issue: ${res.response.status} ${JSON.stringify(res.error)}`);
    return res.data!;
  };
  type Issued = Awaited<ReturnType<typeof issue>>;

  test('a token revoked through one instance is refused by the other within 1 s', async (t: TestContext) => {
    const [a, b] = instances.urls();
    const ann = await issue(a, 'ann');
    // The other instance accepts it, and so holds it among its recent lookups.
    t.assert.equal(await accountStatus(b, ann.token), 200);
    t.assert.equal(await accountStatus(b, ann.token), 200);
    const revoked = await clientOf(a, SERVICE).api.DELETE('/api/tokens/{id}', { params: { path: { id: ann.id } } });
    t.assert.equal(revoked.response.status, 200);
    const since = performance.now();
    let status = 200;
    while (status !== 401 && performance.now() - since < 2000) {
      status = await accountStatus(b, ann.token);
      if (status !== 401) await sleep(10);
    }
    const took = performance.now() - since;
    t.diagnostic(`refused by the other instance ${took.toFixed(0)} ms after the revocation was acknowledged`);
    t.assert.equal(status, 401);
    t.assert.ok(took < 1000, `refused after ${took.toFixed(0)} ms`);
    t.assert.equal(await accountStatus(a, ann.token), 401);
  });

  test('a takeback offered through one instance is accepted through the other; both streams see it once', async (t: TestContext) => {
    const [a, b] = instances.urls();
    const [ann, bob] = [await issue(a, 'ann2'), await issue(b, 'bob2')];
    const created = await clientOf(a, SERVICE).api.POST('/api/board/game', {
      body: { white: ann.player, black: bob.player },
    });
    t.assert.equal(created.response.status, 201);
    const id = created.data!.gameId;
    const streams = await Promise.all(
      [a, b].map(base =>
        openStream(`${base}/api/board/game/${id}/stream`, { headers: { authorization: `Bearer ${ann.token}` } }),
      ),
    );
    t.after(() => streams.forEach(stream => stream.close()));
    const move = (uci: string) => (client: ChessClient) =>
      client.api.POST('/api/board/game/{gameId}/move/{uci}', { params: { path: { gameId: id, uci } } });
    const takeback = (action: 'offer' | 'accept') => (client: ChessClient) =>
      client.api.POST('/api/board/game/{gameId}/takeback/{action}', { params: { path: { gameId: id, action } } });
    const steps: Array<[string, Issued, string, (client: ChessClient) => Promise<ApiAnswer>]> = [
      [a, ann, 'move/e2e4', move('e2e4')],
      [b, bob, 'move/e7e5', move('e7e5')],
      [b, ann, 'takeback/offer', takeback('offer')],
      [a, bob, 'takeback/accept', takeback('accept')],
    ];
    for (const [base, who, path, step] of steps) {
      const res = await step(clientOf(base, who.token));
      t.assert.equal(res.response.status, 200, `${path}: ${JSON.stringify(res.error)}`);
    }
    const bobAtB = clientOf(b, bob.token);
    const final = (
      await bobAtB.unwrap(bobAtB.api.GET('/api/board/game/{gameId}', { params: { path: { gameId: id } } }))
    ).state;
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
