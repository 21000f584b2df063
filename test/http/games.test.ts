/**
 * The game operations of SPEC §Endpoints over HTTP (createGame, getGame, resignGame, makeMove, getLegalMoves,
 * undoMove, redoMove, drawAction), with the rules of DECISIONS §1-§6. Every response goes through `call`, which
 * checks it against the app's own OpenAPI document. Errors are in errors.test.ts, FEN/PGN in import-export.test.ts.
 */
import { test, type TestContext } from 'node:test';
import { assertError, gameWithMoves, importFen, json, appOfFile, mediaType, type Inject } from '../helpers/app.ts';

/** The tests each play games of their own: one app serves them all. */
const fileApp = appOfFile();

const INITIAL_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const INITIAL_STATE = {
  fen: INITIAL_FEN,
  pgn: '',
  turn: 'white',
  status: 'started',
  winner: null,
  moves: [],
  undoAvailable: false,
  redoAvailable: false,
  drawOfferedBy: null,
  takebackOfferedBy: null,
};
const DEFAULT_WHITE = { id: 'p1', displayName: 'Player 1' };
const DEFAULT_BLACK = { id: 'p2', displayName: 'Player 2' };

const game = (id: string) => `/api/board/game/${id}`;
const post = (call: Inject, url: string) => call({ method: 'POST', url });
const getState = async (call: Inject, id: string) => json(await call(game(id))).state;
const move = async (call: Inject, id: string, uci: string) => {
  const res = await post(call, `${game(id)}/move/${uci}`);
  if (res.statusCode !== 200) throw new Error(`move ${uci}: ${res.statusCode} ${res.body}`);
  return json(res);
};
const ucisOf = (res: { body: string }) =>
  (JSON.parse(res.body) as { moves: Array<{ uci: string }> }).moves.map(m => m.uci);

test('createGame without a body: 201, a new id, default players, the initial position', async (t: TestContext) => {
  const { call } = await fileApp();
  const res = await call({ method: 'POST', url: '/api/board/game' });
  t.assert.equal(res.statusCode, 201);
  t.assert.equal(mediaType(res), 'application/json');
  const body = json(res);
  t.assert.match(body.gameId, /^[A-Za-z0-9]{8}$/);
  t.assert.deepEqual(body, {
    gameId: body.gameId,
    white: DEFAULT_WHITE,
    black: DEFAULT_BLACK,
    state: INITIAL_STATE,
    clock: null,
  });
  const got = await call(game(body.gameId));
  t.assert.equal(got.statusCode, 200);
  t.assert.equal(mediaType(got), 'application/json');
  t.assert.deepEqual(json(got), body);
});

