/**
 * The operational routes of DECISIONS §12 (GET /openapi.json, /docs, /healthz, /readyz) and the INTERNAL and
 * UNAVAILABLE errors, which need a store that fails.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test, type TestContext } from 'node:test';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import { storeWith } from '../helpers/store.ts';
import type { GameStore } from '../../src/store/store.ts';
import { FirstMoveEngine } from '../helpers/engine.ts';
import {
  appOfFile,
  assertError,
  json,
  makeCheckedApp,
  mediaType,
  responseChecker,
  type CheckedTestApp,
} from '../helpers/app.ts';

/** The tests of the default app only read it: one app serves them all. */
const fileApp = appOfFile();

const OPERATIONS: Array<[string, string, string]> = [
  ['createGame', 'post', '/api/board/game'],
  ['getGame', 'get', '/api/board/game/{gameId}'],
  ['resignGame', 'post', '/api/board/game/{gameId}/resign'],
  ['makeMove', 'post', '/api/board/game/{gameId}/move/{uci}'],
  ['getLegalMoves', 'get', '/api/board/game/{gameId}/moves'],
  ['undoMove', 'post', '/api/board/game/{gameId}/undo'],
  ['redoMove', 'post', '/api/board/game/{gameId}/redo'],
  ['drawAction', 'post', '/api/board/game/{gameId}/draw/{action}'],
  ['importFen', 'post', '/api/board/game/import/fen'],
  ['importPgn', 'post', '/api/board/game/import/pgn'],
  ['exportFen', 'get', '/api/board/game/{gameId}/export/fen'],
  ['exportPgn', 'get', '/api/board/game/{gameId}/export/pgn'],
];

const SUCCESS: Record<string, [string, string, string]> = {
  createGame: ['201', 'application/json', '#/components/schemas/GameFull'],
  getGame: ['200', 'application/json', '#/components/schemas/GameFull'],
  resignGame: ['200', 'application/json', '#/components/schemas/OkResponse'],
  makeMove: ['200', 'application/json', '#/components/schemas/GameState'],
  getLegalMoves: ['200', 'application/json', '#/components/schemas/LegalMovesResponse'],
  undoMove: ['200', 'application/json', '#/components/schemas/GameState'],
  redoMove: ['200', 'application/json', '#/components/schemas/GameState'],
  drawAction: ['200', 'application/json', '#/components/schemas/OkResponse'],
  importFen: ['201', 'application/json', '#/components/schemas/GameFull'],
  importPgn: ['201', 'application/json', '#/components/schemas/GameFull'],
  exportFen: ['200', 'text/plain', ''],
  exportPgn: ['200', 'application/x-chess-pgn', ''],
};

test('the license (DECISIONS §19): AGPL-3.0-or-later in LICENSE, package.json and its lock', () => {
  const read = (name: string) => readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8');
  assert.match(read('LICENSE'), /^GNU AFFERO GENERAL PUBLIC LICENSE\s+Version 3, 19 November 2007/);
  assert.equal(JSON.parse(read('package.json')).license, 'AGPL-3.0-or-later');
  assert.equal(JSON.parse(read('package-lock.json')).packages[''].license, 'AGPL-3.0-or-later');
});

/** A real store whose `failing` methods reject with `error`, to reach the 5xx paths. */
function failingStore(real: GameStore, failing: Array<Exclude<keyof GameStore, 'close'>>, error: Error): GameStore {
  return storeWith(real, Object.fromEntries(failing.map(name => [name, () => Promise.reject(error)])));
}

