/**
 * The page's seek (src/web/seekState.ts), under Node: searching, paired, stopped, and which game start is the
 * seek's game. The browser test (test/browser/challenges.test.ts) seeks in Chromium.
 */
import { test, type TestContext } from 'node:test';
import type { GameFull } from '../../src/contract/shapes.ts';
import {
  newSeek,
  seekAnswered,
  seekGameOf,
  seekPaired,
  seekWordsOf,
  startSeek,
  stopSeek,
} from '../../src/web/seekState.ts';
import { ANN, BOB, full } from './games.ts';

const BLITZ = { time: 5, increment: 0, color: 'random' } as const;

/** A game that started: Ann against `black`, with `clock`. */
function started(gameId: string, clock: GameFull['clock'], black = BOB): GameFull {
  return { ...full(), gameId, white: ANN, black, clock };
}

test('seek: the first game that starts while searching, new and with the time control sought, is the seek’s', (t: TestContext) => {
  const seek = newSeek();
  t.assert.equal(seekGameOf(seek, started('game0001', { initial: 300_000, increment: 0 }), ANN.id), false, 'idle');
  const serial = startSeek(seek, BLITZ, ['game0001']);
  t.assert.equal(seekWordsOf(seek), 'Searching for an opponent (5+0)…');

  const five = { initial: 300_000, increment: 0 };
  t.assert.equal(seekGameOf(seek, started('game0001', five), ANN.id), false, 'ongoing before the search began');
  t.assert.equal(seekGameOf(seek, started('game0002', five, ANN), ANN.id), false, 'a practice board');
  t.assert.equal(seekGameOf(seek, started('game0003', { initial: 300_000, increment: 2000 }), ANN.id), false);
  t.assert.equal(seekGameOf(seek, started('game0004', null), ANN.id), false, 'untimed');
  t.assert.equal(seekGameOf(seek, started('game0005', { daysPerMove: 5 }), ANN.id), false);
  const over = { ...started('game0006', five), state: { ...full().state, status: 'aborted' as const } };
  t.assert.equal(seekGameOf(seek, over, ANN.id), false, 'already over');
  t.assert.equal(seekGameOf(seek, started('game0007', five), 'cid'), false, 'not a game of the seeker');
  t.assert.equal(seek.phase, 'searching');

  // The request ends: paired. The game's start (it may also come first) opens it, and only one.
  t.assert.equal(seekPaired(seek, serial), true);
  t.assert.equal(seekWordsOf(seek), 'Opponent found: opening the game…');
  t.assert.equal(seekGameOf(seek, started('game0008', five), ANN.id), true);
  t.assert.equal(seek.phase, 'idle');
  t.assert.equal(seekWordsOf(seek), '');
  t.assert.equal(seekGameOf(seek, started('game0009', five), ANN.id), false, 'the search is over');
});

test('seek: a correspondence seek keeps its id; a stop makes earlier answers stale', (t: TestContext) => {
  const seek = newSeek();
  const first = startSeek(seek, { days: 3, color: 'random' }, []);
  t.assert.equal(seekWordsOf(seek), 'Searching for an opponent (3 days per move)…');
  t.assert.equal(seekAnswered(seek, first, 'seek0001'), true);
  t.assert.equal(seek.id, 'seek0001');
  t.assert.equal(seekGameOf(seek, started('game0001', { initial: 300_000, increment: 0 }), ANN.id), false);
  t.assert.equal(seekGameOf(seek, started('game0002', { daysPerMove: 3 }), ANN.id), true);

  // Canceled before its answer came: the answer is stale, and its seek the caller's to withdraw.
  const second = startSeek(seek, { days: 3, color: 'random' }, []);
  stopSeek(seek);
  t.assert.equal(seekAnswered(seek, second, 'seek0002'), false);
  t.assert.equal(seek.id, undefined);
  // A real-time search canceled, then another: the first one's end is not a pairing of the second.
  const third = startSeek(seek, BLITZ, []);
  stopSeek(seek);
  const fourth = startSeek(seek, BLITZ, []);
  t.assert.equal(seekPaired(seek, third), false);
  t.assert.equal(seek.phase, 'searching');
  t.assert.equal(seekPaired(seek, fourth), true);
});
