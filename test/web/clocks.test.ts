/**
 * The board page's clocks (src/web/clocks.ts), under Node: the time controls offered, when a clock starts, both
 * clocks as shown at the service's time, and the estimate of that time. The browser tests (test/browser/clocks)
 * check them counting down in Chromium.
 */
import { test, type TestContext } from 'node:test';
import type { GameFull, GameState } from '../../src/contract/shapes.ts';
import {
  clockDisplayOf,
  clockRequestOf,
  clockStarted,
  durationWords,
  formatClock,
  lowTimeOf,
  serviceOffsetAfter,
  TIME_CONTROLS,
  type ClockFace,
} from '../../src/web/clocks.ts';
import { BLITZ, DAYS, state, T, timed } from './games.ts';

const DAY = 86_400_000;

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
    if ('daysPerMove' in clock) t.assert.ok(clock.daysPerMove >= 1 && clock.daysPerMove <= 14);
    else t.assert.ok(clock.initial >= 1000 && clock.initial <= 10_800_000 && clock.increment <= 180_000);
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
