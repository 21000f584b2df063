/**
 * Property and fuzz tests against the HTTP app: random and mutated UCI strings, squares, game ids, FENs
 * (mutations of valid ones), PGNs (mutations of valid games and fixtures), JSON bodies of wrong shapes and
 * types, random bytes with random content types, random sequences of operations and random Authorization
 * headers. Every answer is 2xx or an ApiError 4xx whose status matches its code, never 5xx; a 2xx matches the
 * OpenAPI document; after every 4xx the game reads byte-identical and no game was created.
 *
 * FUZZ_RUNS (default 2,500) sets the runs of each property; `npm run soak` runs many rounds with new seeds.
 * A failure prints the seed: FUZZ_SEED=<seed> replays it.
 */
import { after, test, type TestContext } from 'node:test';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { json } from '../helpers/app.ts';
import {
  BASE,
  CONTENT_TYPES,
  GAME_RECIPES,
  GamePool,
  RUNS,
  apiBody,
  chars,
  describeRequest,
  contentType,
  encoding,
  fenText,
  idText,
  inPath,
  makeFuzzApp,
  mutationsOf,
  params,
  pgnText,
  RAW_REQUESTS,
  rawExchange,
  assertRawAnswer,
  send,
  sendAbout,
  sendCreating,
  squareText,
  uciText,
  wellFormedUci,
  type FuzzApp,
} from './fuzzKit.ts';
import { type ErrorCode, GAME_ID_PATTERN, SQUARE_PATTERN, UCI_PATTERN } from '../../src/contract/vocabulary.ts';
import type { GameState } from '../../src/contract/shapes.ts';

const UCI = new RegExp(UCI_PATTERN);
const SQUARE = new RegExp(SQUARE_PATTERN);
const GAME_ID = new RegExp(GAME_ID_PATTERN);

/**
 * '.' and '..' are dot segments: every URL parser removes them (encoded or not), so the route changes, and the path
 * it becomes may be one the service serves for other methods only (`POST /api/board/game/./redo` is
 * `POST /api/board/game/redo`, a game id's GET path): METHOD_NOT_ALLOWED (DECISIONS §19).
 */
const isDotSegment = (text: string) => text === '.' || text === '..';

const codeOf = (res: LightMyRequestResponse): ErrorCode | undefined =>
  res.statusCode >= 400 ? (json(res).code as ErrorCode) : undefined;

/** Asserts that the answer is a 2xx or one of these error codes. */
function expectOneOf(t: TestContext, res: LightMyRequestResponse, codes: ErrorCode[], what: string): void {
  const code = codeOf(res);
  if (code !== undefined) t.assert.ok(codes.includes(code), `${what}: unexpected ${code}: ${res.body}`);
}

const totals = { cases: 0, requests: 0 };
after(() => {
  process.stdout.write(
    `fuzz: ${totals.cases} generated cases, ${totals.requests} requests (FUZZ_RUNS=${RUNS} per property)\n`,
  );
});

/** Runs a property and adds its cases and requests to the totals. */
async function check<T>(
  t: TestContext,
  fuzz: FuzzApp,
  arbitrary: fc.Arbitrary<T>,
  body: (value: T) => Promise<number | void>,
  numRuns = RUNS,
): Promise<void> {
  const started = Date.now();
  const before = fuzz.sent.count;
  let cases = 0;
  await fc.assert(
    fc.asyncProperty(arbitrary, async value => {
      cases += (await body(value)) ?? 1;
    }),
    params(numRuns),
  );
  totals.cases += cases;
  totals.requests += fuzz.sent.count - before;
  t.diagnostic(`${cases} cases, ${fuzz.sent.count - before} requests, ${Date.now() - started} ms`);
}

const poolIndex = fc.nat({ max: GAME_RECIPES.length - 1 });