test('GET /openapi.json: OpenAPI 3, version 1.0.0, every operationId of the spec at its method and path', async (t: TestContext) => {
  const { call } = await fileApp();
  const res = await call('/openapi.json');
  t.assert.equal(res.statusCode, 200);
  t.assert.equal(mediaType(res), 'application/json');
  const doc = json(res);
  t.assert.match(doc.openapi, /^3\./);
  t.assert.equal(doc.info.version, '1.0.0');
  t.assert.equal(doc.info.license.name, 'AGPL-3.0-or-later');
  const found = new Map<string, string>();
  for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      if (op.operationId) {
        t.assert.equal(found.has(op.operationId), false, `operationId ${op.operationId} is unique`);
        found.set(op.operationId, `${method} ${path}`);
      }
    }
  }
  for (const [operationId, method, path] of OPERATIONS) {
    t.assert.equal(found.get(operationId), `${method} ${path}`, operationId);
    const op = doc.paths[path][method];
    t.assert.deepEqual(op.security, [{ bearerAuth: [] }], `${operationId} declares bearer authentication`);
    const [status, media, ref] = SUCCESS[operationId]!;
    const content = op.responses[status]?.content;
    t.assert.ok(content?.[media], `${operationId} answers ${status} ${media}`);
    if (ref) t.assert.equal(content[media].schema.$ref, ref, operationId);
    if (path.includes('{gameId}')) t.assert.ok(op.responses['404'], `${operationId} declares 404`);
  }
  const { bearerAuth, serviceToken } = doc.components.securitySchemes;
  t.assert.deepEqual([bearerAuth.type, bearerAuth.scheme], ['http', 'bearer']);
  t.assert.deepEqual([serviceToken.type, serviceToken.scheme], ['http', 'bearer']);
});

test('GET /openapi.json: parameters, request bodies and schemas match the spec', async (t: TestContext) => {
  const { call } = await fileApp();
  const doc = json(await call('/openapi.json'));
  const param = (path: string, method: string, name: string) =>
    doc.paths[path][method].parameters.find((p: any) => p.name === name);
  t.assert.equal(param('/api/board/game/{gameId}', 'get', 'gameId').schema.pattern, '^[A-Za-z0-9]{8}$');
  t.assert.equal(
    param('/api/board/game/{gameId}/move/{uci}', 'post', 'uci').schema.pattern,
    '^[a-h][1-8][a-h][1-8][qrbn]?$',
  );
  const action = param('/api/board/game/{gameId}/draw/{action}', 'post', 'action').schema;
  t.assert.deepEqual([...action.enum].sort(), ['accept', 'claim', 'decline', 'offer']);
  const square = param('/api/board/game/{gameId}/moves', 'get', 'square');
  t.assert.equal(square.in, 'query');
  t.assert.equal(square.required, false);
  t.assert.match('e2', new RegExp(square.schema.pattern));
  t.assert.doesNotMatch('e9', new RegExp(square.schema.pattern));

  t.assert.equal(doc.paths['/api/board/game'].post.requestBody.required, false);
  t.assert.equal(doc.paths['/api/board/game/import/fen'].post.requestBody.required, true);
  t.assert.equal(doc.paths['/api/board/game/import/pgn'].post.requestBody.required, true);

  const schemas = doc.components.schemas;
  const required = (name: string) => [...schemas[name].required].sort();
  t.assert.deepEqual(required('PlayerInfo'), ['displayName', 'id']);
  t.assert.deepEqual(required('GameFull'), ['black', 'clock', 'gameId', 'state', 'white']);
  t.assert.deepEqual(required('GameState'), [
    'drawOfferedBy',
    'fen',
    'moves',
    'pgn',
    'redoAvailable',
    'status',
    'takebackOfferedBy',
    'turn',
    'undoAvailable',
    'winner',
  ]);
  t.assert.deepEqual(required('LegalMovesResponse'), ['moves']);
  t.assert.deepEqual(required('LegalMove'), ['from', 'moveType', 'promotion', 'to', 'uci']);
  t.assert.deepEqual(required('OkResponse'), ['ok']);
  t.assert.deepEqual(required('ApiError'), ['code', 'message']);
  t.assert.deepEqual(required('ImportFenRequest'), ['fen']);
  t.assert.deepEqual(required('ImportPgnRequest'), ['pgn']);
  // The spec's ten, the two of clocked games (DECISIONS §14), and a claim after the opponent left (§17).
  t.assert.deepEqual([...schemas.GameStatus.enum].sort(), [
    'aborted',
    'check',
    'checkmate',
    'draw',
    'drawOffered',
    'fiftyMoveAvailable',
    'insufficientMaterial',
    'outOfTime',
    'promotionPending',
    'resign',
    'stalemate',
    'started',
    'timeout',
  ]);
  t.assert.deepEqual([...schemas.LegalMove.properties.moveType.enum].sort(), [
    'capture',
    'castleKingside',
    'castleQueenside',
    'enPassant',
    'normal',
    'promotion',
  ]);
});

