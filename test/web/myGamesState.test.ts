/**
 * The "My games" list (src/web/myGamesState.ts), under Node: the player's ongoing games from their event stream's
 * lines and the list answers, and the panel's rows in words. The browser tests (test/browser/mygames) check the
 * panel in Chromium.
 */
import { test, type TestContext } from 'node:test';
import type { GameFull, GameState } from '../../src/contract/shapes.ts';
import { applyGameList, applyPlayerLine, myGameRowsOf, newMyGames, openMyGames } from '../../src/web/myGamesState.ts';
import { ANN, BOB, full } from './games.ts';

const CID = { id: 'p3', displayName: 'Cid' };

/** A game of Ann's against `opponent` (Ann white unless `annBlack`), with its state's fields. */
function annGame(gameId: string, opponent = BOB, fields: Partial<GameState> = {}, annBlack = false): GameFull {
  return { ...full(fields), gameId, white: annBlack ? opponent : ANN, black: annBlack ? ANN : opponent };
}

const idsOf = (games: readonly GameFull[]): string[] => games.map(game => game.gameId);

test("my games: a connection's first lines keep their order; once a list came, a new game goes first; a finish drops it", (t: TestContext) => {
  const list = newMyGames();
  openMyGames(list);
  // The ongoing games a connection sends first: the most recently changed first.
  for (const id of ['game0003', 'game0002', 'game0001'])
    applyPlayerLine(list, { type: 'gameStart', game: annGame(id) });
  t.assert.deepEqual(idsOf(list.games), ['game0003', 'game0002', 'game0001']);
  t.assert.equal(applyGameList(list, { games: list.games, nextCursor: null }, list.epoch), true);
  applyPlayerLine(list, { type: 'gameStart', game: annGame('game0004', CID) });
  t.assert.deepEqual(idsOf(list.games), ['game0004', 'game0003', 'game0002', 'game0001'], 'started elsewhere, now');
  applyPlayerLine(list, { type: 'gameFinish', game: annGame('game0002', BOB, { status: 'resign', winner: 'white' }) });
  t.assert.deepEqual(idsOf(list.games), ['game0004', 'game0003', 'game0001']);
  applyPlayerLine(list, { type: 'gameFinish', game: annGame('gameXXXX', BOB, { status: 'aborted' }) });
  t.assert.deepEqual(idsOf(list.games), ['game0004', 'game0003', 'game0001'], 'a finish of a game not listed');

  // A reconnection: what the new connection sends is the list, a game that ended meanwhile is gone.
  openMyGames(list);
  t.assert.deepEqual(list.games, []);
  t.assert.equal(list.settled, false);
  for (const id of ['game0004', 'game0001']) applyPlayerLine(list, { type: 'gameStart', game: annGame(id) });
  t.assert.deepEqual(idsOf(list.games), ['game0004', 'game0001']);
});

test('my games: a start of a listed game keeps the listed one; an ended game is not added', (t: TestContext) => {
  const list = newMyGames();
  openMyGames(list);
  const moved = annGame('game0001', BOB, { moves: ['e2e4'], turn: 'black' });
  applyGameList(list, { games: [moved], nextCursor: null }, list.epoch);
  applyPlayerLine(list, { type: 'gameStart', game: annGame('game0001') }); // the line was on its way
  t.assert.deepEqual(list.games, [moved], 'the list answer made after the start is as new');
  applyPlayerLine(list, {
    type: 'gameStart',
    game: annGame('game0002', BOB, { status: 'checkmate', winner: 'white' }),
  });
  t.assert.deepEqual(idsOf(list.games), ['game0001']);
});

test('my games: a list answer replaces the list unless a line or a connection came since it was asked for', (t: TestContext) => {
  const list = newMyGames();
  openMyGames(list);
  applyPlayerLine(list, { type: 'gameStart', game: annGame('game0001') });
  const asked = list.epoch;
  const answer = { games: [annGame('game0002'), annGame('game0001', BOB, { turn: 'black' })], nextCursor: null };
  applyPlayerLine(list, { type: 'gameFinish', game: annGame('game0002', BOB, { status: 'resign', winner: 'black' }) });
  t.assert.equal(applyGameList(list, answer, asked), false, 'stale: game0002 ended since');
  t.assert.deepEqual(idsOf(list.games), ['game0001']);
  t.assert.equal(list.settled, false);
  openMyGames(list);
  t.assert.equal(applyGameList(list, { games: [], nextCursor: null }, asked), false, 'asked before the connection');

  t.assert.equal(applyGameList(list, answer, list.epoch), true);
  t.assert.deepEqual(idsOf(list.games), ['game0002', 'game0001'], 'its order and states');
  t.assert.equal(list.games[1]?.state.turn, 'black');
  t.assert.equal(list.settled, true);
  // An answer without the ended game; one with more pages keeps the games it does not hold, after its own.
  applyGameList(list, { games: [annGame('game0001')], nextCursor: null }, list.epoch);
  t.assert.deepEqual(idsOf(list.games), ['game0001']);
  applyPlayerLine(list, { type: 'gameStart', game: annGame('game0003') });
  const ended = annGame('game0004', BOB, { status: 'draw' });
  applyGameList(list, { games: [annGame('game0005'), ended, annGame('game0003')], nextCursor: 'c' }, list.epoch);
  t.assert.deepEqual(idsOf(list.games), ['game0005', 'game0003', 'game0001']);
});

test("my games in words: the opponent, the player's side, whose turn; the open game's own state", (t: TestContext) => {
  const games = [
    annGame('game0001', BOB),
    annGame('game0002', CID, { turn: 'black', moves: ['e2e4'] }),
    annGame('game0003', BOB, { turn: 'black', moves: ['e2e4'] }, true),
    { ...annGame('game0004', ANN), black: ANN },
  ];
  const rows = myGameRowsOf(games, ANN, undefined);
  t.assert.deepEqual(rows, [
    { gameId: 'game0001', title: 'vs Bob', side: 'White', turn: 'Your turn', yourTurn: true, open: false },
    { gameId: 'game0002', title: 'vs Cid', side: 'White', turn: "Cid's turn", yourTurn: false, open: false },
    { gameId: 'game0003', title: 'vs Bob', side: 'Black', turn: 'Your turn', yourTurn: true, open: false },
    { gameId: 'game0004', title: 'Practice board', side: 'Both sides', turn: 'Your turn', yourTurn: true, open: false },
  ]);
  t.assert.deepEqual(
    myGameRowsOf(games, BOB, undefined).map(row => [row.title, row.side, row.turn]),
    [
      ['vs Ann', 'Black', "Ann's turn"],
      ['Ann vs Cid', 'Watching', "Cid's turn"],
      ['vs Ann', 'White', "Ann's turn"],
      ['Ann vs Ann', 'Watching', "Ann's turn"],
    ],
  );

  // The game on the board: its stream's state, newer than the list's; an ended one is left out.
  const open = annGame('game0001', BOB, { turn: 'black', moves: ['e2e4'] });
  t.assert.deepEqual(myGameRowsOf(games, ANN, open)[0], {
    gameId: 'game0001',
    title: 'vs Bob',
    side: 'White',
    turn: "Bob's turn",
    yourTurn: false,
    open: true,
  });
  const over = annGame('game0001', BOB, { status: 'resign', winner: 'black' });
  t.assert.deepEqual(
    myGameRowsOf(games, ANN, over).map(row => row.gameId),
    ['game0002', 'game0003', 'game0004'],
  );
});