test('UCI: random and mutated moves on games in every state', async (t: TestContext) => {
  const fuzz = await makeFuzzApp();
  const pool = await new GamePool(fuzz).init();
  t.after(() => fuzz.app.close());
  await check(t, fuzz, fc.tuple(poolIndex, uciText, encoding), async ([index, uci, how]) => {
    const { id, kind } = await pool.get(index);
    const res = await sendAbout(fuzz, id, { method: 'POST', url: `${BASE}/${id}/move/${inPath(uci, how)}` });
    if (res.statusCode < 300) pool.changed(index);
    const what = `${kind}: move ${JSON.stringify(uci)} (${how})`;
    if (how === 'raw') {
      // Raw '/', '?' and '%' change the route or the URL: any of these may follow.
      expectOneOf(t, res, ['INVALID_UCI', 'INVALID_MOVE', 'GAME_OVER', 'NOT_FOUND'], what);
    } else if (UCI.test(uci)) {
      expectOneOf(t, res, ['INVALID_MOVE', 'GAME_OVER'], what);
    } else {
      // Malformed is judged before the game's state (DECISIONS §4); an empty segment is no route at all.
      expectOneOf(t, res, uci === '' || isDotSegment(uci) ? ['INVALID_UCI', 'NOT_FOUND'] : ['INVALID_UCI'], what);
    }
  });
});

test('squares: random and mutated square queries list moves from that square or are INVALID_SQUARE', async (t: TestContext) => {
  const fuzz = await makeFuzzApp();
  const pool = await new GamePool(fuzz).init();
  t.after(() => fuzz.app.close());
  const shape = fc.constantFrom('single', 'single', 'single', 'repeated', 'bracket', 'bare', 'other');
  await check(t, fuzz, fc.tuple(poolIndex, squareText, squareText, shape, encoding), async args => {
    const [index, square, second, form, how] = args;
    const { id, kind } = await pool.get(index);
    const query = {
      single: `square=${inPath(square, how)}`,
      repeated: `square=${inPath(square, how)}&square=${inPath(second, how)}`,
      bracket: `square[]=${inPath(square, how)}`,
      bare: `square&${inPath(square, how)}`,
      other: `${inPath(square, how)}=${inPath(second, how)}`,
    }[form];
    const res = await sendAbout(fuzz, id, { url: `${BASE}/${id}/moves?${query}` });
    const what = `${kind}: moves?${query}`;
    expectOneOf(t, res, ['INVALID_SQUARE'], what);
    if (form === 'single' && how === 'encoded') {
      const valid = square === '' || SQUARE.test(square);
      t.assert.equal(res.statusCode, valid ? 200 : 400, `${what}: ${res.body}`);
      if (valid && square !== '') {
        for (const move of json(res).moves as Array<{ from: string }>) t.assert.equal(move.from, square, what);
      }
    }
    if (form === 'repeated') t.assert.equal(res.statusCode, 400, `${what}: two squares are not one`);
  });
});

/** Every route that takes a game id, with what it may answer besides INVALID_GAME_ID and GAME_NOT_FOUND. */
const ID_ROUTES: Array<{ method: 'GET' | 'POST'; path: (id: string) => string; codes: ErrorCode[] }> = [
  { method: 'GET', path: id => `${BASE}/${id}`, codes: [] },
  { method: 'GET', path: id => `${BASE}/${id}/moves`, codes: [] },
  { method: 'GET', path: id => `${BASE}/${id}/export/fen`, codes: [] },
  { method: 'GET', path: id => `${BASE}/${id}/export/pgn`, codes: [] },
  { method: 'POST', path: id => `${BASE}/${id}/move/e2e4`, codes: ['INVALID_MOVE', 'GAME_OVER'] },
  { method: 'POST', path: id => `${BASE}/${id}/undo`, codes: ['NO_UNDO', 'GAME_OVER'] },
  { method: 'POST', path: id => `${BASE}/${id}/redo`, codes: ['NO_REDO', 'GAME_OVER'] },
  { method: 'POST', path: id => `${BASE}/${id}/resign`, codes: ['GAME_OVER'] },
  { method: 'POST', path: id => `${BASE}/${id}/draw/offer`, codes: ['DRAW_ALREADY_OFFERED', 'GAME_OVER'] },
  { method: 'POST', path: id => `${BASE}/${id}/draw/claim`, codes: ['CLAIM_NOT_AVAILABLE', 'GAME_OVER'] },
  { method: 'GET', path: id => `${BASE}/${id}/stream`, codes: [] }, // only for ids without a game: it never ends
];

