/**
 * The contract every ChallengeStore adapter keeps (src/store/challenges.ts), with the known players of its token
 * store. Each adapter's test file calls `runChallengeStoreContract` with a factory for a store (which may hold
 * what earlier tests wrote: ids and players are fresh in every test); the store is closed after each test.
 *
 * ```ts
 * runChallengeStoreContract('MemoryGameStore', async () => new MemoryGameStore());
 * ```
 */
import { randomBytes } from 'node:crypto';
import { describe, test, type TestContext } from 'node:test';
import type { Challenge } from '../../src/domain/challenge.ts';
import type { ChallengeStore } from '../../src/store/challenges.ts';
import type { TokenStore } from '../../src/store/tokens.ts';

type Store = ChallengeStore & TokenStore & { close(): Promise<void> };

const run = randomBytes(3).toString('hex');
let counter = 0;
const fresh = () => `${run}${String(++counter).padStart(2, '0')}`.slice(-8).padStart(8, 'c');
const player = (name: string) => ({ id: `${name}-${run}-${counter}`, displayName: name });

const NOW = Date.UTC(2026, 0, 31, 12);

/** A pending challenge with a fresh id, from `challenger` to `destUser`, made at `createdAt`. */
export function makeChallenge(fields: Partial<Challenge> = {}): Challenge {
  const createdAt = fields.createdAt ?? NOW;
  return {
    id: fresh(),
    version: 1,
    challenger: player('ann'),
    destUser: player('bob'),
    timeControl: { type: 'clock', limit: 300, increment: 2 },
    color: 'random',
    finalColor: 'white',
    initialFen: null,
    status: 'created',
    createdAt,
    expiresAt: createdAt + 3_600_000,
    declineReason: null,
    acceptedBy: null,
    gameId: null,
    ...fields,
  };
}

const next = (challenge: Challenge, fields: Partial<Challenge>): Challenge => ({
  ...challenge,
  ...fields,
  version: challenge.version + 1,
});

