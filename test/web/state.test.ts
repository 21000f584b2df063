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
  applyGameList,
  applyPlayerLine,
  applyState,
  BOTH_SIDES,
  clockDisplayOf,
  clockRequestOf,
  clockStarted,
  controlsOf,
  durationWords,
  formatClock,
  destinations,
  hasMoveToTakeBack,
  idFromInput,
  idFromPath,
  lowTimeOf,
  movesFor,
  myGameRowsOf,
  needsLegal,
  newGamePlayersOf,
  newMyGames,
  newSession,
  offerWordsOf,
  openMyGames,
  orientationFor,
  playersOf,
  promotionToAsk,
  seatsOf,
  seatWordsOf,
  serviceOffsetAfter,
  statusWordsOf,
  TIME_CONTROLS,
  titleOf,
  type ClockFace,
  type Controls,
  type NewGameFields,
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

test('the create form with a player token names the opponent on the other side; without one, the names', (t: TestContext) => {
  const fields: NewGameFields = { whiteName: 'Ann', blackName: '', ownSide: 'white', opponentId: '', opponentName: '' };
  const ann: Account = { player: { id: 'ann', displayName: 'Ann' } };
  const rows: Array<[string, Partial<NewGameFields>, Account | undefined, unknown]> = [
    ['no player token: the names', {}, { player: null }, { white: { id: 'p1', displayName: 'Ann' } }],
    ['the account not known yet: the names', {}, undefined, { white: { id: 'p1', displayName: 'Ann' } }],
    ['a player, no opponent: a practice board', {}, ann, {}],
    [
      'a player takes white',
      { opponentId: ' bob ', opponentName: ' Bob ' },
      ann,
      { black: { id: 'bob', displayName: 'Bob' } },
    ],
    [
      'a player takes black',
      { ownSide: 'black', opponentId: 'bob', opponentName: 'Bob' },
      ann,
      { white: { id: 'bob', displayName: 'Bob' } },
    ],
    [
      'an opponent without a name: the id names them',
      { opponentId: 'bob' },
      ann,
      { black: { id: 'bob', displayName: 'bob' } },
    ],
    ['oneself: a practice board', { opponentId: 'ann' }, ann, { black: { id: 'ann', displayName: 'Ann' } }],
  ];
  for (const [name, changed, account, expected] of rows) {
    t.assert.deepEqual(newGamePlayersOf({ ...fields, ...changed }, account), expected, name);
  }
  const nameOnly = newGamePlayersOf({ ...fields, opponentName: 'Bob' }, ann);
  t.assert.ok('error' in nameOnly && /player id/.test(nameOnly.error), 'a name without an id says what is missing');
});

// ---------------------------------------------------------------------------------------------- clocks

const T = 1_800_000_000_000; // a serverTime
const BLITZ = { initial: 180_000, increment: 2_000 };
const DAYS = { daysPerMove: 3 };
const DAY = 86_400_000;

/** A real-time game's state: the times at serverTime T. */
const timed = (fields: Partial<GameState> = {}): GameState =>
  state({ wtime: BLITZ.initial, btime: BLITZ.initial, winc: 2000, binc: 2000, serverTime: T, ...fields });

test('time controls offered: none first, then real-time presets in ms and days per move', (t: TestContext) => {
  t.assert.equal(TIME_CONTROLS[0]?.value, '');
  t.assert.equal(clockRequestOf(''), undefined, 'the default: no clock');
  t.assert.deepEqual(clockRequestOf('1+0'), { initial: 60_000, increment: 0 });
  t.assert.deepEqual(clockRequestOf('3+2'), { initial: 180_000, increment: 2_000 });
  t.assert.deepEqual(clockRequestOf('15+10'), { initial: 900_000, increment: 10_000 });
  t.assert.deepEqual(clockRequestOf('3d'), { daysPerMove: 3 });
  t.assert.equal(TIME_CONTROLS.find(choice => choice.value === '1d')?.label, '1 day per move');
  t.assert.equal(new Set(TIME_CONTROLS.map(choice => choice.value)).size, TIME_CONTROLS.length, 'values are unique');
  for (const { clock } of TIME_CONTROLS) {
    if (!clock) continue;
    // The service's limits (DECISIONS §14).
    if (clock.daysPerMove !== undefined) t.assert.ok(clock.daysPerMove >= 1 && clock.daysPerMove <= 14);
    else t.assert.ok(clock.initial! >= 1000 && clock.initial! <= 10_800_000 && clock.increment! <= 180_000);
  }
});