test("GET /openapi.json: every error response is declared as application/json, streams' too", async (t: TestContext) => {
  const { call } = await fileApp();
  const doc = json(await call('/openapi.json'));
  const wrong: string[] = [];
  for (const path of Object.keys(doc.paths)) {
    for (const [method, op] of Object.entries<any>(doc.paths[path])) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400 || !response.content) continue;
        const types = Object.keys(response.content);
        if (types.length !== 1 || types[0] !== 'application/json') {
          wrong.push(`${method.toUpperCase()} ${path} ${status}: ${types.join(', ')}`);
        }
      }
    }
  }
  t.assert.deepEqual(wrong, []);
});

test('the response checker resolves schema references and rejects bodies that do not match', async (t: TestContext) => {
  const { app } = await fileApp();
  const checker = await responseChecker(app);
  const state = {
    fen: '8/8/8/8/8/8/8/K6k w - - 0 1',
    pgn: '',
    turn: 'white',
    status: 'insufficientMaterial',
    winner: null,
    moves: [],
    undoAvailable: false,
    redoAvailable: false,
    drawOfferedBy: null,
    takebackOfferedBy: null,
  };
  const full = {
    gameId: 'AbCd1234',
    white: { id: 'a', displayName: 'A' },
    black: { id: 'b', displayName: 'B' },
    state,
    clock: null,
  };
  t.assert.equal(checker.schemaErrors(checker.schema('GameFull'), full), undefined);
  t.assert.equal(checker.schemaErrors(checker.schema('GameState'), { ...state, winner: 'black' }), undefined);
  const bad: unknown[] = [
    { ...full, gameId: 'short' },
    { ...full, white: { id: 'a' } },
    { ...full, state: { ...state, status: 'finished' } },
    { ...full, state: { ...state, winner: 'nobody' } },
    { ...full, state: { ...state, moves: 'e2e4' } },
    { ...full, state: { ...state, undoAvailable: undefined } },
  ];
  for (const body of bad) t.assert.notEqual(checker.schemaErrors(checker.schema('GameFull'), body), undefined);
  t.assert.notEqual(checker.schemaErrors(checker.schema('ApiError'), { code: 'NOPE', message: 'x' }), undefined);
  t.assert.notEqual(checker.schemaErrors(checker.schema('OkResponse'), { ok: false }), undefined);
  const move = { from: 'a7', to: 'a8', uci: 'a7a8q', moveType: 'promotion', promotion: 'queen' };
  t.assert.equal(checker.schemaErrors(checker.schema('LegalMove'), move), undefined);
  t.assert.equal(checker.schemaErrors(checker.schema('LegalMove'), { ...move, promotion: null }), undefined);
  t.assert.notEqual(checker.schemaErrors(checker.schema('LegalMove'), { ...move, promotion: 'king' }), undefined);
  t.assert.notEqual(checker.schemaErrors(checker.schema('LegalMove'), { ...move, moveType: 'jump' }), undefined);
});

test('GET /docs serves the documentation page', async (t: TestContext) => {
  const { app } = await fileApp();
  let res = await app.inject('/docs');
  for (let hops = 0; res.statusCode >= 300 && res.statusCode < 400 && hops < 3; hops++) {
    res = await app.inject(new URL(String(res.headers.location), 'http://localhost/docs').pathname);
  }
  t.assert.equal(res.statusCode, 200);
  t.assert.equal(mediaType(res), 'text/html');
  t.assert.match(res.body, /<html/i);
});

