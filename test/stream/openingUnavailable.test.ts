/**
 * A stream whose opening reads fail (DECISIONS §16a): its head (200) is out before it reads the store, so a failure
 * then is told by an `error` line (code UNAVAILABLE) and the end of the response, never a bare close. A player's
 * event stream whose list of ongoing games (or pending challenges) cannot be read, and a game stream whose game
 * cannot be read again for its first line, with the store unreachable meanwhile.
 */
import { test, type TestContext } from 'node:test';
import { DomainError } from '../../src/domain/errors.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import type { GameStore } from '../../src/store/store.ts';
import { makeTestApp } from '../helpers/app.ts';
import { openStream } from './helpers.ts';

const SERVICE = 'service-token-opening-unavailable';
const unreachable = () => new DomainError('UNAVAILABLE', 'the database is unreachable; try again shortly');

/** `store`, whose methods named in `failing` reject as an unreachable database does while `down()` says so. */
function outageOf<S extends object>(store: S, failing: readonly string[], down: () => boolean): S {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      const method = (value as (...args: unknown[]) => unknown).bind(target);
      if (!failing.includes(String(property))) return method;
      return (...args: unknown[]) => (down() ? Promise.reject(unreachable()) : method(...args));
    },
  });
}

async function listening(t: TestContext, store: GameStore, sharedStore = false) {
  const testApp = await makeTestApp({ tokens: [SERVICE], store, sharedStore });
  t.after(() => testApp.app.close());
  await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(testApp.app.server.address() as { port: number }).port}`;
  return { ...testApp, url };
}

for (const failing of ['ongoingGames', 'pendingChallenges']) {
  test(`an event stream whose opening read (${failing}) fails: 200, an UNAVAILABLE error line, the end`, async (t: TestContext) => {
    const sqlite = SqliteGameStore.open(':memory:');
    t.after(() => sqlite.close());
    let down = false;
    const app = await listening(
      t,
      outageOf(sqlite, [failing], () => down),
    );
    const ann = await app.playerTokens.issue({ id: 'ann', displayName: 'Ann' });
    down = true;
    const stream = await openStream(`${app.url}/api/stream/event`, {
      headers: { authorization: `Bearer ${ann.token}` },
    });
    t.after(() => stream.close());
    t.assert.equal(stream.status, 200);
    t.assert.equal(await stream.finished, 'end', 'a clean end of the response, not a cut connection');
    t.assert.deepEqual(
      stream.events.map(event => [event.type, event.error?.code]),
      [['error', 'UNAVAILABLE']],
    );
    t.assert.match(stream.events[0].error.message, /unreachable/);
    // Once the store answers again, a new stream opens as usual.
    down = false;
    const again = await openStream(`${app.url}/api/stream/event`, {
      headers: { authorization: `Bearer ${ann.token}` },
    });
    t.after(() => again.close());
    t.assert.equal(again.status, 200);
    const created = await app.app.inject({
      method: 'POST',
      url: '/api/board/game',
      headers: { authorization: `Bearer ${SERVICE}` },
      payload: { white: { id: 'ann', displayName: 'Ann' }, black: { id: 'bob', displayName: 'Bob' } },
    });
    t.assert.equal(created.statusCode, 201);
    const [started] = await again.waitForEvents(1);
    t.assert.equal(started.type, 'gameStart');
    t.assert.equal(again.done, false);
  });
}

test('a game stream whose game cannot be read for its first line: 200, an UNAVAILABLE error line, the end', async (t: TestContext) => {
  const sqlite = SqliteGameStore.open(':memory:');
  t.after(() => sqlite.close());
  let reads = 0;
  let failFrom = Infinity;
  // The game is read once by the route's check (it exists), then again for the stream's first line: that read fails.
  const store = outageOf(sqlite, ['get'], () => ++reads >= failFrom);
  const app = await listening(t, store, true);
  const created = await app.app.inject({
    method: 'POST',
    url: '/api/board/game',
    headers: { authorization: `Bearer ${SERVICE}` },
    payload: {},
  });
  t.assert.equal(created.statusCode, 201);
  const { gameId } = JSON.parse(created.body) as { gameId: string };
  reads = 0;
  failFrom = 2;
  const stream = await openStream(`${app.url}/api/board/game/${gameId}/stream`, {
    headers: { authorization: `Bearer ${SERVICE}` },
  });
  t.after(() => stream.close());
  t.assert.equal(stream.status, 200);
  t.assert.equal(await stream.finished, 'end');
  t.assert.deepEqual(
    stream.events.map(event => [event.type, event.error?.code]),
    [['error', 'UNAVAILABLE']],
  );
});
