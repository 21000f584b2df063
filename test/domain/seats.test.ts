/**
 * Seats and takebacks (DECISIONS §13): who may do what, as a table of action × seat × turn × pending offer → allowed
 * or the code refused with, then what each allowed action does for the side it acts for.
 *
 * Seats: the service (a service token, or no authentication), the white player, the black player, a player holding
 * both sides (a practice board) and a player holding none.
 */
import { suite, test, type TestContext } from 'node:test';
import { opposite } from 'chessops/util';
import { gameFromFen, type Change, type Game } from '../../src/domain/game.ts';
import { drawAction, makeMove, redo, resign, takebackAction, undo } from '../../src/domain/transitions.ts';
import type { Result } from '../../src/domain/errors.ts';
import { playerActor, seatsForNewGame, SERVICE, type Actor } from '../../src/domain/seats.ts';
import { gameStateOf } from '../../src/domain/views.ts';
import type { Color, ErrorCode } from '../../src/contract/vocabulary.ts';

const ANN = { id: 'ann', displayName: 'Ann' };
const BOB = { id: 'bob', displayName: 'Bob' };
const SOLO = { id: 'solo', displayName: 'Solo' };
const EVE = { id: 'eve', displayName: 'Eve' };

/** A quiet position (halfmove clock 100, so that a draw can be claimed) in which both sides have moved. */
const FEN = '7k/8/8/8/8/8/8/K5R1 w - - 100 80';

type Seat = 'service' | 'white' | 'black' | 'both' | 'none';
const SEATS: readonly Seat[] = ['service', 'white', 'black', 'both', 'none'];
type Pending = '-' | 'draw:white' | 'draw:black' | 'takeback:white' | 'takeback:black';
const PENDING: readonly Pending[] = ['-', 'draw:white', 'draw:black', 'takeback:white', 'takeback:black'];

const ACTOR: Record<Seat, Actor> = {
  service: SERVICE,
  white: playerActor(ANN),
  black: playerActor(BOB),
  both: playerActor(SOLO),
  none: playerActor(EVE),
};

/**
 * The game of a row: Ann (white) against Bob (black), or Solo on both sides; `turn` to move, both sides with moves
 * behind them, a move to redo and the pending offer.
 */
function gameFor(seat: Seat, turn: Color, pending: Pending): Game {
  const [white, black] = seat === 'both' ? [SOLO, SOLO] : [ANN, BOB];
  const start = gameFromFen({ id: 'AbCd1234', createdAt: '2026-01-31T12:00:00.000Z', white, black }, FEN);
  if (!start.ok) throw start.error;
  let game = start.value;
  const moves = ['g1g2', 'h8h7', 'g2g3', 'h7h8', 'g3g4', 'h8h7'];
  for (const uci of turn === 'white' ? moves.slice(0, 5) : moves) game = must(makeMove(game, uci)).game;
  game = must(undo(game)).game; // leaves a move to redo
  const [kind, by = null] = pending.split(':') as ['draw' | 'takeback' | '-', Color | undefined];
  const record = {
    ...game.record,
    drawOffer: kind === 'draw' ? by : null,
    takebackOffer: kind === 'takeback' ? by : null,
  };
  return { ...game, record };
}

function must(result: Result<Change>): Change {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value;
}

type Action =
  | 'move'
  | 'claim'
  | 'resign'
  | 'drawOffer'
  | 'drawAccept'
  | 'drawDecline'
  | 'undo'
  | 'redo'
  | 'takebackOffer'
  | 'takebackAccept'
  | 'takebackDecline';

function run(action: Action, game: Game, actor: Actor): Result<Change> {
  switch (action) {
    case 'move':
      return makeMove(game, game.pos.turn === 'white' ? 'a1b1' : 'h8h7', actor);
    case 'claim':
      return drawAction(game, 'claim', actor);
    case 'resign':
      return resign(game, actor);
    case 'drawOffer':
      return drawAction(game, 'offer', actor);
    case 'drawAccept':
      return drawAction(game, 'accept', actor);
    case 'drawDecline':
      return drawAction(game, 'decline', actor);
    case 'undo':
      return undo(game, actor);
    case 'redo':
      return redo(game, actor);
    case 'takebackOffer':
      return takebackAction(game, 'offer', actor);
    case 'takebackAccept':
      return takebackAction(game, 'accept', actor);
    case 'takebackDecline':
      return takebackAction(game, 'decline', actor);
  }
}

