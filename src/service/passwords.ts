/**
 * Password hashes (DECISIONS §20): Node's scrypt, memory-hard, with a random salt per password and its parameters
 * written beside it, `scrypt$N$r$p$salt$hash` (salt and hash in base64url), so that the parameters can be raised later:
 * a hash made with others is still verified, and `outdated` tells the caller to hash the password again once it is
 * known to be right (at sign-in). Comparisons are constant-time, and an unknown user is verified against a dummy hash
 * made with the current parameters, so that the time of an answer does not tell whether the user exists.
 *
 * ```ts
 * const passwords = new PasswordHasher();
 * const stored = await passwords.hash('correct horse');
 * await passwords.verify('correct horse', stored); // { ok: true, outdated: false }
 * await passwords.verify('anything', undefined);    // { ok: false, ... } after as long as a real check
 * ```
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface ScryptParameters {
  N: number; // cost, a power of two
  r: number; // block size
  p: number; // parallelism
}

/**
 * One of the configurations OWASP's Password Storage Cheat Sheet lists as its scrypt minimum (N=2^15, r=8, p=3):
 * 2^15 × 8 × 128 bytes = 32 MiB of memory per hash, and a few tenths of a second of one core of Node's thread pool.
 */
export const DEFAULT_SCRYPT: ScryptParameters = { N: 2 ** 15, r: 8, p: 3 };
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
/** Parameters beyond these are refused when read (a stored hash cannot make the service spend unbounded memory). */
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;

const derive = (password: string, salt: Buffer, { N, r, p }: ScryptParameters): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r + 1024 * 1024 };
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });

interface ParsedHash {
  params: ScryptParameters;
  salt: Buffer;
  key: Buffer;
}

function parse(stored: string): ParsedHash | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const valid =
    Number.isInteger(N) &&
    N > 1 &&
    N <= MAX_N &&
    (N & (N - 1)) === 0 &&
    Number.isInteger(r) &&
    r >= 1 &&
    r <= MAX_R &&
    Number.isInteger(p) &&
    p >= 1 &&
    p <= MAX_P;
  if (!valid) return undefined;
  return { params: { N, r, p }, salt: Buffer.from(parts[4]!, 'base64url'), key: Buffer.from(parts[5]!, 'base64url') };
}

const format = ({ N, r, p }: ScryptParameters, salt: Buffer, key: Buffer): string =>
  `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;

export interface Verified {
  ok: boolean;
  outdated: boolean; // right, but made with other parameters than the current ones: hash it again
}

export class PasswordHasher {
  private dummy: Promise<string> | undefined;

  constructor(private readonly params: ScryptParameters = DEFAULT_SCRYPT) {}

  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_LENGTH);
    return format(this.params, salt, await derive(password, salt, this.params));
  }

  /** Whether `password` is the one of `stored`; undefined `stored` (no such user) is checked against a dummy hash. */
  async verify(password: string, stored: string | undefined): Promise<Verified> {
    this.dummy ??= this.hash(randomBytes(16).toString('hex'));
    const parsed = parse(stored ?? (await this.dummy)) ?? parse(await this.dummy)!;
    const key = await derive(password, parsed.salt, parsed.params);
    const same = key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
    const ok = same && stored !== undefined && parse(stored) !== undefined;
    const { N, r, p } = parsed.params;
    const outdated = N !== this.params.N || r !== this.params.r || p !== this.params.p;
    return { ok, outdated: ok && outdated };
  }
}
