/**
 * A player's games and single games as lichess exports them (DECISIONS §22), over HTTP on SQLite and PostgreSQL:
 * every filter and option of `GET /api/games/user/{id}` alone and combined against the games made for the test,
 * each NDJSON line validated against lichess's GameJson schema, each PGN read back by the service's own import to
 * the same moves; `GET /game/export/{id}`, `POST /api/games/export/_ids`, `GET /api/user/{id}/current-game`; bad
 * parameters; authentication.
 */
import { suite, test, type TestContext } from 'node:test';
import type { GameRecord } from '../../src/domain/game.ts';
import { INITIAL_FEN } from '../../src/domain/notation.ts';
import { PostgresGameStore } from '../../src/store/postgres.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import type { Store } from '../../src/store/parts.ts';
import { assertError, json, makeCheckedApp, type Inject } from '../helpers/app.ts';
import { assertLichess } from '../helpers/lichess.ts';
import { databaseOfFile } from '../helpers/postgres.ts';

const BASE = '/api/board/game';
const T0 = Date.UTC(2026, 3, 1, 12, 0, 0);
const NDJSON = { accept: 'application/x-ndjson' };
let unique = 0;

/** The ids of an NDJSON export, each line checked against lichess's GameJson. */
function ndjsonIds(body: string): string[] {
  const lines = body.split('\n').filter(line => line !== '');
  return lines.map(line => {
    const game = JSON.parse(line);
    assertLichess('GameJson', game);
    return game.id as string;
  });
}

/** The games of a PGN export: each game's text. */
const pgnGames = (body: string): string[] =>
  body
    .split(/\n\n(?=\[Event )/)
    .map(text => text.trim())
    .filter(text => text !== '');

const gameIdOf = (pgn: string) => /\[GameId "([^"]+)"\]/.exec(pgn)?.[1];

interface Made {
  ids: Record<'g1' | 'g2' | 'g3' | 'g4' | 'g5' | 'g6', string>;
  ann: string;
  bob: string;
  cat: string;
  times: string[]; // each game's creation, ms as text, in order g1..g6
}

/**
 * Ann's games, one second apart: g1 a blitz mate (white vs Bob), g2 an unlimited game she resigns (black vs Bob), g3
 * a bullet game going on (white vs Cat), g4 a rapid practice board drawn, g5 a correspondence game going on (black vs
 * Cat), g6 a rated classical game (black vs Bob, stored as the ratings make them) that Bob resigned.
 */
async function makeGames(call: Inject, store: Store, advance: () => number, suffix: string): Promise<Made> {
  const n = ++unique;
  const ann = { id: `ann-${n}-${suffix}`, displayName: 'Ann' };
  const bob = { id: `bob-${n}-${suffix}`, displayName: 'Bob' };
  const cat = { id: `cat-${n}-${suffix}`, displayName: 'Cat' };
  const times: string[] = [];
  const create = async (payload: object, moves: string[], after?: string) => {
    times.push(String(advance()));
    const res = await call({ method: 'POST', url: BASE, payload });
    if (res.statusCode !== 201) throw new Error(res.body);
    const id = json(res).gameId as string;
    for (const uci of moves) {
      const moved = await call({ method: 'POST', url: `${BASE}/${id}/move/${uci}` });
      if (moved.statusCode !== 200) throw new Error(moved.body);
    }
    if (after) {
      const done = await call({ method: 'POST', url: `${BASE}/${id}/${after}` });
      if (done.statusCode !== 200) throw new Error(done.body);
    }
    return id;
  };
  const g1 = await create({ white: ann, black: bob, clock: { initial: 180_000, increment: 2_000 } }, [
    'f2f3',
    'e7e5',
    'g2g4',
    'd8h4',
  ]);
  const g2 = await create({ white: bob, black: ann }, ['e2e4', 'e7e5', 'g1f3'], 'resign');
  const g3 = await create({ white: ann, black: cat, clock: { initial: 60_000, increment: 0 } }, ['e2e4']);
  const g4 = await create(
    { white: ann, black: ann, clock: { initial: 600_000, increment: 0 } },
    ['d2d4'],
    'draw/offer',
  );
  const accepted = await call({ method: 'POST', url: `${BASE}/${g4}/draw/accept` });
  if (accepted.statusCode !== 200) throw new Error(accepted.body);
  const g5 = await create({ white: cat, black: ann, clock: { daysPerMove: 2 } }, ['c2c4']);
  // A rated game, as the ratings make them: stored directly, so that its ratings are the test's own.
  const at = advance();
  times.push(String(at));
  const g6 = `R${String(n).padStart(3, '0')}${suffix.slice(0, 4)}`.padEnd(8, '0').slice(0, 8);
  const rated: GameRecord = {
    id: g6,
    version: 1,
    createdAt: new Date(at).toISOString(),
    white: bob,
    black: ann,
    startFen: INITIAL_FEN,
    moves: ['e2e4'],
    redo: [],
    pendingPromotion: null,
    drawOffer: null,
    takebackOffer: null,
    result: { kind: 'resign', winner: 'black' },
    clock: {
      control: { initial: 1_800_000, increment: 0 },
      white: 1_800_000,
      black: 1_800_000,
      since: at,
      phase: 1,
      timedFrom: 2,
    },
    moveClocks: [1_800_000],
    rated: true,
  };
  if (!(await store.create(rated, { deadline: null, ended: true }))) throw new Error('not created');
  return { ids: { g1, g2, g3, g4, g5, g6 }, ann: ann.id, bob: bob.id, cat: cat.id, times };
}

