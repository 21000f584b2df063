/** Password hashes: scrypt with its parameters stored, old ones verified and flagged outdated, unknown users alike. */
import { test, type TestContext } from 'node:test';
import { PasswordHasher } from '../../src/service/passwords.ts';
import { Accounts } from '../../src/service/accounts.ts';
import { PlayerTokens } from '../../src/service/tokens.ts';
import { MemoryGameStore } from '../../src/store/memory.ts';

const FAST = { N: 1024, r: 8, p: 1 };

test('a hash holds its parameters and salt; the right password verifies, a wrong one does not', async (t: TestContext) => {
  const hasher = new PasswordHasher(FAST);
  const one = await hasher.hash('correct horse battery');
  const two = await hasher.hash('correct horse battery');
  t.assert.match(one, /^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  t.assert.notEqual(one, two, 'a salt of its own');
  t.assert.deepEqual(await hasher.verify('correct horse battery', one), { ok: true, outdated: false });
  t.assert.deepEqual(await hasher.verify('correct horse batterY', one), { ok: false, outdated: false });
  t.assert.deepEqual(await hasher.verify('', one), { ok: false, outdated: false });
});

test('a hash made with older parameters is verified with them and reported outdated', async (t: TestContext) => {
  const old = await new PasswordHasher({ N: 512, r: 4, p: 1 }).hash('correct horse battery');
  const hasher = new PasswordHasher(FAST);
  t.assert.deepEqual(await hasher.verify('correct horse battery', old), { ok: true, outdated: true });
  t.assert.deepEqual(await hasher.verify('wrong horse battery', old), { ok: false, outdated: false });
});

test('an unknown user or an unreadable hash never verifies, after the same work as a real check', async (t: TestContext) => {
  const hasher = new PasswordHasher(FAST);
  t.assert.deepEqual(await hasher.verify('anything at all', undefined), { ok: false, outdated: false });
  for (const bad of ['', 'plain', 'scrypt$3$8$1$AA$AA', `scrypt$${2 ** 30}$8$1$AA$AA`, 'bcrypt$1$2$3$4$5']) {
    t.assert.deepEqual(await hasher.verify('anything at all', bad), { ok: false, outdated: false }, bad);
  }
  // Timing: the unknown user's check costs what a known user's does (within a generous factor, on a shared machine).
  const real = await hasher.hash('correct horse battery');
  const time = async (stored: string | undefined) => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < 20; i++) await hasher.verify('wrong password here', stored);
    return Number(process.hrtime.bigint() - start);
  };
  const [known, unknown] = [await time(real), await time(undefined)];
  t.diagnostic(`known ${(known / 20e6).toFixed(2)} ms, unknown ${(unknown / 20e6).toFixed(2)} ms per check`);
  t.assert.ok(unknown > known / 3 && unknown < known * 3, `known ${known} ns, unknown ${unknown} ns`);
});

test('sign-in upgrades a hash made with older parameters to the current ones, once the password is right', async (t: TestContext) => {
  const store = new MemoryGameStore();
  const tokens = new PlayerTokens({ store, now: Date.now });
  const accounts = new Accounts({ store, tokens, passwords: new PasswordHasher(FAST), now: Date.now });
  const old = await new PasswordHasher({ N: 512, r: 4, p: 1 }).hash('correct horse battery');
  await store.insertAccount({ id: 'ann', displayName: 'Ann', passwordHash: old, createdAt: 0 });
  await t.assert.rejects(accounts.signIn('ann', 'wrong horse battery', '127.0.0.1'), /wrong username or password/);
  t.assert.equal((await store.account('ann'))!.passwordHash, old, 'a wrong password changes nothing');
  await accounts.signIn('Ann', 'correct horse battery', '127.0.0.1');
  const upgraded = (await store.account('ann'))!.passwordHash;
  t.assert.match(upgraded, /^scrypt\$1024\$8\$1\$/);
  t.assert.deepEqual(await new PasswordHasher(FAST).verify('correct horse battery', upgraded), {
    ok: true,
    outdated: false,
  });
});
