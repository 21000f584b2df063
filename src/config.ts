/**
 * Settings, read once from the environment and checked at start. This is the only module that reads
 * `process.env`; everything else receives a frozen `Config`.
 *
 * ```ts
 * const config = loadConfig(process.env); // throws ConfigError with every problem listed
 * ```
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { DEFAULTS } from './defaults.ts';

export interface Config {
  port: number; // PORT, 8080
  host: string; // HOST, '127.0.0.1'; '0.0.0.0' to serve other machines
  databaseUrl: string; // DATABASE_URL: a path, 'sqlite:PATH' or 'postgres://...'; './data/chess.sqlite'
  publicUrl: string | undefined; // PUBLIC_URL: where users reach the service, e.g. 'https://chess.example.org'
  logLevel: string; // LOG_LEVEL: 'info'
  bodyLimit: number; // BODY_LIMIT_BYTES: largest request body, 1048576
  maxPgnPlies: number; // MAX_PGN_PLIES: longest PGN main line accepted, 10000
  gameCacheSize: number; // GAME_CACHE_SIZE: games kept in memory, 10000
  gameCacheBytes: number; // GAME_CACHE_BYTES: estimated heap the games kept in memory may hold, 134217728
  streamHeartbeatMs: number; // STREAM_HEARTBEAT_MS: empty line on idle streams, 10000
  maxStreamsPerClient: number; // MAX_STREAMS_PER_CLIENT: open streams per client, 0 = no limit; 20
  streamBacklogBytes: number; // STREAM_BACKLOG_BYTES: unread bytes before a stream is cut, 1048576
  apiTokens: readonly string[]; // API_TOKENS (comma-separated) and API_TOKENS_FILE (one a line); none = auth off
  rateLimitMax: number; // RATE_LIMIT_MAX: /api/ requests per window per client, 0 = off; 300
  rateLimitWindowMs: number; // RATE_LIMIT_WINDOW_MS: the rate-limit window, 60000
  corsOrigins: readonly string[]; // CORS_ORIGINS (comma-separated origins); none = no CORS headers
  trustProxy: boolean | number | readonly string[]; // TRUST_PROXY: whose X-Forwarded-For to believe; false
  challengeTtlS: number; // CHALLENGE_TTL_S: how long a real-time challenge waits for an answer, 3600
  enginePath: string | undefined; // ENGINE_PATH: a UCI engine binary, e.g. '/usr/games/stockfish'; none = npm stockfish
  engineWorkers: number; // ENGINE_WORKERS: engine processes, each searching one position at a time; 1
  signup: 'open' | 'closed'; // SIGNUP: whether people may make accounts on /signup ('open'); the operator always can
}

export class ConfigError extends Error {
  constructor(problems: string[]) {
    // One line, however many problems: a start-up failure is told in one line (DECISIONS §15).
    super(`invalid settings: ${problems.join(' | ')}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** RFC 6750 `b64token`: what a bearer token may hold, so that it survives the Authorization header as is. */
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const MAX_TOKEN_LENGTH = 4096;

