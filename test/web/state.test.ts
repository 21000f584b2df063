/**
 * The board page's state (src/web/state.ts), under Node with no browser: what reaches the page and when, and
 * what it shows, as plain data. The browser tests (test/browser) check the same page drawn in Chromium.
 */
import { test, type TestContext } from 'node:test';
import type { Account, GameFull, GameState, LegalMove } from '../../src/contract/shapes.ts';
import type { Color } from '../../src/contract/vocabulary.ts';
import {
  answerIsCurrent,
  applyGame,
  applyState,
  BOTH_SIDES,
  controlsOf,
  destinations,
  hasMoveToTakeBack,
  idFromInput,
  idFromPath,
  movesFor,
  needsLegal,
  newSession,
  offerWordsOf,
  orientationFor,
  playersOf,
  promotionToAsk,
  seatsOf,
  seatWordsOf,
  statusWordsOf,
  titleOf,
  type Controls,
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

const ANN = { id: 'p1', displayName: 'Ann' }; // white in full()
const BOB = { id: 'p2', displayName: 'Bob' }; // black in full()

test('seats: both sides without a player, else the seats holding the player; none until the account is known', (t: TestContext) => {
  const game = full();
  const practice = { ...game, black: ANN };
  const rows: Array<[string, Account | undefined, GameFull | undefined, Color[], string, Color | undefined]> = [
    ['service token or no authentication', { player: null }, game, ['white', 'black'], '', undefined],
    ['the white player', { player: ANN }, game, ['white'], 'You play white', 'white'],
    ['the black player', { player: BOB }, game, ['black'], 'You play black', 'black'],
    ['a player with no seat', { player: { id: 'p3', displayName: 'Cid' } }, game, [], 'You are watching', undefined],
    ['a practice board', { player: ANN }, practice, ['white', 'black'], 'You play both sides', undefined],
    ['the account not known yet', undefined, game, [], '', undefined],
    ['no game yet', { player: ANN }, undefined, [], '', undefined],
  ];
  for (const [name, account, shown, seats, words, orientation] of rows) {
    t.assert.deepEqual(seatsOf(shown, account), seats, name);
    t.assert.equal(seatWordsOf(shown, account), words, name);
    t.assert.equal(orientationFor(seatsOf(shown, account)), orientation, name);
  }
});

test('a takeback needs a move of the side asking: its last one, with the reply since', (t: TestContext) => {
  const rows: Array<[string, Partial<GameState>, Color, boolean]> = [
    ['no moves', {}, 'white', false],
    ['white moved, black to move: white', { moves: ['e2e4'], turn: 'black' }, 'white', true],
    ['white moved, black to move: black', { moves: ['e2e4'], turn: 'black' }, 'black', false],
    ['both moved: white (two moves back)', { moves: ['e2e4', 'e7e5'] }, 'white', true],
    ['both moved: black', { moves: ['e2e4', 'e7e5'] }, 'black', true],
    ['a FEN with black to move, black moved: white has not', { moves: ['e7e5'] }, 'white', false],
  ];
  for (const [name, fields, side, expected] of rows)
    t.assert.equal(hasMoveToTakeBack(state(fields), side), expected, name);
});

/** The controls of a state for the given seats: those enabled and those shown disabled; the rest are hidden. */
function shownControls(fields: Partial<GameState> | undefined, seats: readonly Color[]) {
  const controls = controlsOf(fields && state(fields), seats);
  const names = Object.keys(controls) as Array<keyof Controls>;
  return {
    enabled: names.filter(name => controls[name] === 'enabled'),
    disabled: names.filter(name => controls[name] === 'disabled'),
  };
}

test('controls: shown when they apply to the seats held, enabled when the state allows', (t: TestContext) => {
  const clock = (halfmoves: number) => `7k/8/8/8/8/8/8/K5R1 w - - ${halfmoves} 80`;
  const afterE4 = { moves: ['e2e4'], turn: 'black' as const };
  const whiteOffersTakeback = { ...afterE4, takebackOfferedBy: 'white' as const };
  const blackOffersDraw = { moves: ['e2e4', 'e7e5'], status: 'drawOffered' as const, drawOfferedBy: 'black' as const };
  const rows: Array<[string, Partial<GameState> | undefined, readonly Color[], string[], string[]]> = [
    // name, state (none: no game), seats, enabled, shown disabled
    ['no game: nothing enabled', undefined, BOTH_SIDES, [], ['export']],
    ['both sides, start', {}, BOTH_SIDES, ['resign', 'drawOffer', 'move', 'export'], ['undo', 'redo']],
    [
      'both sides, a draw offer pending',
      { status: 'drawOffered', drawOfferedBy: 'white', undoAvailable: true, redoAvailable: true },
      BOTH_SIDES,
      ['undo', 'redo', 'resign', 'drawAccept', 'drawDecline', 'move', 'export'],
      [],
    ],
    [
      'both sides, mate: undone, not resigned',
      { status: 'checkmate', winner: 'black', undoAvailable: true },
      BOTH_SIDES,
      ['undo', 'export'],
      ['redo', 'move'],
    ],
    [
      'both sides, halfmove clock 99: no claim',
      { fen: clock(99) },
      BOTH_SIDES,
      ['resign', 'drawOffer', 'move', 'export'],
      ['undo', 'redo'],
    ],
    [
      'both sides, halfmove clock 100: claim',
      { fen: clock(100), status: 'fiftyMoveAvailable' },
      BOTH_SIDES,
      ['resign', 'drawOffer', 'drawClaim', 'move', 'export'],
      ['undo', 'redo'],
    ],
    [
      'both sides answer a takeback offered by another client; they undo rather than offer',
      { ...whiteOffersTakeback, undoAvailable: true },
      BOTH_SIDES,
      ['undo', 'resign', 'drawOffer', 'takebackAccept', 'takebackDecline', 'move', 'export'],
      ['redo'],
    ],
    ['white, start: moves, no takeback yet', {}, ['white'], ['resign', 'drawOffer', 'move', 'export'], []],
    ["black, start: white's turn", {}, ['black'], ['resign', 'drawOffer', 'export'], ['move']],
    [
      'white after 1. e4: a takeback, no undo',
      { ...afterE4, undoAvailable: true },
      ['white'],
      ['resign', 'drawOffer', 'takebackOffer', 'export'],
      ['move'],
    ],
    [
      'black after 1. e4: no move of its own to take back',
      afterE4,
      ['black'],
      ['resign', 'drawOffer', 'move', 'export'],
      [],
    ],
    [
      'white after 1. e4 e5: its move and the reply',
      { moves: ['e2e4', 'e7e5'] },
      ['white'],
      ['resign', 'drawOffer', 'takebackOffer', 'move', 'export'],
      [],
    ],
    ['white, its takeback offer pending', whiteOffersTakeback, ['white'], ['resign', 'drawOffer', 'export'], ['move']],
    [
      "black answers white's takeback offer",
      whiteOffersTakeback,
      ['black'],
      ['resign', 'drawOffer', 'takebackAccept', 'takebackDecline', 'move', 'export'],
      [],
    ],
    [
      "white answers black's draw offer",
      blackOffersDraw,
      ['white'],
      ['resign', 'drawAccept', 'drawDecline', 'takebackOffer', 'move', 'export'],
      [],
    ],
    ['black, its draw offer pending', blackOffersDraw, ['black'], ['resign', 'takebackOffer', 'export'], ['move']],
    [
      'white claims fifty moves on its turn',
      { fen: clock(100), status: 'fiftyMoveAvailable' },
      ['white'],
      ['resign', 'drawOffer', 'drawClaim', 'move', 'export'],
      [],
    ],
    [
      "black cannot claim on white's turn",
      { fen: clock(100), status: 'fiftyMoveAvailable' },
      ['black'],
      ['resign', 'drawOffer', 'export'],
      ['move'],
    ],
    ['white after resigning', { status: 'resign', winner: 'black', moves: ['e2e4'] }, ['white'], ['export'], ['move']],
    [
      'a spectator: nothing to act on',
      { ...blackOffersDraw, takebackOfferedBy: 'white', undoAvailable: true },
      [],
      ['export'],
      [],
    ],
  ];
  for (const [name, fields, seats, enabled, disabled] of rows) {
    t.assert.deepEqual(shownControls(fields, seats), { enabled, disabled }, name);
  }
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