test('createGame with an empty JSON body, with {} and with a charset is the same as no body', async (t: TestContext) => {
  const { call } = await fileApp();
  const requests = [
    { headers: { 'content-type': 'application/json' }, body: '' },
    { headers: { 'content-type': 'application/json' }, body: '{}' },
    { headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{}' },
    { payload: {} },
  ];
  for (const request of requests) {
    const res = await call({ method: 'POST', url: '/api/board/game', ...request });
    t.assert.equal(res.statusCode, 201, `${JSON.stringify(request)}: ${res.body}`);
    const body = json(res);
    t.assert.deepEqual(body, {
      gameId: body.gameId,
      white: DEFAULT_WHITE,
      black: DEFAULT_BLACK,
      state: INITIAL_STATE,
      clock: null,
    });
  }
});

test('createGame with players keeps them; an omitted side gets its default', async (t: TestContext) => {
  const { call } = await fileApp();
  const alice = { id: 'user-1', displayName: 'White Side' };
  const bob = { id: 'user-2', displayName: 'Black Side' };
  const cases = [
    { payload: { white: alice, black: bob }, white: alice, black: bob },
    { payload: { white: alice }, white: alice, black: DEFAULT_BLACK },
    { payload: { black: bob }, white: DEFAULT_WHITE, black: bob },
  ];
  for (const c of cases) {
    const res = await call({ method: 'POST', url: '/api/board/game', payload: c.payload });
    t.assert.equal(res.statusCode, 201);
    const body = json(res);
    t.assert.deepEqual([body.white, body.black], [c.white, c.black]);
    t.assert.deepEqual(body.state, INITIAL_STATE);
    const got = json(await call(game(body.gameId)));
    t.assert.deepEqual([got.white, got.black], [c.white, c.black]);
  }
});

test('createGame accepts PlayerInfo at its length limits and with any printable characters', async (t: TestContext) => {
  const { call } = await fileApp();
  const players = [
    { id: 'i'.repeat(64), displayName: 'd'.repeat(100) },
    { id: 'x', displayName: 'é'.repeat(100) },
    { id: '♔', displayName: '😀'.repeat(100) }, // 100 characters, 200 UTF-16 code units
    { id: ' spaced id ', displayName: 'Ünïcødé «name» \'"\\/<>' },
  ];
  for (const player of players) {
    const res = await call({ method: 'POST', url: '/api/board/game', payload: { white: player, black: player } });
    t.assert.equal(res.statusCode, 201, `${JSON.stringify(player)}: ${res.body}`);
    t.assert.deepEqual(json(res).white, player);
    t.assert.deepEqual(json(res).black, player);
  }
});

test('unknown body properties are ignored and not echoed', async (t: TestContext) => {
  const { call } = await fileApp();
  const res = await call({
    method: 'POST',
    url: '/api/board/game',
    payload: {
      colour: 'red',
      white: { id: 'w', displayName: 'W', rating: 2800 },
      black: { id: 'b', displayName: 'B' },
    },
  });
  t.assert.equal(res.statusCode, 201);
  const body = json(res);
  t.assert.deepEqual(Object.keys(body).sort(), ['black', 'clock', 'gameId', 'state', 'white']);
  t.assert.deepEqual(body.white, { id: 'w', displayName: 'W' });
  t.assert.deepEqual(json(await call(game(body.gameId))).white, { id: 'w', displayName: 'W' });
});

test('every created game gets its own id', async (t: TestContext) => {
  const { call } = await fileApp();
  const ids = new Set<string>();
  for (let i = 0; i < 40; i++) ids.add(json(await call({ method: 'POST', url: '/api/board/game' })).gameId);
  t.assert.equal(ids.size, 40);
});

test('makeMove applies a legal move and answers the GameState that GET then shows', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const id = await gameWithMoves(app);
  const res = await post(call, `${game(id)}/move/e2e4`);
  t.assert.equal(res.statusCode, 200);
  t.assert.equal(mediaType(res), 'application/json');
  const expected = {
    fen: 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1', // no e3: no en-passant capture is legal
    pgn: '1. e4',
    turn: 'black',
    status: 'started',
    winner: null,
    moves: ['e2e4'],
    undoAvailable: true,
    redoAvailable: false,
    drawOfferedBy: null,
    takebackOfferedBy: null,
  };
  t.assert.deepEqual(json(res), expected);
  t.assert.deepEqual(await getState(call, id), expected);
  const reply = json(await post(call, `${game(id)}/move/e7e5`));
  t.assert.equal(reply.pgn, '1. e4 e5');
  t.assert.deepEqual(reply.moves, ['e2e4', 'e7e5']);
  t.assert.equal(reply.turn, 'white');
});

test('makeMove: castling is the king two-square move', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const id = await importFen(app, 'r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1');
  const short = await move(call, id, 'e1g1');
  t.assert.equal(short.fen, 'r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1');
  t.assert.equal(short.pgn, '1. O-O');
  const long = await move(call, id, 'e8c8');
  t.assert.equal(long.fen, '2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2');
  t.assert.equal(long.pgn, '1. O-O O-O-O');
  t.assert.deepEqual(long.moves, ['e1g1', 'e8c8']);
});

test('makeMove: en passant, with the en-passant square in the FEN only while the capture is legal', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const id = await gameWithMoves(app, ['e2e4', 'a7a6', 'e4e5']);
  const pushed = await move(call, id, 'd7d5');
  t.assert.equal(pushed.fen, 'rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3');
  const taken = await move(call, id, 'e5d6');
  t.assert.equal(taken.fen, 'rnbqkbnr/1pp1pppp/p2P4/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3');
  t.assert.equal(taken.pgn, '1. e4 a6 2. e5 d5 3. exd6');
});

