/**
 * PGN import and export (DECISIONS §8): round trips on seeded random games, the exact export layout, hand-picked
 * fixtures (`test/fixtures/pgn/`, sources in its README) and, when pgn-extract is installed, an independent PGN
 * reader and writer agreeing with ours.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test, type TestContext } from 'node:test';
import { gameFromFen, newGame, type Game, type NewGameInput } from '../../src/domain/game.ts';
import { drawAction, makeMove, resign, undo } from '../../src/domain/transitions.ts';
import { exportPgn, gameFromPgn } from '../../src/domain/pgn.ts';
import { fenOf, gameStateOf, legalMovesOf } from '../../src/domain/views.ts';
import { DEFAULT_BLACK, DEFAULT_WHITE } from '../../src/domain/types.ts';
import { makeFen } from '../../src/domain/notation.ts';
import { findExecutable, skipReason } from '../helpers/external.ts';
import type { PlayerInfo } from '../../src/contract/shapes.ts';

const STANDARD_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const CREATED_AT = '2026-01-31T23:59:59.999Z'; // the Date tag is the UTC day: 2026.01.31
const IMPORT = { maxPlies: 10_000 };
const importInput: NewGameInput = { id: 'Imported', createdAt: '2026-02-01T08:00:00.000Z' };

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/pgn/${name}`, import.meta.url), 'utf8');

/** mulberry32: a small seeded PRNG, so a failing game can be replayed. */
function makeRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function start(fen: string, players: { white?: PlayerInfo; black?: PlayerInfo } = {}): Game {
  const input = { id: 'Exported', createdAt: CREATED_AT, ...players };
  if (fen === STANDARD_FEN) return newGame(input);
  const created = gameFromFen(input, fen);
  if (!created.ok) throw new Error(`${fen}: ${created.error.message}`);
  return created.value;
}

function play(game: Game, moves: readonly string[]): Game {
  for (const uci of moves) {
    const change = makeMove(game, uci);
    if (!change.ok) throw new Error(`${uci}: ${change.error.message}`);
    game = change.value.game;
  }
  return game;
}

/** Plays uniformly random legal moves until the game ends or `plies` moves were played. */
function playRandom(game: Game, plies: number, seed: number): Game {
  const random = makeRandom(seed);
  for (let i = 0; i < plies; i++) {
    const moves = legalMovesOf(game);
    if (moves.length === 0) break;
    game = play(game, [moves[Math.floor(random() * moves.length)]!.uci]);
  }
  return game;
}

interface Exported {
  name: string;
  fen: string; // the start, as the FEN tag must show it
  game: Game;
  site: string;
  result: string; // the result token the export must end with
  importedStatus?: string; // when it differs from the game's: a resignation or agreed draw is not in the PGN's position
}

const KIWIPETE = 'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1';
const BLACK_TO_MOVE = 'r3k2r/ppp2ppp/2n5/3p4/3P4/2N5/PPP2PPP/R3K2R b KQkq - 0 12';
const MIRRORED_CPW4 = 'r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1';
const PROMOTIONS = '4k3/1P4P1/8/8/8/8/1p4p1/4K3 w - - 0 1';
const EN_PASSANT = '4k3/pppppppp/8/1P1P1P1P/8/8/8/4K3 b - - 0 1';

function resultOf(game: Game): string {
  const { status, winner } = gameStateOf(game);
  if (winner !== null) return winner === 'white' ? '1-0' : '0-1';
  return ['stalemate', 'insufficientMaterial', 'draw'].includes(status) ? '1/2-1/2' : '*';
}

