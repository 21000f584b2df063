/**
 * The "Play someone" panel's challenges (src/web/challengesState.ts), under Node: the pending challenges from the
 * event stream's lines and the list answers, which game start opens a game, the rows in words, and the request
 * bodies from the forms' fields (a challenge's, a seek's, a game against the computer's). The browser test (test/browser/challenges.test.ts) checks the panel in Chromium.
 */
import { test, type TestContext } from 'node:test';
import type { ChallengeJson } from '../../src/contract/challenges.ts';
import {
  applyChallengeLine,
  applyChallengeList,
  challengeAnswered,
  challengeBodyOf,
  challengeRowsOf,
  claimChallengeGame,
  computerBodyOf,
  newChallenges,
  openChallenges,
  seekBodyOf,
  timeControlOf,
  type Challenges,
  type TimeControlFields,
} from '../../src/web/challengesState.ts';

const ANN = { id: 'ann', name: 'Ann' };
const BOB = { id: 'bob', name: 'Bob' };
const CID = { id: 'cid', name: 'Cid' };

/** A pending challenge as the service sends it (src/service/challengeViews.ts), read by Ann unless `direction`. */
function challenge(id: string, fields: Partial<ChallengeJson> = {}): ChallengeJson {
  return {
    id,
    url: `/api/challenge/${id}/show`,
    status: 'created',
    challenger: ANN,
    destUser: BOB,
    variant: { key: 'standard', name: 'Standard', short: 'Std' },
    rated: false,
    speed: 'blitz',
    timeControl: { type: 'clock', limit: 300, increment: 3, show: '5+3' },
    color: 'white',
    finalColor: 'white',
    perf: { icon: '', name: 'Blitz' },
    direction: 'out',
    ...fields,
  };
}

/** A challenge Cid sent to Ann. */
const fromCid = (id: string, fields: Partial<ChallengeJson> = {}) =>
  challenge(id, { challenger: CID, destUser: ANN, direction: 'in', ...fields });

const ids = (state: Challenges) => ({
  in: state.incoming.map(known => known.id),
  out: state.outgoing.map(known => known.id),
});

test('challenges: challenge lines list each pending challenge by direction, once; their ends drop them', (t: TestContext) => {
  const state = newChallenges();
  openChallenges(state);
  applyChallengeLine(state, { type: 'challenge', challenge: challenge('out00001') });
  applyChallengeLine(state, { type: 'challenge', challenge: fromCid('in000001') });
  applyChallengeLine(state, { type: 'challenge', challenge: fromCid('in000002') });
  applyChallengeLine(state, { type: 'challenge', challenge: challenge('out00001') }); // sent again: still once
  t.assert.deepEqual(ids(state), { in: ['in000001', 'in000002'], out: ['out00001'] });

  // Bob declines Ann's challenge: it is gone, and the panel says why.
  const declined = challenge('out00001', {
    status: 'declined',
    declineReason: 'This time control is too fast for me, please challenge again with a slower game.',
    declineReasonKey: 'toofast',
  });
  applyChallengeLine(state, { type: 'challengeDeclined', challenge: declined });
  t.assert.deepEqual(ids(state), { in: ['in000001', 'in000002'], out: [] });
  t.assert.equal(
    state.notice,
    'Bob declined your challenge: This time control is too fast for me, please challenge again with a slower game.',
  );
  // Cid withdraws one of his: gone too.
  applyChallengeLine(state, { type: 'challengeCanceled', challenge: fromCid('in000001', { status: 'canceled' }) });
  t.assert.deepEqual(ids(state), { in: ['in000002'], out: [] });
  t.assert.equal(state.notice, "Cid's challenge was withdrawn");
  // A line that comes late (a list answer, or the line of a challenge made here) does not bring an ended one back.
  applyChallengeLine(state, { type: 'challenge', challenge: fromCid('in000001') });
  t.assert.deepEqual(ids(state), { in: ['in000002'], out: [] });
  // An end of a challenge not listed says nothing.
  applyChallengeLine(state, { type: 'challengeCanceled', challenge: challenge('gone0001', { status: 'canceled' }) });
  t.assert.equal(state.notice, "Cid's challenge was withdrawn");
  // A challenge not pending, or read by neither side, is not listed.
  applyChallengeLine(state, { type: 'challenge', challenge: challenge('done0001', { status: 'accepted' }) });
  const { direction: _none, ...others } = challenge('other001', { challenger: BOB, destUser: CID });
  applyChallengeLine(state, { type: 'challenge', challenge: others });
  t.assert.deepEqual(ids(state), { in: ['in000002'], out: [] });
});

