/**
 * Who the board page acts for (src/web/seats.ts), under Node: the seats an account holds in a game (never the
 * computer's), and the controls shown and enabled for them in a state.
 */
import { test, type TestContext } from 'node:test';
import type { Account, GameFull, GameState } from '../../src/contract/shapes.ts';
import type { Color } from '../../src/contract/vocabulary.ts';
import {
  BOTH_SIDES,
  computerSideOf,
  controlsOf,
  hasMoveToTakeBack,
  orientationFor,
  ownSeatsOf,
  seatsOf,
  seatWordsOf,
  type Controls,
} from '../../src/web/seats.ts';
import { ANN, BLITZ, BOB, DAYS, full, state, T, timed } from './games.ts';

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

test("the computer's seat is never the page's: against the engine, any account plays the other side", (t: TestContext) => {
  const engine = (level: number) => ({ id: 'stockfish', displayName: `Stockfish level ${level}` });
  const annWhite = { ...full(), black: engine(2) };
  const annBlack = { ...full(), white: engine(5), black: ANN };
  const rows: Array<[string, Account, GameFull, Color[], string, Color | undefined, Color[], Color | undefined]> = [
    // name, account, game, seats, words, orientation, rows tagged "you", the computer's side
    [
      'no authentication, white against the engine',
      { player: null },
      annWhite,
      ['white'],
      'You play white',
      'white',
      ['white'],
      'black',
    ],
    [
      'no authentication, black against the engine',
      { player: null },
      annBlack,
      ['black'],
      'You play black',
      'black',
      ['black'],
      'white',
    ],
    [
      'the player against the engine',
      { player: ANN },
      annBlack,
      ['black'],
      'You play black',
      'black',
      ['black'],
      'white',
    ],
    ['another player watches', { player: BOB }, annWhite, [], 'You are watching', undefined, [], 'black'],
    [
      'no engine: both sides, no words, no "you"',
      { player: null },
      full(),
      ['white', 'black'],
      '',
      undefined,
      [],
      undefined,
    ],
    [
      'a player named like the engine is not it',
      { player: null },
      { ...full(), black: { id: 'Stockfish', displayName: 'S' } },
      ['white', 'black'],
      '',
      undefined,
      [],
      undefined,
    ],
  ];
  for (const [name, account, game, seats, words, orientation, own, computer] of rows) {
    const held = seatsOf(game, account);
    t.assert.deepEqual(held, seats, name);
    t.assert.equal(seatWordsOf(game, account), words, name);
    t.assert.equal(orientationFor(held), orientation, name);
    t.assert.deepEqual(ownSeatsOf(held, account), own, name);
    t.assert.equal(computerSideOf(game), computer, name);
  }
});

test('against the computer, no draw or takeback is offered: the engine answers none', (t: TestContext) => {
  const rows: Array<[string, Partial<GameState>, Color, Color | undefined, string[], string[]]> = [
    // name, state, the page's side, the computer's side, enabled, shown disabled
    [
      'white to move, against the engine',
      { moves: ['e2e4', 'e7e5'] },
      'white',
      'black',
      ['resign', 'move', 'export'],
      [],
    ],
    ["the engine's turn", { moves: ['e2e4'], turn: 'black' }, 'white', 'black', ['resign', 'export'], ['move']],
    [
      'the same against a person',
      { moves: ['e2e4', 'e7e5'] },
      'white',
      undefined,
      ['resign', 'drawOffer', 'takebackOffer', 'move', 'export'],
      [],
    ],
  ];
  for (const [name, fields, seat, computer, enabled, disabled] of rows) {
    const controls = controlsOf(state(fields), [seat], null, computer);
    const names = Object.keys(controls) as Array<keyof Controls>;
    t.assert.deepEqual(
      {
        enabled: names.filter(key => controls[key] === 'enabled'),
        disabled: names.filter(key => controls[key] === 'disabled'),
      },
      { enabled, disabled },
      name,
    );
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