test('makeMove: check, checkmate with its winner, stalemate and insufficient material', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const checked = await gameWithMoves(app, ['e2e4', 'f7f6']);
  const check = await move(call, checked, 'd1h5');
  t.assert.deepEqual([check.status, check.winner, check.pgn], ['check', null, '1. e4 f6 2. Qh5+']);

  const mated = await gameWithMoves(app, ['e2e4', 'e7e5', 'f1c4', 'b8c6', 'd1h5', 'g8f6']);
  const mate = await move(call, mated, 'h5f7');
  t.assert.deepEqual([mate.status, mate.winner, mate.turn], ['checkmate', 'white', 'black']);
  t.assert.equal(mate.pgn, '1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7#');
  t.assert.deepEqual(await getState(call, mated), mate);

  const stalemated = await importFen(app, '7k/8/6K1/8/8/8/8/5Q2 w - - 0 1');
  const stalemate = await move(call, stalemated, 'f1f7');
  t.assert.deepEqual([stalemate.status, stalemate.winner], ['stalemate', null]);

  const bare = await importFen(app, 'k7/8/8/8/8/8/1r6/K7 w - - 0 1');
  const insufficient = await move(call, bare, 'a1b2');
  t.assert.deepEqual([insufficient.status, insufficient.winner], ['insufficientMaterial', null]);
  t.assert.equal(insufficient.fen, 'k7/8/8/8/8/8/1K6/8 b - - 0 1');
});

test('makeMove: a pawn move to the last rank without a piece is held as promotionPending, not applied', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const start = '8/P6k/8/8/8/8/8/K7 w - - 0 1';
  const id = await importFen(app, start);
  const before = await getState(call, id);
  const pending = await move(call, id, 'a7a8');
  t.assert.deepEqual(pending, { ...before, status: 'promotionPending' });
  t.assert.deepEqual(await getState(call, id), pending);
  // Asking again changes nothing visible.
  t.assert.deepEqual(await move(call, id, 'a7a8'), pending);
  const legal = ucisOf(await call(`${game(id)}/moves?square=a7`));
  t.assert.deepEqual(legal, ['a7a8b', 'a7a8n', 'a7a8q', 'a7a8r']);
  const promoted = await move(call, id, 'a7a8q');
  t.assert.deepEqual(promoted, {
    fen: 'Q7/7k/8/8/8/8/8/K7 b - - 0 1',
    pgn: '1. a8=Q',
    turn: 'black',
    status: 'started',
    winner: null,
    moves: ['a7a8q'],
    undoAvailable: true,
    redoAvailable: false,
    drawOfferedBy: null,
    takebackOfferedBy: null,
  });
  t.assert.deepEqual(await getState(call, id), promoted);
});

test('makeMove: every promotion piece, also when capturing', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const pieces = [
    ['q', 'Q', 'axb8=Q'],
    ['r', 'R', 'axb8=R'],
    ['b', 'B', 'axb8=B'],
    ['n', 'N', 'axb8=N'],
  ] as const;
  for (const [letter, piece, san] of pieces) {
    const id = await importFen(app, '1n6/P6k/8/8/8/8/8/K7 w - - 0 1');
    t.assert.equal((await move(call, id, 'a7b8')).status, 'promotionPending');
    const state = await move(call, id, `a7b8${letter}`);
    t.assert.equal(state.fen, `1${piece}6/7k/8/8/8/8/8/K7 b - - 0 1`);
    t.assert.equal(state.pgn, `1. ${san}`);
    t.assert.deepEqual(state.moves, [`a7b8${letter}`]);
  }
});

test('makeMove: while a promotion is pending any legal move is accepted and clears it', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const id = await importFen(app, '8/P6k/8/8/8/8/8/K7 w - - 0 1');
  await move(call, id, 'a7a8');
  const other = await move(call, id, 'a1b1');
  t.assert.deepEqual([other.status, other.moves, other.turn], ['started', ['a1b1'], 'black']);
  t.assert.equal((await getState(call, id)).status, 'started');
});

test('getLegalMoves: all moves of the side to move, sorted by uci, each with from, to, moveType, promotion', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const id = await gameWithMoves(app);
  const res = await call(`${game(id)}/moves`);
  t.assert.equal(res.statusCode, 200);
  t.assert.equal(mediaType(res), 'application/json');
  const { moves } = json(res);
  const expected = [
    'a2a3', 'a2a4', 'b1a3', 'b1c3', 'b2b3', 'b2b4', 'c2c3', 'c2c4', 'd2d3', 'd2d4',
    'e2e3', 'e2e4', 'f2f3', 'f2f4', 'g1f3', 'g1h3', 'g2g3', 'g2g4', 'h2h3', 'h2h4',
  ]; // prettier-ignore
  t.assert.deepEqual(
    moves.map((m: any) => m.uci),
    expected,
  );
  for (const m of moves) {
    t.assert.deepEqual(m, {
      from: m.uci.slice(0, 2),
      to: m.uci.slice(2, 4),
      uci: m.uci,
      moveType: 'normal',
      promotion: null,
    });
  }
  // Black's moves after 1. e4.
  await move(call, id, 'e2e4');
  const black = ucisOf(await call(`${game(id)}/moves`));
  t.assert.equal(black.length, 20);
  t.assert.ok(black.every(uci => /[78]$/.test(uci.slice(1, 2))));
});

