/**
 * The rules of accounts (DECISIONS §20), pure: what a username and a password may be, and what scopes are.
 *
 * A username is 2-20 characters of `[A-Za-z0-9_-]`, beginning and ending with a letter or digit; the player id is
 * the username in lower case. A password is 8-256 characters, with no composition rules, but neither the username
 * (ignoring case) nor one of the 10,000 most common passwords (commonPasswords.ts).
 *
 * ```ts
 * usernameProblem('Ann');              // undefined: the id is 'ann'
 * usernameProblem('stockfish');        // 'this name is reserved'
 * passwordProblem('password1', 'ann'); // 'this password is one of the most common ones: choose another'
 * ```
 */
import { isEngineLookalike } from './engineSeat.ts';
import { isCommonPassword } from './commonPasswords.ts';

export const USERNAME_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,18}[A-Za-z0-9])?$/;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;

/** Ids no account may take: the computer's, the default seats' (DECISIONS §2) and the words of the service's pages. */
const RESERVED = new Set(['stockfish', 'p1', 'p2', 'admin', 'api', 'account', 'oauth', 'login', 'logout', 'signup']);

/** The player id of a username: its lower case. */
export const accountId = (username: string): string => username.toLowerCase();

/** Why a username cannot be taken (its form, or a reserved id), or undefined. Whether it is held is the store's. */
export function usernameProblem(username: string): string | undefined {
  if (username.length < 2 || username.length > 20) return 'a username has 2 to 20 characters';
  if (!USERNAME_PATTERN.test(username)) {
    return 'a username holds only letters, digits, _ and -, and begins and ends with a letter or digit';
  }
  const id = accountId(username);
  if (RESERVED.has(id) || isEngineLookalike(id)) return `the name ${username} is reserved`;
  return undefined;
}

/** Why a password cannot be used by the account of `username`, or undefined. */
export function passwordProblem(password: string, username: string): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `a password has at least ${PASSWORD_MIN} characters`;
  if (length > PASSWORD_MAX) return `a password has at most ${PASSWORD_MAX} characters`;
  if (password.toLowerCase() === username.toLowerCase()) return 'a password is not the username';
  if (isCommonPassword(password)) return 'this password is one of the most common ones: choose another';
  return undefined;
}

/** The scopes a token may have, lichess's names, with what each allows (for the pages and the documents). */
export const SCOPES = {
  'board:play': 'Play games with the Board API',
  'bot:play': 'Play games with the Bot API (bot accounts)',
  'challenge:read': 'Read incoming challenges',
  'challenge:write': 'Create, accept and decline challenges',
} as const;
export type Scope = keyof typeof SCOPES;
export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];
export const isScope = (name: string): name is Scope => Object.hasOwn(SCOPES, name);
