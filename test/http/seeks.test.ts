/**
 * Seeks over HTTP (DECISIONS §16): correspondence seeks answered with their id and withdrawn with DELETE; real-time
 * seeks held on their open request (NDJSON, the answer ends when paired) and withdrawn when the client goes; the
 * pairing with the oldest compatible seek of another player, colours that fit, never oneself; forms and JSON and
 * the validation; the tokens they need; a real-time seek whose instance died is not paired; the games a crash
 * left unmade after a pairing or an accept are made at start; and twenty players seeking at once, on SQLite and on
 * two instances of one PostgreSQL database: ten games, nobody twice.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite, test, type TestContext } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { ChangeListener } from '../../src/bus/postgres.ts';
import { newSeek, pairSeeks, parseSeekRequest } from '../../src/domain/seek.ts';
import { PostgresGameStore } from '../../src/store/postgres.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import type { GameStore } from '../../src/store/store.ts';
import type { SeekStore } from '../../src/store/seeks.ts';
import { assertError, json, makeTestApp, type TestApp, requestsAs } from '../helpers/app.ts';
import { databaseOfFile } from '../helpers/postgres.ts';
import { openStream, waitUntil, type StreamClient } from '../stream/helpers.ts';

const SERVICE_TOKEN = 'service-token-for-seeks-00001';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let players = 0;

interface SeekApp extends TestApp {
  as: (token: string | undefined, request: InjectOptions | string) => Promise<LightMyRequestResponse>;
  player: (name: string) => Promise<{ id: string; name: string; token: string }>;
  store: GameStore & SeekStore;
}

async function start(
  t: TestContext,
  options: { store?: GameStore; sharedStore?: boolean; leaseMs?: number } = {},
): Promise<SeekApp> {
  const testApp = await makeTestApp({
    tokens: [SERVICE_TOKEN],
    sharedStore: options.sharedStore ?? false,
    ...(options.store ? { store: options.store } : {}),
    ...(options.leaseMs ? { seekLeaseMs: options.leaseMs } : {}),
  });
  t.after(() => testApp.app.close());
  const as = await requestsAs(testApp.app);
  const player: SeekApp['player'] = async name => {
    const id = `${name}-${++players}`;
    const issued = await testApp.playerTokens.issue({ id, displayName: name });
    return { id, name, token: issued.token };
  };
  return { ...testApp, store: testApp.store as GameStore & SeekStore, as, player };
}

const seek = (app: SeekApp, token: string | undefined, payload?: object | string) =>
  app.as(token, {
    method: 'POST',
    url: '/api/board/seek',
    ...(payload === undefined ? {} : { payload }),
    ...(typeof payload === 'string' ? { headers: FORM } : {}),
  });

/** A correspondence seek that must be accepted: its id. */
async function seekDays(app: SeekApp, token: string, payload: object | string): Promise<string> {
  const res = await seek(app, token, payload);
  if (res.statusCode !== 200) throw new Error(`seek failed: ${res.statusCode} ${res.body}`);
  return json<{ id: string }>(res).id;
}

interface Game {
  gameId: string;
  white: { id: string };
  black: { id: string };
  clock?: { initial?: number; increment?: number; daysPerMove?: number };
}

/** The games a player is seated in, as the listing has them. */
async function gamesOf(app: SeekApp, token: string, player: string): Promise<Game[]> {
  return json<{ games: Game[] }>(await app.as(token, `/api/board/game?player=${player}`)).games;
}

/** A real-time seek over a real socket: its answer's head, and its body once the answer ends. */
interface HeldSeek {
  response: IncomingMessage;
  ended: Promise<string>;
  close: () => void;
}

function holdSeek(url: string, token: string, body: object): Promise<HeldSeek> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/api/board/seek`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    req.on('response', response => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', chunk => (text += chunk));
      const ended = new Promise<string>((done, fail) => {
        response.on('end', () => done(text));
        response.on('error', fail);
      });
      ended.catch(() => undefined);
      resolve({ response, ended, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const urlOf = (app: SeekApp) => `http://127.0.0.1:${(app.app.server.address() as { port: number }).port}`;