test('getLegalMoves: `square` limits to that origin; empty means all; no own piece there gives []', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const id = await gameWithMoves(app);
  const all = ucisOf(await call(`${game(id)}/moves`));
  t.assert.deepEqual(ucisOf(await call(`${game(id)}/moves?square=e2`)), ['e2e3', 'e2e4']);
  t.assert.deepEqual(ucisOf(await call(`${game(id)}/moves?square=g1`)), ['g1f3', 'g1h3']);
  t.assert.deepEqual(ucisOf(await call(`${game(id)}/moves?square=`)), all);
  t.assert.deepEqual(ucisOf(await call(`${game(id)}/moves?square=e4`)), []); // empty square
  t.assert.deepEqual(ucisOf(await call(`${game(id)}/moves?square=e7`)), []); // the opponent's piece
  t.assert.deepEqual(ucisOf(await call(`${game(id)}/moves?square=e1`)), []); // own piece without moves
  t.assert.deepEqual(ucisOf(await call(`${game(id)}/moves?other=1`)), all); // unknown query parameters are ignored
});

test('getLegalMoves: moveType of castling, en passant, promotion (also capturing) and capture', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const id = await importFen(app, 'r3k2r/1P6/8/3pP3/8/8/8/R3K2R w KQkq d6 0 2');
  const { moves } = json(await call(`${game(id)}/moves`));
  const ucis = moves.map((m: any) => m.uci);
  t.assert.deepEqual(ucis, [...ucis].sort());
  const byUci = new Map<string, any>(moves.map((m: any) => [m.uci, m]));
  const expect = (uci: string, moveType: string, promotion: string | null = null) =>
    t.assert.deepEqual(byUci.get(uci), { from: uci.slice(0, 2), to: uci.slice(2, 4), uci, moveType, promotion });
  expect('e1g1', 'castleKingside');
  expect('e1c1', 'castleQueenside');
  expect('e5d6', 'enPassant');
  expect('a1a8', 'capture');
  expect('h1h8', 'capture');
  expect('e5e6', 'normal');
  for (const [letter, piece] of [
    ['q', 'queen'],
    ['r', 'rook'],
    ['b', 'bishop'],
    ['n', 'knight'],
  ] as const) {
    expect(`b7b8${letter}`, 'promotion', piece);
    expect(`b7a8${letter}`, 'promotion', piece);
  }
  t.assert.equal(byUci.has('b7b8'), false);
  t.assert.equal(byUci.has('e1h1'), false);
  t.assert.equal(moves.length, 36);
});

test('getLegalMoves: none once the game has ended', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const mated = await gameWithMoves(app, ['f2f3', 'e7e5', 'g2g4', 'd8h4']);
  t.assert.deepEqual(json(await call(`${game(mated)}/moves`)), { moves: [] });
  t.assert.deepEqual(json(await call(`${game(mated)}/moves?square=a2`)), { moves: [] });
  const resigned = await gameWithMoves(app, ['e2e4']);
  t.assert.equal((await post(call, `${game(resigned)}/resign`)).statusCode, 200);
  t.assert.deepEqual(json(await call(`${game(resigned)}/moves`)), { moves: [] });
});

test('undoMove and redoMove step back and forth through the moves', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const id = await gameWithMoves(app);
  const afterE4 = await move(call, id, 'e2e4');
  const afterE5 = await move(call, id, 'e7e5');

  const undone = await post(call, `${game(id)}/undo`);
  t.assert.equal(undone.statusCode, 200);
  t.assert.equal(mediaType(undone), 'application/json');
  t.assert.deepEqual(json(undone), { ...afterE4, redoAvailable: true });
  t.assert.deepEqual(await getState(call, id), json(undone));

  const undoneTwice = json(await post(call, `${game(id)}/undo`));
  t.assert.deepEqual(undoneTwice, { ...INITIAL_STATE, redoAvailable: true });

  const redone = json(await post(call, `${game(id)}/redo`));
  t.assert.deepEqual(redone, { ...afterE4, redoAvailable: true });
  const redoneTwice = json(await post(call, `${game(id)}/redo`));
  t.assert.deepEqual(redoneTwice, afterE5);
  t.assert.deepEqual(await getState(call, id), afterE5);
});