test('GET /healthz and GET /readyz answer 200 while the store is reachable', async (t: TestContext) => {
  const { call } = await fileApp();
  for (const url of ['/healthz', '/readyz']) {
    const res = await call(url);
    t.assert.equal(res.statusCode, 200, url);
    t.assert.equal(mediaType(res), 'application/json', url);
  }
});

test('GET /readyz is 503 UNAVAILABLE when the store ping fails; /healthz stays 200', async (t: TestContext) => {
  const real = SqliteGameStore.open(':memory:');
  t.after(() => real.close());
  const error = new Error('connection refused by db-host-7:5432');
  const rejecting = failingStore(real, ['ping'], error);
  const throwing: GameStore = {
    ...rejecting,
    ping: () => {
      throw error;
    },
  };
  for (const store of [rejecting, throwing]) {
    const { call } = await makeCheckedApp(t, { store });
    const res = await call('/readyz');
    const body = assertError(res, 'UNAVAILABLE');
    t.assert.doesNotMatch(body.message, /db-host|5432|refused/);
    t.assert.equal((await call('/healthz')).statusCode, 200);
    // The game routes still work against the real store behind it.
    t.assert.equal((await call({ method: 'POST', url: '/api/board/game' })).statusCode, 201);
  }
});

test('INTERNAL (500) without internals when the store fails unexpectedly', async (t: TestContext) => {
  const real = SqliteGameStore.open(':memory:');
  t.after(() => real.close());
  const error = new Error('SQLITE_CORRUPT at /var/lib/secret-path/chess.sqlite');
  const readFails = await makeCheckedApp(t, { store: failingStore(real, ['get'], error) });
  const created = await readFails.call({ method: 'POST', url: '/api/board/game' });
  t.assert.equal(created.statusCode, 201);
  const id = json(created).gameId;
  // A fresh service on the failing store has no cache: reading the game reaches the store.
  const coldApp = await makeCheckedApp(t, { store: failingStore(real, ['get'], error) });
  for (const url of [`/api/board/game/${id}`, `/api/board/game/${id}/moves`, `/api/board/game/${id}/export/pgn`]) {
    const body = assertError(await coldApp.call(url), 'INTERNAL');
    t.assert.doesNotMatch(body.message, /SQLITE|secret|\/var\//);
  }
  const writeFails = await makeCheckedApp(t, { store: failingStore(real, ['update'], error) });
  const move = await writeFails.call({ method: 'POST', url: `/api/board/game/${id}/move/e2e4` });
  t.assert.doesNotMatch(assertError(move, 'INTERNAL').message, /SQLITE|secret|\/var\//);
  const createFails = await makeCheckedApp(t, { store: failingStore(real, ['create'], error) });
  const create = await createFails.call({ method: 'POST', url: '/api/board/game' });
  t.assert.doesNotMatch(assertError(create, 'INTERNAL').message, /SQLITE|secret|\/var\//);
  // Nothing was half-applied.
  t.assert.deepEqual((await real.get(id))!.moves, []);
});

test('GET /openapi.json: the player operations (DECISIONS §13), their security and their 403 answers', async (t: TestContext) => {
  const { call } = await fileApp();
  const doc = json(await call('/openapi.json'));
  const operations: Array<[string, string, string, string, string]> = [
    ['takebackAction', 'post', '/api/board/game/{gameId}/takeback/{action}', '200', 'OkResponse'],
    ['createToken', 'post', '/api/tokens', '201', 'IssuedToken'],
    ['listTokens', 'get', '/api/tokens', '200', 'TokenList'],
    ['revokeToken', 'delete', '/api/tokens/{id}', '200', 'OkResponse'],
    ['getAccount', 'get', '/api/account', '200', 'Account'],
  ];
  for (const [operationId, method, path, status, schema] of operations) {
    const op = doc.paths[path]?.[method];
    t.assert.equal(op?.operationId, operationId, `${method} ${path}`);
    t.assert.equal(op.responses[status].content['application/json'].schema.$ref, `#/components/schemas/${schema}`);
  }
  const tokenOps = operations.filter(([, , path]) => path.startsWith('/api/tokens'));
  for (const [operationId, method, path] of tokenOps) {
    const op = doc.paths[path][method];
    t.assert.deepEqual(op.security, [{ serviceToken: [] }], `${operationId} needs a service token`);
    t.assert.ok(op.responses['403'], `${operationId} declares 403`);
  }
  // Every change and creation may be refused to a player for their seat; reads may not, but for the players' chat.
  for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      if (!path.startsWith('/api/board/game')) continue;
      const refusable = method === 'post' || path.endsWith('/{gameId}/chat');
      t.assert.equal(Boolean(op.responses['403']), refusable, `${method} ${path}: 403 only for changes`);
    }
  }
  const action = doc.paths['/api/board/game/{gameId}/takeback/{action}'].post.parameters.find(
    (p: any) => p.name === 'action',
  );
  t.assert.deepEqual([...action.schema.enum].sort(), ['accept', 'decline', 'offer']);
  const state = doc.components.schemas.GameState;
  for (const field of ['drawOfferedBy', 'takebackOfferedBy']) {
    t.assert.ok(state.required.includes(field), `${field} is always present`);
  }
});

test('GET /openapi.json: clocks (DECISIONS §14): the clock of requests and answers, its state fields, abortGame', async (t: TestContext) => {
  const { call } = await fileApp();
  const doc = json(await call('/openapi.json'));
  const schemas = doc.components.schemas;
  for (const request of ['CreateGameRequest', 'ImportFenRequest', 'ImportPgnRequest']) {
    t.assert.equal(schemas[request].properties.clock.$ref, '#/components/schemas/ClockRequest', request);
  }
  // One of its two forms, each with its fields required (DECISIONS §19).
  t.assert.deepEqual(schemas.ClockRequest.oneOf, [
    { $ref: '#/components/schemas/RealTimeClock' },
    { $ref: '#/components/schemas/CorrespondenceClock' },
  ]);
  t.assert.deepEqual([...schemas.RealTimeClock.required].sort(), ['increment', 'initial']);
  t.assert.deepEqual(schemas.CorrespondenceClock.required, ['daysPerMove']);
  t.assert.deepEqual(
    [schemas.RealTimeClock.properties.initial.minimum, schemas.RealTimeClock.properties.initial.maximum],
    [1_000, 10_800_000],
  );
  t.assert.ok(schemas.GameFull.required.includes('clock'));
  for (const field of ['wtime', 'btime', 'winc', 'binc', 'serverTime', 'deadline']) {
    t.assert.ok(schemas.GameState.properties[field], field);
    t.assert.equal(schemas.GameState.required.includes(field), false, `${field} is only in clocked games' states`);
  }
  const abort = doc.paths['/api/board/game/{gameId}/abort'].post;
  t.assert.equal(abort.operationId, 'abortGame');
  t.assert.equal(abort.responses['200'].content['application/json'].schema.$ref, '#/components/schemas/OkResponse');
  t.assert.ok(abort.responses['400'] && abort.responses['403'] && abort.responses['404']);
});

test("GET /openapi.json: a player's games (DECISIONS §13): listGames and streamEvents", async (t: TestContext) => {
  const { call } = await fileApp();
  const doc = json(await call('/openapi.json'));
  const list = doc.paths['/api/board/game'].get;
  t.assert.equal(list.operationId, 'listGames');
  t.assert.equal(list.responses['200'].content['application/json'].schema.$ref, '#/components/schemas/GamePage');
  t.assert.deepEqual(list.parameters.map((p: any) => p.name).sort(), ['cursor', 'limit', 'player', 'status']);
  t.assert.deepEqual([...list.parameters.find((p: any) => p.name === 'status').schema.enum].sort(), [
    'all',
    'ended',
    'ongoing',
  ]);
  t.assert.deepEqual([...doc.components.schemas.GamePage.required].sort(), ['games', 'nextCursor']);
  const events = doc.paths['/api/stream/event'].get;
  t.assert.equal(events.operationId, 'streamEvents');
  t.assert.ok(events.responses['200'].content['application/x-ndjson']);
  t.assert.deepEqual(
    events.parameters.map((p: any) => p.name),
    ['player'],
  );
  t.assert.ok(events.responses['400'] && events.responses['401'] && events.responses['429']);
  t.assert.ok(events.responses['403'], "a player token naming another player's events");
});

/** Every schema object of the document, with where it is. */
function* schemasOf(node: unknown, where = '#'): Generator<[string, Record<string, any>]> {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* schemasOf(item, `${where}/${i}`);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  yield [where, node as Record<string, any>];
  for (const [key, value] of Object.entries(node)) yield* schemasOf(value, `${where}/${key}`);
}

test('GET /openapi.json (DECISIONS §19): servers, license, security, and what every operation can answer', async (t: TestContext) => {
  const { call } = await fileApp();
  const doc = json(await call('/openapi.json'));
  t.assert.equal(doc.openapi, '3.0.3');
  t.assert.deepEqual(
    doc.servers.map((server: any) => server.url),
    ['/'],
  );
  t.assert.equal(doc.info.license.name, 'AGPL-3.0-or-later');
  const missing: string[] = [];
  for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      const where = `${method.toUpperCase()} ${path}`;
      const open = where === 'POST /api/token/test'; // needs no token, as on lichess: security [], never 401
      if (!Array.isArray(op.security) || (op.security.length === 0) !== open) missing.push(`${where}: security`);
      if (open && op.responses['401']) missing.push(`${where}: 401`);
      const expected = [...(open ? [] : ['401']), '429', '500', '503'];
      if (method !== 'get') expected.push('400', '413', '415');
      if (path.includes('{')) expected.push('404');
      for (const status of expected) if (!op.responses[status]) missing.push(`${where}: ${status}`);
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (!response.description || response.description === 'Default Response') {
          missing.push(`${where}: ${status} description`);
        }
      }
    }
  }
  t.assert.deepEqual(missing, []);
  const published = await makeCheckedApp(t, { publicUrl: 'https://chess.example.org/' });
  const under = json(await published.call('/openapi.json'));
  t.assert.deepEqual(
    under.servers.map((server: any) => server.url),
    ['https://chess.example.org'],
  );
});

