/**
 * The challenge life cycle (DECISIONS §16) as a table: for each state a challenge can be in, each action and each
 * actor, the result (the new status) or the refusal's code. Then the requests: fields, forms and JSON, the codes.
 */
import { suite, test, type TestContext } from 'node:test';
import {
  acceptChallenge,
  cancelChallenge,
  declineChallenge,
  declineReasonOf,
  expireChallenge,
  newChallenge,
  parseChallengeRequest,
  parseComputerChallengeRequest,
  type Challenge,
  type ChallengeRequest,
} from '../../src/domain/challenge.ts';
import { playerActor, SERVICE, type Actor } from '../../src/domain/seats.ts';
import type { Result } from '../../src/domain/errors.ts';

const ann = { id: 'ann', displayName: 'Ann' };
const bob = { id: 'bob', displayName: 'Bob' };
const eve = { id: 'eve', displayName: 'Eve' };
const NOW = Date.UTC(2026, 10, 26, 12);
const TTL = 3_600_000;
const BLITZ: ChallengeRequest = {
  timeControl: { type: 'clock', limit: 300, increment: 2 },
  color: 'white',
  initialFen: null,
};

function made(destUser = bob, request = BLITZ): Challenge {
  const result = newChallenge({
    id: 'Ch000001',
    challenger: ann,
    destUser,
    request,
    now: NOW,
    ttlMs: TTL,
    coin: () => 0.7,
  });
  if (!result.ok) throw result.error;
  return result.value;
}

/** The challenge in each state the table starts from. */
const STATES: Record<string, () => Challenge> = {
  pending: () => made(),
  'pending open': () => made(null as never),
  accepted: () => ({ ...made(), status: 'accepted', gameId: 'Game0001', acceptedBy: bob }),
  declined: () => ({ ...made(), status: 'declined', declineReason: 'later' }),
  canceled: () => ({ ...made(), status: 'canceled' }),
  expired: () => ({ ...made(), expiresAt: NOW }),
};

const ACTORS: Record<string, Actor> = {
  challenger: playerActor(ann),
  challenged: playerActor(bob),
  other: playerActor(eve),
  service: SERVICE,
};

type Action = (challenge: Challenge, actor: Actor) => Result<Challenge>;
const ACTIONS: Record<string, Action> = {
  accept: (c, actor) => {
    const result = acceptChallenge(c, actor, NOW, 'Game0002');
    return result.ok ? { ok: true, value: result.value.challenge } : result;
  },
  decline: (c, actor) => declineChallenge(c, actor, NOW, 'later'),
  cancel: (c, actor) => cancelChallenge(c, actor, NOW),
};

// state, action, actor -> the new status, or the code of the refusal
const TABLE: Array<[string, string, string, string]> = [
  ['pending', 'accept', 'challenged', 'accepted'],
  ['pending', 'accept', 'challenger', 'FORBIDDEN'],
  ['pending', 'accept', 'other', 'FORBIDDEN'],
  ['pending', 'accept', 'service', 'FORBIDDEN'],
  ['pending', 'decline', 'challenged', 'declined'],
  ['pending', 'decline', 'challenger', 'FORBIDDEN'],
  ['pending', 'decline', 'other', 'FORBIDDEN'],
  ['pending', 'decline', 'service', 'FORBIDDEN'],
  ['pending', 'cancel', 'challenger', 'canceled'],
  ['pending', 'cancel', 'challenged', 'declined'], // the challenged player's cancel declines
  ['pending', 'cancel', 'other', 'FORBIDDEN'],
  ['pending', 'cancel', 'service', 'FORBIDDEN'],
  ['pending open', 'accept', 'other', 'accepted'], // any other player
  ['pending open', 'accept', 'challenged', 'accepted'],
  ['pending open', 'accept', 'challenger', 'FORBIDDEN'],
  ['pending open', 'decline', 'other', 'FORBIDDEN'], // nobody was challenged: nobody declines
  ['pending open', 'cancel', 'challenger', 'canceled'],
  ['pending open', 'cancel', 'other', 'FORBIDDEN'],
];
// No longer pending: every action of every actor is CHALLENGE_NOT_FOUND (judged before the actor).
for (const state of ['accepted', 'declined', 'canceled', 'expired']) {
  for (const action of Object.keys(ACTIONS)) {
    for (const actor of Object.keys(ACTORS)) TABLE.push([state, action, actor, 'CHALLENGE_NOT_FOUND']);
  }
}

