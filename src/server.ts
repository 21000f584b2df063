/**
 * The composition root: settings, store, service, app; then listen, and on SIGTERM/SIGINT close in order.
 */
import { setFlagsFromString } from 'node:v8';
import { loadConfig, ConfigError, type Config } from './config.ts';
import { buildApp } from './http/app.ts';
import { createMetrics } from './http/metrics.ts';
import { timedStore } from './store/timed.ts';
import { GameService } from './service/games.ts';
import { newGameId } from './service/ids.ts';
import { PlayerTokens } from './service/tokens.ts';
import { Accounts } from './service/accounts.ts';
import { OAuth } from './service/oauth.ts';
import { PasswordHasher } from './service/passwords.ts';
import { ChallengeService } from './service/challenges.ts';
import { SeekService } from './service/seeks.ts';
import { GamePresence } from './service/presence.ts';
import { EngineMoves } from './service/engineMoves.ts';
import { createEnginePool } from './engine/index.ts';
import { engineMetricsHooks } from './http/metrics.ts';
import { ChatService } from './service/chat.ts';
import { GameExports } from './service/gameExports.ts';
import { ChangeFeed } from './bus/feed.ts';
import { ChangeListener } from './bus/postgres.ts';
import { PlayerFeed } from './bus/players.ts';
import { isSharedStore, openStore, StoreOpenError } from './store/open.ts';
import { unsupportedNode } from './runtime.ts';

export async function start(config: Config) {
  const metrics = createMetrics();
  // Until the app (and its logger) exists, problems of idle database connections are written to stderr.
  let warn: (message: string) => void = message => {
    process.stderr.write(`${message}\n`);
  };
  const opened = await openStore(config.databaseUrl, {
    onError: error => warn(`database connection: ${error.message}`),
  });
  const store = timedStore(
    opened,
    () => metrics.storeCommit.startTimer(),
    () => metrics.storeReads.inc(),
  );
  const playerTokens = new PlayerTokens({ store: opened, now: Date.now });
  const accounts = new Accounts({
    store: opened,
    tokens: playerTokens,
    passwords: new PasswordHasher(),
    now: Date.now,
    signup: config.signup,
  });
  const oauth = new OAuth({ store: opened, tokens: playerTokens, now: Date.now });
  const shared = isSharedStore(config.databaseUrl);
  const feed = new ChangeFeed(store, error => warn(`stream catch-up: ${String(error)}`));
  // Games starting and ending, for the players' event streams; an announced one is read from the change log.
  const players: PlayerFeed = new PlayerFeed(
    (gameId, version) => games.gameAt(gameId, version),
    error => warn(`player events: ${String(error)}`),
  );
  const games: GameService = new GameService({
    store,
    ratings: opened,
    bus: feed,
    sharedStore: shared,
    newId: newGameId,
    clock: () => new Date(),
    cacheSize: config.gameCacheSize,
    cacheBytes: config.gameCacheBytes,
    maxPgnPlies: config.maxPgnPlies,
    // Each failed try of a game's end by its clock; it is tried again until recorded (DECISIONS §13a).
    onTimerError: (error, { key, failures, retryInMs }) =>
      warn(
        `clock timer of game ${key}: ${String(error)} (try ${failures}${retryInMs === undefined ? ', not retried' : `, again in ${retryInMs} ms`})`,
      ),
    players,
  });
  const challenges = new ChallengeService({
    store: opened,
    ratings: opened,
    games,
    players,
    ttlMs: config.challengeTtlS * 1000,
    publicUrl: config.publicUrl,
    sharedStore: shared,
    // Each failed try of a challenge's expiry; it is tried again until recorded (DECISIONS §13a).
    onExpiryError: ({ key, error, failures, retryInMs }) =>
      warn(
        `expiry of challenge ${key}: ${String(error)} (try ${failures}${retryInMs === undefined ? ', not retried' : `, again in ${retryInMs} ms`})`,
      ),
    // Each failed try of an accepted challenge's game; it is tried again until recorded (DECISIONS §16a).
    onGameError: ({ key, error, failures, retryInMs }) =>
      warn(
        `game of accepted challenge ${key}: ${String(error)} (try ${failures}${retryInMs === undefined ? ', not retried' : `, again in ${retryInMs} ms`})`,
      ),
  });
  const seeks = new SeekService({
    store: opened,
    ratings: opened,
    games,
    // Each failed try of a paired game's creation (tried again until recorded) or of a renewal of seeks' leases.
    onError: ({ key, error, failures, retryInMs }) =>
      warn(
        `seek ${key}: ${String(error)} (try ${failures}${retryInMs === undefined ? ', not retried' : `, again in ${retryInMs} ms`})`,
      ),
  });
  // Who is at each game, on every instance: a player's game streams keep them present (opponent gone).
  const presence = new GamePresence({
    store: opened,
    now: () => games.now(),
    onError: error => warn(`presence: ${String(error)}`),
  });
  // The computer opponent: engine processes started on demand; one that cannot start makes only the computer
  // unavailable (a warning), never the service.
  const engine = createEnginePool({
    enginePath: config.enginePath,
    workers: config.engineWorkers,
    metrics: engineMetricsHooks(metrics),
    // Late-bound, like the other warnings: the app's logger once it exists, stderr until then.
    log: { warn: message => warn(message) },
  });
  const engineMoves = new EngineMoves({
    games,
    store: opened,
    engine,
    onError: (gameId, error) => warn(`engine move in game ${gameId}: ${String(error)} (tried again)`),
  });
  games.onCommitted = game => engineMoves.committed(game);
  // Games' chat; on a shared store every instance hears each line from the database.
  const chat = new ChatService({ store: opened, games, sharedStore: shared });
  const exports = new GameExports(opened, games);
  const app = await buildApp({
    games,
    challenges,
    seeks,
    presence,
    engine,
    chat,
    exports,
    store,
    ratings: opened,
    bus: feed,
    players,
    metrics,
    publicUrl: config.publicUrl,
    bodyLimit: config.bodyLimit,
    heartbeatMs: config.streamHeartbeatMs,
    maxStreamsPerClient: config.maxStreamsPerClient,
    maxStreamBacklogBytes: config.streamBacklogBytes,
    tokens: config.apiTokens,
    playerTokens,
    accounts: { accounts, oauth },
    rateLimit: { max: config.rateLimitMax, windowMs: config.rateLimitWindowMs },
    corsOrigins: config.corsOrigins,
    trustProxy: config.trustProxy,
    logger: { level: config.logLevel },
  });
  warn = message => app.log.warn(message);
  // Several instances on one database: changes committed elsewhere reach this instance's streams.
  const listener = shared
    ? new ChangeListener(
        config.databaseUrl,
        { feed, tokens: playerTokens, games, players, challenges, seeks, chat },
        { warn, info: message => app.log.info(message) },
      )
    : undefined;
  await listener?.start();
  if (listener) games.useReadBarrier(listener);
  // Clocks that run (or first moves awaited) end on time from now on, also those due while the server was down.
  const clocked = await games.armClocks();
  if (clocked > 0) app.log.info({ clocked }, 'clock timers armed');
  // Pending challenges expire on time from now on, also those due while the server was down.
  const pending = await challenges.armExpiries();
  if (pending > 0) app.log.info({ pending }, 'challenge expiries armed');
  // Pairings and accepts a crash left without their game get it now.
  const missing = await seeks.makeMissingGames(challenges);
  if (missing > 0) app.log.info({ missing }, 'games of pairings and accepted challenges made');
  // The engine plays its turns from now on, also those due while the server was down.
  engineMoves.start();
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await store.close();
    throw listenError(error, config);
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      app.log.error('shutdown took too long; exiting');
      process.exit(1);
    }, 10_000);
    timer.unref();
    try {
      await app.close();
      games.close();
      challenges.close();
      seeks.close();
      presence.close();
      engineMoves.close();
      await engine.close();
      await listener?.close();
      await feed.close();
      await store.close();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  return app;
}