test('challenges: a new connection lists again from its lines; a list answer applies unless a line came since', (t: TestContext) => {
  const state = newChallenges();
  openChallenges(state);
  applyChallengeLine(state, { type: 'challenge', challenge: fromCid('in000001') });
  const asked = state.epoch;
  const list = { in: [fromCid('in000001'), fromCid('in000002')], out: [challenge('out00001')] };
  t.assert.equal(applyChallengeList(state, list, asked), true);
  t.assert.deepEqual(ids(state), { in: ['in000001', 'in000002'], out: ['out00001'] });

  // The connection drops; the new one resends the pending ones (in000002 was answered meanwhile, elsewhere).
  openChallenges(state);
  t.assert.deepEqual(ids(state), { in: [], out: [] });
  const stale = state.epoch;
  applyChallengeLine(state, { type: 'challenge', challenge: fromCid('in000001') });
  t.assert.equal(applyChallengeList(state, list, stale), false, 'asked before the line: stale');
  t.assert.deepEqual(ids(state), { in: ['in000001'], out: [] });
});

test('challenges: the game of a challenge seen pending opens once, by its gameStart or by our accept', (t: TestContext) => {
  const state = newChallenges();
  openChallenges(state);
  applyChallengeLine(state, { type: 'challenge', challenge: challenge('out00001') });
  applyChallengeLine(state, { type: 'challenge', challenge: fromCid('in000001') });
  applyChallengeLine(state, { type: 'challenge', challenge: fromCid('in000002') });

  t.assert.equal(claimChallengeGame(state, 'othergam'), false, 'a game of no challenge of ours');
  // Bob accepts Ann's challenge: its game has the challenge's id.
  t.assert.equal(claimChallengeGame(state, 'out00001'), true);
  t.assert.equal(claimChallengeGame(state, 'out00001'), false, 'a second gameStart (a reconnection) opens nothing');
  // Ann accepts Cid's: the accept's answer and the gameStart, whichever comes first, open it.
  t.assert.equal(claimChallengeGame(state, 'in000001'), true);
  t.assert.equal(claimChallengeGame(state, 'in000001'), false);
  t.assert.deepEqual(ids(state), { in: ['in000002'], out: [] });

  // A challenge accepted while the stream was down: the new connection sends no challenge line for it (not
  // pending), only its game's start, which opens it.
  openChallenges(state);
  t.assert.equal(claimChallengeGame(state, 'in000002'), true);

  // Declined or canceled here, or ended elsewhere: its id opens nothing.
  applyChallengeLine(state, { type: 'challenge', challenge: fromCid('in000003') });
  applyChallengeLine(state, { type: 'challenge', challenge: challenge('out00002') });
  challengeAnswered(state, 'in000003');
  applyChallengeLine(state, { type: 'challengeCanceled', challenge: challenge('out00002', { status: 'canceled' }) });
  t.assert.deepEqual(ids(state), { in: [], out: [] });
  t.assert.equal(claimChallengeGame(state, 'in000003'), false);
  t.assert.equal(claimChallengeGame(state, 'out00002'), false);
});

