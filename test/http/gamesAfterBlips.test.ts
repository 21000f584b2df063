/**
 * An accepted challenge always gets its game (DECISIONS §16a): when the store fails to make the game after the
 * accept's claim (a database blip), or the claim is recorded but its answer lost, the accept answers 503, the
 * challenge stays accepted, and the service makes the game by itself, tried until recorded, with no further request;
 * both players' event streams get its gameStart. An accept repeated by the player whose accept won answers 200 again
 * with no second game; any other accept of a challenge no longer pending is 404 CHALLENGE_NOT_FOUND. Likewise a
 * pairing of seeks recorded but its answer lost gets its game. On SQLite and on PostgreSQL.
 */
import { suite, test, type TestContext } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { DomainError } from '../../src/domain/errors.ts';
import type { GameStore } from '../../src/store/store.ts';
import type { SeekStore } from '../../src/store/seeks.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import { PostgresGameStore } from '../../src/store/postgres.ts';
import { assertError, json, makeTestApp, requestsAs } from '../helpers/app.ts';
import { databaseOfFile } from '../helpers/postgres.ts';
import { openStream, WAIT_MS, type StreamClient } from '../stream/helpers.ts';

const SERVICE_TOKEN = 'service-token-for-games-after-blips';
let players = 0;

type Blipped = 'create' | 'claimChallenge' | 'pairSeeks';

/**
 * `store`, whose `method` fails for the challenge, game or (older) seek `id()` `times` times as an unreachable database
 * does: the game's creation before it is made; the claim or the pairing after it is recorded (its answer lost).
 */
function blip<S extends GameStore>(store: S, method: Blipped, id: () => string | undefined, times: number) {
  const failures = { left: times };
  const unreachable = () => new DomainError('UNAVAILABLE', 'the database is unreachable; try again shortly');
  const wrapped = new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      const call = (value as (...args: unknown[]) => Promise<unknown>).bind(target);
      if (property !== method) return call;
      return async (...args: unknown[]) => {
        if ((args[0] as { id: string }).id !== id() || failures.left === 0) return call(...args);
        failures.left--;
        if (method === 'create') throw unreachable();
        await call(...args);
        throw unreachable();
      };
    },
  });
  return { store: wrapped, failures };
}

