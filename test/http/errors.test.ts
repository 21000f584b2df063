/**
 * Every error the HTTP layer gives today (DECISIONS §1), with its status and `field`, the order of checks of
 * DECISIONS §4, and that a rejected request changes nothing: the game reads the same before and after, and its
 * stored version does not move. Every response is also checked against the OpenAPI document by `call`.
 */
import { test, type TestContext } from 'node:test';
import type { GameStore } from '../../src/store/store.ts';
import {
  appOfFile,
  assertApiError,
  assertError,
  gameWithMoves,
  importFen,
  json,
  snapshotGame,
  type Inject,
} from '../helpers/app.ts';
import type { ErrorCode } from '../../src/contract/vocabulary.ts';

/** The tests each play games of their own: one app serves them all. */
const fileApp = appOfFile();

const game = (id: string) => `/api/board/game/${id}`;
const UNKNOWN_ID = 'ZZZZ9999';

/** The routes that take a gameId, each with a request that would otherwise succeed on a new game. */
const GAME_ROUTES: Array<{ name: string; method: 'GET' | 'POST'; path: (id: string) => string }> = [
  { name: 'getGame', method: 'GET', path: id => game(id) },
  { name: 'resignGame', method: 'POST', path: id => `${game(id)}/resign` },
  { name: 'makeMove', method: 'POST', path: id => `${game(id)}/move/e2e4` },
  { name: 'getLegalMoves', method: 'GET', path: id => `${game(id)}/moves` },
  { name: 'getLegalMoves with square', method: 'GET', path: id => `${game(id)}/moves?square=e2` },
  { name: 'undoMove', method: 'POST', path: id => `${game(id)}/undo` },
  { name: 'redoMove', method: 'POST', path: id => `${game(id)}/redo` },
  { name: 'drawAction', method: 'POST', path: id => `${game(id)}/draw/offer` },
  { name: 'exportFen', method: 'GET', path: id => `${game(id)}/export/fen` },
  { name: 'exportPgn', method: 'GET', path: id => `${game(id)}/export/pgn` },
];

const MALFORMED_IDS = [
  'abc', // too short
  'abcdefg', // 7
  'abcdefghi', // 9
  'abcd_fgh',
  'abcd-fgh',
  'abcdefg%21', // 'abcdefg!'
  'abcd%C3%A9fgh', // 'abcdéfgh'
  'abc%20efgh',
  'abcdefg%20', // trailing space
  '%20bcdefgh',
];

const versionOf = async (store: GameStore, id: string) => (await store.get(id))!.version;

type Reject = (id: string, method: 'GET' | 'POST', url: string, code: ErrorCode, field?: string) => Promise<void>;

/**
 * `reject(id, method, url, code, field)` sends a request that must be rejected with `code` (and exactly `field`)
 * and checks that it changed nothing: every readable view of the game and its stored version are the same.
 */
const rejecter =
  (t: TestContext, call: Inject, store: GameStore): Reject =>
  async (id, method, url, code, field) => {
    const before = await snapshotGame(call, id);
    const version = await versionOf(store, id);
    assertError(await call({ method, url }), code, field);
    t.assert.deepEqual(await snapshotGame(call, id), before, `${method} ${url} changed the game`);
    t.assert.equal(await versionOf(store, id), version, `${method} ${url} changed the version`);
  };

test('INVALID_GAME_ID (field gameId) on every route with a gameId', async () => {
  const { call } = await fileApp();
  for (const route of GAME_ROUTES) {
    for (const bad of MALFORMED_IDS) {
      const res = await call({ method: route.method, url: route.path(bad) });
      assertError(res, 'INVALID_GAME_ID', 'gameId');
    }
  }
});

