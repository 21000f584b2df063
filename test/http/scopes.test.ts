/** The scopes each operation needs (DECISIONS §20), as lichess's API description lists them: a table. */
import { test, type TestContext } from 'node:test';
import { missingScope, scopesNeeded } from '../../src/http/scopes.ts';

test('each operation needs the scopes lichess names for it; any one of them suffices', (t: TestContext) => {
  const cases: Array<[string, string, string[]]> = [
    ['POST', '/api/board/game', ['board:play']],
    ['POST', '/api/board/game/:gameId/move/:uci', ['board:play']],
    ['POST', '/api/board/seek', ['board:play']],
    ['GET', '/api/board/game/stream/:gameId', ['board:play']],
    ['GET', '/api/board/game/:gameId', []],
    ['GET', '/api/board/game', []],
    ['POST', '/api/bot/game/:gameId/move/:move', ['bot:play']],
    ['GET', '/api/bot/game/stream/:gameId', ['bot:play']],
    ['POST', '/api/bot/account/upgrade', ['bot:play']],
    ['GET', '/api/bot/online', []],
    ['GET', '/api/challenge', ['challenge:read']],
    ['GET', '/api/challenge/:id/show', ['challenge:read']],
    ['POST', '/api/challenge/:playerId', ['challenge:write', 'bot:play', 'board:play']],
    ['POST', '/api/challenge/:id/accept', ['challenge:write', 'bot:play', 'board:play']],
    ['GET', '/api/stream/event', ['challenge:read', 'bot:play', 'board:play']],
    ['GET', '/api/account', []],
    ['POST', '/api/token/test', []],
    ['DELETE', '/api/token', []],
  ];
  for (const [method, route, scopes] of cases)
    t.assert.deepEqual(scopesNeeded(method, route), scopes, `${method} ${route}`);
  t.assert.equal(missingScope('POST', '/api/board/game', ['challenge:read']), 'board:play');
  t.assert.equal(missingScope('POST', '/api/challenge/:playerId', ['board:play']), undefined, 'one of them suffices');
  t.assert.equal(missingScope('GET', '/api/stream/event', []), 'challenge:read');
  t.assert.equal(missingScope('POST', '/api/board/game', undefined), undefined, "the operator's tokens: every scope");
  t.assert.equal(missingScope('GET', '/api/account', []), undefined, 'a token without scopes still says who it is');
});