test('a correspondence seek answers its id; the next compatible seek pairs them: one game, both seated, the days', async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
  const annSeek = await seekDays(app, ann.token, { days: 3, color: 'white' });
  t.assert.match(annSeek, /^[A-Za-z0-9]{8}$/);
  t.assert.equal((await app.store.seek(annSeek))!.status, 'open');
  t.assert.deepEqual(await gamesOf(app, ann.token, ann.id), []);
  const bobSeek = await seekDays(app, bob.token, 'days=3');
  const [annStored, bobStored] = [(await app.store.seek(annSeek))!, (await app.store.seek(bobSeek))!];
  t.assert.deepEqual([annStored.status, bobStored.status], ['paired', 'paired']);
  t.assert.equal(annStored.gameId, bobStored.gameId);
  const games = await gamesOf(app, bob.token, bob.id);
  t.assert.equal(games.length, 1);
  t.assert.deepEqual([games[0]!.gameId, games[0]!.white.id, games[0]!.black.id], [annStored.gameId, ann.id, bob.id]);
  t.assert.equal(games[0]!.clock?.daysPerMove, 3);
  // Paired seeks are gone: neither pairs again, nor can be withdrawn.
  await seekDays(app, ann.token, { days: 3 });
  t.assert.equal((await gamesOf(app, ann.token, ann.id)).length, 1);
  assertError(await app.as(bob.token, { method: 'DELETE', url: `/api/board/seek/${bobSeek}` }), 'SEEK_NOT_FOUND');
});

test("DELETE withdraws one's own open seek (403 for another player's, 404 for none); a withdrawn seek is never paired", async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob, cat] = [await app.player('Ann'), await app.player('Bob'), await app.player('Cat')];
  const id = await seekDays(app, ann.token, { days: 5 });
  assertError(await app.as(bob.token, { method: 'DELETE', url: `/api/board/seek/${id}` }), 'FORBIDDEN');
  assertError(await app.as(bob.token, { method: 'DELETE', url: '/api/board/seek/NoSuch12' }), 'SEEK_NOT_FOUND');
  const deleted = await app.as(ann.token, { method: 'DELETE', url: `/api/board/seek/${id}` });
  t.assert.equal(deleted.statusCode, 200);
  t.assert.deepEqual(json(deleted), { ok: true });
  assertError(await app.as(ann.token, { method: 'DELETE', url: `/api/board/seek/${id}` }), 'SEEK_NOT_FOUND');
  const catSeek = await seekDays(app, cat.token, { days: 5 });
  t.assert.equal((await app.store.seek(catSeek))!.status, 'open', 'nobody to pair with');
  t.assert.equal((await app.store.seek(id))!.status, 'withdrawn');
});

test('pairing: the oldest compatible seek of another player; colours that fit; never oneself; pools apart', async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob, cat, dan] = await Promise.all(['Ann', 'Bob', 'Cat', 'Dan'].map(name => app.player(name)));
  const annWhite = await seekDays(app, ann!.token, { days: 7, color: 'white' });
  const annAgain = await seekDays(app, ann!.token, { days: 7 });
  t.assert.equal((await app.store.seek(annAgain))!.status, 'open', 'not paired with oneself');
  const bobOther = await seekDays(app, bob!.token, { days: 14 });
  t.assert.equal((await app.store.seek(bobOther))!.status, 'open', 'another pool');
  const catAny = await seekDays(app, cat!.token, { days: 7, color: 'random' });
  // Cat fits Ann's first seek (the oldest): Cat plays black.
  t.assert.equal((await app.store.seek(catAny))!.status, 'paired');
  t.assert.equal((await app.store.seek(annWhite))!.gameId, (await app.store.seek(catAny))!.gameId);
  const [game] = await gamesOf(app, cat!.token, cat!.id);
  t.assert.deepEqual([game!.white.id, game!.black.id], [ann!.id, cat!.id]);
  // Dan wants white: Ann's random seek fits, and Dan is white.
  await seekDays(app, dan!.token, { days: 7, color: 'white' });
  const [danGame] = await gamesOf(app, dan!.token, dan!.id);
  t.assert.deepEqual([danGame!.white.id, danGame!.black.id], [dan!.id, ann!.id]);
  t.assert.equal((await app.store.seek(annAgain))!.status, 'paired');
});