test('clock text: m:ss, h:mm:ss, tenths under ten seconds, rounded down; long times in words', (t: TestContext) => {
  const clocks: Array<[number, string]> = [
    [300_000, '5:00'],
    [299_999, '4:59'],
    [60_000, '1:00'],
    [10_000, '0:10'],
    [9_999, '0:09.9'],
    [1_050, '0:01.0'],
    [99, '0:00.0'],
    [0, '0:00.0'],
    [-5, '0:00.0'],
    [3_600_000, '1:00:00'],
    [10_800_000, '3:00:00'],
    [3_661_000, '1:01:01'],
  ];
  for (const [ms, text] of clocks) t.assert.equal(formatClock(ms), text, String(ms));
  const words: Array<[number, string]> = [
    [3 * DAY, '3 days'],
    [2 * DAY + 3 * 3_600_000 + 59_000, '2 days 3 h'],
    [DAY + 3_600_000, '1 day 1 h'],
    [5 * 3_600_000 + 12 * 60_000, '5 h 12 min'],
    [3_600_000, '1 h'],
    [12 * 60_000 + 59_000, '12 min'],
    [45_999, '45 s'],
    [0, '0 s'],
  ];
  for (const [ms, text] of words) t.assert.equal(durationWords(ms), text, String(ms));
  t.assert.equal(lowTimeOf(60_000), 10_000, 'bullet: at least ten seconds');
  t.assert.equal(lowTimeOf(180_000), 18_000, 'a tenth of the initial time');
  t.assert.equal(lowTimeOf(900_000), 60_000, 'at most a minute');
});

test('a clock starts once both sides have moved: two moves, a time taken, or a correspondence deadline', (t: TestContext) => {
  const rows: Array<[string, GameState, GameFull['clock'], boolean]> = [
    ['untimed', state({ moves: ['e2e4', 'e7e5'] }), null, false],
    ['no move', timed(), BLITZ, false],
    ['white moved', timed({ moves: ['e2e4'], turn: 'black' }), BLITZ, false],
    ['both moved', timed({ moves: ['e2e4', 'e7e5'] }), BLITZ, true],
    [
      'a takeback left one move, after time was taken',
      timed({ moves: ['e2e4'], turn: 'black', btime: 170_000 }),
      BLITZ,
      true,
    ],
    ['correspondence, white moved', state({ moves: ['e2e4'], turn: 'black', deadline: null }), DAYS, false],
    ['correspondence running', state({ moves: ['e2e4', 'e7e5'], deadline: new Date(T).toISOString() }), DAYS, true],
    ['correspondence after a takeback', state({ moves: [], deadline: new Date(T).toISOString() }), DAYS, true],
  ];
  for (const [name, shown, clock, started] of rows) t.assert.equal(clockStarted(shown, clock), started, name);
});

const face = (text: string, running: boolean, active: boolean, low: boolean): ClockFace => ({
  text,
  running,
  active,
  low,
});

test("clocks: the side to move's runs from serverTime once both have moved; nothing runs before or after", (t: TestContext) => {
  const game = (fields: Partial<GameState>, clock: GameFull['clock'] = BLITZ) => ({ state: timed(fields), clock });
  t.assert.equal(clockDisplayOf(undefined, T), undefined, 'no game');
  t.assert.equal(clockDisplayOf({ state: state(), clock: null }, T), undefined, 'an untimed game has no clocks');

  const running = game({ moves: ['e2e4', 'e7e5', 'g1f3'], turn: 'black', wtime: 150_000, btime: 120_500 });
  t.assert.deepEqual(clockDisplayOf(running, T + 1_000), {
    white: face('2:30', false, false, false),
    black: face('1:59', true, true, false),
    running: 'black',
  });
  t.assert.equal(clockDisplayOf(running, T + 111_000)?.black.text, '0:09.5', 'tenths under ten seconds');
  t.assert.equal(clockDisplayOf(running, T + 111_000)?.black.low, true, 'under 18 s of a 3-minute game');
  t.assert.equal(clockDisplayOf(running, T + 200_000)?.black.text, '0:00.0', 'never below zero');
  t.assert.equal(clockDisplayOf(running, T - 5_000)?.black.text, '2:00', 'a page ahead of the state counts nothing');

  const waiting = game({ moves: ['e2e4'], turn: 'black' });
  t.assert.deepEqual(clockDisplayOf(waiting, T + 30_000), {
    white: face('3:00', false, false, false),
    black: face('3:00', false, true, false),
    running: undefined,
  });

  const flagged = game({ moves: ['e2e4', 'e7e5'], status: 'outOfTime', winner: 'black', wtime: 0, btime: 171_000 });
  t.assert.deepEqual(clockDisplayOf(flagged, T + 5_000), {
    white: face('0:00.0', false, false, true),
    black: face('2:51', false, false, false),
    running: undefined,
  });
});

