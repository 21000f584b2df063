/**
 * A game as lichess exports it (DECISIONS §22): GameJson validated against lichess's own schema with every option,
 * and the PGN with lichess's tags, `[%clk]` comments when asked, read back by the service's own import to the same
 * moves and position.
 */
import { test, type TestContext } from 'node:test';
import { makeComment } from 'chessops/pgn';
import { gameFromFen, newGame, restoreGame, type Game } from '../../src/domain/game.ts';
import { abort, makeMove, resign } from '../../src/domain/transitions.ts';
import { EXPORT_DEFAULTS, clockComment, exportPgnOf, gameJsonOf, pgnTagsOf } from '../../src/domain/gameExport.ts';
import { gameFromPgn } from '../../src/domain/pgn.ts';
import { engineSeat } from '../../src/domain/engineSeat.ts';
import { assertLichess } from '../helpers/lichess.ts';

const CREATED = Date.UTC(2026, 2, 14, 9, 26, 53, 589);
const createdAt = new Date(CREATED).toISOString();
const ANN = { id: 'ann', displayName: 'Ann "the" Bold' };
const BOB = { id: 'bob', displayName: 'Bob' };
const SITE = 'https://chess.example.org/game/Exported';
const ALL = { site: SITE, moves: true, tags: true, clocks: true, pgnInJson: true, lastFen: true };

function play(game: Game, moves: string[], stepMs = 0): Game {
  let at = CREATED;
  for (const uci of moves) {
    at += stepMs;
    const change = makeMove(game, uci, undefined, at);
    if (!change.ok) throw new Error(change.error.message);
    game = change.value.game;
  }
  return game;
}

const blitz = () =>
  newGame({ id: 'Exported', createdAt, white: ANN, black: BOB, clock: { initial: 180_000, increment: 2_000 } });

test('GameJson of a finished blitz game: lichess schema, SAN moves, clocks in centiseconds, PGN and last FEN', (t: TestContext) => {
  const game = play(blitz(), ['f2f3', 'e7e5', 'g2g4', 'd8h4'], 3_210);
  const json = gameJsonOf(game, ALL);
  assertLichess('GameJson', json);
  t.assert.equal(json.moves, 'f3 e5 g4 Qh4#');
  t.assert.equal(json.status, 'mate');
  t.assert.equal(json.winner, 'black');
  t.assert.equal(json.speed, 'blitz');
  t.assert.equal(json.perf, 'blitz');
  t.assert.equal(json.rated, false);
  t.assert.equal(json.variant, 'standard');
  t.assert.equal(json.createdAt, CREATED);
  t.assert.deepEqual(json.clock, { initial: 180, increment: 2, totalTime: 260 });
  // The first move of each side is untimed; then each mover's time left after the move, in centiseconds.
  t.assert.deepEqual(json.clocks, [18000, 18000, 17879, 18000 - 321 + 200]);
  t.assert.deepEqual(json.players.white, {
    user: { id: 'ann', name: 'Ann "the" Bold' },
    rating: 1500,
    provisional: true,
  });
  t.assert.equal(json.lastFen, game.fen);
  t.assert.equal(json.pgn, exportPgnOf(game, ALL));
  t.assert.ok(json.lastMoveAt >= json.createdAt);
});

