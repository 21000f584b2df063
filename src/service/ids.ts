import { randomInt } from 'node:crypto';

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A game id: 8 characters from a cryptographically secure source, 62^8 ≈ 2.2e14 possible ids. */
export const newGameId = (): string => {
  let id = '';
  for (let i = 0; i < 8; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
};
