/**
 * Bearer tokens (DECISIONS §10). When tokens are configured every `/api/` request needs
 * `Authorization: Bearer <token>` matching one of them; the comparison runs in constant time over SHA-256
 * digests, so neither the length nor the content of a configured token leaks through timing.
 *
 * ```ts
 * const tokens = new BearerTokens(['s3cret-token']);
 * tokens.identify('Bearer s3cret-token'); // 'token:<digest prefix>': the client's key
 * tokens.identify('Bearer nope'); // undefined
 * ```
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** `Bearer <token>`: the scheme is case-insensitive (RFC 9110 §11.1), the token is everything after it. */
const BEARER = /^Bearer +([^\s]+) *$/i;

export class BearerTokens {
  private readonly digests: readonly Buffer[];

  constructor(tokens: readonly string[]) {
    this.digests = tokens.map(digest);
  }

  /** Whether any token is configured, i.e. whether `/api/` needs one. */
  get enabled(): boolean {
    return this.digests.length > 0;
  }

  /**
   * The key of the client that presents this Authorization header: `token:` and a digest prefix when it
   * carries a configured token, else undefined. Every configured token is compared, so the time taken does
   * not depend on which one matched.
   */
  identify(header: string | undefined): string | undefined {
    const presented = BearerTokens.tokenOf(header);
    if (presented === undefined || this.digests.length === 0) return undefined;
    const candidate = digest(presented);
    let matched: Buffer | undefined;
    for (const known of this.digests) {
      if (timingSafeEqual(candidate, known)) matched = known;
    }
    // The key names the token without holding it: a prefix of its digest, never the token itself.
    return matched && `token:${matched.subarray(0, 12).toString('hex')}`;
  }

  /** The token of a `Bearer <token>` header, else undefined. */
  static tokenOf(header: string | undefined): string | undefined {
    return header === undefined ? undefined : BEARER.exec(header)?.[1];
  }

  /** Whether the header carries a bearer token at all, for the message of a 401. */
  static presents(header: string | undefined): boolean {
    return header !== undefined && BEARER.test(header);
  }
}
