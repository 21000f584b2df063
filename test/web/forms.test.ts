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

test('the create form with a player token makes a practice board (it names nobody); without one, the names', (t: TestContext) => {
  const fields: NewGameFields = { whiteName: 'Ann', blackName: 'Bob' };
  const named = { white: { id: 'p1', displayName: 'Ann' }, black: { id: 'p2', displayName: 'Bob' } };
  const ann: Account = { player: { id: 'ann', displayName: 'Ann' } };
  t.assert.deepEqual(newGamePlayersOf(fields, { player: null }), named, 'no player token: the names');
  t.assert.deepEqual(newGamePlayersOf(fields, undefined), named, 'the account not known yet: the names');
  t.assert.deepEqual(newGamePlayersOf(fields, ann), {}, 'a player: a practice board, whatever the names say');
});