test('GameJson leaves out what is not asked for, and tells a game from a position, correspondence and the computer', (t: TestContext) => {
  const plain = gameJsonOf(play(blitz(), ['e2e4']), { site: SITE, ...EXPORT_DEFAULTS, moves: false });
  assertLichess('GameJson', plain);
  for (const field of ['moves', 'pgn', 'clocks', 'lastFen', 'winner', 'initialFen', 'daysPerTurn'])
    t.assert.equal(field in plain, false, field);
  t.assert.equal(plain.status, 'started');

  const fen = '4k3/8/8/8/8/8/4P3/4K3 w - - 0 1';
  const created = gameFromFen(
    { id: 'FromFen1', createdAt, white: engineSeat(3), black: BOB, clock: { daysPerMove: 3 } },
    fen,
  );
  if (!created.ok) throw new Error(created.error.message);
  const json = gameJsonOf(created.value, { site: SITE, ...EXPORT_DEFAULTS });
  assertLichess('GameJson', json);
  t.assert.equal(json.variant, 'fromPosition');
  t.assert.equal(json.initialFen, fen);
  t.assert.equal(json.daysPerTurn, 3);
  t.assert.equal(json.speed, 'correspondence');
  t.assert.equal(json.source, 'ai');
  t.assert.equal(json.players.white.aiLevel, 3);
  t.assert.equal(json.moves, '');

  const unlimited = gameJsonOf(newGame({ id: 'Unlimit1', createdAt }), { site: SITE, ...EXPORT_DEFAULTS });
  assertLichess('GameJson', unlimited);
  t.assert.equal(unlimited.perf, 'correspondence', 'unlimited games count as correspondence');
  t.assert.equal(unlimited.status, 'started');
});

test("PGN tags are lichess's, in its order; Termination follows how the game ended", (t: TestContext) => {
  const game = play(blitz(), ['f2f3', 'e7e5', 'g2g4', 'd8h4'], 1_000);
  t.assert.deepEqual(pgnTagsOf(game, SITE), [
    ['Event', 'Casual Blitz game'],
    ['Site', SITE],
    ['Date', '2026.03.14'],
    ['Round', '-'],
    ['White', 'Ann "the" Bold'],
    ['Black', 'Bob'],
    ['Result', '0-1'],
    ['GameId', 'Exported'],
    ['UTCDate', '2026.03.14'],
    ['UTCTime', '09:26:53'],
    ['Variant', 'Standard'],
    ['TimeControl', '180+2'],
    ['Termination', 'Normal'],
  ]);
  const termination = (g: Game) => new Map(pgnTagsOf(g, SITE)).get('Termination');
  t.assert.equal(termination(play(blitz(), ['e2e4'])), 'Unterminated');
  const aborted = abort(blitz(), undefined, CREATED + 1_000);
  if (!aborted.ok) throw new Error(aborted.error.message);
  t.assert.equal(termination(aborted.value.game), 'Abandoned');
  const resigned = resign(play(blitz(), ['e2e4', 'e7e5']), undefined, CREATED + 1_000);
  if (!resigned.ok) throw new Error(resigned.error.message);
  t.assert.equal(termination(resigned.value.game), 'Normal');
  t.assert.equal(new Map(pgnTagsOf(newGame({ id: 'Unlimit1', createdAt }), SITE)).get('TimeControl'), '-');
  const rated = { ...game, record: { ...game.record, rated: true } };
  t.assert.equal(new Map(pgnTagsOf(rated, SITE)).get('Event'), 'Rated Blitz game');
});