suite('the challenge life cycle: state × action × actor', () => {
  for (const [state, action, actor, expected] of TABLE) {
    test(`${state}, ${action} by the ${actor}: ${expected}`, (t: TestContext) => {
      const before = STATES[state]!();
      const result = ACTIONS[action]!(before, ACTORS[actor]!);
      if (expected === expected.toUpperCase()) {
        t.assert.equal(result.ok, false);
        if (!result.ok) t.assert.equal(result.error.code, expected);
      } else {
        t.assert.equal(result.ok, true);
        if (!result.ok) return;
        t.assert.equal(result.value.status, expected);
        t.assert.equal(result.value.version, before.version + 1);
        t.assert.equal(before.status, STATES[state]!().status, 'the challenge itself is a value: unchanged');
      }
    });
  }
});

test('accepting makes the game: the challenger in the colour drawn, the clock in ms, the position', (t: TestContext) => {
  const fen = '4k3/8/8/8/8/8/4P3/4K3 w - - 0 1';
  const challenge = made(bob, {
    timeControl: { type: 'clock', limit: 180, increment: 2 },
    color: 'black',
    initialFen: fen,
  });
  const result = acceptChallenge(challenge, playerActor(bob), NOW, 'Game0002');
  if (!result.ok) throw result.error;
  t.assert.deepEqual(result.value.game, { white: bob, black: ann, clock: { initial: 180_000, increment: 2000 }, fen });
  t.assert.equal(result.value.challenge.gameId, 'Game0002');
  t.assert.deepEqual(result.value.challenge.acceptedBy, bob);
  const days = acceptChallenge(
    made(bob, { timeControl: { type: 'correspondence', daysPerTurn: 3 }, color: 'white', initialFen: null }),
    playerActor(bob),
    NOW,
    'Game0003',
  );
  t.assert.deepEqual(days.ok && days.value.game.clock, { daysPerMove: 3 });
  const unlimited = acceptChallenge(
    made(bob, { ...BLITZ, timeControl: { type: 'unlimited' } }),
    playerActor(bob),
    NOW,
    'G',
  );
  t.assert.equal(unlimited.ok && unlimited.value.game.clock, undefined);
});

test('a random colour is a fair coin drawn when the challenge is made', (t: TestContext) => {
  const draw = (coin: number): Challenge => {
    const result = newChallenge({
      id: 'x',
      challenger: ann,
      destUser: bob,
      request: { ...BLITZ, color: 'random' },
      now: NOW,
      ttlMs: TTL,
      coin: () => coin,
    });
    if (!result.ok) throw result.error;
    return result.value;
  };
  t.assert.equal(draw(0.2).finalColor, 'white');
  t.assert.equal(draw(0.7).finalColor, 'black');
  t.assert.equal(draw(0.7).color, 'random');
  t.assert.equal(made().finalColor, 'white', 'a chosen colour is kept');
});

test('challenging oneself is INVALID_CHALLENGE', (t: TestContext) => {
  const result = newChallenge({
    id: 'x',
    challenger: ann,
    destUser: ann,
    request: BLITZ,
    now: NOW,
    ttlMs: TTL,
    coin: Math.random,
  });
  t.assert.equal(!result.ok && result.error.code, 'INVALID_CHALLENGE');
});

test('expiry: a real-time challenge after its TTL, the others after 7 days; only a pending one', (t: TestContext) => {
  const blitz = made();
  t.assert.equal(blitz.expiresAt, NOW + TTL);
  t.assert.equal(expireChallenge(blitz, NOW + TTL - 1), undefined);
  t.assert.equal(expireChallenge(blitz, NOW + TTL)?.status, 'canceled');
  const days = made(bob, { ...BLITZ, timeControl: { type: 'correspondence', daysPerTurn: 1 } });
  t.assert.equal(days.expiresAt, NOW + 7 * 86_400_000);
  t.assert.equal(made(bob, { ...BLITZ, timeControl: { type: 'unlimited' } }).expiresAt, NOW + 7 * 86_400_000);
  t.assert.equal(expireChallenge(STATES.accepted!(), NOW + 10 * TTL), undefined);
  t.assert.equal(expireChallenge(STATES.declined!(), NOW + 10 * TTL), undefined);
});

test('decline reasons: lichess keys in any case; the default is generic', (t: TestContext) => {
  t.assert.equal(declineReasonOf('tooFast'), 'toofast');
  t.assert.equal(declineReasonOf('LATER'), 'later');
  t.assert.equal(declineReasonOf('nope'), undefined);
  t.assert.equal(declineReasonOf('constructor'), undefined);
  const declined = declineChallenge(made(), playerActor(bob), NOW);
  t.assert.equal(declined.ok && declined.value.declineReason, 'generic');
});