test('two seeks that want the same colour are not paired; two random ones get one colour each', async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob, cat] = [await app.player('Ann'), await app.player('Bob'), await app.player('Cat')];
  const annBlack = await seekDays(app, ann.token, { days: 1, color: 'black' });
  const bobBlack = await seekDays(app, bob.token, { days: 1, color: 'black' });
  t.assert.deepEqual(
    [(await app.store.seek(annBlack))!.status, (await app.store.seek(bobBlack))!.status],
    ['open', 'open'],
  );
  await seekDays(app, cat.token, { days: 1 });
  const [game] = await gamesOf(app, cat.token, cat.id);
  t.assert.deepEqual([game!.white.id, game!.black.id], [cat.id, ann.id], 'the oldest, Ann, black as asked');
  // The coin decides between two random seeks, from the domain's pairing.
  const request = parseSeekRequest({ days: '1' });
  if (!request.ok) throw request.error;
  const at = (id: string, player: string) =>
    newSeek({ id, player: { id: player, displayName: player }, request: request.value, now: 1, aliveUntil: 2 });
  const heads = pairSeeks(at('a', 'x'), at('b', 'y'), 'g', 1, () => 0.2);
  const tails = pairSeeks(at('a', 'x'), at('b', 'y'), 'g', 1, () => 0.7);
  t.assert.deepEqual([heads.game.white.id, tails.game.white.id], ['x', 'y']);
  t.assert.deepEqual([heads.older.gameColor, heads.newer.gameColor], ['white', 'black']);
});

test('forms and JSON alike; a bad request is 400 naming its field and seeks nothing', async (t: TestContext) => {
  const app = await start(t);
  const ann = await app.player('Ann');
  const cases: [object | string, string][] = [
    [{}, 'time'],
    ['', 'time'],
    [{ time: 5 }, 'increment'],
    [{ increment: 3 }, 'time'],
    [{ time: 0.1, increment: 0 }, 'time'],
    [{ time: 181, increment: 0 }, 'time'],
    ['time=1.01&increment=0', 'time'],
    [{ time: 5, increment: 181 }, 'increment'],
    [{ time: 5, increment: 2, days: 3 }, 'days'],
    [{ days: 4 }, 'days'],
    ['days=two', 'days'],
    [{ days: 3, color: 'green' }, 'color'],
    [{ days: 3, rated: 'maybe' }, 'rated'],
    ['days=3&rated=yes', 'rated'],
    [{ days: 3, rated: true, ratingRange: '1500' }, 'ratingRange'],
    [{ days: 3, variant: 'chess960' }, 'variant'],
  ];
  for (const [payload, field] of cases) {
    assertError(await seek(app, ann.token, payload), 'INVALID_BODY', field);
  }
  t.assert.equal((await app.store.openSeeks('3d', 0, 10)).length, 0);
  const fromForm = await seekDays(app, ann.token, 'days=3&color=black&rated=false&variant=standard&ratingRange=');
  t.assert.equal((await app.store.seek(fromForm))!.color, 'black');
});

test('without a player token: 401 when authentication is on, 403 FORBIDDEN for a service token', async (t: TestContext) => {
  const app = await start(t);
  assertError(await seek(app, undefined, { days: 3 }), 'UNAUTHORIZED');
  assertError(await seek(app, SERVICE_TOKEN, { days: 3 }), 'FORBIDDEN');
  assertError(await app.as(SERVICE_TOKEN, { method: 'DELETE', url: '/api/board/seek/AbCd1234' }), 'FORBIDDEN');
});

