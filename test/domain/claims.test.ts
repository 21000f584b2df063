/**
 * Claims follow lichess's rule (DECISIONS §16a), in the domain, with an injected time: `claim-victory` and
 * `claim-draw` only in a real-time game that has started (no longer abortable), against a person (never the
 * computer), on the opponent's turn, after the count-down. T0 is the game's creation.
 */
import { suite, test, type TestContext } from 'node:test';
import type { TimeControl } from '../../src/domain/clock.ts';
import { engineSeat } from '../../src/domain/engineSeat.ts';
import type { Result } from '../../src/domain/errors.ts';
import { newGame, type Change, type Game } from '../../src/domain/game.ts';
import { playerActor, SERVICE, type Actor } from '../../src/domain/seats.ts';
import { CLAIM_AFTER_GONE_MS, claimOpponentGone, makeMove, OPPONENT_GONE_MS } from '../../src/domain/transitions.ts';
import { gameStateOf } from '../../src/domain/views.ts';

const T0 = Date.parse('2026-01-31T12:00:00.000Z');
const BLITZ: TimeControl = { initial: 300_000, increment: 2_000 };
const ANN = { id: 'ann', displayName: 'Ann' };
const BOB = { id: 'bob', displayName: 'Bob' };
const ann = playerActor(ANN);
const bob = playerActor(BOB);
/** When a claim is due for an opponent gone since the game's start. */
const DUE = T0 + OPPONENT_GONE_MS + CLAIM_AFTER_GONE_MS;

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

suite('claims follow lichess’s rule', () => {
  const claim = (g: Game, actor: Actor, at = DUE + 60_000, goneSince: number | undefined = T0) =>
    claimOpponentGone(g, 'victory', actor, goneSince, at);

  test('after the count-down, on the opponent’s turn of a started real-time game against a person: a win', (t: TestContext) => {
    const started = game({ white: ANN, black: BOB }, BLITZ, ['e2e4', 'e7e5', 'g1f3']); // Bob to move
    const won = claimOpponentGone(started, 'victory', ann, T0, DUE + 3_000);
    t.assert.deepEqual(gameStateOf(must(won), DUE).status, 'timeout');
    t.assert.equal(must(won).record.result?.kind, 'timeout');
    const drawn = claimOpponentGone(started, 'draw', ann, T0, DUE + 3_000);
    t.assert.equal(must(drawn).record.result?.kind, 'drawClaimed');
  });

  test('never on the claimer’s own turn, however long the opponent has been gone', (t: TestContext) => {
    const annToMove = game({ white: ANN, black: BOB }, BLITZ, ['e2e4', 'e7e5']);
    const refused = claim(annToMove, ann);
    t.assert.equal(code(refused), 'CLAIM_NOT_AVAILABLE');
    t.assert.match(refused.ok ? '' : refused.error.message, /opponent's turn/);
    t.assert.equal(code(claimOpponentGone(annToMove, 'draw', ann, T0, DUE + 60_000)), 'CLAIM_NOT_AVAILABLE');
    // Bob, on Ann's turn, may claim if Ann is the one gone.
    t.assert.equal(code(claim(annToMove, bob)), 'ok');
  });

  test('never before the game has started (while it can be aborted), in either phase', (t: TestContext) => {
    // 45 s after the start: the count-down is over, the first move's minute is not.
    const noMove = game({ white: ANN, black: BOB }, BLITZ, []);
    t.assert.equal(code(claim(noMove, bob, T0 + 45_000)), 'CLAIM_NOT_AVAILABLE'); // on Ann's turn
    const oneMove = game({ white: ANN, black: BOB }, BLITZ, ['e2e4']);
    const refused = claim(oneMove, ann, T0 + 45_000); // on Bob's turn
    t.assert.equal(code(refused), 'CLAIM_NOT_AVAILABLE');
    t.assert.match(refused.ok ? '' : refused.error.message, /not started/);
  });

  test('never against the computer, which never leaves', (t: TestContext) => {
    const computer = game({ white: ANN, black: engineSeat(3) }, BLITZ, ['e2e4', 'e7e5', 'g1f3']);
    const refused = claim(computer, ann);
    t.assert.equal(code(refused), 'CLAIM_NOT_AVAILABLE');
    t.assert.match(refused.ok ? '' : refused.error.message, /computer/);
  });

  test('never in a correspondence or untimed game, nor before the count-down, nor while the opponent is there', (t: TestContext) => {
    for (const clock of [{ daysPerMove: 2 }, undefined]) {
      const g = game({ white: ANN, black: BOB }, clock, ['e2e4', 'e7e5', 'g1f3']);
      t.assert.equal(code(claim(g, ann)), 'CLAIM_NOT_AVAILABLE');
    }
    const started = game({ white: ANN, black: BOB }, BLITZ, ['e2e4', 'e7e5', 'g1f3']);
    t.assert.equal(code(claim(started, ann, DUE - 1)), 'CLAIM_NOT_AVAILABLE');
    t.assert.equal(code(claim(started, ann, DUE)), 'ok');
    const present = claimOpponentGone(started, 'victory', ann, undefined, DUE + 60_000);
    t.assert.equal(code(present), 'CLAIM_NOT_AVAILABLE');
    t.assert.equal(code(claim(started, SERVICE)), 'NOT_A_PLAYER');
  });
});