async function acceptAfterBlip(t: TestContext, store: GameStore, method: Blipped): Promise<void> {
  const challenge: { id?: string } = {};
  // The game: its try at the accept, then two retries fail. The claim: recorded, its answer lost once.
  const blipped = blip(store, method, () => challenge.id, method === 'create' ? 3 : 1);
  const testApp = await makeTestApp({ tokens: [SERVICE_TOKEN], store: blipped.store });
  t.after(() => testApp.app.close());
  await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(testApp.app.server.address() as { port: number }).port}`;
  const as: (token: string, request: InjectOptions | string) => Promise<LightMyRequestResponse> = await requestsAs(
    testApp.app,
  );
  const player = async (name: string) => {
    const id = `${name}-${++players}`;
    return { id, token: (await testApp.playerTokens.issue({ id, displayName: name })).token };
  };
  const [ann, bob, cat] = [await player('Ann'), await player('Bob'), await player('Cat')];
  const streams: StreamClient[] = [];
  t.after(() => streams.forEach(stream => stream.close()));
  for (const who of [ann, bob]) {
    streams.push(await openStream(`${url}/api/stream/event`, { headers: { authorization: `Bearer ${who.token}` } }));
  }
  const made = json<{ id: string }>(
    await as(ann.token, { method: 'POST', url: `/api/challenge/${bob.id}`, payload: { days: 3 } }),
  );
  challenge.id = made.id;
  await Promise.all(streams.map(stream => stream.waitForEvents(1))); // the challenge

  assertError(await as(bob.token, { method: 'POST', url: `/api/challenge/${made.id}/accept` }), 'UNAVAILABLE');
  t.assert.equal(json(await as(ann.token, `/api/challenge/${made.id}/show`)).status, 'accepted');
  // Nobody asks again: the service makes the game by itself, once the store takes it.
  const deadline = performance.now() + WAIT_MS;
  while ((await store.get(made.id)) === undefined) {
    t.assert.ok(performance.now() < deadline, `no game ${made.id} after ${WAIT_MS} ms`);
    await new Promise(resolve => setTimeout(resolve, 20));
  }
  t.assert.equal(blipped.failures.left, 0, 'made after the blip');
  const game = json(await as(bob.token, `/api/board/game/${made.id}`));
  t.assert.deepEqual([game.white.id, game.black.id].sort(), [ann.id, bob.id].sort());
  for (const stream of streams) {
    await stream.waitForEvents(2);
    t.assert.deepEqual([stream.events[1].type, stream.events[1].game.gameId], ['gameStart', made.id]);
  }

  // Bob's accept again (his first answer was lost, as far as his client knows): 200, the same game, not another.
  const again = await as(bob.token, { method: 'POST', url: `/api/challenge/${made.id}/accept` });
  t.assert.equal(again.statusCode, 200);
  t.assert.deepEqual(json(again), { ok: true });
  const listed = json<{ games: Array<{ gameId: string }> }>(await as(bob.token, `/api/board/game?player=${bob.id}`));
  t.assert.deepEqual(
    listed.games.map(one => one.gameId),
    [made.id],
  );
  // Anyone else's accept of it: no pending challenge.
  for (const who of [ann, cat]) {
    assertError(
      await as(who.token, { method: 'POST', url: `/api/challenge/${made.id}/accept` }),
      'CHALLENGE_NOT_FOUND',
    );
  }
  // Every accept of a declined or canceled challenge, the challenged player's too.
  for (const end of ['decline', 'cancel'] as const) {
    const other = json<{ id: string }>(
      await as(ann.token, { method: 'POST', url: `/api/challenge/${bob.id}`, payload: { days: 3 } }),
    );
    const by = end === 'decline' ? bob : ann;
    t.assert.equal((await as(by.token, { method: 'POST', url: `/api/challenge/${other.id}/${end}` })).statusCode, 200);
    assertError(
      await as(bob.token, { method: 'POST', url: `/api/challenge/${other.id}/accept` }),
      'CHALLENGE_NOT_FOUND',
    );
  }
  await new Promise(resolve => setImmediate(resolve));
  t.assert.equal(streams[0]!.events.filter(event => event.type === 'gameStart').length, 1, 'one game started');
}

const CASES: Array<[Blipped, string]> = [
  ['create', 'the game cannot be made after the claim'],
  ['claimChallenge', 'the claim is recorded but its answer lost'],
];

for (const [method, what] of CASES) {
  test(`SQLite: ${what}: the accept answers 503, the game is made anyway, once`, async (t: TestContext) => {
    const store = SqliteGameStore.open(':memory:');
    t.after(() => store.close());
    await acceptAfterBlip(t, store, method);
  });
}

/** Ann's correspondence seek waits; Bob's pairs with it, but the pairing's answer is lost: the game is made anyway. */
async function pairingAfterBlip(t: TestContext, store: GameStore & SeekStore): Promise<void> {
  const seek: { id?: string } = {};
  const blipped = blip(store, 'pairSeeks', () => seek.id, 1);
  const testApp = await makeTestApp({ tokens: [SERVICE_TOKEN], store: blipped.store });
  t.after(() => testApp.app.close());
  const as = await requestsAs(testApp.app);
  const [ann, bob] = await Promise.all(
    ['Ann', 'Bob'].map(async name => {
      const id = `${name}-${++players}`;
      return { id, token: (await testApp.playerTokens.issue({ id, displayName: name })).token };
    }),
  );
  const seekDays = (token: string) => as(token, { method: 'POST', url: '/api/board/seek', payload: { days: 3 } });
  seek.id = json<{ id: string }>(await seekDays(ann!.token)).id;
  assertError(await seekDays(bob!.token), 'UNAVAILABLE');
  const paired = (await store.seek(seek.id))!;
  t.assert.equal(paired.status, 'paired', 'the pairing was recorded');
  const deadline = performance.now() + WAIT_MS;
  while ((await store.get(paired.gameId!)) === undefined) {
    t.assert.ok(performance.now() < deadline, `no game ${paired.gameId} after ${WAIT_MS} ms`);
    await new Promise(resolve => setTimeout(resolve, 20));
  }
  const listed = json<{ games: Array<{ gameId: string }> }>(await as(bob!.token, `/api/board/game?player=${bob!.id}`));
  t.assert.deepEqual(
    listed.games.map(game => game.gameId),
    [paired.gameId],
  );
}

test('SQLite: a pairing recorded but its answer lost: the seek answers 503, the game is made anyway', async (t: TestContext) => {
  const store = SqliteGameStore.open(':memory:');
  t.after(() => store.close());
  await pairingAfterBlip(t, store);
});

const pg = await databaseOfFile();

suite('on PostgreSQL', { skip: pg.skip }, () => {
  for (const [method, what] of CASES) {
    test(`${what}: the accept answers 503, the game is made anyway, once`, async (t: TestContext) => {
      const store = await PostgresGameStore.open(pg.url());
      t.after(() => store.close());
      await acceptAfterBlip(t, store, method);
    });
  }

  test('a pairing recorded but its answer lost: the seek answers 503, the game is made anyway', async (t: TestContext) => {
    const store = await PostgresGameStore.open(pg.url());
    t.after(() => store.close());
    await pairingAfterBlip(t, store);
  });
});