test('path parameters longer than the router limit are INVALID_GAME_ID and INVALID_UCI, not framework errors', async () => {
  const { app, call } = await fileApp();
  for (const route of GAME_ROUTES) {
    assertError(await call({ method: route.method, url: route.path('a'.repeat(101)) }), 'INVALID_GAME_ID', 'gameId');
  }
  const id = await gameWithMoves(app);
  assertError(await call({ method: 'POST', url: `${game(id)}/move/${'e2e4'.repeat(30)}` }), 'INVALID_UCI', 'uci');
  assertError(
    await call({ method: 'POST', url: `${game(id)}/draw/${'offer'.repeat(30)}` }),
    'INVALID_ACTION',
    'action',
  );
});

test('GAME_NOT_FOUND (404) on every route for a well-formed id without a game', async () => {
  const { app, call } = await fileApp();
  const existing = await gameWithMoves(app);
  const swapped = [...existing].map(c => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
  const unknown = [UNKNOWN_ID, '00000000', 'abcdefgh', ...(swapped === existing ? [] : [swapped])];
  for (const route of GAME_ROUTES) {
    for (const id of unknown) assertError(await call({ method: route.method, url: route.path(id) }), 'GAME_NOT_FOUND');
  }
});

test('order of checks: INVALID_GAME_ID, then GAME_NOT_FOUND, before any other parameter', async (t: TestContext) => {
  const { call } = await fileApp();
  const cases: Array<[string, string, string]> = [
    ['POST', '/move/zz', 'a malformed uci'],
    ['POST', '/move/e2e4qq', 'a malformed uci'],
    ['POST', '/draw/surrender', 'an unknown action'],
    ['GET', '/moves?square=z9', 'a malformed square'],
  ];
  for (const [method, suffix, what] of cases) {
    const malformed = await call({ method: method as 'GET', url: `${game('abc')}${suffix}` });
    assertError(malformed, 'INVALID_GAME_ID', 'gameId');
    const unknown = await call({ method: method as 'GET', url: `${game(UNKNOWN_ID)}${suffix}` });
    t.assert.equal(unknown.statusCode, 404, `unknown id with ${what}`);
    assertError(unknown, 'GAME_NOT_FOUND');
  }
});

test('INVALID_UCI (field uci) for a malformed move, and nothing changes', async (t: TestContext) => {
  const { app, call, store } = await fileApp();
  const reject = rejecter(t, call, store);
  const id = await gameWithMoves(app, ['e2e4', 'e7e5']);
  await call({ method: 'POST', url: `${game(id)}/undo` }); // a redo stack too
  const malformed = [
    'e2e',
    'e2e4x',
    'e2e4qq',
    'e9e4',
    'i2i4',
    'E2E4',
    'e2e4Q',
    'e7e8k',
    'e7e8p',
    'e2-e4',
    '0000',
    'e2e4%20',
    '%20e2e4',
    'O-O',
  ];
  for (const uci of malformed) {
    await reject(id, 'POST', `${game(id)}/move/${uci}`, 'INVALID_UCI', 'uci');
  }
});

test('INVALID_MOVE (field uci) for a well-formed illegal move, and nothing changes', async (t: TestContext) => {
  const { app, call, store } = await fileApp();
  const reject = rejecter(t, call, store);
  const initial = await gameWithMoves(app);
  for (const uci of ['e2e5', 'e7e5', 'e3e4', 'e1g1', 'g1g3', 'a1a3', 'e2e4q', 'e2e3n']) {
    await reject(initial, 'POST', `${game(initial)}/move/${uci}`, 'INVALID_MOVE', 'uci');
  }
  // Castling is only the king's two-square move.
  const castling = await importFen(app, 'r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1');
  for (const uci of ['e1h1', 'e1a1', 'e1g1q']) {
    await reject(castling, 'POST', `${game(castling)}/move/${uci}`, 'INVALID_MOVE', 'uci');
  }
  // A pinned piece, a king walking into check, a promotion to a square the pawn cannot reach.
  const cases: Array<[string, string]> = [
    ['4r2k/8/8/8/8/8/4N3/4K3 w - - 0 1', 'e2c3'],
    ['4r2k/8/8/8/8/8/4N3/4K3 w - - 0 1', 'e2g1'],
    ['4r2k/8/8/8/8/8/8/3K4 w - - 0 1', 'd1e1'],
    ['4r2k/8/8/8/8/8/8/3K4 w - - 0 1', 'd1e2'],
    ['8/P6k/8/8/8/8/8/K7 w - - 0 1', 'a7b8q'],
    ['8/P6k/8/8/8/8/8/K7 w - - 0 1', 'a7a6'],
  ];
  for (const [fen, uci] of cases) {
    const id = await importFen(app, fen);
    await reject(id, 'POST', `${game(id)}/move/${uci}`, 'INVALID_MOVE', 'uci');
  }
});

test('INVALID_SQUARE (field square) for a malformed square, and nothing changes', async (t: TestContext) => {
  const { app, call, store } = await fileApp();
  const reject = rejecter(t, call, store);
  const id = await gameWithMoves(app, ['e2e4']);
  for (const square of ['e9', 'i1', 'E2', 'e', '2e', 'e22', 'e2e4', '%20e2', 'e2%20', 'a0', 'square=e2']) {
    await reject(id, 'GET', `${game(id)}/moves?square=${square}`, 'INVALID_SQUARE', 'square');
  }
  assertError(await call(`${game(id)}/moves?square=e2&square=e4`), 'INVALID_SQUARE', 'square');
});

test('INVALID_ACTION (field action) for an unknown draw action, and nothing changes', async (t: TestContext) => {
  const { app, call, store } = await fileApp();
  const reject = rejecter(t, call, store);
  const id = await gameWithMoves(app, ['e2e4']);
  for (const action of ['foo', 'OFFER', 'Offer', 'resign', 'offer%20', 'offers', 'propose']) {
    await reject(id, 'POST', `${game(id)}/draw/${action}`, 'INVALID_ACTION', 'action');
  }
});

test('order of checks on an ended game: malformed input first, then GAME_OVER, then legality', async (t: TestContext) => {
  const { app, call, store } = await fileApp();
  const reject = rejecter(t, call, store);
  const resigned = await gameWithMoves(app, ['e2e4']);
  await call({ method: 'POST', url: `${game(resigned)}/resign` });
  const mated = await gameWithMoves(app, ['f2f3', 'e7e5', 'g2g4', 'd8h4']);
  for (const id of [resigned, mated]) {
    await reject(id, 'POST', `${game(id)}/move/zz`, 'INVALID_UCI', 'uci');
    // GAME_OVER before INVALID_MOVE: an illegal move and a move legal in the position are both GAME_OVER.
    for (const uci of ['e2e5', 'a7a6', 'a2a3', 'h7h6']) {
      await reject(id, 'POST', `${game(id)}/move/${uci}`, 'GAME_OVER');
    }
    await reject(id, 'POST', `${game(id)}/draw/foo`, 'INVALID_ACTION', 'action');
    await reject(id, 'GET', `${game(id)}/moves?square=z9`, 'INVALID_SQUARE', 'square');
  }
});

test('GAME_OVER for every change after resignation, an agreed draw and a claimed draw', async (t: TestContext) => {
  const { app, call, store } = await fileApp();
  const reject = rejecter(t, call, store);
  const resigned = await gameWithMoves(app, ['e2e4', 'e7e5']);
  await call({ method: 'POST', url: `${game(resigned)}/undo` });
  await call({ method: 'POST', url: `${game(resigned)}/resign` });
  const agreed = await gameWithMoves(app, ['e2e4', 'e7e5']);
  await call({ method: 'POST', url: `${game(agreed)}/undo` });
  await call({ method: 'POST', url: `${game(agreed)}/draw/offer` });
  await call({ method: 'POST', url: `${game(agreed)}/draw/accept` });
  const claimed = await importFen(app, '7k/8/8/8/8/8/8/K5R1 w - - 100 80');
  await call({ method: 'POST', url: `${game(claimed)}/draw/claim` });
  for (const id of [resigned, agreed, claimed]) {
    t.assert.ok(['resign', 'draw'].includes(json(await call(game(id))).state.status));
    const suffixes = ['/move/e7e5', '/move/g1g2', '/resign', '/undo', '/redo'];
    for (const action of ['offer', 'accept', 'decline', 'claim']) suffixes.push(`/draw/${action}`);
    for (const suffix of suffixes) {
      await reject(id, 'POST', `${game(id)}${suffix}`, 'GAME_OVER');
    }
  }
});

test('GAME_OVER after a position end (checkmate, stalemate) for moves, resignation and draws; undo still works', async (t: TestContext) => {
  const { app, call, store } = await fileApp();
  const reject = rejecter(t, call, store);
  const mated = await gameWithMoves(app, ['f2f3', 'e7e5', 'g2g4', 'd8h4']);
  const stalemated = await importFen(app, '7k/5Q2/6K1/8/8/8/8/8 b - - 0 1');
  for (const id of [mated, stalemated]) {
    for (const suffix of ['/move/a2a3', '/resign', '/draw/offer', '/draw/accept', '/draw/decline', '/draw/claim']) {
      await reject(id, 'POST', `${game(id)}${suffix}`, 'GAME_OVER');
    }
  }
  t.assert.equal((await call({ method: 'POST', url: `${game(mated)}/undo` })).statusCode, 200);
});

test('NO_UNDO and NO_REDO when there is nothing to undo or redo', async (t: TestContext) => {
  const { app, call, store } = await fileApp();
  const reject = rejecter(t, call, store);
  const fresh = await gameWithMoves(app);
  await reject(fresh, 'POST', `${game(fresh)}/undo`, 'NO_UNDO');
  await reject(fresh, 'POST', `${game(fresh)}/redo`, 'NO_REDO');
  const imported = await importFen(app, '4k3/8/8/8/8/8/4P3/4K3 w - - 0 30');
  await reject(imported, 'POST', `${game(imported)}/undo`, 'NO_UNDO');
  const played = await gameWithMoves(app, ['e2e4']);
  await reject(played, 'POST', `${game(played)}/redo`, 'NO_REDO');
  await call({ method: 'POST', url: `${game(played)}/undo` });
  await reject(played, 'POST', `${game(played)}/undo`, 'NO_UNDO');
  await call({ method: 'POST', url: `${game(played)}/redo` });
  await reject(played, 'POST', `${game(played)}/redo`, 'NO_REDO');
});

test('NO_DRAW_OFFER, DRAW_ALREADY_OFFERED and CLAIM_NOT_AVAILABLE', async (t: TestContext) => {
  const { app, call, store } = await fileApp();
  const reject = rejecter(t, call, store);
  const id = await gameWithMoves(app, ['e2e4']);
  await reject(id, 'POST', `${game(id)}/draw/accept`, 'NO_DRAW_OFFER');
  await reject(id, 'POST', `${game(id)}/draw/decline`, 'NO_DRAW_OFFER');
  await reject(id, 'POST', `${game(id)}/draw/claim`, 'CLAIM_NOT_AVAILABLE');
  await call({ method: 'POST', url: `${game(id)}/draw/offer` });
  await reject(id, 'POST', `${game(id)}/draw/offer`, 'DRAW_ALREADY_OFFERED');
  await reject(id, 'POST', `${game(id)}/draw/claim`, 'CLAIM_NOT_AVAILABLE');
  await call({ method: 'POST', url: `${game(id)}/draw/decline` });
  await reject(id, 'POST', `${game(id)}/draw/decline`, 'NO_DRAW_OFFER');
  await reject(id, 'POST', `${game(id)}/draw/accept`, 'NO_DRAW_OFFER');
  const almost = await importFen(app, '7k/8/8/8/8/8/8/K5R1 w - - 99 80');
  await reject(almost, 'POST', `${game(almost)}/draw/claim`, 'CLAIM_NOT_AVAILABLE');
});

const PLAYER = { id: 'u1', displayName: 'Someone' };

/** Bodies with a bad PlayerInfo on `side`, and the field the error must name. */
const badPlayers = (side: 'white' | 'black'): Array<[unknown, string]> => [
  [{ id: 'x' }, `${side}.displayName`],
  [{ displayName: 'x' }, `${side}.id`],
  [{}, `${side}.id`],
  [{ id: '', displayName: 'x' }, `${side}.id`],
  [{ id: 'x', displayName: '' }, `${side}.displayName`],
  [{ id: 'i'.repeat(65), displayName: 'x' }, `${side}.id`],
  [{ id: 'x', displayName: 'd'.repeat(101) }, `${side}.displayName`],
  [{ id: 'x', displayName: '😀'.repeat(101) }, `${side}.displayName`],
  [{ id: 'a\u0000b', displayName: 'x' }, `${side}.id`],
  [{ id: 'x', displayName: 'line\nbreak' }, `${side}.displayName`],
  [{ id: 'x', displayName: 'tab\there' }, `${side}.displayName`],
  [{ id: 'x', displayName: 'bell\u0007' }, `${side}.displayName`],
  [{ id: '\u001f', displayName: 'x' }, `${side}.id`],
  [{ id: 'x', displayName: 'del\u007f' }, `${side}.displayName`],
  // C1 controls and unpaired surrogates (DECISIONS §15)
  [{ id: 'x', displayName: 'next\u0085line' }, `${side}.displayName`],
  [{ id: 'x', displayName: 'csi\u009b2J' }, `${side}.displayName`],
  [{ id: 'c1\u0080', displayName: 'x' }, `${side}.id`],
  [{ id: 'x', displayName: 'high\ud800' }, `${side}.displayName`],
  [{ id: 'x', displayName: '\udc00low' }, `${side}.displayName`],
  [{ id: 'x', displayName: 'swapped\ude00\ud83d' }, `${side}.displayName`],
  [{ id: 'u\udbff', displayName: 'x' }, `${side}.id`],
  [{ id: 7, displayName: 'x' }, `${side}.id`],
  [{ id: 'x', displayName: null }, `${side}.displayName`],
  [{ id: 'x', displayName: ['a'] }, `${side}.displayName`],
  ['someone', side],
  [42, side],
  [null, side],
  [['x'], side],
];

test('INVALID_BODY with the field of a bad PlayerInfo on createGame and importFen', async () => {
  const { call } = await fileApp();
  const fen = '4k3/8/8/8/8/8/4P3/4K3 w - - 0 1';
  for (const side of ['white', 'black'] as const) {
    const other = side === 'white' ? 'black' : 'white';
    for (const [player, field] of badPlayers(side)) {
      const create = await call({
        method: 'POST',
        url: '/api/board/game',
        payload: { [other]: PLAYER, [side]: player },
      });
      assertError(create, 'INVALID_BODY', field);
      const fenImport = await call({
        method: 'POST',
        url: '/api/board/game/import/fen',
        payload: { fen, [other]: PLAYER, [side]: player },
      });
      assertError(fenImport, 'INVALID_BODY', field);
    }
  }
});

test('INVALID_BODY for invalid JSON and for a JSON body that is not an object', async (t: TestContext) => {
  const { call } = await fileApp();
  const bodies = ['{bad', '{"white":', "{'white':{}}", '{"a":1,}', '[]', '[{}]', '"text"', '42', 'true', 'null'];
  for (const url of ['/api/board/game', '/api/board/game/import/fen', '/api/board/game/import/pgn']) {
    for (const body of bodies) {
      if (url === '/api/board/game' && body === 'null') continue; // its own test below
      const res = await call({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body });
      t.assert.equal(res.statusCode, 400, `${url} ${body}: ${res.body}`);
      assertError(res, 'INVALID_BODY');
    }
  }
});

test('createGame: a JSON null body is not an object and not an empty body: INVALID_BODY', async () => {
  const { call } = await fileApp();
  const res = await call({
    method: 'POST',
    url: '/api/board/game',
    headers: { 'content-type': 'application/json' },
    body: 'null',
  });
  assertError(res, 'INVALID_BODY');
});

test('INVALID_BODY when a required body is missing; a wrong type of fen or pgn names the field', async () => {
  const { call } = await fileApp();
  for (const url of ['/api/board/game/import/fen', '/api/board/game/import/pgn']) {
    assertError(await call({ method: 'POST', url }), 'INVALID_BODY');
    assertError(
      await call({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body: '' }),
      'INVALID_BODY',
    );
  }
  assertError(await call({ method: 'POST', url: '/api/board/game/import/fen', payload: {} }), 'INVALID_BODY', 'fen');
  assertError(
    await call({ method: 'POST', url: '/api/board/game/import/fen', payload: { white: PLAYER } }),
    'INVALID_BODY',
    'fen',
  );
  assertError(await call({ method: 'POST', url: '/api/board/game/import/pgn', payload: {} }), 'INVALID_BODY', 'pgn');
  for (const value of [5, null, ['1. e4'], { moves: 'e4' }]) {
    const fen = await call({ method: 'POST', url: '/api/board/game/import/fen', payload: { fen: value } });
    assertError(fen, 'INVALID_FEN', 'fen');
    const pgn = await call({ method: 'POST', url: '/api/board/game/import/pgn', payload: { pgn: value } });
    assertError(pgn, 'INVALID_PGN', 'pgn');
  }
});

test('BODY_TOO_LARGE (413) above 1 MiB; exactly 1 MiB is accepted', async (t: TestContext) => {
  const { call } = await fileApp();
  const padded = (bytes: number, fields: Record<string, unknown> = {}) => {
    const base = JSON.stringify({ ...fields, pad: '' });
    return JSON.stringify({ ...fields, pad: 'x'.repeat(bytes - base.length) });
  };
  const json = { 'content-type': 'application/json' };
  const limit = 1024 * 1024;
  t.assert.equal(padded(limit).length, limit);
  const atLimit = await call({ method: 'POST', url: '/api/board/game', headers: json, body: padded(limit) });
  t.assert.equal(atLimit.statusCode, 201);
  const over = await call({ method: 'POST', url: '/api/board/game', headers: json, body: padded(limit + 1) });
  assertError(over, 'BODY_TOO_LARGE');
  const fen = await call({
    method: 'POST',
    url: '/api/board/game/import/fen',
    headers: json,
    body: padded(limit + 1, { fen: '4k3/8/8/8/8/8/4P3/4K3 w - - 0 1' }),
  });
  assertError(fen, 'BODY_TOO_LARGE');
  const pgn = await call({
    method: 'POST',
    url: '/api/board/game/import/pgn',
    headers: json,
    body: JSON.stringify({ pgn: `${'{ a comment } '.repeat(80_000)}1. e4 *` }),
  });
  assertError(pgn, 'BODY_TOO_LARGE');
});

test('UNSUPPORTED_MEDIA_TYPE (415) for a body that is not JSON', async () => {
  const { call } = await fileApp();
  const bodies: Array<[string, string]> = [
    ['text/plain', '{}'],
    ['text/plain; charset=utf-8', 'hello'],
    ['application/x-www-form-urlencoded', 'white=x'],
    ['application/xml', '<game/>'],
    ['multipart/form-data; boundary=b', '--b--'],
    ['application/x-chess-pgn', '1. e4 *'],
  ];
  for (const url of ['/api/board/game', '/api/board/game/import/fen', '/api/board/game/import/pgn']) {
    for (const [type, body] of bodies) {
      const res = await call({ method: 'POST', url, headers: { 'content-type': type }, body });
      assertError(res, 'UNSUPPORTED_MEDIA_TYPE');
    }
  }
});

test('NOT_FOUND (404) for a path that is served for no method', async (t: TestContext) => {
  const { call } = await fileApp();
  const requests: Array<[string, string]> = [
    ['GET', '/nope'],
    ['GET', '/api'],
    ['GET', '/api/board'],
    ['GET', `/api/board/game/${UNKNOWN_ID}/unknown`],
    ['POST', `/api/board/game/${UNKNOWN_ID}/move`],
    ['POST', `/api/board/game/${UNKNOWN_ID}/draw`],
    ['GET', `/api/bot/game/${UNKNOWN_ID}`],
    ['QUERY', '/nope'],
  ];
  for (const [method, url] of requests) {
    const res = await call({ method: method as 'GET', url });
    assertError(res, 'NOT_FOUND');
    t.assert.equal(res.headers.allow, undefined, `${method} ${url}`);
  }
});

test('METHOD_NOT_ALLOWED (405) with Allow for a method not served on a served path (DECISIONS §19)', async (t: TestContext) => {
  const { call } = await fileApp();
  const requests: Array<[string, string, string]> = [
    ['PATCH', '/api/board/game', 'GET, HEAD, POST'], // GET is the list of games (DECISIONS §13)
    ['DELETE', '/api/board/game', 'GET, HEAD, POST'],
    ['PUT', `/api/board/game/${UNKNOWN_ID}`, 'GET, HEAD'],
    ['POST', `/api/board/game/${UNKNOWN_ID}`, 'GET, HEAD'],
    ['GET', `/api/board/game/${UNKNOWN_ID}/resign`, 'POST'],
    ['POST', `/api/board/game/${UNKNOWN_ID}/moves`, 'GET, HEAD'],
    ['GET', '/api/board/game/import/fen', 'POST'],
    ['DELETE', '/healthz', 'GET, HEAD'],
  ];
  for (const [method, url, allow] of requests) {
    const res = await call({ method: method as 'GET', url });
    assertError(res, 'METHOD_NOT_ALLOWED');
    t.assert.equal(res.headers.allow, allow, `${method} ${url}`);
  }
  // Whatever the body and its content type: the method is judged before the body is read.
  for (const headers of [{}, { 'content-type': 'text/plain' }, { 'content-type': 'application/json' }]) {
    const res = await call({ method: 'QUERY' as 'GET', url: '/api/board/game', headers, body: '{"x": [' });
    assertError(res, 'METHOD_NOT_ALLOWED');
    t.assert.equal(res.headers.allow, 'GET, HEAD, POST');
  }
});

test('a URL the router cannot decode is answered with an ApiError too', async (t: TestContext) => {
  const { call } = await fileApp();
  for (const url of ['/api/board/game/%E0%A4%A', '/api/board/game/abcd%ZZfgh', '/%']) {
    const res = await call({ method: 'GET', url });
    t.assert.ok(res.statusCode === 400 || res.statusCode === 404, `${url}: ${res.statusCode}`);
    assertApiError(res);
  }
});

test('rejected create and import requests answer no game and leave existing games alone', async (t: TestContext) => {
  const { app, call, store } = await fileApp();
  const id = await gameWithMoves(app, ['d2d4']);
  const before = await snapshotGame(call, id);
  const version = (await store.get(id))!.version;
  const rejected = [
    { method: 'POST' as const, url: '/api/board/game', payload: { white: { id: 'x' } } },
    { method: 'POST' as const, url: '/api/board/game/import/fen', payload: { fen: 'not a fen' } },
    { method: 'POST' as const, url: '/api/board/game/import/pgn', payload: { pgn: '1. e5' } },
  ];
  for (const request of rejected) {
    const res = await call(request);
    t.assert.equal(res.statusCode, 400);
    t.assert.equal(json(res).gameId, undefined);
  }
  t.assert.deepEqual(await snapshotGame(call, id), before);
  t.assert.equal((await store.get(id))!.version, version);
});