test('challenges: rows say who, the time control and the side of the reader', (t: TestContext) => {
  const state = newChallenges();
  applyChallengeLine(state, { type: 'challenge', challenge: challenge('out00001', { color: 'random' }) });
  applyChallengeLine(state, {
    type: 'challenge',
    challenge: fromCid('in000001', {
      timeControl: { type: 'correspondence', daysPerTurn: 3 },
      speed: 'correspondence',
      perf: { icon: '', name: 'Correspondence' },
      color: 'white',
      finalColor: 'white',
    }),
  });
  applyChallengeLine(state, {
    type: 'challenge',
    challenge: fromCid('in000002', { timeControl: { type: 'unlimited' }, color: 'black', finalColor: 'black' }),
  });
  applyChallengeLine(state, { type: 'challenge', challenge: challenge('open0001', { destUser: null }) });
  t.assert.deepEqual(challengeRowsOf(state), [
    {
      id: 'in000001',
      direction: 'in',
      title: 'Cid challenges you',
      timeControl: '3 days per move',
      side: 'You play black',
    },
    { id: 'in000002', direction: 'in', title: 'Cid challenges you', timeControl: 'Unlimited', side: 'You play white' },
    {
      id: 'out00001',
      direction: 'out',
      title: 'You challenge Bob',
      timeControl: '5+3 · Blitz',
      side: 'You play white (random)',
    },
    { id: 'open0001', direction: 'out', title: 'Open challenge', timeControl: '5+3 · Blitz', side: 'You play white' },
  ]);
});

const fields = (changes: Partial<TimeControlFields>): TimeControlFields => ({
  kind: 'realtime',
  minutes: '5',
  increment: '3',
  days: '3',
  ...changes,
});

test('challenges: the forms make the bodies of a challenge (form keys, seconds) and of a seek (minutes)', (t: TestContext) => {
  const rows: Array<[Partial<TimeControlFields>, unknown, unknown]> = [
    [{}, { 'clock.limit': 300, 'clock.increment': 3, color: 'black' }, { time: 5, increment: 3, color: 'random' }],
    [
      { minutes: '0.5', increment: '' },
      { 'clock.limit': 30, 'clock.increment': 0, color: 'black' },
      { time: 0.5, increment: 0, color: 'random' },
    ],
    [
      { kind: 'correspondence', days: '7' },
      { days: 7, color: 'black' },
      { days: 7, color: 'random' },
    ],
    [{ kind: 'unlimited' }, { color: 'black' }, { error: 'A seek needs a clock or days per move.' }],
  ];
  for (const [changes, challengeBody, seekBody] of rows) {
    const control = timeControlOf(fields(changes));
    if ('error' in control) throw new Error(control.error);
    t.assert.deepEqual(challengeBodyOf(control, 'black'), challengeBody, JSON.stringify(changes));
    t.assert.deepEqual(seekBodyOf(control), seekBody, JSON.stringify(changes));
  }
  for (const wrong of [{ minutes: '' }, { minutes: '0' }, { minutes: 'five' }, { increment: '1.5' }, { kind: '' }]) {
    t.assert.ok('error' in timeControlOf(fields(wrong)), JSON.stringify(wrong));
  }
});

test('the computer: a level from 1 to 8 with the time control and colour of a challenge', (t: TestContext) => {
  const clock = timeControlOf(fields({ minutes: '5', increment: '0' }));
  const days = timeControlOf(fields({ kind: 'correspondence', days: '3' }));
  const unlimited = timeControlOf(fields({ kind: 'unlimited' }));
  if ('error' in clock || 'error' in days || 'error' in unlimited) throw new Error('the fields are valid');
  const rows: Array<[string, Parameters<typeof computerBodyOf>, unknown]> = [
    [
      'level 2, 5+0, white',
      ['2', clock, 'white'],
      { level: 2, 'clock.limit': 300, 'clock.increment': 0, color: 'white' },
    ],
    ['level 8, days, black', ['8', days, 'black'], { level: 8, days: 3, color: 'black' }],
    ['level 1, unlimited, random', [' 1 ', unlimited, 'random'], { level: 1, color: 'random' }],
    ['no level chosen', ['', clock, 'white'], { error: 'Choose a level from 1 to 8.' }],
    ['level 0', ['0', clock, 'white'], { error: 'Choose a level from 1 to 8.' }],
    ['level 9', ['9', clock, 'white'], { error: 'Choose a level from 1 to 8.' }],
    ['level 2.5', ['2.5', clock, 'white'], { error: 'Choose a level from 1 to 8.' }],
  ];
  for (const [name, args, body] of rows) t.assert.deepEqual(computerBodyOf(...args), body, name);
});
