/**
 * A player's games (DECISIONS §13): `GET /api/board/game?player=&status=&limit=&cursor=`, most recently changed
 * first, in pages that never repeat or skip a game that did not change meanwhile; each filter; bad parameters.
 * On SQLite and on PostgreSQL.
 */
import { suite, test, type TestContext } from 'node:test';
import { PostgresGameStore } from '../../src/store/postgres.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import type { GameStore } from '../../src/store/store.ts';
import type { TokenStore } from '../../src/store/tokens.ts';
import { assertError, json, makeCheckedApp, type Inject } from '../helpers/app.ts';
import { databaseOfFile } from '../helpers/postgres.ts';

const BASE = '/api/board/game';
let unique = 0;

/** Every game of a listing, page after page, each page checked; the pages' ids in order. */
async function allPages(call: Inject, query: string, between?: (page: number) => Promise<void>): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page++) {
    const res = await call(`${BASE}?${query}${cursor ? `&cursor=${cursor}` : ''}`);
    if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
    const body = json(res);
    ids.push(...body.games.map((game: { gameId: string }) => game.gameId));
    cursor = body.nextCursor;
    if (cursor === null) return ids;
    await between?.(page);
  }
  throw new Error('too many pages');
}

function listingSuite(
  name: string,
  open: () => Promise<{ store: GameStore & TokenStore; shared: boolean }>,
  skip: string | false,
) {
  suite(`a player's games on ${name}`, { skip }, () => {
    test('250 games in pages of 40, most recently changed first, with games changing between pages', async (t: TestContext) => {
      const { store, shared } = await open();
      t.after(() => store.close());
      const { call } = await makeCheckedApp(t, { store, sharedStore: shared });
      const me = { id: `lister-${++unique}-${name}`, displayName: 'Lister' };
      const created: string[] = [];
      for (let i = 0; i < 250; i++) {
        const res = await call({ method: 'POST', url: BASE, payload: { white: me } });
        created.push(json(res).gameId);
      }
      const newestFirst = [...created].reverse();
      t.assert.deepEqual(await allPages(call, `player=${me.id}&limit=40`), newestFirst);

      // Between pages, some games not yet listed change (they move to the front, out of the remaining pages) and
      // some already listed change too; every game that does not change is listed exactly once, in order.
      const changed = new Set<string>();
      const listed = await allPages(call, `player=${me.id}&limit=40`, async page => {
        for (const id of [newestFirst[page * 40 + 5]!, newestFirst[page * 40 + 60]!, newestFirst[200]!]) {
          if (!id || changed.has(id)) continue;
          t.assert.equal((await call({ method: 'POST', url: `${BASE}/${id}/move/e2e4` })).statusCode, 200);
          changed.add(id);
        }
      });
      const unchanged = newestFirst.filter(id => !changed.has(id));
      t.assert.deepEqual(
        listed.filter(id => !changed.has(id)),
        unchanged,
        'the unchanged games: each once, in order',
      );
      t.assert.equal(new Set(listed).size, listed.length, 'no game twice');
      t.assert.ok(changed.size >= 6);
      // Afterwards the changed games come first, the last changed first.
      const first = json(await call(`${BASE}?player=${me.id}&limit=${changed.size}`)).games.map((g: any) => g.gameId);
      t.assert.deepEqual(new Set(first), changed);
    });

    test('filters: player (either seat, a practice board once), status, limit; the default page is 50', async (t: TestContext) => {
      const { store, shared } = await open();
      t.after(() => store.close());
      const { call } = await makeCheckedApp(t, { store, sharedStore: shared });
      const ann = { id: `ann-${++unique}-${name}`, displayName: 'Ann' };
      const bob = { id: `bob-${unique}-${name}`, displayName: 'Bob' };
      const make = async (white: object, black: object) =>
        json(await call({ method: 'POST', url: BASE, payload: { white, black } })).gameId as string;
      const annWhite = await make(ann, bob);
      const annBlack = await make(bob, ann);
      const practice = await make(ann, ann);
      const resigned = await make(ann, bob);
      await call({ method: 'POST', url: `${BASE}/${resigned}/resign` });
      const mated = await make(bob, ann);
      for (const uci of ['f2f3', 'e7e5', 'g2g4', 'd8h4'])
        await call({ method: 'POST', url: `${BASE}/${mated}/move/${uci}` });
      const ids = async (query: string) => json(await call(`${BASE}?${query}`)).games.map((g: any) => g.gameId);
      t.assert.deepEqual(await ids(`player=${ann.id}`), [mated, resigned, practice, annBlack, annWhite]);
      t.assert.deepEqual(await ids(`player=${ann.id}&status=all`), [mated, resigned, practice, annBlack, annWhite]);
      t.assert.deepEqual(await ids(`player=${ann.id}&status=ongoing`), [practice, annBlack, annWhite]);
      t.assert.deepEqual(await ids(`player=${ann.id}&status=ended`), [mated, resigned], 'a mate ends a game too');
      t.assert.deepEqual(await ids(`player=${bob.id}&status=ongoing`), [annBlack, annWhite]);
      t.assert.deepEqual(await ids(`player=${ann.id}&limit=2`), [mated, resigned]);
      // An undo of the mate resumes the game: it is ongoing again, and changed last.
      await call({ method: 'POST', url: `${BASE}/${mated}/undo` });
      t.assert.deepEqual(await ids(`player=${ann.id}&status=ongoing`), [mated, practice, annBlack, annWhite]);
      // Each listed game is its GameFull, as GET shows it.
      const [listedGame] = json(await call(`${BASE}?player=${ann.id}&limit=1`)).games;
      t.assert.deepEqual(listedGame, json(await call(`${BASE}/${mated}`)));
      // Without player: every game (here at least these five), 50 a page by default.
      const everything = json(await call(BASE));
      t.assert.ok(everything.games.length >= 5 && everything.games.length <= 50);
      t.assert.deepEqual(
        everything.games.slice(0, 1).map((g: any) => g.gameId),
        [mated],
      );
    });

    test('a cursor the service did not make for this list is INVALID_QUERY (DECISIONS §13a)', async (t: TestContext) => {
      const { store, shared } = await open();
      t.after(() => store.close());
      const { call } = await makeCheckedApp(t, { store, sharedStore: shared });
      const me = `cursors-${++unique}`;
      for (let i = 0; i < 3; i++)
        await call({ method: 'POST', url: BASE, payload: { white: { id: me, displayName: 'Me' } } });
      const next: string = json(await call(`${BASE}?player=${me}&limit=1`)).nextCursor;
      t.assert.equal(json(await call(`${BASE}?player=${me}&limit=1&cursor=${next}`)).games.length, 1);
      // Another app on the same store (another instance) reads it: the secret is the store's.
      const other = await makeCheckedApp(t, { store, sharedStore: shared });
      t.assert.equal(json(await other.call(`${BASE}?player=${me}&limit=2&cursor=${next}`)).games.length, 2);

      const [seq, mac] = next.split('.') as [string, string];
      const flipped = (text: string) => text.slice(0, -2) + (text.at(-2) === 'A' ? 'B' : 'A') + text.at(-1)!;
      const forged = [
        Buffer.from('g5').toString('base64url'), // the form cursors had before they were signed
        `${(parseInt(seq, 36) + 1).toString(36)}.${mac}`, // another position, the same signature
        `${seq}.${flipped(mac)}`, // the signature edited
        `${seq}.${mac.slice(1)}`,
        `${seq}.${'A'.repeat(22)}`,
      ];
      for (const cursor of forged) {
        assertError(await call(`${BASE}?player=${me}&limit=1&cursor=${cursor}`), 'INVALID_QUERY', 'cursor');
      }
      // The cursor of one list is no cursor of another: another player, another status, all games.
      for (const query of [`player=${me}x`, `player=${me}&status=ongoing`, `player=${me}&status=all&x=1`, '']) {
        const res = await call(`${BASE}?${query}&limit=1&cursor=${next}`);
        if (query.includes('status=all')) t.assert.equal(res.statusCode, 200, 'status=all is the default');
        else assertError(res, 'INVALID_QUERY', 'cursor');
      }
    });

    test('bad parameters are INVALID_QUERY naming the parameter', async (t: TestContext) => {
      const { store, shared } = await open();
      t.after(() => store.close());
      const { call } = await makeCheckedApp(t, { store, sharedStore: shared });
      for (const [query, field] of [
        ['status=finished', 'status'],
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['limit=ten', 'limit'],
        ['limit=1.5', 'limit'],
        ['player=', 'player'],
        [`player=${'x'.repeat(65)}`, 'player'],
        ['cursor=nope', 'cursor'],
        [`cursor=${Buffer.from('g-1').toString('base64url')}`, 'cursor'],
        [`cursor=${'A'.repeat(65)}`, 'cursor'],
      ] as const) {
        assertError(await call(`${BASE}?${query}`), 'INVALID_QUERY', field);
      }
    });
  });
}

listingSuite('SQLite', async () => ({ store: SqliteGameStore.open(':memory:'), shared: false }), false);

const postgres = await databaseOfFile();
listingSuite(
  'PostgreSQL',
  async () => ({ store: await PostgresGameStore.open(postgres.url()), shared: true }),
  postgres.skip,
);
