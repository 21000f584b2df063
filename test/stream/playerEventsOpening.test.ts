/**
 * The opening list of a player's event stream under concurrent changes (DECISIONS §13a): while ten clients keep
 * changing the player's 300 ongoing games (a move, then its undo, so that none ends and none starts), every event
 * stream opened meanwhile begins with a `gameStart` for each of the 300 games, exactly once. Listing them in the
 * order of their changes, a page at a time, skipped the games that changed between two pages. On SQLite, on SQLite
 * in this process behind reads that answer a turn of the event loop later (as any networked store does: changes
 * commit between two reads), and on PostgreSQL (a fresh database for this file).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, suite, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, type ServerProcess } from '../helpers/server.ts';
import { clientOf, gameAction } from '../helpers/client.ts';
import { databaseOfFile } from '../helpers/postgres.ts';
import { makeTestApp } from '../helpers/app.ts';
import { storeWith } from '../helpers/store.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import { openStream, type StreamClient } from './helpers.ts';

const SERVICE = 'opening-list-service-token';
const GAMES = 300;
const MOVERS = 10;
const STREAMS = 6;

const env = { API_TOKENS: SERVICE, RATE_LIMIT_MAX: '0', MAX_STREAMS_PER_CLIENT: '0' };

/** `count` ongoing games of `player` (white in each, a different opponent each), made `parallel` at a time. */
async function createGames(base: string, player: string, count: number, parallel = 10): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const i = next++;
        const body = { white: { id: player, displayName: player }, black: { id: `o${i}`, displayName: `O${i}` } };
        const res = await clientOf(base, SERVICE).api.POST('/api/board/game', { body });
        if (res.response.status !== 201) throw new Error(`create: ${res.response.status} ${JSON.stringify(res.error)}`);
        ids.push(res.data!.gameId);
      }
    }),
  );
  return ids;
}

/**
 * Ten clients changing the games until `stop`: each takes its own tenth of them and, game after game at random,
 * plays e2e4 or takes it back, so that every change moves its game to the top of the order of changes.
 */
function startMovers(base: string, ids: string[]) {
  let running = true;
  let changes = 0;
  const failures: string[] = [];
  const loops = Array.from({ length: MOVERS }, async (_, m) => {
    const own = ids.filter((_, i) => i % MOVERS === m);
    const moved = new Set<string>();
    while (running) {
      const id = own[Math.floor(Math.random() * own.length)]!;
      const action = moved.has(id) ? 'undo' : 'move/e2e4';
      const res = await gameAction(clientOf(base, SERVICE), id, action);
      if (res.status !== 200) failures.push(`${action} ${id}: ${res.status} ${JSON.stringify(res.error)}`);
      else {
        changes++;
        if (moved.has(id)) moved.delete(id);
        else moved.add(id);
      }
    }
  });
  return {
    changes: () => changes,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return failures;
    },
  };
}

async function openingLists(t: TestContext, base: string, player: string): Promise<void> {
  const ids = await createGames(base, player, GAMES);
  const movers = startMovers(base, ids);
  const streams: StreamClient[] = [];
  t.after(() => streams.forEach(stream => stream.close()));
  try {
    while (movers.changes() < 50) await sleep(10); // the movers are at work
    for (let i = 0; i < STREAMS; i++) {
      const changesBefore = movers.changes();
      const stream = await openStream(`${base}/api/stream/event?player=${player}`, {
        headers: { authorization: `Bearer ${SERVICE}` },
      });
      t.assert.equal(stream.status, 200);
      streams.push(stream);
      // Each stream's list is read while the games keep changing; the next opens once it is read (or stuck).
      await stream.waitFor(() => stream.events.length >= GAMES, `${GAMES} events`, 5000).catch(() => undefined);
      t.diagnostic(`stream ${i}: ${stream.events.length} lines, ${movers.changes() - changesBefore} changes meanwhile`);
    }
  } finally {
    const failures = await movers.stop();
    t.assert.deepEqual(failures, [], 'every change of the movers is accepted');
  }
  await sleep(300); // a late duplicate would be here by now
  const expected = [...ids].sort();
  for (const [i, stream] of streams.entries()) {
    const lines = stream.events.map(event => `${event.type} ${event.game?.gameId}`);
    const started = stream.events.map(event => event.game?.gameId as string);
    const missing = expected.filter(id => !started.includes(id));
    t.assert.deepEqual(
      { missing, lines: lines.length },
      { missing: [], lines: GAMES },
      `stream ${i}: every ongoing game once (missing ${missing.length})`,
    );
    t.assert.deepEqual([...started].sort(), expected, `stream ${i}: each game once`);
    t.assert.ok(
      stream.events.every(event => event.type === 'gameStart'),
      `stream ${i}: only gameStart lines (no game started or ended)`,
    );
  }
}

suite('the opening list of an event stream under concurrent changes, on SQLite', { timeout: 120_000 }, () => {
  let dir: string;
  let server: ServerProcess;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chess-opening-'));
    server = await startServer({ ...env, DATABASE_URL: join(dir, 'chess.sqlite') });
  });
  after(async () => {
    await server.stop('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  test(`${GAMES} ongoing games, ${MOVERS} movers: every stream's opening list has each game once`, async t => {
    await openingLists(t, server.url, 'lister');
  });
});

test('the same on SQLite behind reads that answer a turn of the event loop later', { timeout: 120_000 }, async t => {
  const database = SqliteGameStore.open(':memory:');
  const later = <T>(read: () => Promise<T>) =>
    new Promise<T>((resolve, reject) => setImmediate(() => void read().then(resolve, reject)));
  const store = storeWith(database, {
    get: id => later(() => database.get(id)),
    listGames: query => later(() => database.listGames(query)),
    ongoingGames: (player, after, limit) => later(() => database.ongoingGames(player, after, limit)),
    changesSince: (id, afterVersion) => later(() => database.changesSince(id, afterVersion)),
  });
  const { app } = await makeTestApp({ store, tokens: [SERVICE] });
  t.after(async () => {
    await app.close();
    await database.close();
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  await openingLists(t, base, 'lister');
});

const database = await databaseOfFile();

suite(
  'the opening list of an event stream under concurrent changes, on PostgreSQL',
  { skip: database.skip, timeout: 120_000 },
  () => {
    let server: ServerProcess;
    before(async () => {
      server = await startServer({ ...env, DATABASE_URL: database.url() });
    });
    after(async () => server.stop('SIGTERM'));

    test(`${GAMES} ongoing games, ${MOVERS} movers: every stream's opening list has each game once`, async t => {
      await openingLists(t, server.url, 'lister');
    });
  },
);
