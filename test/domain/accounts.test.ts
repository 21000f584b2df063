/** The rules of usernames and passwords (DECISIONS §20), as a table each. */
import { test, type TestContext } from 'node:test';
import { accountId, passwordProblem, usernameProblem } from '../../src/domain/accounts.ts';
import { COMMON_PASSWORDS_COUNT, isCommonPassword } from '../../src/domain/commonPasswords.ts';

test('usernames: 2-20 of [A-Za-z0-9_-], a letter or digit at each end, reserved ids refused', (t: TestContext) => {
  const cases: Array<[string, RegExp | undefined]> = [
    ['Ann', undefined],
    ['a1', undefined],
    ['Magnus_Carlsen-2', undefined],
    ['x'.repeat(20), undefined],
    ['a', /2 to 20/],
    ['x'.repeat(21), /2 to 20/],
    ['_ann', /begins and ends/],
    ['ann-', /begins and ends/],
    ['an n', /only letters/],
    ['änn', /only letters/],
    ['ann.b', /only letters/],
    ['Stockfish', /reserved/],
    ['st0ckfish', /reserved/], // looks like the computer's id
    ['stockfisher', undefined],
    ['P1', /reserved/],
    ['p2', /reserved/],
  ];
  for (const [name, expected] of cases) {
    const problem = usernameProblem(name);
    if (expected === undefined) t.assert.equal(problem, undefined, name);
    else t.assert.match(problem ?? '', expected, name);
  }
  t.assert.equal(accountId('MaGnUs'), 'magnus');
});

test('passwords: 8-256 characters, not the username in any case, not one of the 10,000 most common', (t: TestContext) => {
  const cases: Array<[string, string, RegExp | undefined]> = [
    ['correct horse battery', 'ann', undefined],
    ['1234567', 'ann', /at least 8/],
    ['♞♞♞♞♞♞♞♞', 'ann', undefined], // characters, not bytes
    ['x'.repeat(256) + 'y', 'ann', /at most 256/],
    ['AnnaBelle', 'annabelle', /not the username/],
    ['password', 'ann', /most common/],
    ['PassWord1', 'ann', /most common/],
    ['qwertyuiop', 'ann', /most common/],
  ];
  for (const [password, username, expected] of cases) {
    const problem = passwordProblem(password, username);
    if (expected === undefined) t.assert.equal(problem, undefined, password);
    else t.assert.match(problem ?? '', expected, password);
  }
  t.assert.equal(COMMON_PASSWORDS_COUNT, 10_000);
  t.assert.equal(isCommonPassword('dragon'), true);
  t.assert.equal(isCommonPassword('zebra-quantum-ladle'), false);
});
