/**
 * The computer's seat and bound (DECISIONS §16a), in the domain: its id is given to nobody, in any case or
 * look-alike spelling, and which new games count toward a player's bound of ongoing real-time games against it.
 */
import { suite, test, type TestContext } from 'node:test';
import type { TimeControl } from '../../src/domain/clock.ts';
import { engineSeat, engineSeatRefusal, isEngineLookalike } from '../../src/domain/engineSeat.ts';
import { cappedEngineGameOf, MAX_REAL_TIME_ENGINE_GAMES, personSideOf } from '../../src/domain/engineGames.ts';
import { newGame } from '../../src/domain/game.ts';

const BLITZ: TimeControl = { initial: 300_000, increment: 2_000 };
const ANN = { id: 'ann', displayName: 'Ann' };
const BOB = { id: 'bob', displayName: 'Bob' };

/** A new game's record. */
const record = (seats: { white: typeof ANN; black: typeof ANN }, clock?: TimeControl) =>
  newGame({ id: 'AbCd1234', createdAt: '2026-01-31T12:00:00.000Z', clock, ...seats }).record;

suite('the computer’s id is given to nobody', () => {
  test('in any case or look-alike spelling', (t: TestContext) => {
    for (const id of [
      'stockfish',
      'Stockfish',
      'STOCKFISH',
      ' stockfish',
      'stock fish',
      'stock\u00a0fish',
      'stock\u200bfish', // zero-width space
      's\u200dtockfish', // zero-width joiner
      '\u00adstockfish', // soft hyphen
      'stockfish\ufeff', // byte-order mark
      'stockfish\u2060', // word joiner
      '\u0455tockfish', // Cyrillic dze
      'st\u043eckfish', // Cyrillic o
      'st\u03bfckfish', // Greek omicron
      's\u03c4ockfish', // Greek tau
      'stockf\u0131sh', // dotless i
      '\u0405\u0422\u041e\u0421\u041aFISH', // Cyrillic capitals
      '\uff53\uff54\uff4f\uff43\uff4b\uff46\uff49\uff53\uff48', // full-width
      '\u017ftockfi\u017fh', // long s
      'stoc\u212afish', // Kelvin sign
      'STOCKFlSH', // small l for capital I
      '\ua731\u1d1b\u1d0f\u1d04\u1d0b\ua730\u026a\ua731\u029c', // small capitals
    ]) {
      t.assert.equal(isEngineLookalike(id), true, JSON.stringify(id));
    }
  });

  test('other ids are free', (t: TestContext) => {
    for (const id of ['ann', 'p1', 'stockfish2', 'stock-fish', 'stockfis', 'fishstock', 'stöckfish', 'Stockfisher']) {
      t.assert.equal(isEngineLookalike(id), false, id);
    }
  });

  test('no request seats it: INVALID_BODY naming the seat', (t: TestContext) => {
    t.assert.equal(engineSeatRefusal({ white: ANN, black: BOB }), undefined);
    t.assert.equal(engineSeatRefusal({}), undefined);
    const refusal = engineSeatRefusal({ white: ANN, black: { id: 'Stоckfish', displayName: 'Stockfish level 8' } });
    t.assert.deepEqual([refusal?.code, refusal?.field], ['INVALID_BODY', 'black.id']);
    t.assert.equal(engineSeatRefusal({ white: engineSeat(1) })?.field, 'white.id');
  });
});

test('a player’s bound of ongoing real-time games against the computer counts only those', (t: TestContext) => {
  const seats = { white: ANN, black: engineSeat(8) };
  const clock = (control: TimeControl | undefined) => record(seats, control);
  t.assert.deepEqual(cappedEngineGameOf(clock(BLITZ)), { player: 'ann', max: MAX_REAL_TIME_ENGINE_GAMES });
  t.assert.equal(MAX_REAL_TIME_ENGINE_GAMES, 5);
  t.assert.equal(cappedEngineGameOf(clock({ daysPerMove: 3 })), undefined);
  t.assert.equal(cappedEngineGameOf(clock(undefined)), undefined);
  t.assert.equal(cappedEngineGameOf(record({ white: ANN, black: BOB }, BLITZ)), undefined);
  t.assert.equal(personSideOf({ white: engineSeat(1), black: BOB }), 'black');
  t.assert.equal(personSideOf({ white: engineSeat(1), black: engineSeat(1) }), undefined);
});