test('game ids: random and mutated ids on every route', async (t: TestContext) => {
  const fuzz = await makeFuzzApp();
  const pool = await new GamePool(fuzz).init();
  t.after(() => fuzz.app.close());
  const route = fc.nat({ max: ID_ROUTES.length - 1 });
  await check(t, fuzz, fc.tuple(idText(pool.ids), route, encoding, poolIndex), async ([id, r, how, index]) => {
    const { method, path, codes } = ID_ROUTES[r]!;
    const exists = fuzz.created.includes(id); // pool games, and earlier pool games that were replaced
    const slot = pool.ids.indexOf(id);
    const isStream = path('x').endsWith('/stream');
    if (isStream && (exists || how === 'raw')) return 0; // an open stream never answers to inject()
    const request: InjectOptions = { method, url: path(inPath(id, how)) };
    // A request about a pool game must leave it alone when refused; otherwise any pool game must stay as it was.
    const watched = slot >= 0 ? slot : index;
    const res = await sendAbout(fuzz, (await pool.get(watched)).id, request);
    if (res.statusCode < 300 && method === 'POST') pool.changed(watched);
    const what = describeRequest(request);
    if (how === 'raw') {
      // A raw id may hold slashes and dot segments: another path, perhaps one served for other methods only.
      expectOneOf(
        t,
        res,
        ['INVALID_GAME_ID', 'GAME_NOT_FOUND', 'NOT_FOUND', 'METHOD_NOT_ALLOWED', 'INVALID_UCI', ...codes],
        what,
      );
    } else if (!GAME_ID.test(id)) {
      if (id === '') expectOneOf(t, res, ['INVALID_GAME_ID', 'NOT_FOUND', ...codes], what);
      else if (isDotSegment(id))
        expectOneOf(t, res, ['INVALID_GAME_ID', 'NOT_FOUND', 'METHOD_NOT_ALLOWED', ...codes], what);
      else t.assert.equal(codeOf(res), 'INVALID_GAME_ID', what);
    } else if (!exists) {
      t.assert.equal(codeOf(res), 'GAME_NOT_FOUND', what);
    } else {
      expectOneOf(t, res, codes, what);
    }
    return 1;
  });
});

test('FEN import: mutations of valid FENs are imported or INVALID_FEN; an imported FEN round-trips', async (t: TestContext) => {
  const fuzz = await makeFuzzApp();
  t.after(() => fuzz.app.close());
  const players = fc.option(fc.constant({ white: { id: 'w', displayName: 'White' } }), { nil: {} });
  await check(t, fuzz, fc.tuple(fenText, players), async ([fen, extra]) => {
    const res = await sendCreating(fuzz, { method: 'POST', url: `${BASE}/import/fen`, payload: { fen, ...extra } });
    expectOneOf(t, res, ['INVALID_FEN'], `import ${JSON.stringify(fen)}`);
    if (res.statusCode !== 201) return;
    // What was imported exports a FEN that imports to the same position.
    const state = json(res).state;
    const again = await send(fuzz, { method: 'POST', url: `${BASE}/import/fen`, payload: { fen: state.fen } });
    t.assert.equal(again.statusCode, 201, `re-import of ${state.fen} (from ${JSON.stringify(fen)}): ${again.body}`);
    t.assert.equal(json(again).state.fen, state.fen);
    t.assert.equal(json(again).state.status, state.status);
  });
});