export function loadConfig(env: Record<string, string | undefined>): Readonly<Config> {
  const problems: string[] = [];
  const text = (name: string, fallback: string) => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? fallback : value;
  };
  const integer = (name: string, fallback: number, min: number, max: number) => {
    const raw = text(name, String(fallback));
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}; got '${raw}'`);
      return fallback;
    }
    return Number(raw);
  };

  const databaseUrl = text('DATABASE_URL', DEFAULTS.databaseUrl);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(databaseUrl) && !/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    problems.push(`DATABASE_URL must be a file path, 'sqlite:PATH' or 'postgres://...'; got '${databaseUrl}'`);
  }
  const publicUrl = env.PUBLIC_URL?.trim() ? env.PUBLIC_URL.trim().replace(/\/+$/, '') : undefined;
  if (publicUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(publicUrl)) {
    problems.push(`PUBLIC_URL must be an http(s) URL; got '${publicUrl}'`);
  }
  const logLevel = text('LOG_LEVEL', DEFAULTS.logLevel);
  if (!LOG_LEVELS.includes(logLevel))
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got '${logLevel}'`);

  const config: Config = {
    port: integer('PORT', DEFAULTS.port, 0, 65535),
    host: text('HOST', DEFAULTS.host),
    databaseUrl,
    publicUrl,
    logLevel,
    bodyLimit: integer('BODY_LIMIT_BYTES', DEFAULTS.bodyLimit, 1024, 64 * 1024 * 1024),
    maxPgnPlies: integer('MAX_PGN_PLIES', DEFAULTS.maxPgnPlies, 1, 100_000),
    gameCacheSize: integer('GAME_CACHE_SIZE', DEFAULTS.gameCacheSize, 1, 10_000_000),
    gameCacheBytes: integer('GAME_CACHE_BYTES', DEFAULTS.gameCacheBytes, 1024 * 1024, 64 * 1024 * 1024 * 1024),
    streamHeartbeatMs: integer('STREAM_HEARTBEAT_MS', DEFAULTS.streamHeartbeatMs, 10, 3_600_000),
    maxStreamsPerClient: integer('MAX_STREAMS_PER_CLIENT', DEFAULTS.maxStreamsPerClient, 0, 1_000_000),
    streamBacklogBytes: integer('STREAM_BACKLOG_BYTES', DEFAULTS.streamBacklogBytes, 1024, 1024 * 1024 * 1024),
    apiTokens: readTokens(env, problems),
    rateLimitMax: integer('RATE_LIMIT_MAX', DEFAULTS.rateLimitMax, 0, 1_000_000_000),
    rateLimitWindowMs: integer('RATE_LIMIT_WINDOW_MS', DEFAULTS.rateLimitWindowMs, 1, 86_400_000),
    corsOrigins: readOrigins(env.CORS_ORIGINS ?? '', problems),
    trustProxy: readTrustProxy(env.TRUST_PROXY?.trim() ?? '', problems),
    challengeTtlS: integer('CHALLENGE_TTL_S', DEFAULTS.challengeTtlS, 1, 7 * 86_400),
    // Not checked here: an engine that cannot run makes the computer opponent unavailable, not the service.
    enginePath: env.ENGINE_PATH?.trim() || undefined,
    engineWorkers: integer('ENGINE_WORKERS', DEFAULTS.engineWorkers, 1, 256),
    signup: text('SIGNUP', 'open') === 'closed' ? 'closed' : 'open',
  };
  if (!['open', 'closed'].includes(text('SIGNUP', 'open'))) {
    problems.push(`SIGNUP must be open or closed; got '${text('SIGNUP', 'open')}'`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

/**
 * The bearer tokens of API_TOKENS (comma-separated) and API_TOKENS_FILE (one a line, `#` starts a comment,
 * blank lines ignored), without duplicates. Messages name the setting and the entry, never the token itself.
 */
function readTokens(env: Record<string, string | undefined>, problems: string[]): string[] {
  const tokens = new Set<string>();
  const add = (token: string, where: string) => {
    if (token.length > MAX_TOKEN_LENGTH) {
      problems.push(`${where} is longer than ${MAX_TOKEN_LENGTH} characters`);
    } else if (!BEARER_TOKEN.test(token)) {
      problems.push(`${where} is not a bearer token: use letters, digits and - . _ ~ + / (with = only at the end)`);
    } else {
      tokens.add(token);
    }
  };
  (env.API_TOKENS ?? '')
    .split(',')
    .map(entry => entry.trim())
    .forEach((token, i) => {
      if (token !== '') add(token, `API_TOKENS entry ${i + 1}`);
    });

  const file = env.API_TOKENS_FILE?.trim();
  if (file) {
    let text: string | undefined;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      problems.push(`API_TOKENS_FILE '${file}' cannot be read (${why})`);
    }
    if (text !== undefined) {
      let found = 0;
      text.split(/\r?\n/).forEach((line, i) => {
        const token = line.replace(/#.*$/, '').trim();
        if (token === '') return;
        found++;
        add(token, `API_TOKENS_FILE line ${i + 1}`);
      });
      // A file that was meant to switch authentication on must not leave the service open by mistake.
      if (found === 0) problems.push(`API_TOKENS_FILE '${file}' holds no token (one a line, # for comments)`);
    }
  }
  return [...tokens];
}

/** CORS_ORIGINS: comma-separated origins such as `https://chess.example.org`, each scheme, host and port only. */
function readOrigins(raw: string, problems: string[]): string[] {
  const origins = new Set<string>();
  for (const entry of raw.split(',').map(item => item.trim())) {
    if (entry === '') continue;
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    // An origin is scheme, host and port: nothing else may survive in the parsed address.
    if (!url || !/^https?:$/.test(url.protocol) || url.href !== `${url.origin}/`) {
      problems.push(`CORS_ORIGINS entries must be origins like 'https://chess.example.org' (no path); got '${entry}'`);
      continue;
    }
    origins.add(url.origin);
  }
  return [...origins];
}

/** Named address ranges that Fastify's `trustProxy` understands. */
const PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * TRUST_PROXY: empty or `false` (the client address is the peer's), `true` (believe any X-Forwarded-For), a
 * number of proxy hops, or comma-separated proxy addresses, CIDR ranges and the names loopback, linklocal,
 * uniquelocal.
 */
function readTrustProxy(raw: string, problems: string[]): boolean | number | string[] {
  if (raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops >= 1 && hops <= 10) return hops;
  }
  const entries = raw.split(',').map(entry => entry.trim());
  const valid = (entry: string) => {
    if (PROXY_RANGES.includes(entry)) return true;
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || rest.length > 0) return false;
    return prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
  };
  const bad = entries.filter(entry => !valid(entry));
  if (bad.length > 0) {
    problems.push(
      `TRUST_PROXY must be true, false, a number of hops from 1 to 10, or proxy addresses and CIDR ranges; got '${bad.join(', ')}'`,
    );
    return false;
  }
  return entries;
}