type Outcome = 'ok' | ErrorCode;
const NAP = 'NOT_A_PLAYER';
const NYT = 'NOT_YOUR_TURN';
const TNC = 'TAKEBACK_NEEDS_CONSENT';

/**
 * The rules, one row per action, turn and pending offer ('*': any), one outcome per seat in the order service,
 * white, black, both, none.
 */
const RULES: Array<[Action, Color | '*', Pending | '*' | Pending[], [Outcome, Outcome, Outcome, Outcome, Outcome]]> = [
  // Moves and claims: the side to move only.
  ['move', 'white', '*', ['ok', 'ok', NYT, 'ok', NAP]],
  ['move', 'black', '*', ['ok', NYT, 'ok', 'ok', NAP]],
  ['claim', 'white', '*', ['ok', 'ok', NYT, 'ok', NAP]],
  ['claim', 'black', '*', ['ok', NYT, 'ok', 'ok', NAP]],
  // Resignation: one's own side, on either turn.
  ['resign', '*', '*', ['ok', 'ok', 'ok', 'ok', NAP]],
  // Draw offers: one's own side, on either turn; one offer at a time.
  ['drawOffer', '*', ['-', 'takeback:white', 'takeback:black'], ['ok', 'ok', 'ok', 'ok', NAP]],
  ['drawOffer', '*', ['draw:white', 'draw:black'], Array(4).fill('DRAW_ALREADY_OFFERED').concat(NAP) as never],
  // Answers: only the side that did not offer; the seat is judged before whether there is an offer.
  ['drawAccept', '*', ['-', 'takeback:white', 'takeback:black'], [...Array(4).fill('NO_DRAW_OFFER'), NAP] as never],
  ['drawAccept', '*', 'draw:white', ['ok', NYT, 'ok', 'ok', NAP]],
  ['drawAccept', '*', 'draw:black', ['ok', 'ok', NYT, 'ok', NAP]],
  ['drawDecline', '*', ['-', 'takeback:white', 'takeback:black'], [...Array(4).fill('NO_DRAW_OFFER'), NAP] as never],
  ['drawDecline', '*', 'draw:white', ['ok', NYT, 'ok', 'ok', NAP]],
  ['drawDecline', '*', 'draw:black', ['ok', 'ok', NYT, 'ok', NAP]],
  // Undo and redo: the service and a player on both sides; between two players, takebacks.
  ['undo', '*', '*', ['ok', TNC, TNC, 'ok', NAP]],
  ['redo', '*', '*', ['ok', TNC, TNC, 'ok', NAP]],
  // Takebacks: like draws.
  ['takebackOffer', '*', ['-', 'draw:white', 'draw:black'], ['ok', 'ok', 'ok', 'ok', NAP]],
  [
    'takebackOffer',
    '*',
    ['takeback:white', 'takeback:black'],
    [...Array(4).fill('TAKEBACK_ALREADY_OFFERED'), NAP] as never,
  ],
  ['takebackAccept', '*', ['-', 'draw:white', 'draw:black'], [...Array(4).fill('NO_TAKEBACK_OFFER'), NAP] as never],
  ['takebackAccept', '*', 'takeback:white', ['ok', NYT, 'ok', 'ok', NAP]],
  ['takebackAccept', '*', 'takeback:black', ['ok', 'ok', NYT, 'ok', NAP]],
  ['takebackDecline', '*', ['-', 'draw:white', 'draw:black'], [...Array(4).fill('NO_TAKEBACK_OFFER'), NAP] as never],
  ['takebackDecline', '*', 'takeback:white', ['ok', NYT, 'ok', 'ok', NAP]],
  ['takebackDecline', '*', 'takeback:black', ['ok', 'ok', NYT, 'ok', NAP]],
];

const expand = <T>(value: T | '*' | T[], all: readonly T[]): readonly T[] =>
  value === '*' ? all : Array.isArray(value) ? value : [value];

