/**
 * importFen, importPgn, exportFen and exportPgn over HTTP (SPEC operations 10-13, DECISIONS §7-§8). Every
 * response goes through `call`, which checks it against the app's own OpenAPI document.
 */
import { test, type TestContext } from 'node:test';
import {
  assertError,
  gameWithMoves,
  importFen,
  json,
  appOfFile,
  makeCheckedApp,
  mediaType,
  type Inject,
} from '../helpers/app.ts';

/** The tests each play games of their own: one app serves them all. */
const fileApp = appOfFile();

const INITIAL_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const DEFAULT_WHITE = { id: 'p1', displayName: 'Player 1' };
const DEFAULT_BLACK = { id: 'p2', displayName: 'Player 2' };
const TAG_ORDER = ['Event', 'Site', 'Date', 'Round', 'White', 'Black', 'Result'];

/** A miniature played in 1858 (17 moves, ends in mate): long enough for the movetext to wrap. */
const MINIATURE_PGN = `[Event "Casual game"]
[White "Home Team"]
[Black "Visitors"]
[Result "1-0"]

1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7
8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7
14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8# 1-0
`;
const MINIATURE_MOVETEXT =
  '1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7 8. Nc3 c6 9. Bg5 b5 ' +
  '10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7 14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8#';
const MINIATURE_FEN = '1n1Rkb1r/p4ppp/4q3/4p1B1/4P3/8/PPP2PPP/2K5 b k - 1 17';

const game = (id: string) => `/api/board/game/${id}`;
const post = (call: Inject, url: string) => call({ method: 'POST', url });
const importPgn = (call: Inject, pgn: string) =>
  call({ method: 'POST', url: '/api/board/game/import/pgn', payload: { pgn } });
const postFen = (call: Inject, payload: object) => call({ method: 'POST', url: '/api/board/game/import/fen', payload });
const utcDate = (date: Date) => date.toISOString().slice(0, 10).replace(/-/g, '.');

interface ParsedPgn {
  tags: Array<[string, string]>;
  movetextLines: string[];
}

/** Splits an exported PGN into its tag pairs and movetext lines, asserting the layout of DECISIONS §8. */
function parseExport(t: TestContext, text: string): ParsedPgn {
  t.assert.ok(text.endsWith('\n'), 'a final newline');
  t.assert.ok(!text.endsWith('\n\n'), 'exactly one final newline');
  const [head, movetext, ...rest] = text.slice(0, -1).split('\n\n');
  t.assert.deepEqual(rest, [], 'one blank line, between tags and movetext');
  const tags = head!.split('\n').map(line => {
    const match = /^\[([A-Za-z]+) "((?:[^"\\]|\\.)*)"\]$/.exec(line);
    t.assert.ok(match, `a tag pair: ${line}`);
    return [match[1]!, match[2]!.replace(/\\(.)/g, '$1')] as [string, string];
  });
  const movetextLines = movetext!.split('\n');
  for (const line of movetextLines) {
    t.assert.ok(line.length <= 80, `movetext wrapped at 80 columns: '${line}' has ${line.length}`);
    t.assert.equal(line, line.trim());
    t.assert.ok(!line.includes('  '), 'single spaces');
  }
  return { tags, movetextLines };
}

test('importFen: 201 GameFull at that position, no history, default or given players', async (t: TestContext) => {
  const { call } = await fileApp();
  const fen = 'r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3';
  const res = await postFen(call, { fen });
  t.assert.equal(res.statusCode, 201);
  t.assert.equal(mediaType(res), 'application/json');
  const body = json(res);
  t.assert.match(body.gameId, /^[A-Za-z0-9]{8}$/);
  t.assert.deepEqual(body, {
    gameId: body.gameId,
    white: DEFAULT_WHITE,
    black: DEFAULT_BLACK,
    state: {
      fen,
      pgn: '',
      turn: 'white',
      status: 'started',
      winner: null,
      moves: [],
      undoAvailable: false,
      redoAvailable: false,
      drawOfferedBy: null,
      takebackOfferedBy: null,
    },
    clock: null,
  });
  t.assert.deepEqual(json(await call(game(body.gameId))), body);
  assertError(await post(call, `${game(body.gameId)}/undo`), 'NO_UNDO');

  const white = { id: 'w-1', displayName: 'Composer' };
  const black = { id: 'b-1', displayName: 'Solver' };
  const withPlayers = json(await postFen(call, { fen, white, black, unknown: true }));
  t.assert.deepEqual([withPlayers.white, withPlayers.black], [white, black]);
  const onlyBlack = json(await postFen(call, { fen, black }));
  t.assert.deepEqual([onlyBlack.white, onlyBlack.black], [DEFAULT_WHITE, black]);
});