export function runChallengeStoreContract(
  name: string,
  makeStore: () => Promise<Store>,
  options: { skip?: string | false } = {},
): void {
  describe(`ChallengeStore contract: ${name}`, { skip: options.skip ?? false }, () => {
    const open = async (t: TestContext): Promise<Store> => {
      const store = await makeStore();
      t.after(() => store.close());
      return store;
    };

    test('a challenge inserted is read back unchanged; an id taken is refused and keeps the first', async (t: TestContext) => {
      const store = await open(t);
      const open1 = makeChallenge({ destUser: null, initialFen: '8/8/8/8/8/8/8/K6k w - - 0 1', color: 'black' });
      const corr = makeChallenge({ timeControl: { type: 'correspondence', daysPerTurn: 3 } });
      for (const challenge of [open1, corr]) {
        t.assert.equal(await store.insertChallenge(challenge), 'inserted');
        t.assert.deepEqual(await store.challenge(challenge.id), challenge);
      }
      t.assert.equal(await store.insertChallenge({ ...corr, color: 'white' }), 'taken');
      t.assert.deepEqual(await store.challenge(corr.id), corr);
      t.assert.equal(await store.challenge('Zz999999'), undefined);
    });

    test("a challenger's pending limit: counted with the insert, also when inserts race", async (t: TestContext) => {
      const store = await open(t);
      const eve = player('eve');
      const first = Array.from({ length: 3 }, () => makeChallenge({ challenger: eve }));
      for (const challenge of first) t.assert.equal(await store.insertChallenge(challenge, 5), 'inserted');
      // Expired ones and answered ones do not count.
      await store.insertChallenge(makeChallenge({ challenger: eve, createdAt: NOW - 10, expiresAt: NOW }));
      t.assert.equal(await store.claimChallenge(next(first[0]!, { status: 'canceled' }), 1), true);
      const racing = Array.from({ length: 8 }, () => makeChallenge({ challenger: eve }));
      const results = await Promise.all(racing.map(challenge => store.insertChallenge(challenge, 5)));
      t.assert.deepEqual([...results].sort(), [
        'inserted',
        'inserted',
        'inserted',
        'limit',
        'limit',
        'limit',
        'limit',
        'limit',
      ]);
      t.assert.equal(await store.pendingCount(eve.id, NOW), 5);
      const taken = { ...makeChallenge({ challenger: player('fay') }), id: racing[0]!.id };
      t.assert.equal(await store.insertChallenge(taken, 5), 'taken');
    });

    test('a claim changes a pending challenge once: at the version read, while it is created', async (t: TestContext) => {
      const store = await open(t);
      const made = makeChallenge();
      await store.insertChallenge(made);
      const accepted = next(made, { status: 'accepted', acceptedBy: made.destUser, gameId: 'Game0001' });
      t.assert.equal(await store.claimChallenge(accepted, 1), true);
      t.assert.deepEqual(await store.challenge(made.id), accepted);
      // Judged on the old version: refused, and the stored one is kept.
      t.assert.equal(await store.claimChallenge(next(made, { status: 'canceled' }), 1), false);
      // At the current version but no longer pending: refused too.
      t.assert.equal(await store.claimChallenge(next(accepted, { status: 'canceled' }), 2), false);
      t.assert.deepEqual(await store.challenge(made.id), accepted);
      // No such challenge.
      t.assert.equal(await store.claimChallenge(next(makeChallenge(), { status: 'canceled' }), 1), false);
    });

    test('ten claims racing for one challenge: exactly one wins', async (t: TestContext) => {
      const store = await open(t);
      const made = makeChallenge({ destUser: null });
      await store.insertChallenge(made);
      const claims = Array.from({ length: 10 }, (_, i) =>
        next(made, { status: 'accepted', acceptedBy: { id: `p${i}`, displayName: `P${i}` }, gameId: `Game000${i}` }),
      );
      const won = await Promise.all(claims.map(claim => store.claimChallenge(claim, 1)));
      t.assert.equal(won.filter(Boolean).length, 1);
      t.assert.deepEqual(await store.challenge(made.id), claims[won.indexOf(true)]);
    });

    test("a player's pending challenges: made and received, not answered, not expired, oldest first", async (t: TestContext) => {
      const store = await open(t);
      const ann = player('ann');
      const bob = player('bob');
      const cat = player('cat');
      const out = makeChallenge({ challenger: ann, destUser: bob, createdAt: NOW + 2 });
      const incoming = makeChallenge({ challenger: cat, destUser: ann, createdAt: NOW + 1 });
      const openOne = makeChallenge({ challenger: ann, destUser: null, createdAt: NOW + 3 });
      const expired = makeChallenge({ challenger: ann, destUser: cat, createdAt: NOW - 10, expiresAt: NOW });
      const answered = makeChallenge({ challenger: cat, destUser: ann });
      const others = makeChallenge({ challenger: bob, destUser: cat });
      for (const challenge of [out, incoming, openOne, expired, answered, others]) {
        t.assert.equal(await store.insertChallenge(challenge), 'inserted');
      }
      t.assert.equal(
        await store.claimChallenge(next(answered, { status: 'declined', declineReason: 'later' }), 1),
        true,
      );
      t.assert.deepEqual(
        (await store.pendingChallenges(ann.id, NOW)).map(c => c.id),
        [incoming.id, out.id, openOne.id],
      );
      t.assert.equal(await store.pendingCount(ann.id, NOW), 2, 'made by ann: out and the open one');
      t.assert.equal(await store.pendingCount(ann.id, NOW - 20), 3, 'the expired one was still pending then');
      t.assert.equal(await store.pendingCount(cat.id, NOW), 1);
      t.assert.deepEqual(await store.pendingChallenges(player('nobody').id, NOW), []);
    });

    test('the challenges to expire: still created (expired ones too), soonest first, at most the limit', async (t: TestContext) => {
      const store = await open(t);
      const later = makeChallenge({ expiresAt: NOW + 9_000_000_000 });
      const soon = makeChallenge({ expiresAt: NOW - 9_000_000_000 }); // already due
      const answered = makeChallenge({ expiresAt: NOW - 9_500_000_000 });
      for (const challenge of [later, soon, answered]) await store.insertChallenge(challenge);
      await store.claimChallenge(next(answered, { status: 'canceled' }), 1);
      const ids = (await store.expiringChallenges(1000)).map(c => c.id);
      t.assert.ok(ids.includes(soon.id) && ids.includes(later.id));
      t.assert.ok(ids.indexOf(soon.id) < ids.indexOf(later.id), 'soonest first');
      t.assert.equal(ids.includes(answered.id), false);
      t.assert.equal((await store.expiringChallenges(1))[0]?.id, ids[0]);
    });

    test('a player is known from its first token on, revoked or not, by its latest name', async (t: TestContext) => {
      const store = await open(t);
      const dan = player('dan');
      t.assert.equal(await store.knownPlayer(dan.id), undefined);
      const token = (id: string, displayName: string, createdAt: string) => ({
        id,
        hash: randomBytes(32).toString('hex'),
        player: { id: dan.id, displayName },
        createdAt,
      });
      const first = token(`t1${fresh()}`, 'Dan', '2026-01-31T12:00:00.000Z');
      await store.insertToken(first);
      t.assert.deepEqual(await store.knownPlayer(dan.id), { id: dan.id, displayName: 'Dan' });
      await store.insertToken(token(`t2${fresh()}`, 'Daniel', '2026-01-31T12:00:01.000Z'));
      t.assert.deepEqual(await store.knownPlayer(dan.id), { id: dan.id, displayName: 'Daniel' });
      t.assert.equal(await store.knownPlayer(dan.id.toUpperCase()), undefined, 'ids are case-sensitive');
      await store.revokeToken(first.id);
      const all = await store.listTokens(dan.id);
      for (const live of all) await store.revokeToken(live.id);
      t.assert.deepEqual(await store.knownPlayer(dan.id), { id: dan.id, displayName: 'Daniel' });
    });

    test("a bot is a bot for good: every token of its player reads as a bot's, those issued later too", async (t: TestContext) => {
      const store = await open(t);
      const [eve, fay] = [player('eve'), player('fay')];
      const token = (who: { id: string; displayName: string }) => ({
        id: `tb${fresh()}`,
        hash: randomBytes(32).toString('hex'),
        player: who,
        createdAt: '2026-01-31T12:00:00.000Z',
      });
      const before = token(eve);
      await store.insertToken(before);
      await store.insertToken(token(fay));
      t.assert.equal((await store.tokenByHash(before.hash))?.bot, undefined);
      t.assert.deepEqual(await store.botsAmong([eve.id, fay.id]), []);
      t.assert.equal(await store.makeBot(eve.id, '2026-01-31T12:00:01.000Z'), true);
      t.assert.equal(await store.makeBot(eve.id, '2026-01-31T12:00:02.000Z'), false, 'once');
      const after = token(eve);
      await store.insertToken(after);
      t.assert.equal((await store.tokenByHash(before.hash))?.bot, true);
      t.assert.equal((await store.tokenByHash(after.hash))?.bot, true);
      t.assert.deepEqual(
        (await store.listTokens(eve.id)).map(listed => listed.bot),
        [true, true],
      );
      t.assert.deepEqual(await store.botsAmong([fay.id, eve.id, 'nobody']), [eve.id]);
    });
  });
}
