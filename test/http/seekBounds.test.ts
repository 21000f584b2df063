/**
 * Seeks bounded per player (DECISIONS §16a), over HTTP with real sockets: a player's new real-time seek withdraws
 * the older one, whose request ends, and the player is paired once; two real-time seeks sent at once by one player
 * never get the player two games; ten correspondence seeks at most (the eleventh 429 RATE_LIMITED with Retry-After).
 * On SQLite, and on two instances of one PostgreSQL database, where the instance holding the older seek's request
 * hears of its withdrawal from the database.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { suite, test, type TestContext } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { ChangeListener } from '../../src/bus/postgres.ts';
import { PostgresGameStore } from '../../src/store/postgres.ts';
import type { GameStore } from '../../src/store/store.ts';
import type { SeekStore } from '../../src/store/seeks.ts';
import { MAX_CORRESPONDENCE_SEEKS } from '../../src/service/seeks.ts';
import { assertError, json, makeTestApp, type TestApp, requestsAs } from '../helpers/app.ts';
import { databaseOfFile } from '../helpers/postgres.ts';
import { waitUntil } from '../stream/helpers.ts';

const SERVICE_TOKEN = 'service-token-for-seek-bounds';
let players = 0;

interface Player {
  id: string;
  token: string;
}

interface SeekApp extends TestApp {
  as: (token: string | undefined, request: InjectOptions | string) => Promise<LightMyRequestResponse>;
  player: (name: string) => Promise<Player>;
  store: GameStore & SeekStore;
  url: string;
}

/** A service listening on a free port (on `store`, in-memory SQLite by default), closed after the test. */
async function start(t: TestContext, options: { store?: GameStore; sharedStore?: boolean } = {}): Promise<SeekApp> {
  const testApp = await makeTestApp({
    tokens: [SERVICE_TOKEN],
    sharedStore: options.sharedStore ?? false,
    ...(options.store ? { store: options.store } : {}),
  });
  t.after(() => testApp.app.close());
  const as = await requestsAs(testApp.app);
  const player = async (name: string): Promise<Player> => {
    const id = `${name}-${++players}`;
    return { id, token: (await testApp.playerTokens.issue({ id, displayName: name })).token };
  };
  await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(testApp.app.server.address() as { port: number }).port}`;
  return { ...testApp, store: testApp.store as GameStore & SeekStore, as, player, url };
}

/** Two services on one PostgreSQL database, each hearing the database's announcements. */
async function twoInstances(t: TestContext, url: string): Promise<[SeekApp, SeekApp]> {
  const stores = await Promise.all([PostgresGameStore.open(url), PostgresGameStore.open(url)]);
  t.after(() => Promise.all(stores.map(store => store.close())));
  const instances = await Promise.all(stores.map(store => start(t, { store, sharedStore: true })));
  for (const instance of instances) {
    const listener = new ChangeListener(url, {
      feed: { announce: () => undefined, publish: () => undefined, resync: () => undefined },
      players: instance.players,
      seeks: instance.seeks!,
    });
    await listener.start();
    t.after(() => listener.close());
  }
  return instances as [SeekApp, SeekApp];
}

/** A real-time seek held on a real socket: its answer's head, and its body once the answer ends. */
interface HeldSeek {
  response: IncomingMessage;
  ended: Promise<string>;
  done: boolean;
  close: () => void;
}

function holdSeek(t: TestContext, url: string, token: string, body: object): Promise<HeldSeek> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/api/board/seek`, {
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    t.after(() => req.destroy());
    req.on('response', response => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', chunk => (text += chunk));
      const held: HeldSeek = {
        response,
        done: false,
        ended: new Promise<string>((done, fail) => {
          response.on('end', () => {
            held.done = true;
            done(text);
          });
          response.on('error', fail);
        }),
        close: () => req.destroy(),
      };
      held.ended.catch(() => undefined);
      resolve(held);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** The ids of the games a player is seated in. */
async function gamesOf(app: SeekApp, player: Player): Promise<string[]> {
  const listed = json<{ games: Array<{ gameId: string }> }>(
    await app.as(player.token, `/api/board/game?player=${player.id}`),
  );
  return listed.games.map(game => game.gameId);
}

/** Ann's second real-time seek, on `second`, ends the request of her first, held on `first`; Bob then pairs once. */
async function newSeekReplacesOld(t: TestContext, first: SeekApp, second: SeekApp): Promise<void> {
  const [ann, bob] = [await first.player('Ann'), await first.player('Bob')];
  const older = await holdSeek(t, first.url, ann.token, { time: 3, increment: 0 });
  t.assert.equal(older.response.statusCode, 200);
  const [olderSeek] = await first.store.openSeeks('180+0', Date.now(), 10);
  t.assert.equal(olderSeek?.player.id, ann.id);
  // Another time control: still the same player's one real-time seek.
  const newer = await holdSeek(t, second.url, ann.token, { time: 5, increment: 0 });
  t.assert.equal(newer.response.statusCode, 200);
  await waitUntil(
    () => older.done,
    () => "the older seek's answer ends",
  );
  t.assert.equal((await older.ended).trim(), '', 'with no line');
  t.assert.equal((await first.store.seek(olderSeek!.id))!.status, 'withdrawn');
  await waitUntil(
    () => [...new Set([first, second])].reduce((held, app) => held + app.seeks!.heldSeeks(), 0) === 1,
    () => 'one seek held: the newer',
  );
  t.assert.equal(newer.done, false, 'the newer seek waits');
  // Bob seeks Ann's first time control: nobody is there any more.
  const bobOld = await holdSeek(t, second.url, bob.token, { time: 3, increment: 0 });
  t.assert.equal(bobOld.response.statusCode, 200);
  t.assert.deepEqual(await gamesOf(first, ann), [], "Ann's withdrawn seek is not paired");
  // Bob's second seek pairs with Ann's newer one at once (and withdraws his first).
  const bobNew = await holdSeek(t, first.url, bob.token, { time: 5, increment: 0 });
  t.assert.equal(bobNew.response.statusCode, 200);
  await waitUntil(
    () => bobNew.done && newer.done && bobOld.done,
    () => "Bob's new seek paired with Ann's: both answers end, and Bob's older one's",
  );
  t.assert.equal((await gamesOf(first, ann)).length, 1);
  t.assert.deepEqual(await gamesOf(first, ann), await gamesOf(first, bob));
}

/**
 * Ann sends two real-time seeks at once (on `a` and `b`), then Bob and Cat seek the same: Ann is paired into one game,
 * never two.
 */
async function twoSeeksAtOnce(t: TestContext, a: SeekApp, b: SeekApp): Promise<void> {
  const [ann, bob, cat] = [await a.player('Ann'), await a.player('Bob'), await a.player('Cat')];
  const held = await Promise.all([
    holdSeek(t, a.url, ann.token, { time: 2, increment: 1 }),
    holdSeek(t, b.url, ann.token, { time: 2, increment: 1 }),
  ]);
  t.assert.deepEqual(
    held.map(seek => seek.response.statusCode),
    [200, 200],
  );
  const bobHeld = await holdSeek(t, b.url, bob.token, { time: 2, increment: 1 });
  await waitUntil(
    () => bobHeld.done,
    () => "Bob is paired with Ann's open seek at once",
  );
  // Cat's answer has its head once her seek has looked for a partner: Ann's other seek, if it were still open.
  const catHeld = await holdSeek(t, a.url, cat.token, { time: 2, increment: 1 });
  t.assert.equal(catHeld.response.statusCode, 200);
  t.assert.equal((await gamesOf(a, ann)).length, 1, 'Ann is in one game');
  t.assert.deepEqual(await gamesOf(a, cat), [], 'Cat waits: nobody else seeks');
  await waitUntil(
    () => held.every(seek => seek.done),
    () => "both of Ann's answers end: one replaced by the other, which was paired",
  );
  t.assert.equal(catHeld.done, false);
}

/** Ten correspondence seeks open; the eleventh is 429 with Retry-After; one withdrawn makes room. */
async function correspondenceBound(t: TestContext, a: SeekApp, b: SeekApp): Promise<void> {
  const ann = await a.player('Ann');
  const seekDays = (app: SeekApp) =>
    app.as(ann.token, { method: 'POST', url: '/api/board/seek', payload: { days: 14, color: 'white' } });
  const answers = await Promise.all(
    Array.from({ length: MAX_CORRESPONDENCE_SEEKS + 5 }, (_, i) => seekDays(i % 2 === 0 ? a : b)),
  );
  const made = answers.filter(res => res.statusCode === 200);
  t.assert.equal(made.length, MAX_CORRESPONDENCE_SEEKS);
  for (const refused of answers.filter(res => res.statusCode !== 200)) {
    assertError(refused, 'RATE_LIMITED');
    t.assert.ok(Number(refused.headers['retry-after']) >= 1);
  }
  const id = json<{ id: string }>(made[0]!).id;
  t.assert.equal((await a.as(ann.token, { method: 'DELETE', url: `/api/board/seek/${id}` })).statusCode, 200);
  t.assert.equal((await seekDays(b)).statusCode, 200, 'a withdrawn seek makes room');
  assertError(await seekDays(a), 'RATE_LIMITED');
  // Real-time seeks have their own bound.
  const realTime = await holdSeek(t, a.url, ann.token, { time: 10, increment: 0 });
  t.assert.equal(realTime.response.statusCode, 200);
}

test("SQLite: a player's new real-time seek withdraws the older, whose request ends; the player is paired once", async (t: TestContext) => {
  const app = await start(t);
  await newSeekReplacesOld(t, app, app);
});

test('SQLite: two real-time seeks of one player at once never get the player two games', async (t: TestContext) => {
  const app = await start(t);
  await twoSeeksAtOnce(t, app, app);
});

test('SQLite: ten open correspondence seeks per player, the eleventh 429 RATE_LIMITED', async (t: TestContext) => {
  const app = await start(t);
  await correspondenceBound(t, app, app);
});

const pg = await databaseOfFile();

suite('on PostgreSQL, two instances', { skip: pg.skip }, () => {
  test("a player's new real-time seek on one instance ends the older one's request on the other", async (t: TestContext) => {
    const [a, b] = await twoInstances(t, pg.url());
    await newSeekReplacesOld(t, a, b);
  });

  test('two real-time seeks of one player at once, one per instance, never get the player two games', async (t: TestContext) => {
    const [a, b] = await twoInstances(t, pg.url());
    await twoSeeksAtOnce(t, a, b);
  });

  test('ten open correspondence seeks per player across instances, the rest 429 RATE_LIMITED', async (t: TestContext) => {
    const [a, b] = await twoInstances(t, pg.url());
    await correspondenceBound(t, a, b);
  });
});