test('real sockets: a real-time seek waits on its open answer (NDJSON) and ends when paired; closing withdraws it', async (t: TestContext) => {
  const app = await start(t);
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const url = urlOf(app);
  const [ann, bob, cat, dan] = await Promise.all(['Ann', 'Bob', 'Cat', 'Dan'].map(name => app.player(name)));
  const annHeld = await holdSeek(url, ann!.token, { time: 5, increment: 3 });
  t.assert.equal(annHeld.response.statusCode, 200);
  t.assert.equal(annHeld.response.headers['content-type'], 'application/x-ndjson');
  await waitUntil(
    () => app.seeks!.heldSeeks() === 1,
    () => 'the seek is held',
  );
  const [annSeek] = await app.store.openSeeks('300+3', Date.now(), 10);
  t.assert.equal(annSeek!.player.id, ann!.id);
  // Bob's seek pairs at once: his answer ends empty, and Ann's ends too.
  const bobAnswer = await seek(app, bob!.token, 'time=5&increment=3');
  t.assert.equal(bobAnswer.statusCode, 200);
  t.assert.equal(bobAnswer.body, '');
  t.assert.equal((await annHeld.ended).trim(), '');
  const [game] = await gamesOf(app, ann!.token, ann!.id);
  t.assert.deepEqual([game!.white.id, game!.black.id].sort(), [ann!.id, bob!.id].sort());
  t.assert.deepEqual([game!.clock?.initial, game!.clock?.increment], [300_000, 3_000]);

  // Cat goes away: her seek is withdrawn, and Dan's seek waits instead of pairing with it.
  const catHeld = await holdSeek(url, cat!.token, { time: 5, increment: 3 });
  const [catSeek] = await app.store.openSeeks('300+3', Date.now(), 10);
  t.assert.equal(catSeek!.player.id, cat!.id);
  catHeld.close();
  await waitUntil(
    () => app.seeks!.heldSeeks() === 0,
    () => 'the seek is let go',
  );
  let status = (await app.store.seek(catSeek!.id))!.status;
  for (let i = 0; i < 100 && status === 'open'; i++) {
    await new Promise(resolve => setTimeout(resolve, 20));
    status = (await app.store.seek(catSeek!.id))!.status;
  }
  t.assert.equal(status, 'withdrawn');
  const danHeld = await holdSeek(url, dan!.token, { time: 5, increment: 3 });
  const [danSeek] = await app.store.openSeeks('300+3', Date.now(), 10);
  t.assert.equal(danSeek!.player.id, dan!.id, 'Dan waits: Cat is gone');
  danHeld.close();
});

test('a real-time seek whose instance stopped keeping it alive is not paired', async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
  const request = parseSeekRequest({ time: '3', increment: '2' });
  if (!request.ok) throw request.error;
  const now = Date.now();
  const lapsed = newSeek({
    id: 'Lapsed01',
    player: { id: ann.id, displayName: 'Ann' },
    request: request.value,
    now: now - 60_000,
    aliveUntil: now - 1,
  });
  t.assert.equal((await app.store.insertSeek(lapsed)).result, 'inserted');
  const server = await app.app.listen({ port: 0, host: '127.0.0.1' });
  const bobHeld = await holdSeek(server, bob.token, { time: 3, increment: 2 });
  await waitUntil(
    () => app.seeks!.heldSeeks() === 1,
    () => "Bob's seek is held",
  );
  t.assert.equal((await app.store.seek('Lapsed01'))!.status, 'open');
  t.assert.deepEqual(await gamesOf(app, bob.token, bob.id), []);
  bobHeld.close();
});

test('a real-time seek held by its instance stays alive past its first lease', async (t: TestContext) => {
  const app = await start(t, { leaseMs: 1_000 });
  const server = await app.app.listen({ port: 0, host: '127.0.0.1' });
  const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
  const annHeld = await holdSeek(server, ann.token, { time: 1, increment: 0 });
  await new Promise(resolve => setTimeout(resolve, 2_500)); // two and a half leases
  const [annSeek] = await app.store.openSeeks('60+0', Date.now(), 10);
  t.assert.equal(annSeek?.player.id, ann.id, 'renewed');
  t.assert.equal((await seek(app, bob.token, { time: 1, increment: 0 })).statusCode, 200);
  await annHeld.ended;
  t.assert.equal((await gamesOf(app, ann.token, ann.id)).length, 1);
});

