/**
 * Listing cursors (DECISIONS §13 and §13a): a page's position in the order of changes, signed with the store's
 * secret together with the query it belongs to, so that a cursor the service did not make for this query (forged,
 * edited, or taken from another player's or status's list) is INVALID_QUERY, field `cursor`. The secret is the
 * store's, so every instance of a shared store reads every other's cursors.
 *
 * ```ts
 * const cursors = listingCursors(await store.secret());
 * const next = cursors.make(page.next, { player: 'ann', status: 'ongoing' }); // e.g. '2s.kq1V...'
 * cursors.parse(next, { player: 'ann', status: 'ongoing' }); // the position, 100
 * cursors.parse(next, { player: 'bob', status: 'ongoing' }); // throws INVALID_QUERY
 * ```
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { DomainError } from '../domain/errors.ts';

/** What a list is of: the cursor of one list is refused by another. */
export interface ListIdentity {
  player: string | undefined;
  status: string;
}

export interface ListingCursors {
  make(seq: number, list: ListIdentity): string;
  /** The position a cursor stands for, or undefined for none; throws INVALID_QUERY for one not made for `list`. */
  parse(cursor: string | undefined, list: ListIdentity): number | undefined;
}

/** Bytes of the HMAC kept in a cursor: 128 bits. */
const MAC_BYTES = 16;

export function listingCursors(secret: string): ListingCursors {
  const key = Buffer.from(secret, 'hex');
  const mac = (seq: number, { player, status }: ListIdentity): Buffer =>
    createHmac('sha256', key)
      .update(JSON.stringify(['listing', seq, status, player ?? null]))
      .digest()
      .subarray(0, MAC_BYTES);
  const refused = (cursor: string) =>
    new DomainError('INVALID_QUERY', `cursor '${cursor}' is not a cursor of this list`, 'cursor');
  return {
    make: (seq, list) => `${seq.toString(36)}.${mac(seq, list).toString('base64url')}`,
    parse(cursor, list) {
      if (cursor === undefined) return undefined;
      const match = /^([1-9a-z][0-9a-z]{0,10})\.([A-Za-z0-9_-]{22})$/.exec(cursor);
      const seq = match ? parseInt(match[1]!, 36) : NaN;
      if (!match || !Number.isSafeInteger(seq)) throw refused(cursor);
      const given = Buffer.from(match[2]!, 'base64url');
      if (given.length !== MAC_BYTES || !timingSafeEqual(given, mac(seq, list))) throw refused(cursor);
      return seq;
    },
  };
}