test('PGN import: mutations of valid games are imported or INVALID_PGN; an import exports and re-imports the same', async (t: TestContext) => {
  const fuzz = await makeFuzzApp();
  t.after(() => fuzz.app.close());
  await check(t, fuzz, pgnText, async pgn => {
    const res = await sendCreating(fuzz, { method: 'POST', url: `${BASE}/import/pgn`, payload: { pgn } });
    expectOneOf(t, res, ['INVALID_PGN'], `import ${JSON.stringify(pgn)}`);
    if (res.statusCode !== 201) return;
    const game = json(res);
    const exported = await send(fuzz, { url: `${BASE}/${game.gameId}/export/pgn` });
    const again = await send(fuzz, { method: 'POST', url: `${BASE}/import/pgn`, payload: { pgn: exported.body } });
    t.assert.equal(
      again.statusCode,
      201,
      `re-import of\n${exported.body}\n(from ${JSON.stringify(pgn)}): ${again.body}`,
    );
    const state = json(again).state;
    t.assert.deepEqual([state.moves, state.fen, state.pgn], [game.state.moves, game.state.fen, game.state.pgn]);
  });
});

const JSON_ENDPOINTS = ['', '/import/fen', '/import/pgn'];

test('JSON bodies of every shape and type on the three endpoints that take one', async (t: TestContext) => {
  const fuzz = await makeFuzzApp();
  t.after(() => fuzz.app.close());
  const endpoint = fc.constantFrom(...JSON_ENDPOINTS);
  const type = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'Application/JSON');
  await check(t, fuzz, fc.tuple(endpoint, apiBody, type), async ([path, body, contentType]) => {
    const text = JSON.stringify(body) as string | undefined;
    const res = await sendCreating(fuzz, {
      method: 'POST',
      url: `${BASE}${path}`,
      headers: { 'content-type': contentType },
      ...(text === undefined ? {} : { payload: text }),
    });
    expectOneOf(t, res, ['INVALID_BODY', 'INVALID_FEN', 'INVALID_PGN'], `POST ${path} ${text?.slice(0, 300)}`);
    if (res.statusCode === 201 && path === '' && body !== null && typeof body === 'object' && 'white' in body) {
      t.assert.deepEqual(json(res).white, body.white, 'the given player is kept');
    }
  });
});

/** POST routes, each with what it may answer to a body that is not a valid JSON request. */
const BODY_ROUTES: Array<{ path: (id: string) => string; creates: boolean }> = [
  { path: () => BASE, creates: true },
  { path: () => `${BASE}/import/fen`, creates: true },
  { path: () => `${BASE}/import/pgn`, creates: true },
  { path: id => `${BASE}/${id}/move/e2e4`, creates: false },
  { path: id => `${BASE}/${id}/undo`, creates: false },
  { path: id => `${BASE}/${id}/draw/offer`, creates: false },
  { path: id => `${BASE}/${id}/resign`, creates: false },
  { path: id => `${BASE}/${id}/takeback/offer`, creates: false },
  { path: () => '/api/tokens', creates: false },
];

test('random bytes with random content types on every POST route', async (t: TestContext) => {
  const fuzz = await makeFuzzApp();
  const pool = await new GamePool(fuzz).init();
  t.after(() => fuzz.app.close());
  const route = fc.nat({ max: BODY_ROUTES.length - 1 });
  const bytes = fc.oneof(
    fc.uint8Array({ maxLength: 64 }),
    fc.uint8Array({ maxLength: 2048 }),
    fc.string({ unit: 'binary', maxLength: 64 }).map(text => new Uint8Array(Buffer.from(text, 'utf8'))),
    apiBody.map(body => new Uint8Array(Buffer.from(String(JSON.stringify(body)), 'utf8'))),
  );
  await check(t, fuzz, fc.tuple(route, bytes, contentType, poolIndex), async ([r, payload, type, index]) => {
    const { path, creates } = BODY_ROUTES[r]!;
    const { id } = await pool.get(index);
    const request: InjectOptions = {
      method: 'POST',
      url: path(id),
      payload: Buffer.from(payload),
      headers: type === undefined ? {} : { 'content-type': type },
    };
    const res = creates ? await sendCreating(fuzz, request) : await sendAbout(fuzz, id, request);
    if (res.statusCode < 300 && !creates) pool.changed(index);
    const media = (type ?? '').split(';')[0]!.trim().toLowerCase();
    const what = describeRequest(request);
    if (payload.length > 0 && media !== 'application/json') {
      t.assert.equal(codeOf(res), 'UNSUPPORTED_MEDIA_TYPE', `${what}: ${res.body}`);
    }
  });
});