test('the games a crash left unmade after a pairing or an accept are made at start', async (t: TestContext) => {
  const app = await start(t);
  const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
  const request = parseSeekRequest({ days: '2' });
  if (!request.ok) throw request.error;
  const now = Date.now();
  const at = (id: string, player: { id: string; name: string }, color: 'white' | 'black') =>
    newSeek({
      id,
      player: { id: player.id, displayName: player.name },
      request: { ...request.value, color },
      now,
      aliveUntil: now,
    });
  const [older, newer] = [at('Older001', ann, 'black'), at('Newer001', bob, 'white')];
  await app.store.insertSeek(older);
  await app.store.insertSeek(newer);
  const pairing = pairSeeks(older, newer, 'Unmade01', now, () => 0);
  t.assert.equal(await app.store.pairSeeks(pairing.older, pairing.newer), true);
  t.assert.equal(await app.store.pairSeeks(pairing.older, pairing.newer), false, 'paired once');
  // And a challenge accepted whose game was not made.
  const made = json(await app.as(ann.token, { method: 'POST', url: `/api/challenge/${bob.id}`, payload: { days: 2 } }));
  const stored = await app.challenges!.find(made.id);
  const claim = { ...stored, version: 2, status: 'accepted' as const, acceptedBy: stored.destUser, gameId: stored.id };
  t.assert.equal(await (app.store as SqliteGameStore).claimChallenge(claim, 1), true);
  assertError(await app.as(ann.token, '/api/board/game/Unmade01'), 'GAME_NOT_FOUND');

  t.assert.equal(await app.seeks!.makeMissingGames(app.challenges), 2);
  let game = await app.as(ann.token, '/api/board/game/Unmade01');
  for (let i = 0; i < 100 && game.statusCode !== 200; i++) {
    await new Promise(resolve => setTimeout(resolve, 10));
    game = await app.as(ann.token, '/api/board/game/Unmade01');
  }
  const full = json<Game>(game);
  t.assert.deepEqual([full.white.id, full.black.id], [bob.id, ann.id]);
  const accepted = json<Game>(await app.as(ann.token, `/api/board/game/${made.id}`));
  t.assert.deepEqual([accepted.white.id, accepted.black.id].sort(), [ann.id, bob.id].sort());
  t.assert.equal(await app.seeks!.makeMissingGames(app.challenges), 0, 'nothing left to make');
});

/**
 * Twenty players seek 2+1 at once, spread over the instances, each on a real socket: every answer ends (paired),
 * ten games are made, and every player is in exactly one.
 */
async function race(t: TestContext, instances: SeekApp[]): Promise<void> {
  const urls: string[] = [];
  for (const instance of instances) {
    await instance.app.listen({ port: 0, host: '127.0.0.1' });
    urls.push(urlOf(instance));
  }
  const seekers = await Promise.all(Array.from({ length: 20 }, (_, i) => instances[0]!.player(`Racer${i}`)));
  const held = await Promise.all(
    seekers.map((player, i) => holdSeek(urls[i % urls.length]!, player.token, { time: 2, increment: 1 })),
  );
  t.after(() => held.forEach(seek => seek.close()));
  t.assert.deepEqual(
    held.map(seek => seek.response.statusCode),
    seekers.map(() => 200),
  );
  const timeout = setTimeout(() => held.forEach(seek => seek.close()), 20_000);
  await Promise.all(held.map(seek => seek.ended));
  clearTimeout(timeout);
  const seen = new Map<string, string>();
  const gameIds = new Set<string>();
  for (const player of seekers) {
    const games = await gamesOf(instances[0]!, player.token, player.id);
    t.assert.equal(games.length, 1, `${player.id} is in one game`);
    gameIds.add(games[0]!.gameId);
    const opponent = games[0]!.white.id === player.id ? games[0]!.black.id : games[0]!.white.id;
    t.assert.notEqual(opponent, player.id);
    seen.set(player.id, opponent);
  }
  t.assert.equal(gameIds.size, 10);
  for (const [player, opponent] of seen) t.assert.equal(seen.get(opponent), player, 'pairs are mutual');
}

