import { randomBytes, randomInt } from 'node:crypto';

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` characters of [A-Za-z0-9] from a cryptographically secure source. */
const randomId = (length: number): string => {
  let id = '';
  for (let i = 0; i < length; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
};

/** A game id: 8 characters from a cryptographically secure source, 62^8 ≈ 2.2e14 possible ids. */
export const newGameId = (): string => randomId(8);

/** A player token's public id: 12 characters, 62^12 ≈ 3.2e21 possible ids. */
export const newTokenId = (): string => randomId(12);

/** A player token's secret: `cpt_` and 256 random bits in base64url (a bearer token, RFC 6750 b64token). */
export const newTokenSecret = (): string => `cpt_${randomBytes(32).toString('base64url')}`;

/**
 * A secret an account's page or an app is given (a personal or OAuth token, an OAuth code, a session id): `prefix`
 * and 43 characters of [A-Za-z0-9], 62^43 > 2^256, so that it matches `^[A-Za-z0-9_]+$` (DECISIONS §20).
 */
export const newAccountSecret = (prefix: 'lip_' | 'lio_' | 'liu_' | 'ses_'): string => `${prefix}${randomId(43)}`;