/**
 * How far V8 lets the heap grow past what a full collection left live before it collects again: 100 % (a factor
 * of 2). V8's own factor depends on how cheap collections have been and, on a machine with much memory, goes up to
 * 4. A service whose reads keep replacing games in memory leaves its old generation full of evicted games, which
 * only a full collection frees: with 100000 stored games and 10000 in memory, the RSS peaked at 398 MiB while every
 * read evicted a game, against 258-259 MiB with this setting, for a few more full collections under writes
 * (`npm run bench:memory`, docs/benchmarks.md, Memory). V8 reads the flag at each collection, so setting it once
 * the process runs takes effect.
 *
 * It is left alone when node is given a heap growing factor of its own, or a heap limit: under a limit of up to
 * about 1 GiB V8's own factor is at most 2 already, and near the limit V8 lowers it further, which this flag would
 * override.
 */
export const HEAP_GROWING_PERCENT = 100;

/** A start-up failure that names its setting, printed as one line (DECISIONS §15). */
export class StartupError extends Error {}

/** Why the server cannot listen, naming PORT or HOST; other errors as they are. */
function listenError(error: unknown, config: Config): unknown {
  const code = (error as { code?: unknown }).code;
  const where = `${config.host}:${config.port}`;
  if (code === 'EADDRINUSE') return new StartupError(`PORT: ${where} is already in use`);
  if (code === 'EACCES') return new StartupError(`PORT: no permission to listen on ${where}`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new StartupError(`HOST: '${config.host}' is not an address of this machine (${String(code)})`);
  }
  return error;
}

/**
 * The heap flag the server sets at start, or undefined when node's command line (`execArgv`) or NODE_OPTIONS
 * already sets a heap growing factor or a heap limit.
 */
export function heapGrowingFlag(execArgv: readonly string[], nodeOptions = ''): string | undefined {
  const own = /^--(heap[-_]growing[-_]percent|max[-_]old[-_]space[-_]size|max[-_]heap[-_]size)\b/;
  if ([...execArgv, ...nodeOptions.split(/\s+/)].some(arg => own.test(arg))) return undefined;
  return `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

if (process.argv[1] === import.meta.filename) {
  const unsupported = unsupportedNode(process.versions.node);
  if (unsupported) {
    process.stderr.write(`${unsupported}\n`);
    process.exit(2);
  }
  const heapFlag = heapGrowingFlag(process.execArgv, process.env.NODE_OPTIONS);
  if (heapFlag) setFlagsFromString(heapFlag);
  try {
    await start(loadConfig(process.env));
  } catch (error) {
    if (error instanceof ConfigError || error instanceof StoreOpenError || error instanceof StartupError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}