/** One step of a random session on one game. */
const step = fc.oneof(
  { weight: 6, arbitrary: fc.nat().map(n => ({ kind: 'legal' as const, n })) },
  { weight: 2, arbitrary: wellFormedUci.map(uci => ({ kind: 'move' as const, uci })) },
  { weight: 2, arbitrary: fc.constantFrom('undo', 'redo').map(kind => ({ kind })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'resign' as const }) },
  {
    weight: 2,
    arbitrary: mutationsOf(fc.constantFrom('offer', 'accept', 'decline', 'claim'), chars('acdeflimnoprtx'), 1).map(
      action => ({ kind: 'draw' as const, action }),
    ),
  },
);

test('random sessions: legal and illegal moves, undo, redo, draws and resignation in any order', async (t: TestContext) => {
  const fuzz = await makeFuzzApp();
  const pool = await new GamePool(fuzz).init();
  t.after(() => fuzz.app.close());
  const session = fc.tuple(poolIndex, fc.array(step, { minLength: 1, maxLength: 20 }));
  await check(
    t,
    fuzz,
    session,
    async ([index, steps]) => {
      const { id } = await pool.get(index);
      pool.changed(index);
      for (const next of steps) {
        let request: InjectOptions;
        if (next.kind === 'legal') {
          const moves = json(await send(fuzz, { url: `${BASE}/${id}/moves` })).moves as Array<{ uci: string }>;
          const uci = moves.length === 0 ? 'e2e4' : moves[next.n % moves.length]!.uci;
          request = { method: 'POST', url: `${BASE}/${id}/move/${uci}` };
        } else if (next.kind === 'move') {
          request = { method: 'POST', url: `${BASE}/${id}/move/${next.uci}` };
        } else if (next.kind === 'draw') {
          request = { method: 'POST', url: `${BASE}/${id}/draw/${inPath(next.action, 'encoded')}` };
        } else {
          request = { method: 'POST', url: `${BASE}/${id}/${next.kind}` };
        }
        const res = await sendAbout(fuzz, id, request);
        if (res.statusCode === 200 && 'fen' in json(res)) {
          // An answer that is a GameState is the state that GET shows from then on.
          t.assert.deepEqual(json(await send(fuzz, { url: `${BASE}/${id}` })).state, json(res));
        }
      }
      return steps.length;
    },
    Math.max(1, Math.round(RUNS / 5)),
  );
});

/** A step of a session between two players and a stranger: who sends it, and what. */
const playerStep = fc.tuple(
  fc.constantFrom('ann', 'bob', 'eve'),
  fc.oneof(
    { weight: 6, arbitrary: fc.nat().map(n => ({ kind: 'legal' as const, n })) },
    { weight: 1, arbitrary: wellFormedUci.map(uci => ({ kind: 'move' as const, uci })) },
    { weight: 1, arbitrary: fc.constantFrom('undo', 'redo', 'resign').map(path => ({ kind: 'post' as const, path })) },
    {
      weight: 3,
      arbitrary: fc
        .constantFrom('draw/offer', 'draw/accept', 'draw/decline', 'draw/claim')
        .map(path => ({ kind: 'post' as const, path })),
    },
    {
      weight: 3,
      arbitrary: fc
        .constantFrom('takeback/offer', 'takeback/accept', 'takeback/decline')
        .map(path => ({ kind: 'post' as const, path })),
    },
  ),
);

const ENDED = new Set(['checkmate', 'stalemate', 'insufficientMaterial', 'resign', 'draw']);

