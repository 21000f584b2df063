/**
 * The board page's state (src/web/state.ts), under Node with no browser: what reaches the page and when, and
 * what it shows, as plain data. The browser tests (test/browser) check the same page drawn in Chromium.
 */
import { test, type TestContext } from 'node:test';
import type { GameFull, GameState, LegalMove } from '../../src/contract/shapes.ts';
import {
  answerIsCurrent,
  applyGame,
  applyState,
  controlsOf,
  destinations,
  idFromInput,
  idFromPath,
  movesFor,
  needsLegal,
  newSession,
  playersOf,
  promotionToAsk,
  statusWordsOf,
  titleOf,
} from '../../src/web/state.ts';

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

function state(fields: Partial<GameState> = {}): GameState {
  return {
    fen: START,
    pgn: '',
    turn: 'white',
    status: 'started',
    winner: null,
    moves: [],
    undoAvailable: false,
    redoAvailable: false,
    drawOfferedBy: null,
    takebackOfferedBy: null,
    ...fields,
  };
}

function full(fields: Partial<GameState> = {}): GameFull {
  return {
    gameId: 'AbCd1234',
    white: { id: 'p1', displayName: 'Ann' },
    black: { id: 'p2', displayName: 'Bob' },
    state: state(fields),
    clock: null,
  };
}

const move = (uci: string, fields: Partial<LegalMove> = {}): LegalMove => ({
  from: uci.slice(0, 2),
  to: uci.slice(2, 4),
  uci,
  moveType: 'normal',
  promotion: null,
  ...fields,
});

test('a gameFull replaces the game and clears a load error; a gameState needs a game to apply to', (t: TestContext) => {
  const session = newSession('AbCd1234');
  t.assert.equal(applyState(session, state({ moves: ['e2e4'] })), undefined);
  t.assert.equal(session.game, undefined, 'a state without a game is not shown');
  session.loadError = { code: 'UNAVAILABLE', message: 'down', status: 503 };
  t.assert.equal(applyGame(session, full()), undefined);
  t.assert.equal(session.loadError, undefined);
  const previous = applyState(session, state({ moves: ['e2e4'], turn: 'black' }));
  t.assert.deepEqual(previous, state());
  t.assert.deepEqual(session.game?.state.moves, ['e2e4']);
  t.assert.equal(session.game?.white.displayName, 'Ann', 'the players stay');
});

test("an action's answer is shown only if the stream delivered nothing since the action was sent", (t: TestContext) => {
  const session = newSession('AbCd1234');
  const sent = session.epoch;
  t.assert.equal(answerIsCurrent(session, sent), true);
  session.epoch += 1; // a stream event arrived meanwhile
  t.assert.equal(answerIsCurrent(session, sent), false);
});

test('legal moves are asked for once per position and status, never for an ended game', (t: TestContext) => {
  const session = newSession('AbCd1234');
  t.assert.equal(needsLegal(session), false, 'no game yet');
  applyGame(session, full());
  session.legal = [move('e2e4')];
  t.assert.equal(needsLegal(session), true);
  t.assert.deepEqual(session.legal, [], 'no stale move is offered meanwhile');
  session.legal = [move('e2e4')];
  t.assert.equal(needsLegal(session), false, 'same position and status');
  t.assert.deepEqual(session.legal, [move('e2e4')]);
  applyState(session, state({ status: 'drawOffered' }));
  t.assert.equal(needsLegal(session), true, 'same position, another status');
  applyState(session, state({ status: 'resign', winner: 'black' }));
  t.assert.equal(needsLegal(session), false, 'an ended game has no legal moves to ask for');
  t.assert.equal(session.legalKey, `${START}|resign`);
});

test('which promotion to ask for: the one sent, else the only one there is; none once cancelled', (t: TestContext) => {
  const fen = '8/P6k/8/8/8/8/8/K7 w - - 0 1';
  const session = newSession('AbCd1234');
  applyGame(session, full({ fen, status: 'started' }));
  t.assert.equal(promotionToAsk(session), undefined, 'nothing pending');
  applyState(session, state({ fen, status: 'promotionPending' }));
  t.assert.equal(promotionToAsk(session), undefined, 'pending, but its move is not known yet');
  session.legal = ['q', 'r', 'b', 'n'].map(p => move(`a7a8${p}`, { moveType: 'promotion', promotion: 'queen' }));
  t.assert.equal(promotionToAsk(session), 'a7a8', 'the only pawn move to the last rank');
  session.legal.push(move('a7b8q', { moveType: 'promotion', promotion: 'queen' }));
  t.assert.equal(promotionToAsk(session), undefined, 'two squares to promote on: not guessed');
  session.pending = { fen, uci: 'a7b8' };
  t.assert.equal(promotionToAsk(session), 'a7b8', 'the move this page sent');
  session.pending = { fen: START, uci: 'a7a8' };
  t.assert.equal(promotionToAsk(session), undefined, 'a move sent for another position');
  session.pending = { fen, uci: 'a7b8' };
  session.dismissedPendingFen = fen;
  t.assert.equal(promotionToAsk(session), undefined, 'cancelled for this position');
});