function exportSuite(name: string, open: () => Promise<{ store: Store; shared: boolean }>, skip: string | false) {
  suite(`game export on ${name}`, { skip }, () => {
    test('every filter alone and combined, as NDJSON (lichess GameJson) and as PGN read back to the same moves', async (t: TestContext) => {
      const { store, shared } = await open();
      t.after(() => store.close());
      let now = T0;
      const { call } = await makeCheckedApp(t, { store, sharedStore: shared, now: () => now });
      const made = await makeGames(call, store, () => (now += 1_000), name);
      const { g1, g2, g3, g4, g5, g6 } = made.ids;
      const [, t2, , t4] = made.times;
      const cases: Array<[string, string[]]> = [
        ['', [g6, g4, g2, g1]],
        ['ongoing=true', [g6, g5, g4, g3, g2, g1]],
        ['ongoing=true&finished=false', [g5, g3]],
        ['finished=false', []],
        ['sort=dateAsc', [g1, g2, g4, g6]],
        ['sort=dateDesc&ongoing=true&max=3', [g6, g5, g4]],
        [`since=${t2}`, [g6, g4, g2]],
        [`until=${t4}`, [g4, g2, g1]],
        [`since=${t2}&until=${t4}&ongoing=true`, [g4, g3, g2]],
        ['max=2', [g6, g4]],
        ['max=2&sort=dateAsc', [g1, g2]],
        [`vs=${made.bob}`, [g6, g2, g1]],
        [`vs=${made.ann}`, [g4]],
        [`vs=nobody`, []],
        ['rated=true', [g6]],
        ['rated=false', [g4, g2, g1]],
        ['perfType=blitz', [g1]],
        ['perfType=correspondence', [g2]],
        ['perfType=correspondence,rapid&ongoing=true', [g5, g4, g2]],
        ['color=white', [g4, g1]],
        ['color=black&ongoing=true', [g6, g5, g4, g2]],
        [`vs=${made.bob}&color=black&rated=false`, [g2]],
        ['ongoing=true&color=white&perfType=bullet,blitz&sort=dateAsc', [g1, g3]],
        [`since=${t2}&vs=${made.cat}&finished=false&ongoing=true&max=1`, [g5]],
      ];
      for (const [query, want] of cases) {
        const url = `/api/games/user/${made.ann}?${query}`;
        const ndjson = await call({ url, headers: NDJSON });
        t.assert.equal(ndjson.statusCode, 200, `${query}: ${ndjson.body}`);
        t.assert.match(String(ndjson.headers['content-type']), /^application\/x-ndjson/);
        t.assert.deepEqual(ndjsonIds(ndjson.body), want, `NDJSON ${query}`);
        const pgn = await call(url);
        t.assert.match(String(pgn.headers['content-type']), /^application\/x-chess-pgn/);
        const games = pgnGames(pgn.body);
        t.assert.deepEqual(games.map(gameIdOf), want, `PGN ${query}`);
      }

      // Every exported PGN reads back through the service's own import to the game's moves.
      const all = pgnGames((await call(`/api/games/user/${made.ann}?ongoing=true&clocks=true`)).body);
      t.assert.equal(all.length, 6);
      for (const text of all) {
        const id = gameIdOf(text)!;
        const imported = await call({ method: 'POST', url: `${BASE}/import/pgn`, payload: { pgn: text } });
        t.assert.equal(imported.statusCode, 201, imported.body);
        const original = json(await call(`${BASE}/${id}`));
        t.assert.deepEqual(json(imported).state.moves, original.state.moves, `the moves of ${id}`);
        t.assert.equal(json(imported).state.fen, original.state.fen);
      }
      // The PGN's tags, lichess's.
      const mate = all.find(text => gameIdOf(text) === g1)!;
      for (const tag of [
        '[Event "Casual Blitz game"]',
        `[Site "http://localhost:80/game/${g1}"]`,
        '[White "Ann"]',
        '[Black "Bob"]',
        '[Result "0-1"]',
        '[UTCDate "2026.04.01"]',
        '[TimeControl "180+2"]',
        '[Termination "Normal"]',
        '[Variant "Standard"]',
      ]) {
        t.assert.ok(mate.includes(tag), `${tag} in ${mate}`);
      }
      t.assert.match(mate, /\{\[%clk 0:03:00\]\}/);
      t.assert.ok(all.find(text => gameIdOf(text) === g6)!.includes('[Event "Rated Classical game"]'));
      t.assert.ok(all.find(text => gameIdOf(text) === g3)!.includes('[Termination "Unterminated"]'));
    });

    test('options: moves, tags, clocks, pgnInJson and lastFen; one game, games by ids, the current game', async (t: TestContext) => {
      const { store, shared } = await open();
      t.after(() => store.close());
      let now = T0;
      const { call } = await makeCheckedApp(t, { store, sharedStore: shared, now: () => now });
      const made = await makeGames(call, store, () => (now += 1_000), name);
      const { g1, g3, g5 } = made.ids;
      const plain = json(await call({ url: `/api/games/user/${made.ann}?perfType=blitz`, headers: NDJSON }));
      t.assert.equal(plain.moves, 'f3 e5 g4 Qh4#');
      t.assert.equal(plain.status, 'mate');
      t.assert.equal(plain.winner, 'black');
      for (const field of ['clocks', 'pgn', 'lastFen']) t.assert.equal(field in plain, false, field);
      const full = json(
        await call({
          url: `/api/games/user/${made.ann}?perfType=blitz&clocks=true&pgnInJson=true&lastFen=true`,
          headers: NDJSON,
        }),
      );
      assertLichess('GameJson', full);
      t.assert.deepEqual(full.clocks, [18000, 18000, 18000 + 200, 18000 + 200]);
      t.assert.match(full.pgn, /\[%clk 0:03:00\]/);
      t.assert.equal(full.lastFen, 'rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3');
      const noMoves = json(
        await call({ url: `/api/games/user/${made.ann}?perfType=blitz&moves=false`, headers: NDJSON }),
      );
      t.assert.equal('moves' in noMoves, false);
      const noTags = (await call(`/api/games/user/${made.ann}?perfType=blitz&tags=false&clocks=false`)).body;
      t.assert.equal(noTags, '1. f3 e5 2. g4 Qh4# 0-1\n\n');
      const pgnNoMoves = (await call(`/api/games/user/${made.ann}?perfType=blitz&moves=false`)).body;
      t.assert.doesNotMatch(pgnNoMoves, /Qh4/);
      t.assert.match(pgnNoMoves, /\[Termination "Normal"\]\n\n0-1\n/);

      // One game: PGN with clocks by default, JSON for Accept: application/json.
      const one = await call(`/game/export/${g1}`);
      t.assert.equal(one.statusCode, 200);
      t.assert.match(String(one.headers['content-type']), /^application\/x-chess-pgn/);
      t.assert.match(one.body, /\[%clk 0:03:00\]/);
      t.assert.doesNotMatch((await call(`/game/export/${g1}?clocks=false`)).body, /%clk/);
      const oneJson = await call({ url: `/game/export/${g1}`, headers: { accept: 'application/json' } });
      t.assert.match(String(oneJson.headers['content-type']), /^application\/json/);
      assertLichess('GameJson', json(oneJson));
      t.assert.deepEqual(json(oneJson).clocks.length, 4);
      assertError(await call('/game/export/Nope0000'), 'GAME_NOT_FOUND');
      assertError(await call('/game/export/bad'), 'INVALID_GAME_ID', 'gameId');

      // By ids: in the order given, unknown and malformed ids skipped, ongoing games included.
      const body = [g3, 'Unknown1', g1, 'bad!', g3].join(',');
      const byIds = await call({
        method: 'POST',
        url: '/api/games/export/_ids',
        payload: body,
        headers: { ...NDJSON, 'content-type': 'text/plain' },
      });
      t.assert.equal(byIds.statusCode, 200, byIds.body);
      t.assert.deepEqual(ndjsonIds(byIds.body), [g3, g1]);
      const byIdsPgn = await call({ method: 'POST', url: '/api/games/export/_ids', payload: `${g1},${g3}` });
      t.assert.deepEqual(pgnGames(byIdsPgn.body).map(gameIdOf), [g1, g3]);
      const tooMany = Array.from({ length: 301 }, (_, i) => `Id${String(i).padStart(6, '0')}`).join(',');
      assertError(
        await call({
          method: 'POST',
          url: '/api/games/export/_ids',
          payload: tooMany,
          headers: { 'content-type': 'text/plain' },
        }),
        'INVALID_BODY',
      );
      const empty = await call({ method: 'POST', url: '/api/games/export/_ids' });
      t.assert.equal(empty.statusCode, 200);
      t.assert.equal(empty.body, '');

      // The current game: the ongoing game most recently changed.
      const current = await call({
        url: `/api/user/${made.ann}/current-game`,
        headers: { accept: 'application/json' },
      });
      t.assert.equal(current.statusCode, 200, current.body);
      t.assert.equal(json(current).id, g5);
      t.assert.equal((await call({ method: 'POST', url: `${BASE}/${g3}/move/e7e5` })).statusCode, 200);
      t.assert.equal(gameIdOf((await call(`/api/user/${made.ann}/current-game`)).body), g3);
      assertError(await call(`/api/user/${made.bob}/current-game`), 'GAME_NOT_FOUND');
    });

    test('bad parameters are 400 INVALID_QUERY naming the field; exports need a token when authentication is on', async (t: TestContext) => {
      const { store, shared } = await open();
      t.after(() => store.close());
      const { call } = await makeCheckedApp(t, { store, sharedStore: shared, tokens: ['export-secret'] });
      const auth = { authorization: 'Bearer export-secret' };
      for (const [query, field] of [
        ['perfType=chess960', 'perfType'],
        ['perfType=blitz,', 'perfType'],
        ['color=green', 'color'],
        ['max=0', 'max'],
        ['since=yesterday', 'since'],
        ['sort=random', 'sort'],
        ['rated=maybe', 'rated'],
      ]) {
        assertError(await call({ url: `/api/games/user/ann?${query}`, headers: auth }), 'INVALID_QUERY', field);
      }
      const tooLong = await call({ url: `/api/games/user/${'a'.repeat(65)}`, headers: auth });
      t.assert.equal(tooLong.statusCode, 400);
      // Bounds past any creation time: no game, no error.
      t.assert.equal((await call({ url: '/api/games/user/ann?since=999999999999999', headers: auth })).body, '');
      t.assert.equal((await call({ url: '/api/games/user/ann?until=999999999999999', headers: auth })).statusCode, 200);
      for (const url of ['/api/games/user/ann', '/game/export/AbCd1234', '/api/user/ann/current-game']) {
        assertError(await call(url), 'UNAUTHORIZED');
      }
      assertError(await call({ method: 'POST', url: '/api/games/export/_ids', payload: 'AbCd1234' }), 'UNAUTHORIZED');
      t.assert.equal((await call({ url: '/api/games/user/ann', headers: auth })).statusCode, 200);
    });
  });
}

exportSuite('SQLite', async () => ({ store: SqliteGameStore.open(':memory:'), shared: false }), false);

const postgres = await databaseOfFile();
exportSuite(
  'PostgreSQL',
  async () => ({ store: await PostgresGameStore.open(postgres.url()), shared: true }),
  postgres.skip,
);