/**
 * Why a change from `before` to `after`, made by a request of the player holding `side` alone, touched the other
 * side's position, offer or result; undefined when it did not. A request adds at most the player's own move, takes
 * moves back only by accepting the other side's takeback offer, never makes an offer for the other side, and ends
 * the game only by its own resignation, a draw the other side offered, its own claim or its own move.
 */
function violation(side: 'white' | 'black', before: GameState, after: GameState): string | undefined {
  const other = side === 'white' ? 'black' : 'white';
  const added = after.moves.length - before.moves.length;
  if (added > 0 && (added > 1 || before.turn !== side)) return `played a move for ${other}`;
  if (after.status === 'promotionPending' && before.status !== 'promotionPending' && before.turn !== side) {
    return `held a promotion for ${other}`;
  }
  if (added < 0 && !(before.takebackOfferedBy === other && after.turn === other)) return `took back ${other}'s moves`;
  if (after.drawOfferedBy === other && before.drawOfferedBy !== other) return `offered a draw for ${other}`;
  if (after.takebackOfferedBy === other && before.takebackOfferedBy !== other) return `offered a takeback for ${other}`;
  if (ENDED.has(after.status) && !ENDED.has(before.status)) {
    if (after.status === 'resign' && after.winner !== other) return `resigned for ${other}`;
    const byMove = added === 1;
    const agreed = before.drawOfferedBy === other;
    const claimed = before.turn === side && Number(before.fen.split(' ')[4]) >= 100; // whatever the status shows
    if (after.status === 'draw' && !byMove && !agreed && !claimed) return `drew the game for ${other}`;
  }
  return undefined;
}

test("random sessions between two players: no request with one player's token changes the other side", async (t: TestContext) => {
  const service = 'fuzz-service-token-7c1';
  const fuzz = await makeFuzzApp({ tokens: [service] });
  t.after(() => fuzz.app.close());
  const people = {
    ann: await fuzz.playerTokens.issue({ id: 'ann', displayName: 'Ann' }),
    bob: await fuzz.playerTokens.issue({ id: 'bob', displayName: 'Bob' }),
    eve: await fuzz.playerTokens.issue({ id: 'eve', displayName: 'Eve' }),
  };
  const seat = { ann: 'white', bob: 'black', eve: undefined } as const;
  const headers = (who: keyof typeof people) => ({ authorization: `Bearer ${people[who].token}` });
  const pool = await new GamePool(
    fuzz,
    { authorization: `Bearer ${service}` },
    {
      white: people.ann.player,
      black: people.bob.player,
    },
  ).init();
  const stateOf = async (id: string): Promise<GameState> =>
    json(await send(fuzz, { url: `${BASE}/${id}`, headers: headers('eve') })).state as GameState;
  const refusedFor = new Set<string>();
  await check(
    t,
    fuzz,
    fc.tuple(poolIndex, fc.array(playerStep, { minLength: 1, maxLength: 20 })),
    async ([index, steps]) => {
      const { id } = await pool.get(index);
      pool.changed(index);
      for (const [who, next] of steps) {
        let path: string;
        if (next.kind === 'legal') {
          const moves = json(await send(fuzz, { url: `${BASE}/${id}/moves`, headers: headers(who) })).moves as Array<{
            uci: string;
          }>;
          path = `move/${moves.length === 0 ? 'e2e4' : moves[next.n % moves.length]!.uci}`;
        } else {
          path = next.kind === 'move' ? `move/${next.uci}` : next.path;
        }
        const before = await stateOf(id);
        const request: InjectOptions = { method: 'POST', url: `${BASE}/${id}/${path}`, headers: headers(who) };
        const res = await sendAbout(fuzz, id, request, headers('eve'));
        if (res.statusCode >= 400) {
          refusedFor.add(codeOf(res) ?? String(res.statusCode));
          continue;
        }
        const after = await stateOf(id);
        const side = seat[who];
        t.assert.ok(side, `${who} holds no side, yet ${path} was accepted`);
        const why = violation(side, before, after);
        t.assert.equal(
          why,
          undefined,
          `${who} (${side}) ${path}: ${why}\n${JSON.stringify(before)}\n${JSON.stringify(after)}`,
        );
      }
      return steps.length;
    },
    Math.max(1, Math.round(RUNS / 5)),
  );
  // The sessions must reach the seat refusals, or the property would hold for want of trying.
  for (const code of ['NOT_A_PLAYER', 'NOT_YOUR_TURN', 'TAKEBACK_NEEDS_CONSENT']) {
    t.assert.ok(refusedFor.has(code), `no request was refused with ${code}: ${[...refusedFor].join(', ')}`);
  }
});