test('a move after an undo clears the redo stack', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const id = await gameWithMoves(app, ['e2e4', 'e7e5']);
  await post(call, `${game(id)}/undo`);
  const other = await move(call, id, 'c7c5');
  t.assert.deepEqual([other.moves, other.redoAvailable], [['e2e4', 'c7c5'], false]);
  assertError(await post(call, `${game(id)}/redo`), 'NO_REDO');
});

test('undoing a checkmate resumes the game and redo ends it again', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const id = await gameWithMoves(app, ['f2f3', 'e7e5', 'g2g4', 'd8h4']);
  const undone = json(await post(call, `${game(id)}/undo`));
  t.assert.deepEqual([undone.status, undone.winner, undone.turn], ['started', null, 'black']);
  t.assert.ok(ucisOf(await call(`${game(id)}/moves`)).includes('d8h4'));
  const redone = json(await post(call, `${game(id)}/redo`));
  t.assert.deepEqual([redone.status, redone.winner], ['checkmate', 'black']);
});

test('undo clears a pending draw offer and a pending promotion', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const offered = await gameWithMoves(app, ['e2e4']);
  t.assert.equal((await post(call, `${game(offered)}/draw/offer`)).statusCode, 200);
  const afterUndo = json(await post(call, `${game(offered)}/undo`));
  t.assert.deepEqual([afterUndo.status, afterUndo.moves], ['started', []]);

  const promoting = await importFen(app, '8/P6k/8/8/8/8/8/K7 w - - 0 1');
  await move(call, promoting, 'a1b1');
  await move(call, promoting, 'h7h6');
  t.assert.equal((await move(call, promoting, 'a7a8')).status, 'promotionPending');
  const undone = json(await post(call, `${game(promoting)}/undo`));
  t.assert.deepEqual([undone.status, undone.moves, undone.turn], ['started', ['a1b1'], 'black']);
  const redone = json(await post(call, `${game(promoting)}/redo`));
  t.assert.deepEqual([redone.status, redone.moves, redone.turn], ['started', ['a1b1', 'h7h6'], 'white']);
});

test('drawAction offer then decline: drawOffered, then the status is derived again', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const id = await gameWithMoves(app, ['e2e4']);
  const before = await getState(call, id);
  const offer = await post(call, `${game(id)}/draw/offer`);
  t.assert.equal(offer.statusCode, 200);
  t.assert.equal(mediaType(offer), 'application/json');
  t.assert.deepEqual(json(offer), { ok: true });
  t.assert.deepEqual(await getState(call, id), { ...before, status: 'drawOffered', drawOfferedBy: 'black' });
  const decline = await post(call, `${game(id)}/draw/decline`);
  t.assert.deepEqual([decline.statusCode, json(decline)], [200, { ok: true }]);
  t.assert.deepEqual(await getState(call, id), before);
});

test('drawAction offer then accept: a draw without winner; undo and redo are no longer available', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const id = await gameWithMoves(app, ['e2e4', 'e7e5']);
  await post(call, `${game(id)}/undo`);
  const before = await getState(call, id);
  t.assert.deepEqual([before.undoAvailable, before.redoAvailable], [true, true]);
  t.assert.deepEqual(json(await post(call, `${game(id)}/draw/offer`)), { ok: true });
  const accept = await post(call, `${game(id)}/draw/accept`);
  t.assert.deepEqual([accept.statusCode, json(accept)], [200, { ok: true }]);
  t.assert.deepEqual(await getState(call, id), {
    ...before,
    status: 'draw',
    winner: null,
    undoAvailable: false,
    redoAvailable: false,
    drawOfferedBy: null,
    takebackOfferedBy: null,
  });
});

test('a draw offer takes precedence over check in the status and a move clears it', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const id = await gameWithMoves(app, ['e2e4', 'f7f6', 'd1h5']);
  t.assert.equal((await getState(call, id)).status, 'check');
  await post(call, `${game(id)}/draw/offer`);
  t.assert.equal((await getState(call, id)).status, 'drawOffered');
  await post(call, `${game(id)}/draw/decline`);
  t.assert.equal((await getState(call, id)).status, 'check');
  await post(call, `${game(id)}/draw/offer`);
  const after = await move(call, id, 'g7g6');
  t.assert.equal(after.status, 'started');
  assertError(await post(call, `${game(id)}/draw/accept`), 'NO_DRAW_OFFER');
});

