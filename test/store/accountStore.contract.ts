/**
 * The contract every AccountStore adapter keeps (src/store/accounts.ts), with the tokens' scopes and their
 * revocation per player (src/store/tokens.ts). Each adapter's test file calls `runAccountStoreContract` with a
 * factory for a store (which may hold what earlier tests wrote: ids are fresh in every test); the store is closed
 * after each test.
 *
 * ```ts
 * runAccountStoreContract('MemoryGameStore', async () => new MemoryGameStore());
 * ```
 */
import { randomBytes } from 'node:crypto';
import { describe, test, type TestContext } from 'node:test';
import type { AccountStore } from '../../src/store/accounts.ts';
import type { TokenStore } from '../../src/store/tokens.ts';

type Store = AccountStore & TokenStore & { close(): Promise<void> };

const fresh = () => randomBytes(6).toString('hex');
const NOW = Date.UTC(2026, 2, 1, 12);
const DAY = 24 * 60 * 60 * 1000;

export function runAccountStoreContract(
  name: string,
  makeStore: () => Promise<Store>,
  options: { skip?: string | false } = {},
): void {
  describe(`AccountStore contract: ${name}`, { skip: options.skip ?? false }, () => {
    const open = async (t: TestContext): Promise<Store> => {
      const store = await makeStore();
      t.after(() => store.close());
      return store;
    };
    const account = (id: string) => ({
      id,
      displayName: id.toUpperCase(),
      passwordHash: `scrypt$h-${id}`,
      createdAt: NOW,
    });

    test('an account is inserted once; its id stays held after it is closed, and its password can change while open', async (t: TestContext) => {
      const store = await open(t);
      const id = `ann${fresh()}`;
      t.assert.equal(await store.insertAccount(account(id)), true);
      t.assert.equal(await store.insertAccount({ ...account(id), displayName: 'Other' }), false);
      t.assert.deepEqual(await store.account(id), { ...account(id), closedAt: null });
      t.assert.equal(await store.account(`nobody${fresh()}`), undefined);
      t.assert.equal(await store.tokensIssued(), true, 'an account turns authentication on');
      t.assert.deepEqual(await store.knownPlayer(id), { id, displayName: id.toUpperCase() }, 'an account is a player');
      t.assert.equal(await store.setPasswordHash(id, 'scrypt$new'), true);
      t.assert.equal((await store.account(id))!.passwordHash, 'scrypt$new');
      t.assert.deepEqual(await store.closeAccount(id, NOW + 5), []);
      t.assert.equal(await store.closeAccount(id, NOW + 6), undefined, 'closed once');
      t.assert.deepEqual(await store.account(id), { ...account(id), passwordHash: 'scrypt$new', closedAt: NOW + 5 });
      t.assert.equal(await store.setPasswordHash(id, 'scrypt$later'), false);
      t.assert.equal(await store.insertAccount(account(id)), false, 'a closed id is never given again');
    });

    test('a session is found by its hash until it ends, goes idle or its account closes', async (t: TestContext) => {
      const store = await open(t);
      const id = `bob${fresh()}`;
      await store.insertAccount(account(id));
      const [one, two, three] = [fresh(), fresh(), fresh()];
      for (const hash of [one, two, three]) await store.insertSession({ hash, accountId: id, createdAt: NOW });
      t.assert.deepEqual(await store.sessionByHash(one, NOW - DAY), {
        hash: one,
        accountId: id,
        createdAt: NOW,
        lastSeenAt: NOW,
      });
      t.assert.equal(await store.sessionByHash(one, NOW + 1), undefined, 'idle since before');
      await store.touchSession(one, NOW + 10);
      t.assert.equal((await store.sessionByHash(one, NOW + 1))?.lastSeenAt, NOW + 10);
      t.assert.deepEqual(
        (await store.validTokenHashes([one, two, fresh()])).sort(),
        [one, two].sort(),
        'a live session is a credential, as a token is',
      );
      t.assert.equal(await store.endSession(two), true);
      t.assert.equal(await store.endSession(two), false);
      t.assert.equal(await store.sessionByHash(two, 0), undefined);
      t.assert.deepEqual(await store.validTokenHashes([two]), [], 'an ended session is no credential');
      t.assert.deepEqual(await store.endSessionsOf(id, one), [three]);
      t.assert.ok(await store.sessionByHash(one, 0), 'the session kept');
      t.assert.deepEqual(await store.closeAccount(id, NOW + 20), [one]);
      t.assert.equal(await store.sessionByHash(one, 0), undefined);
    });

    test('failed sign-ins are counted per key within the window, every key of one failure alike', async (t: TestContext) => {
      const store = await open(t);
      const [a, b, c] = [`account:${fresh()}`, `address:${fresh()}`, `address:${fresh()}`];
      await store.recordSignInFailure([a, b], NOW);
      await store.recordSignInFailure([a, b], NOW + 1000);
      await store.recordSignInFailure([b], NOW + 2000);
      const counts = await store.signInFailures([a, b, c], NOW - 1);
      t.assert.deepEqual(
        counts.sort((x, y) => x.count - y.count),
        [
          { key: a, count: 2, oldest: NOW },
          { key: b, count: 3, oldest: NOW },
        ],
      );
      t.assert.deepEqual(await store.signInFailures([a], NOW), [{ key: a, count: 1, oldest: NOW + 1000 }]);
      t.assert.deepEqual(await store.signInFailures([c], 0), []);
    });

    test('a code is used once: the first use finds it unused, later ones see the first and the token it gave', async (t: TestContext) => {
      const store = await open(t);
      const hash = fresh();
      const code = {
        hash,
        clientId: 'example.org',
        redirectUri: 'http://127.0.0.1:9/cb',
        challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        scopes: ['board:play', 'challenge:read'],
        accountId: `cat${fresh()}`,
        expiresAt: NOW + 60_000,
      };
      await store.insertCode(code);
      // Two uses at once, in whichever order the database takes them: one finds it unused, the other sees that use.
      const uses = await Promise.all([store.useCode(hash, NOW + 1), store.useCode(hash, NOW + 2)]);
      const winner = uses.findIndex(use => use?.usedAt === null);
      t.assert.notEqual(winner, -1, 'one use finds the code unused');
      const usedAt = NOW + 1 + winner;
      t.assert.deepEqual(uses[winner], { ...code, usedAt: null, tokenId: null });
      t.assert.deepEqual(uses[1 - winner], { ...code, usedAt, tokenId: null });
      await store.setCodeToken(hash, 'tok1');
      t.assert.deepEqual(await store.useCode(hash, NOW + 3), { ...code, usedAt, tokenId: 'tok1' });
      t.assert.equal(await store.useCode(fresh(), NOW), undefined);
    });

    test('tokens keep their scopes, description, client and expiry; their use is noted; a player’s are revoked together', async (t: TestContext) => {
      const store = await open(t);
      const player = { id: `dan${fresh()}`, displayName: 'Dan' };
      const personal = {
        id: fresh(),
        hash: fresh(),
        player,
        createdAt: new Date(NOW).toISOString(),
        scopes: ['board:play', 'challenge:write'],
        description: 'my bot script',
      };
      const oauth = {
        id: fresh(),
        hash: fresh(),
        player,
        createdAt: new Date(NOW).toISOString(),
        scopes: [],
        clientId: 'example.org',
        expiresAt: NOW + 365 * DAY,
      };
      const operator = { id: fresh(), hash: fresh(), player, createdAt: new Date(NOW).toISOString() };
      for (const token of [personal, oauth, operator]) await store.insertToken(token);
      t.assert.deepEqual(await store.tokenByHash(personal.hash), personal);
      t.assert.deepEqual(await store.tokenByHash(oauth.hash), oauth);
      t.assert.deepEqual(await store.tokenByHash(operator.hash), operator, 'no scopes: every scope');
      await store.touchToken(personal.hash, NOW + 7);
      t.assert.equal((await store.tokenByHash(personal.hash))?.lastUsedAt, NOW + 7);
      const revoked = await store.revokeTokensOf(player.id);
      t.assert.deepEqual(revoked.sort(), [personal.hash, oauth.hash, operator.hash].sort());
      t.assert.deepEqual(await store.listTokens(player.id), []);
      t.assert.deepEqual(await store.revokeTokensOf(player.id), []);
    });
  });
}