suite('the seat rules, as a table', () => {
  test('every action × seat × turn × pending offer is allowed or refused as §13 says, and a refusal changes nothing', (t: TestContext) => {
    let checked = 0;
    const covered = new Set<string>();
    for (const [action, turns, pendings, outcomes] of RULES) {
      for (const turn of expand<Color>(turns, ['white', 'black'])) {
        for (const pending of expand(pendings, PENDING)) {
          SEATS.forEach((seat, i) => {
            const key = `${action} ${turn} ${pending} ${seat}`;
            t.assert.equal(covered.has(key), false, `${key} is in the table once`);
            covered.add(key);
            const game = gameFor(seat, turn, pending);
            const before = structuredClone(game.record);
            const result = run(action, game, ACTOR[seat]);
            const got = result.ok ? 'ok' : result.error.code;
            t.assert.equal(got, outcomes[i], key);
            if (!result.ok) t.assert.deepStrictEqual(game.record, before, `${key}: a refusal changes nothing`);
            else t.assert.equal(result.value.game.record.version, game.record.version + 1, key);
            checked++;
          });
        }
      }
    }
    t.assert.equal(checked, 11 * 2 * 5 * 5, 'every combination is in the table');
  });

  test('GAME_OVER comes before the seat: on an ended game every change is GAME_OVER, for any seat', (t: TestContext) => {
    for (const seat of SEATS) {
      const resigned = must(resign(gameFor(seat, 'white', '-'), SERVICE)).game;
      for (const action of [
        'move',
        'claim',
        'resign',
        'drawOffer',
        'drawAccept',
        'undo',
        'redo',
        'takebackOffer',
      ] as const) {
        const result = run(action, resigned, ACTOR[seat]);
        t.assert.equal(result.ok ? 'ok' : result.error.code, 'GAME_OVER', `${action} by ${seat}`);
      }
    }
  });

  test('the seat comes before legality: an illegal move is NOT_A_PLAYER for a stranger, NOT_YOUR_TURN for Bob', (t: TestContext) => {
    const game = gameFor('white', 'white', '-');
    // e2e4 is illegal here (no pawn on e2): the seat is judged first.
    for (const [seat, code] of [
      ['none', NAP],
      ['black', NYT],
      ['white', 'INVALID_MOVE'],
    ] as const) {
      const result = makeMove(game, 'e2e4', ACTOR[seat]);
      t.assert.equal(result.ok ? 'ok' : result.error.code, code, seat);
    }
  });
});

