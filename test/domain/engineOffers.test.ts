/**
 * Offers to the computer never stay pending (DECISIONS §16a), in the domain, with an injected time: a takeback is
 * granted at once (back to the person's previous turn), a draw declined at once; between people, offers stay
 * pending as before. T0 is the game's creation.
 */
import { suite, test, type TestContext } from 'node:test';
import type { TimeControl } from '../../src/domain/clock.ts';
import { engineSeat } from '../../src/domain/engineSeat.ts';
import type { Result } from '../../src/domain/errors.ts';
import { newGame, type Change, type Game } from '../../src/domain/game.ts';
import { playerActor, SERVICE } from '../../src/domain/seats.ts';
import { drawAction, makeMove, takebackAction } from '../../src/domain/transitions.ts';
import { gameStateOf } from '../../src/domain/views.ts';

const T0 = Date.parse('2026-01-31T12:00:00.000Z');
const BLITZ: TimeControl = { initial: 300_000, increment: 2_000 };
const ANN = { id: 'ann', displayName: 'Ann' };
const BOB = { id: 'bob', displayName: 'Bob' };
const ann = playerActor(ANN);
const bob = playerActor(BOB);

function must(result: Result<Change>): Game {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value.game;
}

const code = (result: Result<Change>) => (result.ok ? 'ok' : result.error.code);

/** A game made at T0 with `moves` played by the service, one a second. */
function game(seats: { white: typeof ANN; black: typeof ANN }, clock: TimeControl | undefined, moves: string[]): Game {
  let played = newGame({ id: 'AbCd1234', createdAt: new Date(T0).toISOString(), clock, ...seats });
  moves.forEach((uci, i) => (played = must(makeMove(played, uci, SERVICE, T0 + 1_000 * (i + 1)))));
  return played;
}

suite('offers to the computer never stay pending', () => {
  // Ann (white) against level 3, after 1. e4 e5 2. Nf3 Nc6: Ann to move.
  const played = () => game({ white: ANN, black: engineSeat(3) }, BLITZ, ['e2e4', 'e7e5', 'g1f3', 'b8c6']);

  for (const [who, actor] of [
    ['the person', ann],
    ['the service, for the person', SERVICE],
  ] as const) {
    test(`a takeback offered by ${who} on the person's turn is granted at once: back to their previous turn`, (t: TestContext) => {
      const granted = must(takebackAction(played(), 'offer', actor, T0 + 10_000));
      t.assert.deepEqual(granted.record.moves, ['e2e4', 'e7e5']);
      t.assert.equal(granted.pos.turn, 'white');
      t.assert.equal(granted.record.takebackOffer, null);
      t.assert.equal(gameStateOf(granted, T0 + 10_000).takebackOfferedBy, null);
    });

    test(`a draw offered by ${who} is declined at once`, (t: TestContext) => {
      const before = played();
      const declined = must(drawAction(before, 'offer', actor, T0 + 10_000));
      t.assert.equal(declined.record.drawOffer, null);
      t.assert.equal(gameStateOf(declined, T0 + 10_000).drawOfferedBy, null);
      t.assert.deepEqual(declined.record.moves, before.record.moves);
      t.assert.equal(declined.record.result, null);
      // Nothing pending to accept, and another offer is declined again.
      t.assert.equal(code(drawAction(declined, 'accept', actor, T0 + 11_000)), 'NO_DRAW_OFFER');
      t.assert.equal(code(drawAction(declined, 'offer', actor, T0 + 11_000)), 'ok');
    });
  }

  test('on the computer’s turn a takeback takes back the person’s last move, and they are to move', (t: TestContext) => {
    const computerToMove = must(makeMove(played(), 'f1c4', SERVICE, T0 + 5_000));
    const granted = must(takebackAction(computerToMove, 'offer', ann, T0 + 6_000));
    t.assert.deepEqual(granted.record.moves, ['e2e4', 'e7e5', 'g1f3', 'b8c6']);
    t.assert.equal(granted.pos.turn, 'white');
  });

  test('as black, before the person has moved, there is nothing to take back', (t: TestContext) => {
    const g = game({ white: engineSeat(2), black: BOB }, BLITZ, ['e2e4']);
    t.assert.equal(code(takebackAction(g, 'offer', bob, T0 + 5_000)), 'NO_MOVE_TO_TAKE_BACK');
    const later = must(makeMove(must(makeMove(g, 'e7e5', bob, T0 + 6_000)), 'g1f3', SERVICE, T0 + 7_000));
    t.assert.deepEqual(must(takebackAction(later, 'offer', bob, T0 + 8_000)).record.moves, ['e2e4']);
  });

  test('between two people offers stay pending as before', (t: TestContext) => {
    const people = game({ white: ANN, black: BOB }, BLITZ, ['e2e4', 'e7e5', 'g1f3', 'b8c6']);
    t.assert.equal(must(takebackAction(people, 'offer', ann, T0 + 10_000)).record.takebackOffer, 'white');
    t.assert.equal(must(drawAction(people, 'offer', ann, T0 + 10_000)).record.drawOffer, 'white');
  });
});