test('PGN: [%clk] comments only when asked, no tags or no moves when asked, and read back to the same game', (t: TestContext) => {
  const game = play(blitz(), ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1b5', 'a7a6'], 59_000);
  const withClocks = exportPgnOf(game, ALL);
  t.assert.match(withClocks, /^\[Event "Casual Blitz game"\]\n/);
  t.assert.match(
    withClocks,
    /1\. e4 \{\[%clk 0:03:00\]\} 1\.\.\. e5 \{\[%clk 0:03:00\]\} 2\. Nf3 \{\[%clk 0:02:03\]\}/,
  );
  t.assert.match(withClocks, /\n\n1\. e4/);
  t.assert.match(withClocks, / \*\n$/);
  const bare = exportPgnOf(game, { ...ALL, clocks: false });
  t.assert.doesNotMatch(bare, /%clk/);
  t.assert.match(bare, /\n\n1\. e4 e5 2\. Nf3 Nc6 3\. Bb5 a6 \*\n$/);
  t.assert.equal(exportPgnOf(game, { ...ALL, tags: false, clocks: false }), '1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n');
  t.assert.doesNotMatch(exportPgnOf(game, { ...ALL, moves: false }), /e4/);
  for (const text of [withClocks, bare]) {
    const back = gameFromPgn({ id: 'ReadBack', createdAt }, text, { maxPlies: 10_000 });
    if (!back.ok) throw new Error(back.error.message);
    t.assert.deepEqual(back.value.record.moves, game.record.moves);
    t.assert.equal(back.value.fen, game.fen);
    t.assert.equal(back.value.record.white.displayName, ANN.displayName);
  }
  // From a position: Variant, FEN and SetUp, read back to the same start and moves.
  const fromFen = gameFromFen({ id: 'FromFen1', createdAt }, '4k3/8/8/8/8/8/4P3/4K3 b - - 0 40');
  if (!fromFen.ok) throw new Error(fromFen.error.message);
  const played = play(fromFen.value, ['e8d7', 'e2e4']);
  const text = exportPgnOf(played, ALL);
  t.assert.match(text, /\[Variant "From Position"\]/);
  t.assert.match(text, /\n\n40\.\.\. Kd7 41\. e4 \*\n$/);
  const back = gameFromPgn({ id: 'ReadBack', createdAt }, text, { maxPlies: 10_000 });
  if (!back.ok) throw new Error(back.error.message);
  t.assert.deepEqual(back.value.record.moves, played.record.moves);
  t.assert.equal(back.value.fen, played.fen);
});

test('[%clk] comments read as chessops writes them, for any time', (t: TestContext) => {
  for (const ms of [0, 999, 1_000, 59_999, 60_000, 3_599_999, 3_600_000, 10_800_000, 36_000_000 + 61_500]) {
    t.assert.equal(clockComment(ms), makeComment({ clock: Math.floor(ms / 1000) }), String(ms));
  }
});

test('a stored game restored without checking its moves again is the game restored with the check', (t: TestContext) => {
  const game = play(blitz(), ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4', 'g8f6', 'e1g1', 'f8c5', 'd2d4', 'e5d4'], 1_000);
  const trusted = restoreGame(game.record, { trusted: true });
  const checked = restoreGame(game.record);
  t.assert.deepEqual(trusted.sans, checked.sans);
  t.assert.equal(trusted.fen, checked.fen);
  t.assert.equal(exportPgnOf(trusted, ALL), exportPgnOf(checked, ALL));
});

test('a rated game exports its ratings: the Elo tags after UTCTime as lichess orders them, and GameJson players with their changes', (t: TestContext) => {
  const played = play(blitz(), ['f2f3', 'e7e5', 'g2g4', 'd8h4'], 3_210);
  const game: Game = {
    ...played,
    record: {
      ...played.record,
      rated: true,
      ratings: {
        white: { rating: 1712, provisional: false, ratingDiff: -9 },
        black: { rating: 1500, provisional: true, ratingDiff: 187 },
      },
    },
  };
  const tags = pgnTagsOf(game, SITE);
  const names = tags.map(([name]) => name);
  t.assert.deepEqual(names.slice(names.indexOf('UTCTime') + 1, names.indexOf('Variant')), [
    'WhiteElo',
    'BlackElo',
    'WhiteRatingDiff',
    'BlackRatingDiff',
  ]);
  t.assert.deepEqual(
    tags.filter(([name]) => /Elo|RatingDiff|Event/.test(name)),
    [
      ['Event', 'Rated Blitz game'],
      ['WhiteElo', '1712'],
      ['BlackElo', '1500'],
      ['WhiteRatingDiff', '-9'],
      ['BlackRatingDiff', '+187'],
    ],
  );
  const json = gameJsonOf(game, ALL);
  assertLichess('GameJson', json);
  t.assert.equal(json.rated, true);
  t.assert.deepEqual(json.players.white, { user: { id: 'ann', name: 'Ann "the" Bold' }, rating: 1712, ratingDiff: -9 });
  t.assert.deepEqual(json.players.black, {
    user: { id: 'bob', name: 'Bob' },
    rating: 1500,
    ratingDiff: 187,
    provisional: true,
  });
  // The PGN reads back through the service's own import with its tags.
  const back = gameFromPgn({ id: 'ReadBack', createdAt }, exportPgnOf(game, ALL), { maxPlies: 10_000 });
  if (!back.ok) throw new Error(back.error.message);
  t.assert.deepEqual(back.value.record.moves, game.record.moves);
});