test('drawAction claim: available at a halfmove clock of 100, ends the game in a draw', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const id = await importFen(app, '7k/8/8/8/8/8/8/K5R1 w - - 99 80');
  t.assert.equal((await getState(call, id)).status, 'started');
  assertError(await post(call, `${game(id)}/draw/claim`), 'CLAIM_NOT_AVAILABLE');
  const quiet = await move(call, id, 'g1g2');
  t.assert.deepEqual([quiet.status, quiet.fen], ['fiftyMoveAvailable', '7k/8/8/8/8/8/6R1/K7 b - - 100 80']);
  const claim = await post(call, `${game(id)}/draw/claim`);
  t.assert.deepEqual([claim.statusCode, json(claim)], [200, { ok: true }]);
  t.assert.deepEqual(await getState(call, id), {
    ...quiet,
    status: 'draw',
    winner: null,
    undoAvailable: false,
    redoAvailable: false,
    drawOfferedBy: null,
    takebackOfferedBy: null,
  });
});

test('a draw offer in a fifty-move position shows drawOffered and can be accepted', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const id = await importFen(app, '7k/8/8/8/8/8/8/K5R1 w - - 100 80');
  t.assert.equal((await getState(call, id)).status, 'fiftyMoveAvailable');
  await post(call, `${game(id)}/draw/offer`);
  t.assert.equal((await getState(call, id)).status, 'drawOffered');
  await post(call, `${game(id)}/draw/decline`);
  t.assert.equal((await getState(call, id)).status, 'fiftyMoveAvailable');
  await post(call, `${game(id)}/draw/offer`);
  t.assert.equal((await post(call, `${game(id)}/draw/accept`)).statusCode, 200);
  t.assert.equal((await getState(call, id)).status, 'draw');
});

test('resignGame: the side to move resigns and the other side wins', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const whiteToMove = await gameWithMoves(app);
  const res = await post(call, `${game(whiteToMove)}/resign`);
  t.assert.equal(res.statusCode, 200);
  t.assert.equal(mediaType(res), 'application/json');
  t.assert.deepEqual(json(res), { ok: true });
  t.assert.deepEqual(await getState(call, whiteToMove), { ...INITIAL_STATE, status: 'resign', winner: 'black' });

  const blackToMove = await gameWithMoves(app, ['e2e4', 'e7e5', 'g1f3']);
  await post(call, `${game(blackToMove)}/resign`);
  const state = await getState(call, blackToMove);
  t.assert.deepEqual([state.status, state.winner, state.turn], ['resign', 'white', 'black']);
  t.assert.deepEqual([state.undoAvailable, state.redoAvailable], [false, false]);
  t.assert.deepEqual(state.moves, ['e2e4', 'e7e5', 'g1f3']);
});

test('resigning with a pending draw offer or promotion ends the game as a resignation', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const offered = await gameWithMoves(app, ['e2e4']);
  await post(call, `${game(offered)}/draw/offer`);
  await post(call, `${game(offered)}/resign`);
  t.assert.deepEqual(
    [(await getState(call, offered)).status, (await getState(call, offered)).winner],
    ['resign', 'white'],
  );
  const promoting = await importFen(app, '8/P6k/8/8/8/8/8/K7 w - - 0 1');
  await move(call, promoting, 'a7a8');
  await post(call, `${game(promoting)}/resign`);
  const state = await getState(call, promoting);
  t.assert.deepEqual([state.status, state.winner, state.moves], ['resign', 'black', []]);
});

test('POST routes without a body accept an empty JSON body too', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const id = await gameWithMoves(app);
  const empty = { headers: { 'content-type': 'application/json' }, body: '' };
  t.assert.equal((await call({ method: 'POST', url: `${game(id)}/move/e2e4`, ...empty })).statusCode, 200);
  t.assert.equal((await call({ method: 'POST', url: `${game(id)}/undo`, ...empty })).statusCode, 200);
  t.assert.equal((await call({ method: 'POST', url: `${game(id)}/redo`, ...empty })).statusCode, 200);
  t.assert.equal((await call({ method: 'POST', url: `${game(id)}/draw/offer`, ...empty })).statusCode, 200);
  t.assert.equal((await call({ method: 'POST', url: `${game(id)}/resign`, ...empty })).statusCode, 200);
});
