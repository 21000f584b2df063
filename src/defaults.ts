/**
 * The default of every setting with one (README, Settings): config.ts reads the environment with them, and the app
 * and the game service built without a setting (tests, benchmarks) use them too. A module of data only, importing
 * nothing, so that any layer of the service may read it without importing the composition root (config.ts).
 *
 * ```ts
 * const bodyLimit = deps.bodyLimit ?? DEFAULTS.bodyLimit;
 * ```
 */
export const DEFAULTS = {
  port: 8080,
  host: '127.0.0.1',
  databaseUrl: './data/chess.sqlite',
  logLevel: 'info',
  bodyLimit: 1024 * 1024,
  maxPgnPlies: 10_000,
  gameCacheSize: 10_000,
  gameCacheBytes: 128 * 1024 * 1024,
  streamHeartbeatMs: 10_000,
  maxStreamsPerClient: 20,
  streamBacklogBytes: 1024 * 1024,
  rateLimitMax: 300,
  rateLimitWindowMs: 60_000,
  challengeTtlS: 3600,
  engineWorkers: 1,
} as const;