test('twenty players seeking at once on SQLite (two connections to one file): ten games, nobody twice', async (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'chess-seeks-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'race.sqlite');
  const [one, two] = [SqliteGameStore.open(path), SqliteGameStore.open(path)];
  t.after(() => Promise.all([one.close(), two.close()]));
  // Two services on one file with nothing announced between them: the seeks held by one that the other pairs end
  // when their instance reads them again, as after a lost announcement.
  const instances = [await start(t, { store: one }), await start(t, { store: two })];
  const timer = setInterval(
    () => instances.forEach(instance => void instance.seeks!.resynced().catch(() => undefined)),
    100,
  );
  try {
    await race(t, instances);
  } finally {
    clearInterval(timer); // before the stores close (the hooks run after this)
  }
});

const pg = await databaseOfFile();

suite('on PostgreSQL', { skip: pg.skip }, () => {
  test('twenty players seeking at once over two instances: ten games, nobody twice', async (t: TestContext) => {
    const stores = await Promise.all([PostgresGameStore.open(pg.url()), PostgresGameStore.open(pg.url())]);
    t.after(() => Promise.all(stores.map(store => store.close())));
    const instances = await Promise.all(stores.map(store => start(t, { store, sharedStore: true })));
    for (const instance of instances) {
      const listener = new ChangeListener(pg.url(), {
        feed: { announce: () => undefined, publish: () => undefined, resync: () => undefined },
        players: instance.players,
        seeks: instance.seeks!,
      });
      await listener.start();
      t.after(() => listener.close());
    }
    await race(t, instances);
  });

  test("a pairing on one instance ends the seek held on the other; both players' event streams get gameStart", async (t: TestContext) => {
    const stores = await Promise.all([PostgresGameStore.open(pg.url()), PostgresGameStore.open(pg.url())]);
    t.after(() => Promise.all(stores.map(store => store.close())));
    const [a, b] = await Promise.all(stores.map(store => start(t, { store, sharedStore: true })));
    const streams: StreamClient[] = [];
    t.after(() => streams.forEach(stream => stream.close()));
    for (const instance of [a!, b!]) {
      const listener = new ChangeListener(pg.url(), {
        feed: { announce: () => undefined, publish: () => undefined, resync: () => undefined },
        players: instance.players,
        seeks: instance.seeks!,
      });
      await listener.start();
      t.after(() => listener.close());
      await instance.app.listen({ port: 0, host: '127.0.0.1' });
    }
    const [ann, bob] = [await a!.player('Ann'), await a!.player('Bob')];
    for (const [instance, player] of [
      [a!, ann],
      [b!, bob],
    ] as const) {
      const stream = await openStream(`${urlOf(instance)}/api/stream/event`, {
        headers: { authorization: `Bearer ${player.token}` },
      });
      streams.push(stream);
    }
    const annHeld = await holdSeek(urlOf(a!), ann.token, { time: 10, increment: 0 });
    await waitUntil(
      () => a!.seeks!.heldSeeks() === 1,
      () => "Ann's seek is held",
    );
    t.assert.equal((await seek(b!, bob.token, { time: 10, increment: 0 })).statusCode, 200);
    t.assert.equal((await annHeld.ended).trim(), '');
    for (const stream of streams) {
      await stream.waitForEvents(1);
      t.assert.equal(stream.events[0].type, 'gameStart');
    }
    t.assert.equal(streams[0]!.events[0].game.gameId, streams[1]!.events[0].game.gameId);
  });
});
