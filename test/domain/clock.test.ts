/**
 * Clocks in the domain (DECISIONS §14), with an injected time: every sentence of the section, one test or table
 * each. Times are milliseconds; T0 is the game's creation.
 */
import { suite, test, type TestContext } from 'node:test';
import fc from 'fast-check';
import { parseTimeControl, type TimeControl } from '../../src/domain/clock.ts';
import type { Result } from '../../src/domain/errors.ts';
import { gameFromFen, newGame, restoreGame, type Change, type Game } from '../../src/domain/game.ts';
import { exportPgn, gameFromPgn } from '../../src/domain/pgn.ts';
import { playerActor, SERVICE } from '../../src/domain/seats.ts';
import {
  abort,
  deadlineOfGame,
  drawAction,
  expire,
  makeMove,
  redo,
  resign,
  takebackAction,
  undo,
} from '../../src/domain/transitions.ts';
import { isOver } from '../../src/domain/status.ts';
import { gameFullOf, gameStateOf, legalMovesOf } from '../../src/domain/views.ts';
import { dataOf, lineRowsOf, recordOf } from '../../src/store/rows.ts';
import { longGameSans, pgnOf } from '../helpers/longGame.ts';

const T0 = Date.parse('2026-01-31T12:00:00.000Z');
const BLITZ: TimeControl = { initial: 300_000, increment: 2_000 };
const DAY = 86_400_000;

const input = (clock?: TimeControl) => ({ id: 'AbCd1234', createdAt: new Date(T0).toISOString(), clock });

function must(result: Result<Change>): Game {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value.game;
}

const code = (result: Result<Change>) => (result.ok ? 'ok' : result.error.code);

/** Plays `moves` (UCI), each at the time given beside it. */
function playAt(game: Game, moves: Array<[string, number]>): Game {
  for (const [uci, at] of moves) game = must(makeMove(game, uci, SERVICE, at));
  return game;
}

const times = (game: Game, now: number) => {
  const state = gameStateOf(game, now);
  return { w: state.wtime, b: state.btime };
};

suite('time controls', () => {
  test('a clock is {initial, increment} or {daysPerMove}; which fields go together is checked, naming the field', (t: TestContext) => {
    t.assert.deepEqual(parseTimeControl({ initial: 60_000, increment: 0 }), {
      ok: true,
      value: { initial: 60_000, increment: 0 },
    });
    t.assert.deepEqual(parseTimeControl({ daysPerMove: 3 }), { ok: true, value: { daysPerMove: 3 } });
    const field = (value: Parameters<typeof parseTimeControl>[0]) => {
      const parsed = parseTimeControl(value);
      return parsed.ok ? 'ok' : `${parsed.error.code} ${parsed.error.field}`;
    };
    t.assert.equal(field({}), 'INVALID_BODY clock');
    t.assert.equal(field({ initial: 60_000 }), 'INVALID_BODY clock.increment');
    t.assert.equal(field({ increment: 1_000 }), 'INVALID_BODY clock.initial');
    t.assert.equal(field({ daysPerMove: 2, initial: 60_000 }), 'INVALID_BODY clock');
  });

  test('GameFull.clock is the clock as given, or null; an untimed GameState has no clock fields', (t: TestContext) => {
    t.assert.deepEqual(gameFullOf(newGame(input(BLITZ)), T0).clock, BLITZ);
    t.assert.deepEqual(gameFullOf(newGame(input({ daysPerMove: 3 })), T0).clock, { daysPerMove: 3 });
    const untimed = gameFullOf(newGame(input()), T0);
    t.assert.equal(untimed.clock, null);
    for (const field of ['wtime', 'btime', 'winc', 'binc', 'serverTime', 'deadline']) {
      t.assert.equal(field in untimed.state, false, field);
    }
  });
});