test("random sessions between two players on clocked games: no request with one player's token changes the other side's clock", async (t: TestContext) => {
  const service = 'fuzz-service-token-9d2';
  const fuzz = await makeFuzzApp({ tokens: [service] });
  t.after(() => fuzz.app.close());
  const people = {
    ann: await fuzz.playerTokens.issue({ id: 'ann', displayName: 'Ann' }),
    bob: await fuzz.playerTokens.issue({ id: 'bob', displayName: 'Bob' }),
    eve: await fuzz.playerTokens.issue({ id: 'eve', displayName: 'Eve' }),
  };
  const seat = { ann: 'white', bob: 'black', eve: undefined } as const;
  const headers = (who: keyof typeof people) => ({ authorization: `Bearer ${people[who].token}` });
  const stateOf = async (id: string): Promise<GameState> =>
    json(await send(fuzz, { url: `${BASE}/${id}`, headers: headers('eve') })).state as GameState;
  let timed = 0;
  await check(
    t,
    fuzz,
    fc.array(playerStep, { minLength: 1, maxLength: 30 }),
    async steps => {
      // A fresh game each run (a clock a side of an hour and 2 s a move), its clock running from the third ply.
      const created = await send(fuzz, {
        method: 'POST',
        url: BASE,
        headers: { authorization: `Bearer ${service}` },
        payload: {
          white: people.ann.player,
          black: people.bob.player,
          clock: { initial: 3_600_000, increment: 2_000 },
        },
      });
      const id = json(created).gameId as string;
      for (const [who, next] of steps) {
        let path: string;
        if (next.kind === 'legal') {
          const moves = json(await send(fuzz, { url: `${BASE}/${id}/moves`, headers: headers(who) })).moves as Array<{
            uci: string;
          }>;
          path = `move/${moves.length === 0 ? 'e2e4' : moves[next.n % moves.length]!.uci}`;
        } else {
          path = next.kind === 'move' ? `move/${next.uci}` : next.path;
        }
        const before = await stateOf(id);
        const res = await send(fuzz, { method: 'POST', url: `${BASE}/${id}/${path}`, headers: headers(who) });
        const after = await stateOf(id);
        const side = seat[who];
        if (res.statusCode >= 400 || !side) continue;
        // The other side's time only runs down with the time that passed between the two reads; nothing adds to it.
        // Only the takeback the other side offered takes more: the 2 s each of its moves taken back had earned
        // (DECISIONS §13a; the first move of each side earned none).
        const key = side === 'white' ? 'btime' : 'wtime';
        const [was, now] = [before[key]!, after[key]!];
        const passed = after.serverTime! - before.serverTime!;
        const takenBack = path === 'takeback/accept' ? before.moves.length - after.moves.length : 0;
        const earned = Array.from({ length: takenBack }, (_, i) => after.moves.length + i).filter(
          ply => ply >= 2 && (ply % 2 === 0 ? 'white' : 'black') !== side,
        ).length;
        t.assert.ok(now <= was, `${who} ${path} gave the other side time: ${was} -> ${now}`);
        t.assert.ok(
          was - now <= passed + 2_000 * earned,
          `${who} ${path} took ${was - now} ms from the other side in ${passed} ms`,
        );
        if (was !== now) timed++;
      }
      return steps.length;
    },
    Math.max(1, Math.round(RUNS / 10)),
  );
  t.assert.ok(timed > 0, 'some requests were made while the other side’s clock ran');
});