function exportedGames(): Exported[] {
  const games: Exported[] = [];
  const random = (name: string, fen: string, count: number, plies: number, seed: number): void => {
    for (let i = 0; i < count; i++) {
      const game = playRandom(start(fen), plies, seed + i);
      games.push({ name: `${name}, random game ${i + 1}`, fen, game, site: '?', result: resultOf(game) });
    }
  };
  random('standard start', STANDARD_FEN, 3, 140, 100);
  random('Kiwipete', KIWIPETE, 2, 90, 200);
  random('black to move at move 12', BLACK_TO_MOVE, 3, 70, 300);
  random('CPW position 4 mirrored, black to move', MIRRORED_CPW4, 2, 60, 400);
  random('promotions', PROMOTIONS, 4, 120, 500);
  random('en passant', EN_PASSANT, 2, 60, 600);

  const scripted = (name: string, fen: string, moves: string[], result: string, extra: Partial<Exported> = {}) => {
    const game = play(start(fen), moves);
    games.push({ name, fen, game, site: '?', result, ...extra });
  };
  scripted('no moves yet', STANDARD_FEN, [], '*');
  scripted('no moves yet, black to move', BLACK_TO_MOVE, [], '*');
  scripted('fool’s mate', STANDARD_FEN, ['f2f3', 'e7e5', 'g2g4', 'd8h4'], '0-1');
  scripted('scholar’s mate', STANDARD_FEN, ['e2e4', 'e7e5', 'd1h5', 'b8c6', 'f1c4', 'g8f6', 'h5f7'], '1-0');
  scripted('stalemate', '7k/8/6K1/8/8/8/8/5Q2 w - - 0 1', ['f1f7'], '1/2-1/2');
  scripted('insufficient material', '4k3/8/8/8/8/8/3p4/4K3 w - - 0 1', ['e1d2'], '1/2-1/2');
  scripted('75-move rule', '8/8/4k3/8/8/3K4/8/R7 w - - 145 60', ['a1a2', 'e6f6', 'a2a3', 'f6e6', 'a3a4'], '1/2-1/2');
  scripted('promotion with mate', '7k/4P3/6K1/8/8/8/8/8 w - - 0 1', ['e7e8q'], '1-0');
  scripted('underpromotion', '8/4P3/8/8/8/2k4p/8/K7 w - - 0 1', ['e7e8n'], '*');
  scripted('castling both ways', KIWIPETE, ['e1g1', 'e8c8'], '*');
  scripted('en passant capture', EN_PASSANT, ['a7a5', 'b5a6', 'c7c5', 'd5c6'], '*');
  // After c7c5 the pawn on b5 cannot take en passant (its king would be in check): no en-passant square.
  scripted('illegal en passant', '8/2p5/8/KP5r/8/8/8/7k b - - 0 1', ['c7c5', 'a5a4'], '*');

  const resigned = resign(play(start(STANDARD_FEN), ['e2e4']));
  if (!resigned.ok) throw resigned.error;
  games.push({
    name: 'black resigns',
    fen: STANDARD_FEN,
    game: resigned.value.game,
    site: '?',
    result: '1-0',
    importedStatus: 'started',
  });
  const offered = drawAction(play(start(STANDARD_FEN), ['d2d4', 'd7d5']), 'offer');
  const agreed = offered.ok ? drawAction(offered.value.game, 'accept') : offered;
  if (!agreed.ok) throw agreed.error;
  games.push({
    name: 'draw agreed',
    fen: STANDARD_FEN,
    game: agreed.value.game,
    site: 'https://chess.example/game/Exported',
    result: '1/2-1/2',
    importedStatus: 'started',
  });
  const named = playRandom(
    start(STANDARD_FEN, {
      white: { id: 'w1', displayName: 'Team "Rook" \\ Club' },
      black: { id: 'b1', displayName: 'Knights, Queens & Co' },
    }),
    30,
    700,
  );
  games.push({ name: 'names with quotes and a backslash', fen: STANDARD_FEN, game: named, site: '?', result: '*' });
  return games;
}

const EXPORTED = exportedGames();

const escapeTag = (value: string): string => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"');

