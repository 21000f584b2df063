/**
 * Reads on a shared store (PostgreSQL, two instances): a read never answers a version older than one already
 * acknowledged to any client, through either instance; and a read of a game whose copy in memory is proven current
 * (no later version announced by the time every change committed before the read has been heard) reads nothing
 * from the store.
 */
import { after, before, describe, test, type TestContext } from 'node:test';
import { startServer, type ServerProcess } from '../helpers/server.ts';
import { createTestDatabase, postgresSkip, type TestDatabase } from '../helpers/postgres.ts';
import { metricValue, parseMetrics } from '../stream/helpers.ts';
import { clientOf } from '../helpers/client.ts';

const skip = await postgresSkip();

const create = (base: string) => {
  const client = clientOf(base);
  return client.unwrap(client.api.POST('/api/board/game', { body: {} }));
};
const move = (base: string, gameId: string, uci: string) => {
  const client = clientOf(base);
  return client.unwrap(client.api.POST('/api/board/game/{gameId}/move/{uci}', { params: { path: { gameId, uci } } }));
};
const undo = (base: string, gameId: string) => {
  const client = clientOf(base);
  return client.unwrap(client.api.POST('/api/board/game/{gameId}/undo', { params: { path: { gameId } } }));
};
const get = (base: string, gameId: string) => {
  const client = clientOf(base);
  return client.unwrap(client.api.GET('/api/board/game/{gameId}', { params: { path: { gameId } } }));
};
// The metrics are Prometheus text, not an operation of the API's document.
const storeReads = async (base: string) =>
  metricValue(parseMetrics(await (await fetch(`${base}/metrics`)).text()), 'store_game_reads_total');

describe('reads on a shared store', { skip, timeout: 60_000 }, () => {
  let db: TestDatabase;
  const servers: ServerProcess[] = [];
  before(async () => {
    db = await createTestDatabase();
    const env = { DATABASE_URL: db.url, RATE_LIMIT_MAX: '0' };
    servers.push(...(await Promise.all([startServer(env), startServer(env)])));
  });
  after(async () => {
    await Promise.all(servers.map(server => server.stop('SIGTERM')));
    await db.drop();
  });

  test('a read through either instance right after an acknowledged change shows it, 200 times over', async (t: TestContext) => {
    const [a, b] = servers.map(server => server.url) as [string, string];
    const { gameId } = await create(a);
    const cycle = ['g1f3', 'g8f6', 'f3g1', 'f6g8'];
    for (let i = 0; i < 200; i++) {
      const [writer, reader] = i % 3 === 0 ? [a, b] : [b, a];
      const step = i % 10 === 9 ? undo(writer, gameId) : move(writer, gameId, cycle[i % 4]!);
      const written = await step.catch(() => undefined);
      if (!written) continue; // a move the position no longer allows after an undo
      const read = (await get(reader, gameId)).state;
      t.assert.deepEqual(read.moves, written.moves, `read ${i} through the other instance`);
    }
  });

  test('reads of a game unchanged since its copy was read come from memory: no store read', async (t: TestContext) => {
    const [a, b] = servers.map(server => server.url) as [string, string];
    const { gameId } = await create(a);
    await move(a, gameId, 'e2e4');
    await get(b, gameId); // b reads it once from the store
    const before = await storeReads(b);
    await Promise.all(Array.from({ length: 100 }, () => get(b, gameId)));
    t.assert.equal((await storeReads(b)) - before, 0, 'no read of the store');
    // A change through the other instance: the next read through b reads it from the store, once.
    await move(a, gameId, 'e7e5');
    const fresh = (await get(b, gameId)).state;
    t.assert.deepEqual(fresh.moves, ['e2e4', 'e7e5']);
    t.assert.equal((await storeReads(b)) - before, 1);
  });
});
