/**
 * The scopes each API operation needs (DECISIONS §20), as lichess's API description names them (each operation's
 * `security: - OAuth2: [...]`): any one of the listed scopes suffices, as on lichess. Judged on the route's pattern
 * and method; an operation not listed needs none. Tokens the operator issues and sessions have every scope.
 *
 * ```ts
 * scopesNeeded('POST', '/api/board/game/:gameId/move/:uci'); // ['board:play']
 * scopesNeeded('GET', '/api/account');                       // [] : any token
 * ```
 */
import type { Scope } from '../domain/accounts.ts';

const PLAY_OR_CHALLENGE: Scope[] = ['challenge:write', 'bot:play', 'board:play'];

export function scopesNeeded(method: string, route: string): Scope[] {
  const read = method === 'GET' || method === 'HEAD';
  if (route === '/api/stream/event') return ['challenge:read', 'bot:play', 'board:play'];
  if (route.startsWith('/api/challenge')) return read ? ['challenge:read'] : PLAY_OR_CHALLENGE;
  if (route.startsWith('/api/bot/')) return route === '/api/bot/online' ? [] : ['bot:play'];
  if (route.startsWith('/api/board/'))
    return !read || route.startsWith('/api/board/game/stream/') ? ['board:play'] : [];
  return [];
}

/** The scope a token lacks for an operation, or undefined: `held` undefined has every scope. */
export function missingScope(method: string, route: string, held: readonly string[] | undefined): string | undefined {
  if (held === undefined) return undefined;
  const needed = scopesNeeded(method, route);
  if (needed.length === 0 || needed.some(scope => held.includes(scope))) return undefined;
  return needed[0];
}