test('correspondence clocks: the time to the deadline in words for the side to move, days per move otherwise', (t: TestContext) => {
  const deadline = new Date(T + 2 * DAY + 3 * 3_600_000 + 30_000).toISOString();
  const running = { state: state({ moves: ['e2e4', 'e7e5'], deadline }), clock: DAYS };
  t.assert.deepEqual(clockDisplayOf(running, T), {
    white: face('2 days 3 h left', true, true, false),
    black: face('3 days per move', false, false, false),
    running: 'white',
  });
  t.assert.deepEqual(
    clockDisplayOf(running, T + 2 * DAY + 3 * 3_600_000 - 60_000)?.white,
    face('1 min left', true, true, true),
  );
  const before = { state: state({ moves: ['e2e4'], turn: 'black', deadline: null }), clock: { daysPerMove: 1 } };
  t.assert.equal(clockDisplayOf(before, T)?.running, undefined);
  t.assert.equal(clockDisplayOf(before, T)?.black.text, '1 day per move');
  const flagged = {
    state: state({ moves: ['e2e4', 'e7e5'], status: 'outOfTime', winner: 'black', deadline: null }),
    clock: DAYS,
  };
  t.assert.deepEqual(clockDisplayOf(flagged, T)?.white, face('Out of time', false, false, true));
});

test("the service's clock: the largest serverTime minus arrival time seen", (t: TestContext) => {
  let offset = serviceOffsetAfter(undefined, T, 1_000);
  t.assert.equal(offset, T - 1_000);
  offset = serviceOffsetAfter(offset, T + 500, 1_800); // arrived late: says less
  t.assert.equal(offset, T - 1_000);
  offset = serviceOffsetAfter(offset, T + 2_000, 2_950); // arrived quicker
  t.assert.equal(offset, T - 950);
});

test('abort: for any seat of a clocked game until both sides have moved, not after, not for spectators', (t: TestContext) => {
  const rows: Array<[string, GameState, readonly Color[], GameFull['clock'], string]> = [
    ['untimed', state(), BOTH_SIDES, null, 'hidden'],
    ['no move, both sides', timed(), BOTH_SIDES, BLITZ, 'enabled'],
    ['no move, white', timed(), ['white'], BLITZ, 'enabled'],
    ['white moved, white', timed({ moves: ['e2e4'], turn: 'black' }), ['white'], BLITZ, 'enabled'],
    ['white moved, black', timed({ moves: ['e2e4'], turn: 'black' }), ['black'], BLITZ, 'enabled'],
    ['a spectator', timed(), [], BLITZ, 'hidden'],
    ['both moved', timed({ moves: ['e2e4', 'e7e5'] }), BOTH_SIDES, BLITZ, 'hidden'],
    ['aborted', timed({ status: 'aborted' }), BOTH_SIDES, BLITZ, 'hidden'],
    ['correspondence, no move', state(), ['black'], DAYS, 'enabled'],
    [
      'correspondence running',
      state({ moves: ['e2e4', 'e7e5'], deadline: new Date(T).toISOString() }),
      ['black'],
      DAYS,
      'hidden',
    ],
  ];
  for (const [name, shown, seats, clock, abort] of rows)
    t.assert.equal(controlsOf(shown, seats, clock).abort, abort, name);
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

// ---------------------------------------------------------------------------------------------- a player's games

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