const SAN = /^(?:[NBRQK][a-h]?[1-8]?x?[a-h][1-8]|(?:[a-h]x)?[a-h][1-8](?:=[NBRQ])?|O-O|O-O-O)[+#]?$/;

/**
 * Checks `state.pgn`: SAN with move numbers and single spaces, white's moves numbered `n.`, a black first move
 * numbered `n...`, nothing else. Returns the SAN moves.
 */
function checkMovetext(t: TestContext, movetext: string, fen: string, plies: number): string[] {
  if (plies === 0) {
    t.assert.equal(movetext, '', 'state.pgn is "" before the first move');
    return [];
  }
  const tokens = movetext.split(' ');
  const sans: string[] = [];
  let fullmove = Number(fen.split(' ')[5]);
  let whiteToMove = fen.split(' ')[1] === 'w';
  let k = 0;
  for (let ply = 0; ply < plies; ply++) {
    if (whiteToMove) t.assert.equal(tokens[k++], `${fullmove}.`, `move number before ply ${ply + 1}`);
    else if (ply === 0) t.assert.equal(tokens[k++], `${fullmove}...`, 'a black first move is numbered n...');
    const san = tokens[k++]!;
    t.assert.match(san, SAN, `ply ${ply + 1} is SAN`);
    sans.push(san);
    if (!whiteToMove) fullmove++;
    whiteToMove = !whiteToMove;
  }
  t.assert.equal(k, tokens.length, 'state.pgn holds the moves and nothing else (no result token)');
  return sans;
}

/** The export layout of DECISIONS §8, exactly. */
function checkExportLayout(t: TestContext, text: string, row: Exported): void {
  const { game } = row;
  const state = gameStateOf(game);
  const tags = [
    '[Event "Casual game"]',
    `[Site "${escapeTag(row.site)}"]`,
    '[Date "2026.01.31"]',
    '[Round "-"]',
    `[White "${escapeTag(game.record.white.displayName)}"]`,
    `[Black "${escapeTag(game.record.black.displayName)}"]`,
    `[Result "${row.result}"]`,
    ...(row.fen === STANDARD_FEN ? [] : ['[SetUp "1"]', `[FEN "${row.fen}"]`]),
  ];
  const blank = text.indexOf('\n\n');
  t.assert.ok(blank > 0, 'a blank line after the tags');
  t.assert.deepEqual(text.slice(0, blank).split('\n'), tags, 'the tags, in order');
  const movetext = text.slice(blank + 2);
  t.assert.ok(movetext.endsWith('\n') && !movetext.endsWith('\n\n'), 'one final newline');
  const lines = movetext.slice(0, -1).split('\n');
  for (const line of lines) {
    t.assert.ok(line.length <= 80, `movetext line of ${line.length} columns: ${line}`);
    t.assert.match(line, /^\S+(?: \S+)*$/, 'single spaces, no blank line, no leading or trailing space');
  }
  t.assert.equal(lines.join(' '), state.pgn === '' ? row.result : `${state.pgn} ${row.result}`);
  t.assert.equal(resultOf(game), row.result, 'the status and winner give the expected result');
  const sans = checkMovetext(t, state.pgn, row.fen, state.moves.length);
  const last = sans[sans.length - 1];
  if (last !== undefined) {
    t.assert.equal(last.endsWith('#'), state.status === 'checkmate', 'a mate mark exactly on mate');
  }
}

/** The players an import takes from the White and Black tags of an export. */
const nameFromTag = (player: PlayerInfo, defaults: PlayerInfo): PlayerInfo =>
  player.displayName === '?' ? defaults : { id: defaults.id, displayName: player.displayName };

for (const row of EXPORTED) {
  test(`export then import gives the same game: ${row.name}`, (t: TestContext) => {
    const { game } = row;
    const state = gameStateOf(game);
    const text = exportPgn(game, { site: row.site });
    checkExportLayout(t, text, row);

    const imported = gameFromPgn(importInput, text, IMPORT);
    if (!imported.ok) throw imported.error;
    const back = gameStateOf(imported.value);
    t.assert.deepEqual(back.moves, state.moves);
    t.assert.equal(back.fen, state.fen);
    t.assert.equal(back.pgn, state.pgn);
    t.assert.equal(back.status, row.importedStatus ?? state.status);
    t.assert.deepEqual(imported.value.record.white, nameFromTag(game.record.white, DEFAULT_WHITE));
    t.assert.deepEqual(imported.value.record.black, nameFromTag(game.record.black, DEFAULT_BLACK));
    t.assert.equal(imported.value.record.startFen, row.fen);
    // The imported game is the played one, derived state and all, except what an import sets itself.
    const played = row.game;
    const expected = {
      ...played.record,
      id: importInput.id,
      createdAt: importInput.createdAt,
      version: 1,
      white: imported.value.record.white,
      black: imported.value.record.black,
      redo: [],
      pendingPromotion: null,
      drawOffer: null,
      result: null,
    };
    t.assert.deepEqual(imported.value.record, expected);
    t.assert.deepEqual(imported.value.sans, played.sans);
    t.assert.deepEqual(imported.value.positionHashes, played.positionHashes);
    t.assert.equal(imported.value.fen, played.fen);
    t.assert.equal(imported.value.startPly, played.startPly);
    t.assert.equal(imported.value.positionEnd, played.positionEnd);
    t.assert.equal(makeFen(imported.value.pos), makeFen(played.pos));

    // Undo is available for every replayed move, back to the start.
    let current = imported.value;
    for (let i = state.moves.length; i > 0; i--) {
      t.assert.equal(gameStateOf(current).undoAvailable, true);
      const undone = undo(current);
      if (!undone.ok) throw undone.error;
      current = undone.value.game;
    }
    t.assert.equal(gameStateOf(current).fen, row.fen);
    t.assert.equal(gameStateOf(current).undoAvailable, false);
  });
}

test('the generated games cover what the export must handle', (t: TestContext) => {
  const texts = EXPORTED.map(row => exportPgn(row.game, { site: row.site }));
  const movetexts = EXPORTED.map(row => gameStateOf(row.game).pgn);
  const some = (pattern: RegExp): boolean => movetexts.some(pgn => pattern.test(pgn));
  const covered: Array<[string, boolean]> = [
    ['a game reads 12... x 13. y', some(/^12\.\.\. \S+ 13\. /)],
    ['a game reads 1... x 2. y', some(/^1\.\.\. \S+ 2\. /)],
    [
      'movetext wrapped over several lines',
      texts.some(text => text.split('\n').filter(l => l.length > 70).length >= 3),
    ],
    ['a promotion', some(/=[QRB]/)],
    ['an underpromotion to a knight', some(/=N/)],
    ['castling both ways', some(/O-O-O/) && some(/O-O(?!-)/)],
    ['an en-passant capture', EXPORTED.some(row => hasEnPassant(row.game))],
    ...['1-0', '0-1', '1/2-1/2', '*'].map((result): [string, boolean] => [
      `a game ending in ${result}`,
      EXPORTED.some(row => row.result === result),
    ]),
  ];
  for (const [what, present] of covered) t.assert.ok(present, what);
});

/** The FEN after each number of moves of a game, from none to all, by playing its moves again one at a time. */
function fensAlong(game: Game): string[] {
  const start = gameFromFen(importInput, game.record.startFen);
  if (!start.ok) throw start.error;
  let current = start.value;
  const fens = [fenOf(current)];
  for (const uci of game.record.moves) {
    const played = makeMove(current, uci);
    if (!played.ok) throw played.error;
    current = played.value.game;
    fens.push(fenOf(current));
  }
  return fens;
}

/** Whether some move of the game was an en-passant capture (a pawn moving diagonally to an empty square). */
function hasEnPassant(game: Game): boolean {
  const fens = fensAlong(game);
  return game.record.moves.some((uci, i) => {
    const fen = fens[i]!;
    const ep = fen.split(' ')[3];
    return ep !== '-' && uci.slice(2, 4) === ep && uci[0] !== uci[2];
  });
}

test('state.pgn of a black-first game reads "12... Kf8 13. Rd1"', (t: TestContext) => {
  const game = start('r5k1/8/8/8/8/8/8/R3K3 b - - 0 12');
  t.assert.equal(gameStateOf(game).pgn, '');
  t.assert.equal(gameStateOf(play(game, ['g8f8'])).pgn, '12... Kf8');
  const played = play(game, ['g8f8', 'a1d1', 'f8e7']);
  t.assert.equal(gameStateOf(played).pgn, '12... Kf8 13. Rd1 Ke7');
  t.assert.equal(
    exportPgn(played, { site: '?' }).split('\n\n')[1],
    '12... Kf8 13. Rd1 Ke7 *\n',
    'the export continues the same numbering',
  );
});

// (b) Hand-picked fixtures.

const OPERA_MOVES = [
  ...['e2e4', 'e7e5', 'g1f3', 'd7d6', 'd2d4', 'c8g4', 'd4e5', 'g4f3', 'd1f3', 'd6e5', 'f1c4', 'g8f6', 'f3b3'],
  ...['d8e7', 'b1c3', 'c7c6', 'c1g5', 'b7b5', 'c3b5', 'c6b5', 'c4b5', 'b8d7', 'e1c1', 'a8d8', 'd1d7', 'd8d7'],
  ...['h1d1', 'e7e6', 'b5d7', 'f6d7', 'b3b8', 'd7b8', 'd1d8'],
];
const OPERA_PGN =
  '1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7 8. Nc3 c6 9. Bg5 b5 10. Nxb5 ' +
  'cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7 14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8#';

interface ValidFixture {
  file: string;
  moves: string[];
  pgn: string;
  fen: string;
  status: string;
  winner: 'white' | 'black' | null;
  white: PlayerInfo;
  black: PlayerInfo;
}

const VALID_FIXTURES: ValidFixture[] = [
  {
    file: 'opera-game-annotated.pgn',
    moves: OPERA_MOVES,
    pgn: OPERA_PGN,
    fen: '1n1Rkb1r/p4ppp/4q3/4p1B1/4P3/8/PPP2PPP/2K5 b k - 1 17',
    status: 'checkmate',
    winner: 'white',
    white: DEFAULT_WHITE,
    black: DEFAULT_BLACK,
  },
  {
    file: 'comment-then-blank-line.pgn',
    moves: OPERA_MOVES,
    pgn: OPERA_PGN,
    fen: '1n1Rkb1r/p4ppp/4q3/4p1B1/4P3/8/PPP2PPP/2K5 b k - 1 17',
    status: 'checkmate',
    winner: 'white',
    white: DEFAULT_WHITE,
    black: DEFAULT_BLACK,
  },
  {
    file: 'black-to-move-setup.pgn',
    moves: ['e8g8', 'e1c1', 'f8e8', 'h1e1', 'e8e1', 'd1e1', 'g8f8', 'e1e8', 'f8e8'],
    pgn: '12... O-O 13. O-O-O Rfe8 14. Rhe1 Rxe1 15. Rxe1 Kf8 16. Re8+ Kxe8',
    fen: 'r3k3/ppp2ppp/2n5/3p4/3P4/2N5/PPP2PPP/2K5 w - - 0 17',
    status: 'started',
    winner: null,
    white: { id: 'p1', displayName: 'Team Rook' },
    black: DEFAULT_BLACK,
  },
  {
    file: 'semicolon-comments.pgn',
    moves: ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4', 'f8c5'],
    pgn: '1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5',
    fen: 'r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4',
    status: 'started',
    winner: null,
    white: DEFAULT_WHITE,
    black: DEFAULT_BLACK,
  },
  {
    file: 'result-not-final.pgn',
    moves: ['e2e4', 'e7e5', 'd1h5', 'b8c6', 'f1c4', 'g8f6'],
    pgn: '1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6',
    fen: 'r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4',
    status: 'started',
    winner: null,
    white: DEFAULT_WHITE,
    black: DEFAULT_BLACK,
  },
  // Real files are messier than the standard (DECISIONS §8): read as lichess and pgn-extract read them.
  {
    file: 'puzzle-fullmove-zero.pgn',
    moves: ['d1d8'],
    pgn: '1. Rd8#',
    fen: '3R2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1',
    status: 'checkmate',
    winner: 'white',
    white: { id: 'p1', displayName: 'White to play' },
    black: DEFAULT_BLACK,
  },
  {
    file: 'doubled-quote-tags.pgn',
    moves: ['e2e4', 'c7c5', 'g1f3', 'd7d6', 'd2d4', 'c5d4', 'f3d4', 'g8f6', 'b1c3', 'a7a6'],
    pgn: '1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6',
    fen: 'rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 0 6',
    status: 'started',
    winner: null,
    white: { id: 'p1', displayName: 'Mephisto' },
    black: { id: 'p2', displayName: 'Guest' },
  },
  {
    file: 'castling-rights-rook-moved.pgn',
    moves: ['c1b1', 'e8g8', 'h1e1', 'f8e8', 'e1e3'],
    pgn: '12. Kb1 O-O 13. Rhe1 Rfe8 14. Re3',
    fen: 'r3r1k1/ppp2ppp/2n5/3p4/3P4/2N1R3/PPP2PPP/1K1R4 b - - 9 14',
    status: 'started',
    winner: null,
    white: DEFAULT_WHITE,
    black: DEFAULT_BLACK,
  },
  {
    file: 'four-field-fen.pgn',
    moves: ['e2e4', 'e8d7', 'e1f2', 'd7e6', 'f2f3'],
    pgn: '1. e4 Kd7 2. Kf2 Ke6 3. Kf3',
    fen: '8/8/4k3/8/4P3/5K2/8/8 b - - 4 3',
    status: 'started',
    winner: null,
    white: DEFAULT_WHITE,
    black: DEFAULT_BLACK,
  },
  {
    file: 'impossible-en-passant-tag.pgn',
    moves: ['e2e4', 'e8d7'],
    pgn: '40. e4 Kd7',
    fen: '8/3k4/8/8/4P3/8/8/4K3 w - - 1 41',
    status: 'started',
    winner: null,
    white: DEFAULT_WHITE,
    black: DEFAULT_BLACK,
  },
];

for (const row of VALID_FIXTURES) {
  test(`fixture ${row.file} is imported`, (t: TestContext) => {
    const imported = gameFromPgn(importInput, fixture(row.file), IMPORT);
    if (!imported.ok) throw imported.error;
    const state = gameStateOf(imported.value);
    t.assert.deepEqual(state.moves, row.moves);
    t.assert.equal(state.pgn, row.pgn);
    t.assert.equal(state.fen, row.fen);
    t.assert.equal(state.status, row.status);
    t.assert.equal(state.winner, row.winner);
    t.assert.equal(state.undoAvailable, true);
    t.assert.equal(state.redoAvailable, false);
    t.assert.deepEqual(imported.value.record.white, row.white);
    t.assert.deepEqual(imported.value.record.black, row.black);
  });
}

test('O-O and 0-0 are the same castling', (t: TestContext) => {
  const zeros = fixture('black-to-move-setup.pgn');
  t.assert.match(zeros, /0-0-0/);
  const letters = zeros.replace(/0-0-0/g, 'O-O-O').replace(/0-0/g, 'O-O');
  const a = gameFromPgn(importInput, zeros, IMPORT);
  const b = gameFromPgn(importInput, letters, IMPORT);
  if (!a.ok) throw a.error;
  if (!b.ok) throw b.error;
  t.assert.deepEqual(gameStateOf(b.value), gameStateOf(a.value));
});

test('display names come from the White and Black tags, "?" and empty tags are ignored', (t: TestContext) => {
  const cases: Array<[string, string, PlayerInfo, PlayerInfo]> = [
    ['Team Rook', '?', { id: 'p1', displayName: 'Team Rook' }, DEFAULT_BLACK],
    ['?', 'Knights Club', DEFAULT_WHITE, { id: 'p2', displayName: 'Knights Club' }],
    ['', '  ', DEFAULT_WHITE, DEFAULT_BLACK],
    ['A "quoted" \\ name', 'x', { id: 'p1', displayName: 'A "quoted" \\ name' }, { id: 'p2', displayName: 'x' }],
    // DECISIONS §15: control characters (C1 too) become spaces, an unpaired surrogate the replacement character.
    ['Next\u0085Line', 'csi\u009b2J', { id: 'p1', displayName: 'Next Line' }, { id: 'p2', displayName: 'csi 2J' }],
    ['high\ud800', '\udc00low', { id: 'p1', displayName: 'high\ufffd' }, { id: 'p2', displayName: '\ufffdlow' }],
    ['😀 pair', 'x', { id: 'p1', displayName: '😀 pair' }, { id: 'p2', displayName: 'x' }],
  ];
  for (const [white, black, expectedWhite, expectedBlack] of cases) {
    const text = `[White "${escapeTag(white)}"]\n[Black "${escapeTag(black)}"]\n\n1. e4 *\n`;
    const imported = gameFromPgn(importInput, text, IMPORT);
    if (!imported.ok) throw imported.error;
    t.assert.deepEqual(imported.value.record.white, expectedWhite, `White "${white}"`);
    t.assert.deepEqual(imported.value.record.black, expectedBlack, `Black "${black}"`);
    // What is exported reads back the same.
    const again = gameFromPgn(importInput, exportPgn(imported.value, { site: '?' }), IMPORT);
    if (!again.ok) throw again.error;
    t.assert.deepEqual([again.value.record.white, again.value.record.black], [expectedWhite, expectedBlack]);
  }
});

interface InvalidFixture {
  name: string;
  text: string;
  maxPlies?: number;
  message: RegExp; // what the message must say, e.g. the move number and text
}

const INVALID_FIXTURES: InvalidFixture[] = [
  { name: 'several-games.pgn', text: fixture('several-games.pgn'), message: /one game/ },
  { name: 'several-games-without-tags.pgn', text: fixture('several-games-without-tags.pgn'), message: /one game/ },
  { name: 'illegal-move.pgn', text: fixture('illegal-move.pgn'), message: /12\.\.\. Nd7\b/ },
  { name: 'ambiguous-move.pgn', text: fixture('ambiguous-move.pgn'), message: /11\.\.\. Nd7\b/ },
  { name: 'invalid-fen-tag.pgn', text: fixture('invalid-fen-tag.pgn'), message: /FEN.*white king/ },
  { name: 'variant-crazyhouse.pgn', text: fixture('variant-crazyhouse.pgn'), message: /variant 'Crazyhouse'/ },
  { name: 'move-after-mate.pgn', text: fixture('move-after-mate.pgn'), message: /3\. a3\b/ },
  { name: 'unreadable-move.pgn', text: fixture('unreadable-move.pgn'), message: /2\. Nf9\b/ },
  {
    name: 'opera-game-annotated.pgn with maxPlies 32 (it has 33 plies)',
    text: fixture('opera-game-annotated.pgn'),
    maxPlies: 32,
    message: /32/,
  },
  { name: 'an empty body', text: '', message: /no game/ },
];

for (const row of INVALID_FIXTURES) {
  test(`INVALID_PGN: ${row.name}`, (t: TestContext) => {
    const imported = gameFromPgn(importInput, row.text, { maxPlies: row.maxPlies ?? IMPORT.maxPlies });
    if (imported.ok) return t.assert.fail(`accepted as ${gameStateOf(imported.value).pgn}`);
    const { error } = imported;
    t.assert.equal(error.code, 'INVALID_PGN');
    t.assert.equal(error.field, 'pgn');
    t.assert.match(error.message, row.message);
  });
}

test('the ply limit counts the main line only and allows exactly maxPlies', (t: TestContext) => {
  const imported = gameFromPgn(importInput, fixture('opera-game-annotated.pgn'), { maxPlies: 33 });
  if (!imported.ok) throw imported.error;
  t.assert.equal(gameStateOf(imported.value).moves.length, 33);
});

// (c) pgn-extract, an independent PGN reader and writer.

const pgnExtract = findExecutable('pgn-extract');
const pgnExtractSkip = skipReason('pgn-extract', pgnExtract);

interface ExtractedGame {
  [tag: string]: unknown;
  Moves: Array<{ move: string; FEN?: string }>;
}

/** Runs pgn-extract on `input`; it reports problems on stderr (its exit status stays 0), so stderr must be empty. */
function runPgnExtract(t: TestContext, args: string[], input: string): string {
  const run = spawnSync(pgnExtract!, ['-s', ...args], { input, encoding: 'utf8' });
  t.assert.equal(run.status, 0, `pgn-extract exit status; stderr: ${run.stderr}`);
  t.assert.equal(run.stderr, '', 'pgn-extract reports no problem');
  return run.stdout;
}

const extractJson = (t: TestContext, input: string): ExtractedGame[] =>
  JSON.parse(runPgnExtract(t, ['--json', '-Wuci', '--fencomments', '--nofauxep'], input));

// pgn-extract's UCI writes the promotion piece in upper case (e7e8Q).
const uciOf = (move: string): string => move.slice(0, 4) + move.slice(4).toLowerCase();

test(
  'pgn-extract reads our exported PGNs: same tags, moves and position after every move',
  { skip: pgnExtractSkip },
  (t: TestContext) => {
    const texts = EXPORTED.map(row => exportPgn(row.game, { site: row.site }));
    const extracted = extractJson(t, texts.join('\n'));
    t.assert.equal(extracted.length, EXPORTED.length, 'one game per export');
    EXPORTED.forEach((row, i) => {
      const got = extracted[i]!;
      const { game } = row;
      t.assert.equal(got.Event, 'Casual game', row.name);
      t.assert.equal(got.Site, row.site, row.name);
      t.assert.equal(got.Date, '2026.01.31', row.name);
      t.assert.equal(got.White, game.record.white.displayName, row.name);
      t.assert.equal(got.Black, game.record.black.displayName, row.name);
      t.assert.equal(got.Result, row.result, row.name);
      t.assert.equal(got.FEN, row.fen === STANDARD_FEN ? undefined : row.fen, row.name);
      t.assert.deepEqual(
        got.Moves.map(move => uciOf(move.move)),
        game.record.moves,
        `${row.name}: the moves`,
      );
      t.assert.deepEqual(
        got.Moves.map(move => move.FEN),
        fensAlong(game).slice(1),
        `${row.name}: the FEN after every move`,
      );
    });
  },
);

// pgn-extract 19.04 does not know ';' comments, and reports doubled-quote tags and four-field FENs as errors (it
// still reads the moves: test/differential/pgn-extract.test.ts compares those).
const PGN_EXTRACT_STRICT = ['semicolon-comments.pgn', 'doubled-quote-tags.pgn', 'four-field-fen.pgn'];
for (const row of VALID_FIXTURES.filter(row => !PGN_EXTRACT_STRICT.includes(row.file))) {
  test(
    `pgn-extract reads ${row.file} as we do, and we read what pgn-extract writes of it`,
    { skip: pgnExtractSkip },
    (t: TestContext) => {
      const text = fixture(row.file);
      const [extracted] = extractJson(t, text);
      t.assert.deepEqual(
        extracted?.Moves.map(move => uciOf(move.move)),
        row.moves,
        "pgn-extract's moves",
      );
      t.assert.equal(extracted?.Moves.at(-1)?.FEN, row.fen, "pgn-extract's final position");

      // Its own layout: 75 columns, comments, NAGs as $n and variations kept, `n...` after each of them.
      const rewritten = runPgnExtract(t, [], text);
      const imported = gameFromPgn(importInput, rewritten, IMPORT);
      if (!imported.ok) throw imported.error;
      t.assert.deepEqual(gameStateOf(imported.value).moves, row.moves, 'moves read from the rewritten PGN');
      t.assert.equal(gameStateOf(imported.value).fen, row.fen, 'position read from the rewritten PGN');
    },
  );
}

test('pgn-extract agrees that the invalid fixtures are invalid', { skip: pgnExtractSkip }, (t: TestContext) => {
  for (const name of ['several-games.pgn', 'several-games-without-tags.pgn']) {
    const run = spawnSync(pgnExtract!, ['-s', '--json', '-Wuci'], { input: fixture(name), encoding: 'utf8' });
    t.assert.equal(JSON.parse(run.stdout).length, 2, `${name}: two games`);
  }
  for (const name of ['illegal-move.pgn', 'ambiguous-move.pgn', 'move-after-mate.pgn', 'unreadable-move.pgn']) {
    const run = spawnSync(pgnExtract!, ['-s', '--json', '-Wuci'], { input: fixture(name), encoding: 'utf8' });
    t.assert.notEqual(run.stderr, '', `${name}: pgn-extract reports a problem`);
  }
});

test('lenient FEN tags: the FEN endpoint still refuses them; the export writes them standard, and reads back', (t: TestContext) => {
  const lenient: Array<[string, string]> = [
    ['puzzle-fullmove-zero.pgn', '6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1'],
    ['castling-rights-rook-moved.pgn', 'r3k2r/ppp2ppp/2n5/3p4/3P4/2N5/PPP2PPP/2KR3R w kq - 4 12'],
    ['four-field-fen.pgn', '4k3/8/8/8/8/8/4P3/4K3 w - - 0 1'],
    ['impossible-en-passant-tag.pgn', '4k3/8/8/8/8/8/4P3/4K3 w - - 0 40'],
  ];
  for (const [file, start] of lenient) {
    const text = fixture(file);
    const tag = /\[FEN "([^"]*)"\]/.exec(text)![1]!;
    const strict = gameFromFen(importInput, tag);
    t.assert.equal(strict.ok, false, `${file}: the FEN endpoint refuses '${tag}'`);
    const imported = gameFromPgn(importInput, text, IMPORT);
    if (!imported.ok) throw imported.error;
    t.assert.equal(imported.value.record.startFen, start, file);
    const exported = exportPgn(imported.value, { site: '?' });
    t.assert.match(exported, new RegExp(`\\[FEN "${start.replace(/[/\\-]/g, '\\$&')}"\\]`), file);
    const again = gameFromPgn(importInput, exported, IMPORT);
    if (!again.ok) throw again.error;
    t.assert.deepEqual(gameStateOf(again.value), gameStateOf(imported.value), file);
  }
});

test('a FEN tag that no reading can save is still INVALID_PGN', (t: TestContext) => {
  for (const fen of [
    '6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 -1',
    '6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - 0 1',
    '6k1/5ppp/8/8/8/8/5PPP/3R2K1 x - - 0 1',
    '6k1/5ppp/8/8/8/8/5PPP/3R2K1 w KX - 0 1',
    '4k3/8/8/8/8/3n1n2/8/4K3 w - - 0 1',
  ]) {
    const imported = gameFromPgn(importInput, `[SetUp "1"]\n[FEN "${fen}"]\n\n*\n`, IMPORT);
    t.assert.equal(imported.ok, false, fen);
    if (!imported.ok) t.assert.match(imported.error.message, /PGN FEN tag is invalid/);
  }
});
