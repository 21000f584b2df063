/**
 * Settings, read once from the environment and checked at start. This is the only module that reads
 * `process.env`; everything else receives a frozen `Config`.
 *
 * ```ts
 * const config = loadConfig(process.env); // throws ConfigError with every problem listed
 * ```
 */
export interface Config {
  port: number; // PORT, 8080
  host: string; // HOST, '127.0.0.1'; '0.0.0.0' to serve other machines
  databaseUrl: string; // DATABASE_URL: a path, 'sqlite:PATH' or 'postgres://...'; './data/chess.sqlite'
  publicUrl: string | undefined; // PUBLIC_URL: where users reach the service, e.g. 'https://chess.example.org'
  logLevel: string; // LOG_LEVEL: 'info'
  bodyLimit: number; // BODY_LIMIT_BYTES: largest request body, 1048576
  maxPgnPlies: number; // MAX_PGN_PLIES: longest PGN main line accepted, 10000
  gameCacheSize: number; // GAME_CACHE_SIZE: games kept in memory, 10000
  streamHeartbeatMs: number; // STREAM_HEARTBEAT_MS: empty line on idle streams, 10000
  maxStreamsPerClient: number; // MAX_STREAMS_PER_CLIENT: open streams per client, 0 = no limit; 20
  streamBacklogBytes: number; // STREAM_BACKLOG_BYTES: unread bytes before a stream is cut, 1048576
}

export class ConfigError extends Error {
  constructor(problems: string[]) {
    super(`invalid settings:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

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

  const databaseUrl = text('DATABASE_URL', './data/chess.sqlite');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(databaseUrl) && !/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    problems.push(`DATABASE_URL must be a file path, 'sqlite:PATH' or 'postgres://...'; got '${databaseUrl}'`);
  }
  const publicUrl = env.PUBLIC_URL?.trim() ? env.PUBLIC_URL.trim().replace(/\/+$/, '') : undefined;
  if (publicUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(publicUrl)) {
    problems.push(`PUBLIC_URL must be an http(s) URL; got '${publicUrl}'`);
  }
  const logLevel = text('LOG_LEVEL', 'info');
  if (!LOG_LEVELS.includes(logLevel))
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got '${logLevel}'`);

  const config: Config = {
    port: integer('PORT', 8080, 0, 65535),
    host: text('HOST', '127.0.0.1'),
    databaseUrl,
    publicUrl,
    logLevel,
    bodyLimit: integer('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    maxPgnPlies: integer('MAX_PGN_PLIES', 10_000, 1, 100_000),
    gameCacheSize: integer('GAME_CACHE_SIZE', 10_000, 1, 10_000_000),
    streamHeartbeatMs: integer('STREAM_HEARTBEAT_MS', 10_000, 10, 3_600_000),
    maxStreamsPerClient: integer('MAX_STREAMS_PER_CLIENT', 20, 0, 1_000_000),
    streamBacklogBytes: integer('STREAM_BACKLOG_BYTES', 1024 * 1024, 1024, 1024 * 1024 * 1024),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}