test('GET /openapi.json (DECISIONS §19): OpenAPI 3.0 only, integers as integers, patterns every engine reads', async (t: TestContext) => {
  const { call } = await fileApp();
  const doc = json(await call('/openapi.json'));
  const found: string[] = [];
  for (const [where, schema] of schemasOf(doc)) {
    for (const keyword of ['contentMediaType', 'const', 'prefixItems', '$defs', 'unevaluatedProperties']) {
      if (keyword in schema && !where.endsWith('/properties')) found.push(`${where}: ${keyword}`);
    }
    if (Array.isArray(schema.type)) found.push(`${where}: type is a list`);
    if (typeof schema.pattern === 'string') {
      // Read the same by JavaScript without the u flag (and so by Python, Rust, Go...): no \p{...}, no surrogates.
      if (/\\p\{|\\u[dD][89a-fA-F]/.test(schema.pattern)) found.push(`${where}: pattern ${schema.pattern}`);
      t.assert.doesNotThrow(() => new RegExp(schema.pattern), where);
    }
  }
  t.assert.deepEqual(found, []);
  const name = new RegExp(doc.components.schemas.PlayerInfo.properties.displayName.pattern);
  for (const good of ['Capablanca', 'José Raúl', '谢军', 'Magnus 🐐']) t.assert.match(good, name);
  for (const bad of ['tab\there', 'bell\u0007', 'del\u007f', 'next\u0085line']) t.assert.doesNotMatch(bad, name);
  const limit = doc.paths['/api/board/game'].get.parameters.find((p: any) => p.name === 'limit').schema;
  t.assert.deepEqual([limit.type, limit.minimum, limit.maximum], ['integer', 1, 100]);
  const nb = doc.paths['/api/account/playing'].get.parameters.find((p: any) => p.name === 'nb').schema;
  t.assert.equal(nb.type, 'integer');
});

test('GET /openapi.json (DECISIONS §19): every NDJSON line is a schema, a oneOf told apart by its type', async (t: TestContext) => {
  const { call } = await fileApp();
  const doc = json(await call('/openapi.json'));
  const schemas = doc.components.schemas;
  const streams: Array<[string, string, string, string[]]> = [
    ['get', '/api/board/game/{gameId}/stream', 'GameStreamEvent', ['error', 'gameFull', 'gameState']],
    [
      'get',
      '/api/stream/event',
      'PlayerStreamEvent',
      ['challenge', 'challengeCanceled', 'challengeDeclined', 'error', 'gameFinish', 'gameStart'],
    ],
    [
      'get',
      '/api/board/game/stream/{gameId}',
      'LichessGameStreamEvent',
      ['chatLine', 'error', 'gameFull', 'gameState', 'opponentGone'],
    ],
    [
      'get',
      '/api/bot/game/stream/{gameId}',
      'LichessGameStreamEvent',
      ['chatLine', 'error', 'gameFull', 'gameState', 'opponentGone'],
    ],
  ];
  for (const [method, path, name, types] of streams) {
    const answer = doc.paths[path][method].responses['200'].content;
    t.assert.deepEqual(Object.keys(answer), ['application/x-ndjson'], path);
    t.assert.equal(answer['application/x-ndjson'].schema.$ref, `#/components/schemas/${name}`, path);
    const union = schemas[name];
    t.assert.equal(union.discriminator.propertyName, 'type', name);
    t.assert.deepEqual(Object.keys(union.discriminator.mapping).sort(), types, name);
    t.assert.equal(union.oneOf.length, types.length, name);
    for (const [type, target] of Object.entries<string>(union.discriminator.mapping)) {
      t.assert.ok(
        union.oneOf.some((option: any) => option.$ref === target),
        `${name}: ${type} is one of its options`,
      );
      const event = schemas[target.split('/').at(-1)!];
      t.assert.deepEqual(event.properties.type.enum, [type], `${target}: type`);
      t.assert.ok(event.required.includes('type'), `${target}: type is required`);
    }
  }
  const online = doc.paths['/api/bot/online'].get.responses['200'].content['application/x-ndjson'].schema;
  t.assert.equal(online.$ref, '#/components/schemas/BotOnlineUser');
});

test('GET /openapi.json: each app serves its own document, though apps alike share one made once', async (t: TestContext) => {
  // Kinds of app whose documents differ (their routes, their servers), made in turn, twice each.
  const kinds: Array<[string, () => Promise<CheckedTestApp>]> = [
    ['default', () => makeCheckedApp(t)],
    ['public URL', () => makeCheckedApp(t, { publicUrl: 'https://chess.example/service' })],
    ['accounts', () => makeCheckedApp(t, { accounts: true })],
    ['computer', () => makeCheckedApp(t, { engine: new FirstMoveEngine() })],
  ];
  const served = new Map<string, string>();
  for (const round of [1, 2]) {
    for (const [kind, make] of kinds) {
      const { app } = await make();
      const res = await app.inject('/openapi.json');
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(res.body, JSON.stringify(app.swagger()), `${kind}, round ${round}: not its own document`);
      if (round === 1) served.set(kind, res.body);
      else assert.equal(res.body, served.get(kind), `${kind}: not the same document as its first app`);
    }
  }
  assert.equal(new Set(served.values()).size, kinds.length, 'the kinds of app document different things');
});