test('board destinations: every legal target, and the rook square for castling', (t: TestContext) => {
  const legal = [
    move('e1g1', { moveType: 'castleKingside' }),
    move('e1c1', { moveType: 'castleQueenside' }),
    move('e1f1'),
    move('e8g8', { moveType: 'castleKingside' }),
    ...['q', 'r'].map(p => move(`b7b8${p}`, { moveType: 'promotion', promotion: 'queen' })),
  ];
  t.assert.deepEqual(
    [...destinations(legal)],
    [
      ['e1', ['g1', 'h1', 'c1', 'a1', 'f1']],
      ['e8', ['g8', 'h8']],
      ['b7', ['b8']],
    ],
  );
  t.assert.deepEqual(
    movesFor(legal, 'e1', 'h1').map(m => m.uci),
    ['e1g1'],
    'dropped on the rook: castling',
  );
  t.assert.deepEqual(
    movesFor(legal, 'b7', 'b8').map(m => m.uci),
    ['b7b8q', 'b7b8r'],
  );
  t.assert.deepEqual(movesFor(legal, 'e1', 'e2'), []);
});

test('controls: enabled as the state allows', (t: TestContext) => {
  const none = controlsOf(undefined);
  t.assert.deepEqual(
    Object.values(none),
    Object.values(none).map(() => false),
    'no game: nothing enabled',
  );
  t.assert.deepEqual(controlsOf(state()), {
    undo: false,
    redo: false,
    resign: true,
    drawOffer: true,
    drawAccept: false,
    drawDecline: false,
    drawClaim: false,
    move: true,
    export: true,
  });
  const offered = controlsOf(state({ status: 'drawOffered', undoAvailable: true, redoAvailable: true }));
  t.assert.deepEqual(
    [offered.undo, offered.redo, offered.drawOffer, offered.drawAccept, offered.drawDecline],
    [true, true, false, true, true],
  );
  const ended = controlsOf(state({ status: 'checkmate', winner: 'black', undoAvailable: true }));
  t.assert.deepEqual(
    [ended.undo, ended.resign, ended.drawOffer, ended.drawClaim, ended.move, ended.export],
    [true, false, false, false, false, true],
  );
  const clock = (halfmoves: number) => `7k/8/8/8/8/8/8/K5R1 w - - ${halfmoves} 80`;
  t.assert.equal(controlsOf(state({ fen: clock(99) })).drawClaim, false);
  t.assert.equal(controlsOf(state({ fen: clock(100), status: 'fiftyMoveAvailable' })).drawClaim, true);
});

test('status words and title', (t: TestContext) => {
  t.assert.deepEqual(statusWordsOf(undefined), {
    code: '',
    status: 'No game yet',
    turn: 'Start a new game or open one.',
    result: '',
  });
  const session = newSession('AbCd1234');
  t.assert.deepEqual(statusWordsOf(session), { code: 'loading', status: 'Loading…', turn: '', result: '' });
  session.loadError = { code: 'GAME_NOT_FOUND', message: 'no such game', status: 404 };
  t.assert.equal(statusWordsOf(session).code, 'error');
  applyGame(session, full({ status: 'check', turn: 'black' }));
  t.assert.deepEqual(statusWordsOf(session), {
    code: 'check',
    status: 'Black is in check',
    turn: 'Black to move',
    result: '',
  });
  applyState(session, state({ status: 'checkmate', winner: 'white', turn: 'black' }));
  t.assert.equal(statusWordsOf(session).result, 'White wins');
  t.assert.equal(titleOf(session.game), 'Ann vs Bob · White wins · Chess');
  t.assert.equal(titleOf(undefined), 'Chess');
});

test('addresses and forms: a game id from the path or from what was pasted, the players from the names', (t: TestContext) => {
  t.assert.equal(idFromPath('/game/AbCd1234'), 'AbCd1234');
  t.assert.equal(idFromPath('/game/AbCd1234/'), 'AbCd1234');
  t.assert.equal(idFromPath('/game/a%20b'), 'a b');
  t.assert.equal(idFromPath('/game/%E0%A4%A'), '%E0%A4%A', 'an undecodable id is kept as it is');
  t.assert.equal(idFromPath('/'), undefined);
  t.assert.equal(idFromPath('/game/a/b'), undefined);
  t.assert.equal(idFromInput('  AbCd1234 '), 'AbCd1234');
  t.assert.equal(idFromInput('https://chess.example.org/game/AbCd1234?x=1#y'), 'AbCd1234');
  t.assert.deepEqual(playersOf(' Ann ', ''), { white: { id: 'p1', displayName: 'Ann' } });
  t.assert.deepEqual(playersOf('', 'Bob'), { black: { id: 'p2', displayName: 'Bob' } });
  t.assert.deepEqual(playersOf('  ', ' '), {});
});