suite('what an allowed action does for its side', () => {
  test('a player resigns their own side, on either turn; the service and a player on both sides resign the side to move', (t: TestContext) => {
    for (const turn of ['white', 'black'] as const) {
      const winner = (seat: Seat) => gameStateOf(must(resign(gameFor(seat, turn, '-'), ACTOR[seat])).game).winner;
      t.assert.equal(winner('white'), 'black');
      t.assert.equal(winner('black'), 'white');
      t.assert.equal(winner('service'), opposite(turn));
      t.assert.equal(winner('both'), opposite(turn));
    }
  });

  test('a draw offer is the offering player’s, on either turn; the service and a player on both sides offer for the side to move', (t: TestContext) => {
    for (const turn of ['white', 'black'] as const) {
      const offeredBy = (seat: Seat) =>
        gameStateOf(must(drawAction(gameFor(seat, turn, '-'), 'offer', ACTOR[seat])).game).drawOfferedBy;
      t.assert.equal(offeredBy('white'), 'white');
      t.assert.equal(offeredBy('black'), 'black');
      t.assert.equal(offeredBy('service'), turn);
      t.assert.equal(offeredBy('both'), turn);
    }
  });

  test('a takeback offer is the offering player’s; the service and a player on both sides offer for the last mover', (t: TestContext) => {
    for (const turn of ['white', 'black'] as const) {
      const offeredBy = (seat: Seat) =>
        gameStateOf(must(takebackAction(gameFor(seat, turn, '-'), 'offer', ACTOR[seat])).game).takebackOfferedBy;
      t.assert.equal(offeredBy('white'), 'white');
      t.assert.equal(offeredBy('black'), 'black');
      t.assert.equal(offeredBy('service'), opposite(turn));
      t.assert.equal(offeredBy('both'), opposite(turn));
    }
  });

  test('accepting a takeback takes back the offerer’s last move and the reply since, so that the offerer is to move', (t: TestContext) => {
    // White to move: moves g1g2 h8h7 g2g3 h7h8 (and g3g4 to redo).
    for (const [offerer, taken] of [
      ['white', 2], // white moved, black replied: both go
      ['black', 1], // black moved last: only that move goes
    ] as const) {
      const game = gameFor('white', 'white', `takeback:${offerer}`);
      const answerer = offerer === 'white' ? 'black' : 'white';
      const after = must(takebackAction(game, 'accept', ACTOR[answerer])).game;
      const state = gameStateOf(after);
      t.assert.deepEqual(state.moves, game.record.moves.slice(0, -taken), offerer);
      t.assert.equal(state.turn, offerer);
      t.assert.equal(state.redoAvailable, false, 'taken-back moves are gone');
      t.assert.equal(state.takebackOfferedBy, null);
    }
  });

  test('declining clears the offer and nothing else', (t: TestContext) => {
    const game = gameFor('white', 'black', 'takeback:white');
    const after = must(takebackAction(game, 'decline', ACTOR.black)).game;
    t.assert.deepStrictEqual({ ...after.record, version: 0 }, { ...game.record, takebackOffer: null, version: 0 });
  });

  test('a move clears a pending takeback offer and a pending draw offer; undo and redo do too', (t: TestContext) => {
    const moved = must(makeMove(gameFor('white', 'white', 'takeback:black'), 'a1b1', ACTOR.white)).game;
    t.assert.equal(gameStateOf(moved).takebackOfferedBy, null);
    for (const step of [undo, redo]) {
      for (const pending of ['takeback:white', 'draw:black'] as const) {
        const state = gameStateOf(must(step(gameFor('both', 'white', pending), ACTOR.both)).game);
        t.assert.deepEqual([state.takebackOfferedBy, state.drawOfferedBy], [null, null], pending);
      }
    }
  });

  test('NO_MOVE_TO_TAKE_BACK: the offering side has made no move', (t: TestContext) => {
    const fresh = gameFromFen({ id: 'AbCd1234', createdAt: '2026-01-31T12:00:00.000Z', white: ANN, black: BOB }, FEN);
    if (!fresh.ok) throw fresh.error;
    for (const seat of ['service', 'white', 'black'] as const) {
      const result = takebackAction(fresh.value, 'offer', ACTOR[seat]);
      t.assert.equal(result.ok ? 'ok' : result.error.code, 'NO_MOVE_TO_TAKE_BACK', seat);
    }
    const oneMove = must(makeMove(fresh.value, 'g1g2', ACTOR.white)).game;
    const black = takebackAction(oneMove, 'offer', ACTOR.black);
    t.assert.equal(black.ok ? 'ok' : black.error.code, 'NO_MOVE_TO_TAKE_BACK', 'black has not moved yet');
    t.assert.ok(takebackAction(oneMove, 'offer', ACTOR.white).ok, 'white takes back its first move');
  });
});

suite('the seats of a new game', () => {
  test('a player creates only practice boards: naming anyone else as a side is NOT_A_PLAYER, with a challenge', (t: TestContext) => {
    const ann = playerActor(ANN);
    const seats = (requested: { white?: typeof ANN; black?: typeof ANN }) => seatsForNewGame(requested, ann);
    t.assert.deepEqual(seats({}), { ok: true, value: { white: ANN, black: ANN } });
    const renamed = { id: ANN.id, displayName: 'Ann at home' };
    t.assert.deepEqual(seats({ black: renamed }), { ok: true, value: { white: ANN, black: renamed } });
    t.assert.deepEqual(seats({ white: ANN, black: ANN }), { ok: true, value: { white: ANN, black: ANN } });
    const others: Array<[{ white?: typeof ANN; black?: typeof ANN }, string]> = [
      [{ black: BOB }, BOB.id],
      [{ white: BOB }, BOB.id],
      [{ white: BOB, black: ANN }, BOB.id],
      [{ white: ANN, black: EVE }, EVE.id],
    ];
    for (const [requested, other] of others) {
      const refused = seats(requested);
      t.assert.equal(refused.ok ? 'ok' : refused.error.code, NAP, JSON.stringify(requested));
      t.assert.match(
        refused.ok ? '' : refused.error.message,
        new RegExp(`challenge them .*/api/challenge/${other}\\b`),
      );
    }
    const both = seats({ white: BOB, black: EVE });
    t.assert.equal(both.ok ? 'ok' : both.error.code, NAP);
    // The service creates any game: an operator's own pairing.
    t.assert.deepEqual(seatsForNewGame({ white: BOB }, SERVICE), { ok: true, value: { white: BOB } });
    t.assert.deepEqual(seatsForNewGame({ white: BOB, black: EVE }, SERVICE), {
      ok: true,
      value: { white: BOB, black: EVE },
    });
  });
});
