/**
 * The board page's state (src/web/state.ts), under Node with no browser: what reaches the page and when, the legal
 * moves as the board takes them, and the status in words. The browser tests (test/browser) check the same page
 * drawn in Chromium.
 */
import { test, type TestContext } from 'node:test';
import type { LegalMove } from '../../src/contract/shapes.ts';
import { BOTH_SIDES } from '../../src/web/seats.ts';
import {
  answerIsCurrent,
  applyGame,
  applyState,
  destinations,
  movesFor,
  needsLegal,
  newSession,
  offerWordsOf,
  promotionToAsk,
  statusWordsOf,
  titleOf,
} from '../../src/web/state.ts';
import { full, START, state } from './games.ts';

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

test('which promotion to ask for: the one sent, else the only one there is; none once cancelled, none for the other side', (t: TestContext) => {
  const fen = '8/P6k/8/8/8/8/8/K7 w - - 0 1';
  const session = newSession('AbCd1234');
  applyGame(session, full({ fen, status: 'started' }));
  t.assert.equal(promotionToAsk(session, BOTH_SIDES), undefined, 'nothing pending');
  applyState(session, state({ fen, status: 'promotionPending' }));
  t.assert.equal(promotionToAsk(session, BOTH_SIDES), undefined, 'pending, but its move is not known yet');
  session.legal = ['q', 'r', 'b', 'n'].map(p => move(`a7a8${p}`, { moveType: 'promotion', promotion: 'queen' }));
  t.assert.equal(promotionToAsk(session, BOTH_SIDES), 'a7a8', 'the only pawn move to the last rank');
  session.legal.push(move('a7b8q', { moveType: 'promotion', promotion: 'queen' }));
  t.assert.equal(promotionToAsk(session, BOTH_SIDES), undefined, 'two squares to promote on: not guessed');
  session.pending = { fen, uci: 'a7b8' };
  t.assert.equal(promotionToAsk(session, BOTH_SIDES), 'a7b8', 'the move this page sent');
  session.pending = { fen: START, uci: 'a7a8' };
  t.assert.equal(promotionToAsk(session, BOTH_SIDES), undefined, 'a move sent for another position');
  session.pending = { fen, uci: 'a7b8' };
  t.assert.equal(promotionToAsk(session, ['white']), 'a7b8', 'white promotes, and the page holds white');
  t.assert.equal(promotionToAsk(session, ['black']), undefined, "the other player's promotion: not asked here");
  t.assert.equal(promotionToAsk(session, []), undefined, 'a spectator is not asked');
  session.dismissedPendingFen = fen;
  t.assert.equal(promotionToAsk(session, BOTH_SIDES), undefined, 'cancelled for this position');
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

test('pending offers in words, besides the draw offer the status names', (t: TestContext) => {
  t.assert.equal(offerWordsOf(undefined), '');
  t.assert.equal(offerWordsOf(state()), '');
  t.assert.equal(offerWordsOf(state({ takebackOfferedBy: 'white' })), 'White offers a takeback');
  t.assert.equal(offerWordsOf(state({ status: 'drawOffered', drawOfferedBy: 'black' })), '');
  t.assert.equal(
    offerWordsOf(state({ status: 'promotionPending', drawOfferedBy: 'black', takebackOfferedBy: 'white' })),
    'Black offers a draw · White offers a takeback',
  );
  t.assert.equal(offerWordsOf(state({ status: 'resign', winner: 'white', takebackOfferedBy: 'white' })), '');
  const session = newSession('AbCd1234');
  applyGame(session, full({ status: 'drawOffered', drawOfferedBy: 'black', turn: 'white' }));
  t.assert.equal(statusWordsOf(session).status, 'Black offers a draw', 'the side that offered, on either turn');
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

test('a flag and an abort in words', (t: TestContext) => {
  const session = newSession('AbCd1234');
  applyGame(session, full({ status: 'outOfTime', winner: 'black', turn: 'white' }));
  t.assert.deepEqual(statusWordsOf(session), {
    code: 'outOfTime',
    status: 'Out of time',
    turn: 'Game over',
    result: 'White ran out of time · Black wins',
  });
  t.assert.equal(titleOf(session.game), 'Ann vs Bob · White ran out of time · Black wins · Chess');
  applyState(session, state({ status: 'outOfTime', winner: null, turn: 'black' }));
  t.assert.equal(statusWordsOf(session).result, 'Black ran out of time · Draw', 'White has no mating material');
  applyState(session, state({ status: 'aborted' }));
  t.assert.equal(statusWordsOf(session).status, 'Aborted');
  t.assert.equal(statusWordsOf(session).result, 'No result');
});
