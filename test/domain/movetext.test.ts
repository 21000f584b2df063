/**
 * `state.pgn` carried from game to game (views.ts, carryMovetext): after any sequence of moves, undos, redos and
 * takebacks, from the standard start or a black-first position, it is the movetext made afresh from the game's SANs,
 * and one flat string (V8's JSON.stringify leaves its fast path at a string made of parts).
 */
import { test, type TestContext } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import fc from 'fast-check';
import { gameFromFen, newGame, type Game } from '../../src/domain/game.ts';
import { makeMovetext } from '../../src/domain/notation.ts';
import { makeMove, redo, takebackAction, undo } from '../../src/domain/transitions.ts';
import { gameStateOf, legalMovesOf, movetextOf } from '../../src/domain/views.ts';

const step = fc.oneof(
  { weight: 6, arbitrary: fc.nat().map(n => ({ kind: 'move' as const, n })) },
  { weight: 2, arbitrary: fc.constant({ kind: 'undo' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'redo' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'takeback' as const }) },
);

/** An offer of a takeback, accepted: one or two moves back. */
function acceptedTakeback(game: Game) {
  const offered = takebackAction(game, 'offer');
  return offered.ok ? takebackAction(offered.value.game, 'accept') : offered;
}

// V8's own test of a string's form, for the functions compiled from here on. The V8s of Node.js 24 and 26 have it,
// that of Node.js 22 has not: there the texts are compared only, and the test says so.
setFlagsFromString('--allow-natives-syntax');
const isFlat = ((): ((text: string) => boolean) | undefined => {
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- natives syntax compiles only in code made after the flag
    return new Function('text', 'return %StringIsFlat(text)') as (text: string) => boolean;
  } catch {
    return undefined;
  }
})();

test('the carried movetext is the movetext of the game, after any steps', (t: TestContext) => {
  const input = { id: 'AbCd1234', createdAt: '2026-01-31T12:00:00.000Z' };
  const blackFirst = gameFromFen(input, 'r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 3 20');
  if (!blackFirst.ok) throw blackFirst.error;
  let checked = 0;
  fc.assert(
    fc.property(fc.boolean(), fc.array(step, { maxLength: 60 }), (fromFen, steps) => {
      let game: Game = fromFen ? blackFirst.value : newGame(input);
      gameStateOf(game); // the first state made afresh; every later one is carried
      for (const next of steps) {
        const moves = legalMovesOf(game);
        const result =
          next.kind === 'move'
            ? moves.length > 0
              ? makeMove(game, moves[next.n % moves.length]!.uci)
              : undefined
            : next.kind === 'undo'
              ? undo(game)
              : next.kind === 'redo'
                ? redo(game)
                : acceptedTakeback(game);
        if (!result?.ok) continue;
        game = result.value.game;
        // Judged first: comparing a string with another makes it flat.
        if (isFlat) t.assert.ok(isFlat(movetextOf(game)), `a flat movetext after ${game.sans.length} plies`);
        t.assert.equal(movetextOf(game), makeMovetext(game.startPly, game.sans));
        checked++;
      }
    }),
    { numRuns: 300 },
  );
  t.assert.ok(checked > 500, `${checked} games checked`);
  if (!isFlat) t.diagnostic(`this V8 (${process.versions.v8}) has no %StringIsFlat: the texts' form was not checked`);
});