test('importFen: a game from a black-to-move position numbers its moves from there', async (t: TestContext) => {
  const { call } = await fileApp();
  const id = json(await postFen(call, { fen: 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1' })).gameId;
  const reply = json(await post(call, `${game(id)}/move/e7e5`));
  t.assert.equal(reply.pgn, '1... e5');
  const next = json(await post(call, `${game(id)}/move/g1f3`));
  t.assert.equal(next.pgn, '1... e5 2. Nf3');
});

test('importFen: whitespace between fields is normalized; an impossible en-passant square is dropped', async (t: TestContext) => {
  const { call } = await fileApp();
  const spaced = json(await postFen(call, { fen: `  ${INITIAL_FEN.split(' ').join('   ')}  ` }));
  t.assert.equal(spaced.state.fen, INITIAL_FEN);
  // e3 is a correct en-passant square after 1. e4, but no black pawn can capture: not written (DECISIONS §7).
  const ep = json(await postFen(call, { fen: 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1' }));
  t.assert.equal(ep.state.fen, 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1');
  const capturable = 'rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3';
  t.assert.equal(json(await postFen(call, { fen: capturable })).state.fen, capturable);
});

test('importFen: positions that are already over, in check or past fifty moves get their status', async (t: TestContext) => {
  const { call } = await fileApp();
  const cases: Array<[string, string, string | null]> = [
    ['rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3', 'checkmate', 'black'],
    ['7k/5Q2/6K1/8/8/8/8/8 b - - 0 1', 'stalemate', null],
    ['K7/8/8/8/8/8/8/7k w - - 0 1', 'insufficientMaterial', null],
    ['4k3/8/8/8/8/8/8/3BK3 b - - 0 1', 'insufficientMaterial', null],
    ['4k3/4R3/8/8/8/8/8/4K3 b - - 0 1', 'check', null],
    ['7k/8/8/8/8/8/8/K5R1 w - - 100 80', 'fiftyMoveAvailable', null],
    ['7k/8/8/8/8/8/8/K5R1 w - - 150 100', 'draw', null], // the 75-move rule
  ];
  for (const [fen, status, winner] of cases) {
    const res = await postFen(call, { fen });
    t.assert.equal(res.statusCode, 201, `${fen}: ${res.body}`);
    const { state } = json(res);
    t.assert.deepEqual([state.status, state.winner], [status, winner], fen);
    t.assert.equal(state.fen, fen);
  }
});

test('importFen: INVALID_FEN (field fen) with a message for every kind of malformed or illegal FEN', async (t: TestContext) => {
  const { call } = await fileApp();
  const bad = [
    '',
    '   ',
    'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0', // 5 fields
    `${INITIAL_FEN} extra`, // 7 fields
    'rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', // 7 ranks
    'rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', // 9 ranks
    'rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', // 9 squares
    'rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', // 7 squares
    'rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', // bad piece letter
    'rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
    'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1', // side to move
    'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqK - 0 1', // castling repeated
    'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w XYZ - 0 1', // castling letters
    'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e4 0 1', // en-passant rank
    'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1', // no pawn that just moved
    'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1',
    'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1',
    'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0', // fullmove >= 1
    'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1.5',
    '8/8/8/8/8/8/8/K6K w - - 0 1', // no black king, two white kings
    '4k3/8/8/8/8/8/8/8 w - - 0 1', // no white king
    'k3k3/8/8/8/8/8/8/4K3 w - - 0 1', // two black kings
    'P3k3/8/8/8/8/8/8/4K3 w - - 0 1', // pawn on rank 8
    '4k3/8/8/8/8/8/8/p3K3 w - - 0 1', // pawn on rank 1
    '4k3/4R3/8/8/8/8/8/4K3 w - - 0 1', // the side not to move is in check
    '4k3/8/8/8/8/8/8/4K3 w K - 0 1', // castling right without the rook
    'r3k2r/8/8/8/8/8/8/R2K3R w Q - 0 1', // castling right with the king moved
    '4k3/8/8/8/1b5b/8/8/4K3 w - - 0 1', // two bishops give check: no last move can (DECISIONS §15)
  ];
  for (const fen of bad) {
    const res = await postFen(call, { fen });
    const body = assertError(res, 'INVALID_FEN', 'fen');
    t.assert.ok(body.message.length > 10, `${fen}: a message that says what is wrong: ${body.message}`);
  }
});

test('importPgn: moves in UCI, players from the tags, movetext normalized, undo for every ply', async (t: TestContext) => {
  const { call } = await fileApp();
  const res = await importPgn(call, MINIATURE_PGN);
  t.assert.equal(res.statusCode, 201);
  t.assert.equal(mediaType(res), 'application/json');
  const body = json(res);
  t.assert.deepEqual(body.white, { id: 'p1', displayName: 'Home Team' });
  t.assert.deepEqual(body.black, { id: 'p2', displayName: 'Visitors' });
  t.assert.equal(body.state.pgn, MINIATURE_MOVETEXT);
  t.assert.equal(body.state.fen, MINIATURE_FEN);
  t.assert.deepEqual([body.state.status, body.state.winner], ['checkmate', 'white']);
  t.assert.equal(body.state.moves.length, 33);
  t.assert.deepEqual(body.state.moves.slice(0, 4), ['e2e4', 'e7e5', 'g1f3', 'd7d6']);
  t.assert.equal(body.state.moves[22], 'e1c1'); // 12. O-O-O as the king's two-square move
  t.assert.deepEqual([body.state.undoAvailable, body.state.redoAvailable], [true, false]);
  t.assert.deepEqual(json(await call(game(body.gameId))), body);

  for (let i = 0; i < 33; i++) t.assert.equal((await post(call, `${game(body.gameId)}/undo`)).statusCode, 200);
  assertError(await post(call, `${game(body.gameId)}/undo`), 'NO_UNDO');
  const start = json(await call(game(body.gameId))).state;
  t.assert.deepEqual([start.fen, start.pgn, start.moves, start.redoAvailable], [INITIAL_FEN, '', [], true]);
});

test('importPgn: comments, NAGs, annotations, variations, move numbers, result and both castling spellings', async (t: TestContext) => {
  const { call } = await fileApp();
  const pgn = `[Event "Club"]
[White "?"]
[Black "Guest"]
[Result "1-0"]

{ opening } 1. e4! e5?! $1 2. Nf3 (2. d4 exd4 3. c3) 2... Nc6 3. Bc4 Nf6 ; a line comment
4. 0-0 Be7 5. d3 O-O 6. Re1+? 1-0`;
  const res = await importPgn(call, pgn);
  t.assert.equal(res.statusCode, 201, res.body);
  const body = json(res);
  t.assert.deepEqual(body.white, DEFAULT_WHITE); // '?' is no name
  t.assert.deepEqual(body.black, { id: 'p2', displayName: 'Guest' });
  t.assert.equal(body.state.pgn, '1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. O-O Be7 5. d3 O-O 6. Re1');
  t.assert.deepEqual(body.state.moves, [
    'e2e4',
    'e7e5',
    'g1f3',
    'b8c6',
    'f1c4',
    'g8f6',
    'e1g1',
    'f8e7',
    'd2d3',
    'e8g8',
    'f1e1',
  ]);
  // The Result tag does not end the game.
  t.assert.deepEqual([body.state.status, body.state.winner], ['started', null]);
});

test('importPgn: without tags, empty movetext, and from a SetUp/FEN start with black to move', async (t: TestContext) => {
  const { call } = await fileApp();
  const bare = json(
    await call({ method: 'POST', url: '/api/board/game/import/pgn', payload: { pgn: '1. d4 d5 2. c4', white: 'x' } }),
  ); // unknown properties are ignored
  t.assert.deepEqual([bare.white, bare.black], [DEFAULT_WHITE, DEFAULT_BLACK]);
  t.assert.deepEqual(bare.state.moves, ['d2d4', 'd7d5', 'c2c4']);
  t.assert.equal(bare.state.turn, 'black');

  const empty = json(await importPgn(call, '[Event "Nothing yet"]\n\n*'));
  t.assert.deepEqual([empty.state.fen, empty.state.moves, empty.state.undoAvailable], [INITIAL_FEN, [], false]);

  const setup = '[SetUp "1"]\n[FEN "4k3/8/8/8/8/8/8/3RK3 b - - 0 12"]\n\n12... Kf8 13. Rd7 *';
  const fromFen = json(await importPgn(call, setup));
  t.assert.equal(fromFen.state.pgn, '12... Kf8 13. Rd7');
  t.assert.deepEqual(fromFen.state.moves, ['e8f8', 'd1d7']);
  t.assert.equal(fromFen.state.fen, '5k2/3R4/8/8/8/8/8/4K3 b - - 2 13');
  t.assert.equal((await post(call, `${game(fromFen.gameId)}/undo`)).statusCode, 200);
  t.assert.equal((await post(call, `${game(fromFen.gameId)}/undo`)).statusCode, 200);
  t.assert.equal(json(await call(game(fromFen.gameId))).state.fen, '4k3/8/8/8/8/8/8/3RK3 b - - 0 12');
  assertError(await post(call, `${game(fromFen.gameId)}/undo`), 'NO_UNDO');
});

test('importPgn: INVALID_PGN (field pgn); a bad move is named by its number and text', async (t: TestContext) => {
  const { call } = await fileApp();
  const cases: Array<[string, string | undefined]> = [
    ['1. e4 e5 2. Ke3', '2. Ke3'], // illegal
    ['1. Nc3 a6 2. Ne4 a5 3. Ng3 a4 4. Ne2', '4. Ne2'], // ambiguous: Ng1 and Ng3
    ['1. e5', '1. e5'],
    ['1. f3 e5 2. g4 Qh4# 3. a3', '3. a3'], // after mate
    ['1. e4 e5 *\n\n1. d4 d5 *', undefined], // two games
    ['[Event "a"]\n\n1. e4 *\n\n[Event "b"]\n\n1. d4 *', undefined],
    ['', undefined],
    ['[FEN "not a fen"]\n\n1. e4', undefined],
    ['[SetUp "1"]\n[FEN "4k3/4R3/8/8/8/8/8/4K3 w - - 0 1"]\n\n1. Kd2', undefined], // illegal start
  ];
  for (const [pgn, named] of cases) {
    const body = assertError(await importPgn(call, pgn), 'INVALID_PGN', 'pgn');
    if (named) t.assert.ok(body.message.includes(named), `${JSON.stringify(pgn)}: '${body.message}' names ${named}`);
  }
});

test('importPgn: a movetext token that is not SAN is INVALID_PGN naming it, not silently dropped', async (t: TestContext) => {
  const { call } = await fileApp();
  const cases: Array<[string, string]> = [
    ['1. e4 e5 2. Nf3 Nf6 3. Qz9 Nc6 4. Bc4', 'Qz9'],
    ['[SetUp "1"]\n[FEN "4k3/8/8/8/8/8/8/3RK3 b - - 0 12"]\n\n12... Kf8 13. Rd9', 'Rd9'],
    ['1. e4 e5 2. Nf3 foo 3. Bc4', 'foo'],
  ];
  for (const [pgn, token] of cases) {
    const body = assertError(await importPgn(call, pgn), 'INVALID_PGN', 'pgn');
    t.assert.ok(body.message.includes(token), `${JSON.stringify(pgn)}: '${body.message}' names ${token}`);
  }
});

test('exportFen: text/plain; charset=utf-8, the FEN alone without a newline', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const id = await gameWithMoves(app);
  const fresh = await call(`${game(id)}/export/fen`);
  t.assert.equal(fresh.statusCode, 200);
  t.assert.equal(fresh.headers['content-type'], 'text/plain; charset=utf-8');
  t.assert.equal(fresh.body, INITIAL_FEN);
  for (const uci of ['e2e4', 'a7a6', 'e4e5', 'd7d5']) {
    const state = json(await call({ method: 'POST', url: `${game(id)}/move/${uci}` }));
    const res = await call(`${game(id)}/export/fen`);
    t.assert.equal(res.body, state.fen);
    t.assert.ok(!/\s$/.test(res.body) && !/^\s/.test(res.body));
  }
  t.assert.equal(
    (await call(`${game(id)}/export/fen`)).body,
    'rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3',
  );
  // A pending promotion is not a position change.
  const promoting = await importFen(app, '8/P6k/8/8/8/8/8/K7 w - - 0 1');
  await call({ method: 'POST', url: `${game(promoting)}/move/a7a8` });
  t.assert.equal((await call(`${game(promoting)}/export/fen`)).body, '8/P6k/8/8/8/8/8/K7 w - - 0 1');
});

test('exportPgn: application/x-chess-pgn with the seven tags in order, Site "?" and the UTC creation date', async (t: TestContext) => {
  const { call } = await fileApp();
  const before = new Date();
  const created = json(
    await call({
      method: 'POST',
      url: '/api/board/game',
      payload: { white: { id: 'a', displayName: 'First Player' }, black: { id: 'b', displayName: 'Second Player' } },
    }),
  );
  const after = new Date();
  const id = created.gameId;
  for (const uci of ['e2e4', 'e7e5', 'g1f3']) await call({ method: 'POST', url: `${game(id)}/move/${uci}` });
  const res = await call(`${game(id)}/export/pgn`);
  t.assert.equal(res.statusCode, 200);
  t.assert.equal(mediaType(res), 'application/x-chess-pgn');
  const { tags, movetextLines } = parseExport(t, res.body);
  t.assert.deepEqual(
    tags.map(([name]) => name),
    TAG_ORDER,
  );
  const value = new Map(tags);
  t.assert.equal(value.get('Event'), 'Casual game');
  t.assert.equal(value.get('Site'), '?');
  t.assert.ok([utcDate(before), utcDate(after)].includes(value.get('Date')!), `Date ${value.get('Date')}`);
  t.assert.match(value.get('Date')!, /^\d{4}\.\d{2}\.\d{2}$/);
  t.assert.equal(value.get('Round'), '-');
  t.assert.equal(value.get('White'), 'First Player');
  t.assert.equal(value.get('Black'), 'Second Player');
  t.assert.equal(value.get('Result'), '*');
  t.assert.deepEqual(movetextLines, ['1. e4 e5 2. Nf3 *']);
});

test('exportPgn: Site comes from the public URL when one is configured', async (t: TestContext) => {
  const publicUrl = 'https://chess.example.org';
  const { app, call } = await makeCheckedApp(t, { publicUrl });
  const id = await gameWithMoves(app, ['d2d4']);
  const site = new Map(parseExport(t, (await call(`${game(id)}/export/pgn`)).body).tags).get('Site')!;
  t.assert.ok(site.startsWith(`${publicUrl}/`), `Site ${site} is under ${publicUrl}`);
  t.assert.ok(site.includes(id), `Site ${site} names the game`);
  t.assert.doesNotThrow(() => new URL(site));
});

test('exportPgn: the result token of every way a game can end', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const results: Array<[string, () => Promise<string>]> = [
    ['*', () => gameWithMoves(app, ['e2e4'])],
    ['0-1', () => gameWithMoves(app, ['f2f3', 'e7e5', 'g2g4', 'd8h4'])],
    ['1-0', () => gameWithMoves(app, ['e2e4', 'e7e5', 'f1c4', 'b8c6', 'd1h5', 'g8f6', 'h5f7'])],
    [
      '0-1', // white resigns
      async () => {
        const id = await gameWithMoves(app, ['e2e4', 'e7e5']);
        await call({ method: 'POST', url: `${game(id)}/resign` });
        return id;
      },
    ],
    [
      '1-0', // black resigns
      async () => {
        const id = await gameWithMoves(app, ['e2e4']);
        await call({ method: 'POST', url: `${game(id)}/resign` });
        return id;
      },
    ],
    [
      '1/2-1/2', // agreed
      async () => {
        const id = await gameWithMoves(app, ['e2e4']);
        await call({ method: 'POST', url: `${game(id)}/draw/offer` });
        await call({ method: 'POST', url: `${game(id)}/draw/accept` });
        return id;
      },
    ],
    [
      '1/2-1/2', // claimed
      async () => {
        const id = await importFen(app, '7k/8/8/8/8/8/8/K5R1 w - - 100 80');
        await call({ method: 'POST', url: `${game(id)}/draw/claim` });
        return id;
      },
    ],
    [
      '1/2-1/2', // stalemate
      async () => {
        const id = await importFen(app, '7k/8/6K1/8/8/8/8/5Q2 w - - 0 1');
        await call({ method: 'POST', url: `${game(id)}/move/f1f7` });
        return id;
      },
    ],
    ['1/2-1/2', () => importFen(app, 'K7/8/8/8/8/8/8/7k w - - 0 1')], // insufficient material
  ];
  for (const [result, make] of results) {
    const id = await make();
    const { tags, movetextLines } = parseExport(t, (await call(`${game(id)}/export/pgn`)).body);
    t.assert.equal(new Map(tags).get('Result'), result);
    const last = movetextLines[movetextLines.length - 1]!;
    t.assert.ok(last === result || last.endsWith(` ${result}`), `movetext ends with ${result}: ${last}`);
  }
});

test('exportPgn: movetext wrapped at 80 columns is the game movetext followed by the result', async (t: TestContext) => {
  const { call } = await fileApp();
  const id = json(await importPgn(call, MINIATURE_PGN)).gameId;
  const { tags, movetextLines } = parseExport(t, (await call(`${game(id)}/export/pgn`)).body);
  t.assert.deepEqual(
    tags.map(([name]) => name),
    TAG_ORDER,
  );
  t.assert.deepEqual([new Map(tags).get('White'), new Map(tags).get('Black')], ['Home Team', 'Visitors']);
  t.assert.ok(movetextLines.length >= 3);
  t.assert.equal(movetextLines.join(' '), `${MINIATURE_MOVETEXT} 1-0`);
  // Greedy wrapping: no line could have taken the first token of the next one.
  for (let i = 0; i + 1 < movetextLines.length; i++) {
    const next = movetextLines[i + 1]!.split(' ')[0]!;
    t.assert.ok(movetextLines[i]!.length + 1 + next.length > 80, `line ${i + 1} could hold '${next}'`);
  }
});

test('exportPgn: SetUp and FEN of the start position after the seven tags when the start was not standard', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const start = '4k3/8/8/8/8/8/8/3RK3 b - - 0 12';
  const id = await importFen(app, start);
  for (const uci of ['e8f8', 'd1d7']) await call({ method: 'POST', url: `${game(id)}/move/${uci}` });
  const { tags, movetextLines } = parseExport(t, (await call(`${game(id)}/export/pgn`)).body);
  t.assert.deepEqual(
    tags.map(([name]) => name),
    [...TAG_ORDER, 'SetUp', 'FEN'],
  );
  t.assert.equal(new Map(tags).get('SetUp'), '1');
  t.assert.equal(new Map(tags).get('FEN'), start);
  t.assert.deepEqual(movetextLines, ['12... Kf8 13. Rd7 *']);

  const standard = await gameWithMoves(app, ['e2e4']);
  const names = parseExport(t, (await call(`${game(standard)}/export/pgn`)).body).tags.map(([name]) => name);
  t.assert.deepEqual(names, TAG_ORDER);
});

test('exportPgn: quotes and backslashes in names are escaped and read back by importPgn', async (t: TestContext) => {
  const { call } = await fileApp();
  const name = 'The "Quoted" \\ Name';
  const id = json(
    await call({ method: 'POST', url: '/api/board/game', payload: { white: { id: 'q', displayName: name } } }),
  ).gameId;
  const text = (await call(`${game(id)}/export/pgn`)).body;
  t.assert.ok(text.includes('[White "The \\"Quoted\\" \\\\ Name"]'), text);
  t.assert.equal(new Map(parseExport(t, text).tags).get('White'), name);
  t.assert.equal(json(await importPgn(call, text)).white.displayName, name);
});

test('importing an exported PGN gives back the same moves and position', async (t: TestContext) => {
  const { app, call } = await fileApp();
  const sources: string[] = [
    await gameWithMoves(app, ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1b5', 'a7a6', 'e1g1']),
    json(await importPgn(call, MINIATURE_PGN)).gameId,
    await gameWithMoves(app, ['e2e4', 'a7a6', 'e4e5', 'd7d5', 'e5d6']),
    await gameWithMoves(app),
  ];
  const promoting = await importFen(app, '1n6/P6k/8/8/8/8/8/K7 w - - 0 40');
  await call({ method: 'POST', url: `${game(promoting)}/move/a7b8n` });
  await call({ method: 'POST', url: `${game(promoting)}/move/h7g6` });
  sources.push(promoting);
  const blackFirst = await importFen(app, 'r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 3 20');
  for (const uci of ['e8c8', 'e1g1', 'h8h1']) await call({ method: 'POST', url: `${game(blackFirst)}/move/${uci}` });
  sources.push(blackFirst);
  for (const id of sources) {
    const original = json(await call(game(id)));
    const exported = (await call(`${game(id)}/export/pgn`)).body;
    const res = await importPgn(call, exported);
    t.assert.equal(res.statusCode, 201, `${exported}\n${res.body}`);
    const copy = json(res);
    t.assert.deepEqual(copy.state.moves, original.state.moves);
    t.assert.equal(copy.state.fen, original.state.fen);
    t.assert.equal(copy.state.pgn, original.state.pgn);
    t.assert.equal(copy.state.status, original.state.status);
    t.assert.deepEqual([copy.white.displayName, copy.black.displayName], [original.white.displayName, original.black.displayName]); // prettier-ignore
  }
});
