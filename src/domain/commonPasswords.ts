/**
 * The 10,000 most common passwords, refused as passwords (DECISIONS §20): the first 10,000 of the ranked list of the
 * npm package `@zxcvbn-ts/language-common` (MIT licence; the list zxcvbn built from leaked-password corpora), compared
 * in lower case.
 *
 * ```ts
 * isCommonPassword('Password'); // true
 * ```
 */
import { dictionary } from '@zxcvbn-ts/language-common';

export const COMMON_PASSWORDS_COUNT = 10_000;

let common: Set<string> | undefined;

export function isCommonPassword(password: string): boolean {
  common ??= new Set(dictionary['passwords-common'].slice(0, COMMON_PASSWORDS_COUNT).map(word => word.toLowerCase()));
  return common.has(password.toLowerCase());
}