suite('challenge requests: JSON and forms alike', () => {
  const parsed = (body: Record<string, unknown>) => parseChallengeRequest(body);
  test('time controls: clock, days or neither; flat, nested and form strings', (t: TestContext) => {
    const clock = { timeControl: { type: 'clock', limit: 300, increment: 2 }, color: 'random', initialFen: null };
    t.assert.deepEqual(parsed({ 'clock.limit': 300, 'clock.increment': 2 }), { ok: true, value: clock });
    t.assert.deepEqual(parsed({ clock: { limit: 300, increment: 2 } }), { ok: true, value: clock });
    t.assert.deepEqual(parsed({ 'clock.limit': '300', 'clock.increment': '2', rated: 'false' }), {
      ok: true,
      value: clock,
    });
    t.assert.deepEqual(parsed({ days: '3', color: 'black' }), {
      ok: true,
      value: { timeControl: { type: 'correspondence', daysPerTurn: 3 }, color: 'black', initialFen: null },
    });
    t.assert.deepEqual(parsed({}), {
      ok: true,
      value: { timeControl: { type: 'unlimited' }, color: 'random', initialFen: null },
    });
    const fen = parsed({ fen: '4k3/8/8/8/8/8/4P3/4K3 w - - 0 1' });
    t.assert.equal(fen.ok && fen.value.initialFen, '4k3/8/8/8/8/8/4P3/4K3 w - - 0 1');
  });

  const REFUSED: Array<[Record<string, unknown>, string]> = [
    [{ 'clock.limit': 14, 'clock.increment': 0 }, 'clock.limit'],
    [{ 'clock.limit': 10801, 'clock.increment': 0 }, 'clock.limit'],
    [{ 'clock.limit': 0, 'clock.increment': 5 }, 'clock.limit'], // lichess's 0+N is not offered
    [{ 'clock.limit': 300, 'clock.increment': 181 }, 'clock.increment'],
    [{ 'clock.limit': 300, 'clock.increment': -1 }, 'clock.increment'],
    [{ 'clock.limit': '300.5', 'clock.increment': 0 }, 'clock.limit'],
    [{ 'clock.limit': 300 }, 'clock.increment'],
    [{ 'clock.increment': 2 }, 'clock.limit'],
    [{ 'clock.limit': 300, 'clock.increment': 2, days: 3 }, 'days'],
    [{ days: 4 }, 'days'],
    [{ days: 'three' }, 'days'],
    [{ color: 'green' }, 'color'],
    [{ rated: 'yes' }, 'rated'],
    [{ rated: 1 }, 'rated'],
    [{ variant: 'chess960' }, 'variant'],
    [{ fen: 'not a fen' }, 'fen'],
    [{ fen: 7 }, 'fen'],
    [{ fen: '4k3/8/8/8/1b5b/8/8/4K3 w - - 0 1x' }, 'fen'],
  ];
  // A rated request that cannot be rated (DECISIONS §21): INVALID_CHALLENGE, naming why.
  const NOT_RATED: Array<[Record<string, unknown>, RegExp]> = [
    [{ rated: true }, /clock/],
    [{ rated: 'true' }, /clock/],
    [{ 'clock.limit': 300, 'clock.increment': 2, rated: true, fen: '4k3/8/8/8/8/8/4P3/4K3 w - - 0 1' }, /standard/],
  ];
  for (const [body, reason] of NOT_RATED) {
    test(`${JSON.stringify(body)}: INVALID_CHALLENGE, field rated`, (t: TestContext) => {
      const result = parsed(body);
      t.assert.equal(result.ok, false);
      if (result.ok) return;
      t.assert.deepEqual([result.error.code, result.error.field], ['INVALID_CHALLENGE', 'rated']);
      t.assert.match(result.error.message, reason);
    });
  }
  test('a rated challenge with a clock or days is rated; the computer is never rated', (t: TestContext) => {
    const rated = parsed({ days: 3, rated: 'true' });
    t.assert.equal(rated.ok && rated.value.rated, true);
    const computer = parseComputerChallengeRequest({ 'clock.limit': 300, 'clock.increment': 2, rated: true });
    t.assert.equal(!computer.ok && computer.error.code, 'INVALID_CHALLENGE');
    t.assert.equal(parseComputerChallengeRequest({ rated: false }).ok, true);
  });

  for (const [body, field] of REFUSED) {
    test(`${JSON.stringify(body)}: INVALID_BODY, field ${field}`, (t: TestContext) => {
      const result = parsed(body);
      t.assert.equal(result.ok, false);
      if (result.ok) return;
      t.assert.equal(result.error.code, 'INVALID_BODY');
      t.assert.equal(result.error.field, field);
    });
  }
});
