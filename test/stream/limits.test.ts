/**
 * What is refused before a stream starts (DECISIONS §1, §9): a malformed id, an unknown game, too many
 * streams from one client (429 with Retry-After); and a client that leaves before its stream starts leaves
 * nothing behind in the hub.
 */
import { request as httpRequest } from 'node:http';
import { test, type TestContext } from 'node:test';
import { newGame } from '../../src/domain/game.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import { storeWith } from '../helpers/store.ts';
import type { GameStore } from '../../src/store/store.ts';
import { listenApp, openStream, waitUntil } from './helpers.ts';
import { clientOf, gameAction } from '../helpers/client.ts';

test('a malformed id is 400 INVALID_GAME_ID and an unknown one 404 GAME_NOT_FOUND, as JSON, not a stream', async (t: TestContext) => {
  const server = await listenApp(t);
  const cases: [string, number, string][] = [
    ['abc', 400, 'INVALID_GAME_ID'],
    ['abcdefg!', 400, 'INVALID_GAME_ID'],
    ['abcdefghi', 400, 'INVALID_GAME_ID'],
    ['ZZZZZZZZ', 404, 'GAME_NOT_FOUND'],
  ];
  for (const [id, status, code] of cases) {
    const res = await openStream(server.streamUrl(id));
    await res.finished;
    t.assert.equal(res.status, status, id);
    t.assert.match(String(res.headers['content-type']), /^application\/json/, id);
    const body = JSON.parse(res.body);
    t.assert.equal(body.code, code, id);
    t.assert.equal(typeof body.message, 'string');
    if (status === 400) t.assert.equal(body.field, 'gameId');
    t.assert.deepEqual(Object.keys(body).sort(), status === 400 ? ['code', 'field', 'message'] : ['code', 'message']);
  }
  t.assert.equal(server.openStreams(), 0);
});

test('the third stream of a client is 429 RATE_LIMITED with Retry-After; closing one frees a slot', async (t: TestContext) => {
  const server = await listenApp(t, { maxStreamsPerClient: 2 });
  const a = (await server.games.create({})).record.id;
  const b = (await server.games.create({})).record.id;
  const first = await server.open(a);
  const second = await server.open(b);
  await first.waitForEvents(1);
  await second.waitForEvents(1);

  // 1. The limit counts streams of any game.
  const third = await openStream(server.streamUrl(a));
  await third.finished;
  t.assert.equal(third.status, 429);
  t.assert.match(String(third.headers['content-type']), /^application\/json/);
  t.assert.match(String(third.headers['retry-after']), /^[1-9]\d*$/);
  t.assert.equal(JSON.parse(third.body).code, 'RATE_LIMITED');
  t.assert.equal(server.openStreams(), 2);

  // 2. The two streams are untouched by the refusal.
  const move = await gameAction(clientOf(server.url), a, 'move/e2e4');
  t.assert.equal(move.status, 200);
  await first.waitForEvents(2);

  // 3. A client that closes a stream gets its slot back once the server has seen the connection go.
  second.close();
  await waitUntil(
    () => server.openStreams() === 1,
    () => 'the server to notice the closed stream',
  );
  const again = await server.open(b);
  t.assert.equal(again.status, 200);
  await again.waitForEvents(1);
  t.assert.equal(again.events[0].type, 'gameFull');
});

/** A store whose reads take `ms`: the stream request waits in its game lookup. */
function slowReads(store: GameStore, ms: number): GameStore {
  return storeWith(store, {
    get: async id => {
      await new Promise(resolve => setTimeout(resolve, ms));
      return store.get(id);
    },
  });
}

test('a client that leaves while its stream is being set up leaves no stream behind', async (t: TestContext) => {
  const inner = SqliteGameStore.open(':memory:');
  const server = await listenApp(t, { store: slowReads(inner, 300), maxStreamsPerClient: 1 });
  // A game in the store but not in the service's memory, so that the lookup reads the (slow) store.
  const game = newGame({ id: 'Slow0001', createdAt: new Date().toISOString() });
  t.assert.ok(await inner.create(game.record));

  // 1. The request reaches the server; the client goes away while the game is looked up.
  const arrived = new Promise<void>(resolve => server.app.server.once('request', () => resolve()));
  const req = httpRequest(server.streamUrl('Slow0001'), { agent: false });
  req.on('error', () => undefined);
  req.end();
  await arrived;
  req.destroy();

  // 2. Once the lookup is over, the hub holds nothing for that client, and its one slot is free.
  await new Promise(resolve => setTimeout(resolve, 600));
  await waitUntil(
    () => server.openStreams() === 0,
    () => `the hub to forget the stream (size ${server.openStreams()})`,
    5000,
  );
  const stream = await server.open('Slow0001');
  t.assert.equal(stream.status, 200);
  await stream.waitForEvents(1);
});

test('a stream has the head of any API answer: NDJSON, CORS for an allowed origin; HEAD gets the head only', async (t: TestContext) => {
  const origin = 'https://chess.example.org';
  const server = await listenApp(t, { corsOrigins: [origin] });
  const id = (await server.games.create({})).record.id;

  const stream = await server.open(id, { headers: { origin } });
  t.assert.equal(stream.status, 200);
  t.assert.equal(stream.headers['content-type'], 'application/x-ndjson');
  t.assert.equal(stream.headers['cache-control'], 'no-cache');
  t.assert.equal(stream.headers['access-control-allow-origin'], origin);
  await stream.waitForEvents(1);
  const other = await server.open(id, { headers: { origin: 'https://elsewhere.example.org' } });
  t.assert.equal(other.headers['access-control-allow-origin'], undefined);

  const head = await fetch(server.streamUrl(id), { method: 'HEAD', signal: AbortSignal.timeout(5000) });
  t.assert.equal(head.status, 200);
  t.assert.equal(head.headers.get('content-type'), 'application/x-ndjson');
  await waitUntil(
    () => server.openStreams() === 2,
    () => `HEAD to leave no stream (size ${server.openStreams()})`,
  );
});