suite('real-time clocks', () => {
  test('the first move of each side takes no time and adds no increment; the clock runs once both have moved', (t: TestContext) => {
    let game = newGame(input(BLITZ));
    t.assert.deepEqual(times(game, T0 + 50_000), { w: 300_000, b: 300_000 }, 'nothing runs before the first move');
    game = playAt(game, [['e2e4', T0 + 50_000]]);
    t.assert.deepEqual(times(game, T0 + 90_000), { w: 300_000, b: 300_000 }, "black's first move is untimed too");
    game = playAt(game, [['e7e5', T0 + 90_000]]);
    t.assert.deepEqual(times(game, T0 + 90_000), { w: 300_000, b: 300_000 }, 'no increment for first moves');
    t.assert.deepEqual(
      times(game, T0 + 100_000),
      { w: 290_000, b: 300_000 },
      "white's clock runs from black's first move",
    );
    const state = gameStateOf(game, T0 + 100_000);
    t.assert.deepEqual([state.winc, state.binc, state.serverTime], [2_000, 2_000, T0 + 100_000]);
  });

  test('a move takes from the mover the time since their clock started, then adds the increment', (t: TestContext) => {
    let game = playAt(newGame(input(BLITZ)), [
      ['e2e4', T0 + 1_000],
      ['e7e5', T0 + 2_000],
      ['g1f3', T0 + 12_000], // white thought 10 s
      ['b8c6', T0 + 42_000], // black thought 30 s
    ]);
    t.assert.deepEqual(times(game, T0 + 42_000), { w: 292_000, b: 272_000 });
    t.assert.deepEqual(
      game.record.moveClocks,
      [300_000, 300_000, 292_000, 272_000],
      'the mover’s time after each move',
    );
    game = playAt(game, [['f1c4', T0 + 43_500]]);
    t.assert.deepEqual(times(game, T0 + 43_500), { w: 292_500, b: 272_000 });
  });

  test('increments over many moves: each side keeps its initial time, less what it spent, plus an increment per timed move', (t: TestContext) => {
    const ucis = gameFromPgn(input(), pgnOf(longGameSans(200)), { maxPlies: 200 });
    if (!ucis.ok) throw ucis.error;
    let game = newGame(input({ initial: 600_000, increment: 1_500 }));
    let now = T0;
    const spent = { white: 0, black: 0 };
    ucis.value.record.moves.forEach((uci, ply) => {
      const side = ply % 2 === 0 ? 'white' : 'black';
      const think = 100 + ((ply * 37) % 900);
      now += think;
      if (ply >= 2) spent[side] += think; // the first move of each side is untimed
      game = must(makeMove(game, uci, SERVICE, now));
    });
    const timedMoves = 99; // 100 moves a side, the first untimed
    t.assert.deepEqual(times(game, now), {
      w: 600_000 - spent.white + 1_500 * timedMoves,
      b: 600_000 - spent.black + 1_500 * timedMoves,
    });
    t.assert.equal(game.record.moveClocks.length, 200);
  });

  test('pending promotions and offers do not stop a clock', (t: TestContext) => {
    const start = gameFromFen(input(BLITZ), '7k/P7/8/8/8/8/8/K7 w - - 0 1');
    if (!start.ok) throw start.error;
    let game = playAt(start.value, [
      ['a1b1', T0 + 1_000],
      ['h8g8', T0 + 2_000],
    ]);
    game = must(makeMove(game, 'a7a8', SERVICE, T0 + 5_000)); // promotion pending
    t.assert.equal(gameStateOf(game, T0 + 5_000).status, 'promotionPending');
    t.assert.deepEqual(times(game, T0 + 7_000), { w: 295_000, b: 300_000 });
    game = must(drawAction(game, 'offer', SERVICE, T0 + 7_000));
    game = must(takebackAction(game, 'offer', playerActor(game.record.white), T0 + 7_000));
    t.assert.deepEqual(times(game, T0 + 9_000), { w: 293_000, b: 300_000 }, 'still running after two offers');
    game = must(makeMove(game, 'a7a8q', SERVICE, T0 + 10_000));
    t.assert.deepEqual(times(game, T0 + 10_000), { w: 294_000, b: 300_000 }, '8 s spent, 2 s added');
  });

  test('undo, redo and takebacks give no time back; a move taken back takes its increment, a redone move earns it again', (t: TestContext) => {
    let game = playAt(newGame(input(BLITZ)), [
      ['e2e4', T0],
      ['e7e5', T0],
      ['g1f3', T0 + 10_000], // white 290 + 2 = 292
    ]);
    game = must(undo(game, SERVICE, T0 + 15_000)); // black was to move 5 s: 295; g1f3's 2 s go: 290; white runs
    t.assert.deepEqual(times(game, T0 + 15_000), { w: 290_000, b: 295_000 });
    t.assert.deepEqual(times(game, T0 + 16_000), { w: 289_000, b: 295_000 });
    game = must(redo(game, SERVICE, T0 + 20_000)); // white charged 5 s and earns the increment again: 287
    t.assert.deepEqual(times(game, T0 + 20_000), { w: 287_000, b: 295_000 });
    t.assert.deepEqual(game.record.moveClocks, [300_000, 300_000, 287_000]);
    game = must(takebackAction(game, 'offer', SERVICE, T0 + 21_000));
    game = must(takebackAction(game, 'accept', SERVICE, T0 + 23_000)); // black charged 3 s: 292; white 287 - 2
    t.assert.deepEqual(times(game, T0 + 23_000), { w: 285_000, b: 292_000 });
    t.assert.equal(gameStateOf(game, T0 + 23_000).turn, 'white');
    t.assert.deepEqual(game.record.moveClocks, [300_000, 300_000]);
  });

  test('takebacks and undo cannot grow a clock: five rounds at 10+10 leave each side its 10 s less what it spent', (t: TestContext) => {
    const TEN: TimeControl = { initial: 10_000, increment: 10_000 };
    let viaTakeback = playAt(newGame(input(TEN)), [
      ['e2e4', T0],
      ['e7e5', T0],
    ]);
    let viaUndo = viaTakeback;
    let now = T0;
    for (let round = 1; round <= 5; round++) {
      viaTakeback = playAt(viaTakeback, [
        ['g1f3', now + 100], // white spends 0.1 s and earns 10 s
        ['b8c6', now + 300], // black spends 0.2 s and earns 10 s
      ]);
      viaUndo = playAt(viaUndo, [
        ['g1f3', now + 100],
        ['b8c6', now + 300],
      ]);
      t.assert.deepEqual(times(viaTakeback, now + 300), { w: 20_000 - 100 * round, b: 20_000 - 200 * round });
      // White offers on its turn: its move and the reply are taken back.
      viaTakeback = must(takebackAction(viaTakeback, 'offer', playerActor(viaTakeback.record.white), now + 300));
      viaTakeback = must(takebackAction(viaTakeback, 'accept', playerActor(viaTakeback.record.black), now + 300));
      viaUndo = must(undo(viaUndo, SERVICE, now + 300));
      viaUndo = must(undo(viaUndo, SERVICE, now + 300));
      now += 300;
      for (const game of [viaTakeback, viaUndo]) {
        t.assert.deepEqual(game.record.moves, ['e2e4', 'e7e5']);
        t.assert.deepEqual(times(game, now), { w: 10_000 - 100 * round, b: 10_000 - 200 * round }, `round ${round}`);
      }
    }
  });

  test('a takeback or undo back before both first moves stops the clock: abort is available, the first-move timeout restarts', (t: TestContext) => {
    const started = playAt(newGame(input(BLITZ)), [
      ['e2e4', T0 + 1_000],
      ['e7e5', T0 + 2_000],
      ['g1f3', T0 + 7_000], // white 295 + 2 = 297
    ]);
    // Undo twice: back to white's first move alone, black to move.
    let undone = must(undo(started, SERVICE, T0 + 9_000)); // black charged 2 s: 298; white 297 - 2 = 295
    undone = must(undo(undone, SERVICE, T0 + 10_000)); // white charged 1 s: 294; e7e5 earned nothing
    // A takeback of black's first move, offered by black on white's turn, reaches the same place.
    const offered = must(
      takebackAction(
        playAt(newGame(input(BLITZ)), [
          ['e2e4', T0],
          ['e7e5', T0],
        ]),
        'offer',
        SERVICE,
        T0,
      ),
    );
    const takenBack = must(takebackAction(offered, 'accept', SERVICE, T0 + 10_000));
    for (const [game, expected] of [
      [undone, { w: 294_000, b: 298_000 }],
      [takenBack, { w: 290_000, b: 300_000 }],
    ] as const) {
      t.assert.deepEqual(game.record.moves, ['e2e4']);
      t.assert.deepEqual(times(game, T0 + 10_000), expected);
      t.assert.deepEqual(times(game, T0 + 50_000), expected, "black's first move is untimed again");
      t.assert.equal(deadlineOfGame(game), T0 + 70_000, 'the first-move timeout counts from the takeback');
      t.assert.equal(expire(game, T0 + 69_999), undefined);
      t.assert.equal(expire(game, T0 + 70_000)!.event.state.status, 'aborted');
      t.assert.equal(code(abort(game, SERVICE, T0 + 20_000)), 'ok');
      // The clock starts again with black's first move, from white's time as the takeback left it.
      const again = playAt(game, [['c7c5', T0 + 30_000]]);
      t.assert.equal(code(abort(again, SERVICE, T0 + 30_000)), 'ABORT_NOT_AVAILABLE');
      t.assert.deepEqual(times(again, T0 + 31_000), { w: expected.w - 1_000, b: expected.b });
    }
    const toStart = must(undo(undone, SERVICE, T0 + 12_000));
    t.assert.equal(deadlineOfGame(toStart), T0 + 72_000, "white's first move awaited again");
    t.assert.equal(code(abort(toStart, SERVICE, T0 + 12_000)), 'ok');
  });

  test('no interleaving of moves, takebacks, undos and redos at any times raises a clock above its initial time plus the increments of the moves on the board', (t: TestContext) => {
    const step = fc.record({
      kind: fc.constantFrom('move', 'move', 'move', 'undo', 'redo', 'takeback'),
      pick: fc.nat(),
      wait: fc.integer({ min: 0, max: 4_000 }),
    });
    fc.assert(
      fc.property(
        fc.record({ initial: fc.integer({ min: 1_000, max: 60_000 }), increment: fc.integer({ min: 0, max: 30_000 }) }),
        fc.boolean(),
        fc.array(step, { minLength: 1, maxLength: 80 }),
        (control, imported, steps) => {
          let game = newGame(input(control));
          if (imported) {
            const pgn = gameFromPgn(input(control), '1. e4 e5 2. Nf3 Nc6 3. Bb5 *', { maxPlies: 10 });
            if (!pgn.ok) throw pgn.error;
            game = pgn.value;
          }
          let now = T0;
          for (const { kind, pick, wait } of steps) {
            now += wait;
            const expired = expire(game, now);
            if (expired) break;
            let result: Result<Change>;
            if (kind === 'move') {
              const legal = legalMovesOf(game).filter(move => !move.uci.endsWith('r') && !move.uci.endsWith('b'));
              if (legal.length === 0) break;
              result = makeMove(game, legal[pick % legal.length]!.uci, SERVICE, now);
            } else if (kind === 'undo') result = undo(game, SERVICE, now);
            else if (kind === 'redo') result = redo(game, SERVICE, now);
            else {
              // Either side offers (on its own turn, its move and the reply go), the other accepts.
              const [offerer, answerer] =
                pick % 2 === 0 ? (['white', 'black'] as const) : (['black', 'white'] as const);
              const offered = takebackAction(game, 'offer', playerActor(game.record[offerer]), now);
              result = offered.ok
                ? takebackAction(offered.value.game, 'accept', playerActor(game.record[answerer]), now)
                : offered;
            }
            if (!result.ok) continue;
            game = result.value.game;
            const { moves } = game.record;
            const earned = (side: number) => moves.filter((_, i) => i >= 2 && i % 2 === side).length;
            const bound = {
              w: control.initial + control.increment * earned(0),
              b: control.initial + control.increment * earned(1),
            };
            const left = times(game, now);
            t.assert.ok(
              left.w! <= bound.w && left.b! <= bound.b,
              `${JSON.stringify(left)} above ${JSON.stringify(bound)} after ${moves.join(' ')}`,
            );
            // A takeback may leave a side less than nothing without its increment: its clock at 0, it flags now.
            if (isOver(game) || deadlineOfGame(game)! <= now) continue;
            // Before both first moves no clock runs and the game can be aborted; after, the reverse.
            t.assert.equal(code(abort(game, SERVICE, now)), moves.length < 2 ? 'ok' : 'ABORT_NOT_AVAILABLE');
            if (moves.length < 2) t.assert.deepEqual(times(game, now + 1_000), left);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  test('out of time: at the deadline the game ends as outOfTime and the other side wins', (t: TestContext) => {
    const game = playAt(newGame(input({ initial: 10_000, increment: 0 })), [
      ['e2e4', T0],
      ['e7e5', T0 + 1_000],
    ]);
    t.assert.equal(deadlineOfGame(game), T0 + 11_000);
    t.assert.equal(expire(game, T0 + 10_999), undefined, 'not before the deadline');
    const flagged = expire(game, T0 + 11_000)!;
    const state = flagged.event.state;
    t.assert.deepEqual([state.status, state.winner, state.wtime, state.btime], ['outOfTime', 'black', 0, 10_000]);
    t.assert.equal(deadlineOfGame(flagged.game), undefined, 'no clock runs after the end');
    t.assert.equal(expire(flagged.game, T0 + 20_000), undefined, 'a flag falls once');
  });

  test('a move after the deadline is GAME_OVER, also before the service has recorded the flag', (t: TestContext) => {
    const game = playAt(newGame(input({ initial: 10_000, increment: 0 })), [
      ['e2e4', T0],
      ['e7e5', T0],
    ]);
    t.assert.equal(code(makeMove(game, 'g1f3', SERVICE, T0 + 9_999)), 'ok');
    for (const late of [makeMove(game, 'g1f3', SERVICE, T0 + 10_000), resign(game, SERVICE, T0 + 12_000)]) {
      t.assert.equal(code(late), 'GAME_OVER');
    }
  });

  test('the flag is a draw when the side left cannot mate: a bare king, or king and one minor piece', (t: TestContext) => {
    // Black (king and rook) flags after three plies; white is left with the material of each row.
    const table: Array<[string, 'white' | null]> = [
      ['r3k3/8/8/8/8/8/8/4K3 w - - 0 1', null], // a bare king
      ['r3k3/8/8/8/8/8/8/4KN2 w - - 0 1', null], // king and knight
      ['r3k3/8/8/8/8/8/8/4KB2 w - - 0 1', null], // king and bishop
      ['r3k3/8/8/8/8/8/8/3BKB2 w - - 0 1', 'white'], // two bishops
      ['r3k3/8/8/8/8/8/8/4KNN1 w - - 0 1', 'white'], // two knights: more than one minor piece
      ['r3k3/8/8/8/8/8/P7/4K3 w - - 0 1', 'white'], // a pawn
      ['r3k3/8/8/8/8/8/8/R3K3 w - - 0 1', 'white'], // a rook
    ];
    for (const [fen, winner] of table) {
      const start = gameFromFen(input({ initial: 1_000, increment: 0 }), fen);
      if (!start.ok) throw start.error;
      const game = playAt(start.value, [
        ['e1d2', T0],
        ['e8d8', T0],
        ['d2e1', T0],
      ]);
      const state = expire(game, T0 + 1_000)!.event.state;
      t.assert.deepEqual([state.status, state.winner, state.btime], ['outOfTime', winner, 0], fen);
    }
  });

  test('outOfTime and aborted are final: undo, redo and takebacks are GAME_OVER', (t: TestContext) => {
    const game = playAt(newGame(input({ initial: 10_000, increment: 0 })), [
      ['e2e4', T0],
      ['e7e5', T0],
    ]);
    const flagged = expire(game, T0 + 10_000)!.game;
    const aborted = must(abort(newGame(input(BLITZ)), SERVICE, T0));
    for (const ended of [flagged, aborted]) {
      const at = T0 + 20_000;
      for (const result of [
        undo(ended, SERVICE, at),
        redo(ended, SERVICE, at),
        takebackAction(ended, 'offer', SERVICE, at),
        makeMove(ended, 'g1f3', SERVICE, at),
      ]) {
        t.assert.equal(code(result), 'GAME_OVER');
      }
      const state = gameStateOf(ended, at);
      t.assert.deepEqual([state.undoAvailable, state.redoAvailable], [false, false]);
    }
  });
});

suite('the first moves: abort', () => {
  test('until both sides have moved, abort ends the game as aborted, without a winner; later ABORT_NOT_AVAILABLE', (t: TestContext) => {
    const fresh = newGame(input(BLITZ));
    const state = gameStateOf(must(abort(fresh, SERVICE, T0 + 1_000)), T0 + 1_000);
    t.assert.deepEqual([state.status, state.winner], ['aborted', null]);
    const one = playAt(fresh, [['e2e4', T0]]);
    t.assert.equal(code(abort(one, playerActor(one.record.black), T0)), 'ok', 'any seat');
    t.assert.equal(code(abort(one, playerActor({ id: 'eve', displayName: 'Eve' }), T0)), 'NOT_A_PLAYER');
    const both = playAt(one, [['e7e5', T0]]);
    t.assert.equal(code(abort(both, SERVICE, T0)), 'ABORT_NOT_AVAILABLE');
    t.assert.equal(code(abort(newGame(input()), SERVICE, T0)), 'ABORT_NOT_AVAILABLE', 'an untimed game');
  });

  test('the service aborts a game whose side to move has not moved within 60 s of creation (white) or of white’s first move (black)', (t: TestContext) => {
    const fresh = newGame(input(BLITZ));
    t.assert.equal(deadlineOfGame(fresh), T0 + 60_000);
    t.assert.equal(expire(fresh, T0 + 59_999), undefined);
    t.assert.equal(expire(fresh, T0 + 60_000)!.event.state.status, 'aborted');
    const one = playAt(fresh, [['e2e4', T0 + 30_000]]);
    t.assert.equal(deadlineOfGame(one), T0 + 90_000);
    t.assert.equal(expire(one, T0 + 90_000)!.event.state.status, 'aborted');
    t.assert.equal(code(makeMove(one, 'e7e5', SERVICE, T0 + 90_000)), 'GAME_OVER', 'too late for the first move');
  });

  test('moves replayed by a PGN import count: after two, the clock runs from the import', (t: TestContext) => {
    const imported = gameFromPgn(input(BLITZ), '1. e4 e5 2. Nf3 {[%clk 0:01:00]} *', { maxPlies: 100 });
    if (!imported.ok) throw imported.error;
    const game = imported.value;
    t.assert.deepEqual(times(game, T0 + 5_000), { w: 300_000, b: 295_000 }, 'black to move, running');
    t.assert.equal(code(abort(game, SERVICE, T0)), 'ABORT_NOT_AVAILABLE');
    const once = gameFromPgn(input(BLITZ), '1. e4 *', { maxPlies: 100 });
    if (!once.ok) throw once.error;
    t.assert.equal(deadlineOfGame(once.value), T0 + 60_000, "black's first move awaited");
  });
});

suite('correspondence clocks', () => {
  test('each move gives the next side daysPerMove days; the state tells the deadline, null while no clock runs', (t: TestContext) => {
    let game = newGame(input({ daysPerMove: 2 }));
    t.assert.equal(gameStateOf(game, T0).deadline, null);
    t.assert.equal(deadlineOfGame(game), T0 + 2 * DAY, 'the first move is awaited for the days of a move');
    game = playAt(game, [
      ['e2e4', T0 + DAY],
      ['e7e5', T0 + DAY + 1_000],
    ]);
    t.assert.equal(gameStateOf(game, T0 + DAY + 1_000).deadline, new Date(T0 + 3 * DAY + 1_000).toISOString());
    game = playAt(game, [['g1f3', T0 + 2 * DAY]]);
    t.assert.equal(gameStateOf(game, T0 + 2 * DAY).deadline, new Date(T0 + 4 * DAY).toISOString());
    const state = gameStateOf(game, T0);
    for (const field of ['wtime', 'btime', 'winc', 'binc', 'serverTime']) t.assert.equal(field in state, false, field);
    const flagged = expire(game, T0 + 4 * DAY)!;
    t.assert.deepEqual([flagged.event.state.status, flagged.event.state.deadline], ['outOfTime', null]);
  });
});

suite('correspondence clocks, taken back', () => {
  test('an undo back before both first moves stops the clock: no deadline, abort available, a whole period again', (t: TestContext) => {
    let game = newGame(input({ daysPerMove: 2 }));
    game = playAt(game, [
      ['e2e4', T0],
      ['e7e5', T0],
      ['g1f3', T0 + DAY + 1_000], // white had used a day of its period
    ]);
    game = must(undo(game, SERVICE, T0 + DAY + 2_000));
    t.assert.equal(gameStateOf(game, T0 + DAY + 2_000).deadline, new Date(T0 + 2 * DAY + 1_000).toISOString());
    game = must(undo(game, SERVICE, T0 + DAY + 3_000)); // black's first move taken back: no clock runs
    t.assert.equal(gameStateOf(game, T0 + DAY + 3_000).deadline, null);
    t.assert.equal(deadlineOfGame(game), T0 + 3 * DAY + 3_000, "black's first move awaited for the days of a move");
    t.assert.equal(code(abort(game, SERVICE, T0 + DAY + 3_000)), 'ok');
    game = playAt(game, [['c7c5', T0 + 2 * DAY]]); // the clock starts again: white gets a whole period
    t.assert.equal(gameStateOf(game, T0 + 2 * DAY).deadline, new Date(T0 + 4 * DAY).toISOString());
    t.assert.equal(code(abort(game, SERVICE, T0 + 2 * DAY)), 'ABORT_NOT_AVAILABLE');
  });
});

suite('PGN of a clocked game', () => {
  test('a TimeControl tag and the mover’s time after each move, in whole seconds rounded down; import ignores them', (t: TestContext) => {
    const game = playAt(newGame(input({ initial: 300_000, increment: 2_000 })), [
      ['e2e4', T0],
      ['e7e5', T0],
      ['g1f3', T0 + 3_500], // 296.5 + 2 = 298.5 s
      ['b8c6', T0 + 3_500 + 61_200], // 238.8 + 2 = 240.8 s
    ]);
    const pgn = exportPgn(game, { site: '?' });
    t.assert.match(pgn, /\[TimeControl "300\+2"\]/);
    t.assert.equal(
      pgn.split('\n\n')[1]!.replace(/\s+/g, ' '),
      '1. e4 {[%clk 0:05:00]} 1... e5 {[%clk 0:05:00]} 2. Nf3 {[%clk 0:04:58]} 2... Nc6 {[%clk 0:04:00]} * ',
    );
    const again = gameFromPgn(input(), pgn, { maxPlies: 100 });
    if (!again.ok) throw again.error;
    t.assert.deepEqual(again.value.record.moves, game.record.moves);
    t.assert.match(exportPgn(newGame(input({ daysPerMove: 3 })), { site: '?' }), /\[TimeControl "-"\]/);
    t.assert.doesNotMatch(exportPgn(newGame(input()), { site: '?' }), /TimeControl|%clk/);
  });

  test('a clock stored before the increments were tracked per move: its played moves keep theirs, later moves are tracked', (t: TestContext) => {
    const game = playAt(newGame(input(BLITZ)), [
      ['e2e4', T0],
      ['e7e5', T0],
      ['g1f3', T0 + 10_000], // white 292
    ]);
    const { record } = game;
    t.assert.deepEqual(
      recordOf(record.id, record.version, record.createdAt, dataOf(record), lineRowsOf(record)),
      record,
    );
    const { timedFrom: _timedFrom, ...oldClock } = record.clock!;
    const oldData = { ...dataOf(record), clock: oldClock };
    const stored = recordOf(record.id, record.version, record.createdAt, oldData, lineRowsOf(record));
    t.assert.equal(stored.clock!.timedFrom, 3, 'none of the three moves played counts as having earned an increment');
    let restored = must(undo(restoreGame(stored), SERVICE, T0 + 15_000)); // as the old rules left it: 292
    t.assert.deepEqual(times(restored, T0 + 15_000), { w: 292_000, b: 295_000 });
    restored = playAt(restored, [['g1f3', T0 + 20_000]]); // 287 + 2 = 289
    restored = must(undo(restored, SERVICE, T0 + 21_000)); // black 294; this move's increment goes
    t.assert.deepEqual(times(restored, T0 + 21_000), { w: 287_000, b: 294_000 });
  });

  test('a stored clocked game restores to the same game', (t: TestContext) => {
    const game = playAt(newGame(input(BLITZ)), [
      ['e2e4', T0],
      ['e7e5', T0 + 1_000],
      ['g1f3', T0 + 4_000],
    ]);
    const restored = restoreGame(JSON.parse(JSON.stringify(game.record)));
    t.assert.deepEqual(gameStateOf(restored, T0 + 9_000), gameStateOf(game, T0 + 9_000));
  });
});
