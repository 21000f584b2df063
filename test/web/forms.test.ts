/**
 * The board page's address and forms (src/web/forms.ts), under Node: a game id from an address or from what was
 * pasted, and the players a new game's request names.
 */
import { test, type TestContext } from 'node:test';
import type { Account } from '../../src/contract/shapes.ts';
import { idFromInput, idFromPath, newGamePlayersOf, playersOf, type NewGameFields } from '../../src/web/forms.ts';

test('addresses and forms: a game id from the path or from what was pasted, the players from the names', (t: TestContext) => {
  t.assert.equal(idFromPath('/game/AbCd1234'), 'AbCd1234');
  t.assert.equal(idFromPath('/game/AbCd1234/'), 'AbCd1234');
  t.assert.equal(idFromPath('/game/a%20b'), 'a b');
  t.assert.equal(idFromPath('/game/%E0%A4%A'), '%E0%A4%A', 'an undecodable id is kept as it is');
  t.assert.equal(idFromPath('/'), undefined);
  t.assert.equal(idFromPath('/game/a/b'), undefined);
  t.assert.equal(idFromInput('  AbCd1234 '), 'AbCd1234');
  t.assert.equal(idFromInput('https://chess.example.org/game/AbCd1234?x=1#y'), 'AbCd1234');
  t.assert.deepEqual(playersOf(' Ann ', ''), { white: { id: 'p1', displayName: 'Ann' } });
  t.assert.deepEqual(playersOf('', 'Bob'), { black: { id: 'p2', displayName: 'Bob' } });
  t.assert.deepEqual(playersOf('  ', ' '), {});
});

test('the create form with a player token names the opponent on the other side; without one, the names', (t: TestContext) => {
  const fields: NewGameFields = { whiteName: 'Ann', blackName: '', ownSide: 'white', opponentId: '', opponentName: '' };
  const ann: Account = { player: { id: 'ann', displayName: 'Ann' } };
  const rows: Array<[string, Partial<NewGameFields>, Account | undefined, unknown]> = [
    ['no player token: the names', {}, { player: null }, { white: { id: 'p1', displayName: 'Ann' } }],
    ['the account not known yet: the names', {}, undefined, { white: { id: 'p1', displayName: 'Ann' } }],
    ['a player, no opponent: a practice board', {}, ann, {}],
    [
      'a player takes white',
      { opponentId: ' bob ', opponentName: ' Bob ' },
      ann,
      { black: { id: 'bob', displayName: 'Bob' } },
    ],
    [
      'a player takes black',
      { ownSide: 'black', opponentId: 'bob', opponentName: 'Bob' },
      ann,
      { white: { id: 'bob', displayName: 'Bob' } },
    ],
    [
      'an opponent without a name: the id names them',
      { opponentId: 'bob' },
      ann,
      { black: { id: 'bob', displayName: 'bob' } },
    ],
    ['oneself: a practice board', { opponentId: 'ann' }, ann, { black: { id: 'ann', displayName: 'Ann' } }],
  ];
  for (const [name, changed, account, expected] of rows) {
    t.assert.deepEqual(newGamePlayersOf({ ...fields, ...changed }, account), expected, name);
  }
  const nameOnly = newGamePlayersOf({ ...fields, opponentName: 'Bob' }, ann);
  t.assert.ok('error' in nameOnly && /player id/.test(nameOnly.error), 'a name without an id says what is missing');
});
