/** Password hashes: scrypt with its parameters stored, old ones verified and flagged outdated, unknown users alike. */
import { test, type TestContext } from 'node:test';
import { PasswordHasher } from '../../src/service/passwords.ts';

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