test('Authorization headers: only an exact configured token opens the API', async (t: TestContext) => {
  const token = 'fuzz-token-3b8e1d0c';
  const fuzz = await makeFuzzApp({ tokens: [token, 'second-token-55'] });
  const good = { authorization: `Bearer ${token}` };
  const pool = await new GamePool(fuzz, good).init();
  t.after(() => fuzz.app.close());
  const header = mutationsOf(
    fc.constantFrom(`Bearer ${token}`, `bearer ${token}`, 'Bearer second-token-55', `Basic ${token}`),
    fc.oneof(chars(`${token}Bb -=.~+/`), fc.constantFrom(' ', 'Bearer ', token)),
    3,
  ).filter(value => /^[\x21-\x7e]([\t\x20-\x7e]*[\x21-\x7e])?$/.test(value));
  // The scheme is case-insensitive, the token is not.
  const valid = {
    test: (value: string) =>
      /^bearer$/i.test(value.slice(0, 6)) && new RegExp(`^ +(${token}|second-token-55) *$`).test(value.slice(6)),
  };
  await check(t, fuzz, fc.tuple(header, poolIndex), async ([authorization, index]) => {
    const { id } = await pool.get(index);
    const res = await sendAbout(fuzz, id, { url: `${BASE}/${id}/moves`, headers: { authorization } }, good);
    t.assert.equal(res.statusCode, valid.test(authorization) ? 200 : 401, `${JSON.stringify(authorization)}`);
  });
});

test('raw bytes and mutated requests over a socket: HTTP answers that are 2xx or ApiErrors, never 5xx', async (t: TestContext) => {
  const fuzz = await makeFuzzApp();
  await fuzz.app.listen({ port: 0, host: '127.0.0.1' });
  t.after(() => fuzz.app.close());
  const { port } = fuzz.app.server.address() as { port: number };
  const bytes = fc.oneof(
    fc.uint8Array({ maxLength: 200 }),
    mutationsOf(
      fc.constantFrom(...RAW_REQUESTS),
      fc.oneof(
        chars('\r\n :/?%{}"0123456789abcdefxGETPOST'),
        fc.constantFrom('\r\n', '\r\n\r\n', 'Content-Length: 5\r\n', 'Transfer-Encoding: chunked\r\n', 'Host: y\r\n'),
      ),
      4,
    ).map(text => new Uint8Array(Buffer.from(text, 'latin1'))),
  );
  const seen = new Map<number, number>();
  await check(
    t,
    fuzz,
    bytes,
    async payload => {
      fuzz.sent.count++;
      const answer = await rawExchange(port, payload);
      const res = assertRawAnswer(answer, JSON.stringify(Buffer.from(payload).toString('latin1')));
      const status = res?.status ?? 0;
      seen.set(status, (seen.get(status) ?? 0) + 1);
    },
    Math.max(1, Math.round(RUNS / 5)),
  );
  t.diagnostic(`statuses (0 = no answer): ${JSON.stringify(Object.fromEntries(seen))}`);
  t.assert.ok(seen.has(400), 'some bytes are not HTTP');
});

test('the content types of the fuzzer include JSON and others', (t: TestContext) => {
  // Guards the generators: a fuzzer that never sends JSON (or only JSON) would prove little.
  t.assert.ok(CONTENT_TYPES.includes('application/json') && CONTENT_TYPES.includes('text/plain'));
  const samples = fc.sample(contentType, { numRuns: 200, seed: 1 });
  t.assert.ok(samples.some(value => value === undefined));
  t.assert.ok(samples.some(value => value?.startsWith('application/json')));
  const pgns = fc.sample(pgnText, { numRuns: 50, seed: 1 });
  t.assert.ok(
    pgns.some(pgn => /\d\. \S+ \S+/.test(pgn)),
    'random games have moves',
  );
});
