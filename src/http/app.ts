/**
 * Builds the HTTP app from its dependencies; never listens (the composition root does that), so tests use
 * `app.inject()` on the same app that serves.
 *
 * ```ts
 * const app = await buildApp({ games, store, bus, publicUrl: undefined });
 * const res = await app.inject({ method: 'POST', url: '/api/board/game' });
 * ```
 */
import Fastify, {
  LogController,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  type RouteOptions,
} from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { GameService } from '../service/games.ts';
import type { EventBus } from '../bus/bus.ts';
import type { PlayerFeed } from '../bus/players.ts';
import { DEFAULTS } from '../defaults.ts';
import type { GameStore } from '../store/store.ts';
import { DomainError } from '../domain/errors.ts';
import { answerClientError, registerErrorHandlers, toApiError } from './errors.ts';
import { compilersFactory } from './compilers.ts';
import { documentText } from './openapiDocument.ts';
import { registerGuards, type RateLimitSettings } from './guards.ts';
import { lichessUrl } from './lichessPaths.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { gameRoutes } from './routes/games.ts';
import { streamRoutes } from './routes/stream.ts';
import { boardRoutes } from './routes/board.ts';
import { tokenRoutes } from './routes/tokens.ts';
import { challengeRoutes } from './routes/challenges.ts';
import { seekRoutes } from './routes/seeks.ts';
import { lichessRoutes } from './routes/lichess.ts';
import { tokenTestRoutes } from './routes/tokenTest.ts';
import type { SeekService } from '../service/seeks.ts';
import type { GamePresence } from '../service/presence.ts';
import type { EnginePool } from '../engine/index.ts';
import { aiRoutes } from './routes/ai.ts';
import { SEEK_SCHEMAS } from '../contract/seeks.ts';
import type { ChallengeService } from '../service/challenges.ts';
import { CHALLENGE_SCHEMAS } from '../contract/challenges.ts';
import { CHAT_SCHEMAS } from '../contract/chat.ts';
import { LICHESS_SCHEMAS } from '../contract/lichess.ts';
import { EXPORT_SCHEMAS } from '../contract/gameExport.ts';
import { RATING_SCHEMAS } from '../contract/ratings.ts';
import { RatingService } from '../service/ratings.ts';
import { ratingRoutes } from './routes/ratings.ts';
import { EVENT_SCHEMAS } from '../contract/events.ts';
import type { ChatService } from '../service/chat.ts';
import type { RatingStore } from '../store/ratings.ts';
import type { PlayerTokens } from '../service/tokens.ts';
import { redactQuery } from './redact.ts';
import { oneAtATimePerConnection } from './pipelining.ts';
import { allowedMethods } from './methods.ts';
import { listingCursors } from './cursors.ts';
import { completeErrorResponses, describeBody, readTypedQueries } from './schemas.ts';
import { StreamHub, streamErrorLine } from './stream.ts';
import { exportRoutes } from './routes/gameExport.ts';
import type { GameExports } from '../service/gameExports.ts';
import { SHARED_SCHEMAS, WELL_FORMED, ref, ApiError } from '../contract/shapes.ts';
import { OAUTH_SCHEMAS } from '../contract/oauth.ts';
import type { Accounts } from '../service/accounts.ts';
import type { OAuth } from '../service/oauth.ts';
import { accountPages } from './routes/accountPages.ts';
import { oauthApiRoutes } from './routes/oauthApi.ts';

export interface AppDeps {
  games: GameService;
  store: GameStore;
  bus: EventBus; // the committed changes the streams follow: the one the service publishes to
  players?: PlayerFeed; // games starting and ending, for the players' event streams; none: no such streams
  metrics?: Metrics; // a fresh registry when absent
  publicUrl?: string | undefined;
  bodyLimit?: number; // bytes, 1048576
  heartbeatMs?: number; // empty line on idle streams, 10000
  maxStreamsPerClient?: number; // 0 = no limit; 20
  maxStreamBacklogBytes?: number; // unread bytes before a stream is cut, 1048576
  logger?: FastifyServerOptions['logger'];
  tokens?: readonly string[]; // service tokens for /api/; none (and no player token issued) = authentication off
  playerTokens?: PlayerTokens; // player tokens (DECISIONS §13); absent = none, and no token endpoints
  challenges?: ChallengeService; // challenges (DECISIONS §16); absent = no challenge endpoints
  seeks?: SeekService; // seeks (DECISIONS §16); absent = no seek endpoints
  presence?: GamePresence; // who is at a game (DECISIONS §17, opponent gone); absent = nobody is ever gone
  engine?: EnginePool; // the computer opponent (DECISIONS §18); absent = no POST /api/challenge/ai
  chat?: ChatService; // games' chat (DECISIONS §17); absent = no chat endpoints
  exports?: GameExports; // a player's games and single games as lichess exports them (DECISIONS §22); absent = none
  ratings?: RatingStore; // players' perfs and rating history (DECISIONS §21); absent = no rating endpoints
  rateLimit?: RateLimitSettings; // /api/ requests per window per client; absent or max 0 = no limit
  corsOrigins?: readonly string[]; // origins allowed to call the API from a browser; none = no CORS headers
  trustProxy?: boolean | number | readonly string[]; // whose X-Forwarded-For gives the client address; false
  accounts?: { accounts: Accounts; oauth: OAuth }; // accounts and OAuth (DECISIONS §20), with playerTokens; absent: none
}

/** Fastify's form of the setting: a hop count becomes "trust the first n hops". */
function trustProxyOption(
  value: AppDeps['trustProxy'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof value === 'number') return (_address, hop) => hop < value;
  if (typeof value === 'object') return [...value];
  return value ?? false;
}

/** The longest path parameter the router reads (a long UCI or id is refused by its schema, not the router). */
const MAX_PARAM_LENGTH = 16 * 1024;

/** Log paths that could hold credentials; pino writes them as '[redacted]' (DECISIONS §12: never tokens). */
const REDACTED = ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie'];

/** The format of DECISIONS §15's text, for the validators: no unpaired surrogate. */
const WELL_FORMED_FORMAT = { [WELL_FORMED]: (text: string) => text.isWellFormed() };
/** The validators' and serializers' options: one object each for every app, as compilers.ts needs. */
const AJV_OPTIONS = {
  customOptions: {
    coerceTypes: false,
    allErrors: false,
    // A body's unknown fields are ignored, never removed: a oneOf judges each branch on the whole object.
    removeAdditional: false,
    formats: WELL_FORMED_FORMAT,
  },
};
// The serializer tells the branches of a union apart with a validator of its own: it knows the format too.
const SERIALIZER_OPTIONS = { ajv: { formats: WELL_FORMED_FORMAT } };

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  // The query parameters of the API's routes (collected as they are added): the only ones logged as sent.
  const queryParameters = new Set<string>();
  const loggedUrl = (url: string) => redactQuery(url, queryParameters);
  const app = Fastify({
    logger: deps.logger
      ? {
          ...(deps.logger === true ? {} : deps.logger),
          redact: { paths: REDACTED, censor: '[redacted]' },
          // A request logged whole (`{ req: request }`) shows what Fastify's own serializer shows, its URL redacted.
          serializers: {
            req: (request: Partial<FastifyRequest>) => ({
              method: request.method,
              url: typeof request.url === 'string' ? loggedUrl(request.url) : undefined,
              host: request.host,
              remoteAddress: request.ip,
            }),
          },
        }
      : false,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimit ?? DEFAULTS.bodyLimit,
    // Behind a reverse proxy the client address (the rate-limit key) comes from X-Forwarded-For.
    trustProxy: trustProxyOption(deps.trustProxy),
    ajv: AJV_OPTIONS,
    serializerOpts: SERIALIZER_OPTIONS,
    // Validators and serializers are shared by the process's apps, serializers built on first use (compilers.ts).
    schemaController: { compilersFactory },
    // Requests that arrive while closing get a 503 ApiError from the hook below, not the framework's own body.
    return503OnClosing: false,
    // Long path parameters reach schema validation (INVALID_GAME_ID, INVALID_UCI...) instead of the router's
    // own 414; Node's header size limit bounds the URL anyway.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // lichess's clients write a game's paths a little differently (a trailing slash, draw/1): one path each, before
    // routing, so that everything judged on the route sees it (DECISIONS §16a).
    rewriteUrl: request => lichessUrl(request.url ?? '/'),
    // Requests Node cannot parse get an ApiError too (DECISIONS §1), not Fastify's own body; so does a request
    // without Host, which Node would refuse with an empty body (guards.ts refuses it instead).
    clientErrorHandler: answerClientError,
    http: { requireHostHeader: false },
    // Errors the router raises before any route runs (an undecodable URL) get an ApiError like all others.
    frameworkErrors: (error, request, reply) => {
      const { status, body } = toApiError(error, request);
      // onSend hooks do not run for these answers: the security header is set here.
      void (reply as FastifyReply)
        .code(status)
        .header('x-content-type-options', 'nosniff')
        .type('application/json; charset=utf-8')
        .send(body);
    },
  });
  // HTTP/1.1 pipelining: requests sent back to back on one connection run one at a time, in order, so that
  // each sees the effects of those before it (DECISIONS §15). Node answers them in order anyway.
  app.addHook('onRequest', oneAtATimePerConnection);
  app.addHook('onRoute', route => {
    const query = route.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
    for (const name of Object.keys(query?.properties ?? {})) queryParameters.add(name);
  });
  const methods = allowedMethods(app, { maxParamLength: MAX_PARAM_LENGTH });
  const metrics = deps.metrics ?? createMetrics();
  const hub = new StreamHub({
    bus: deps.bus,
    heartbeatMs: deps.heartbeatMs ?? DEFAULTS.streamHeartbeatMs,
    maxBacklogBytes: deps.maxStreamBacklogBytes ?? DEFAULTS.streamBacklogBytes,
    onEventSent: count => metrics.eventsSent.inc(count),
    onSlowConsumer: () => metrics.slowConsumers.inc(),
    onOpenStreamsChanged: open => metrics.openStreams.set(open),
    now: () => deps.games.now(),
    ...(deps.playerTokens ? { holdOwner: deps.playerTokens.hold.bind(deps.playerTokens) } : {}),
  });
  // Revoking a player token ends the streams opened with it (DECISIONS §13a), whichever instance revoked it.
  const stopEndingRevoked = deps.playerTokens?.onRevokedToken(hash =>
    hub.endOwnedBy(hash, streamErrorLine('UNAUTHORIZED', 'the token this stream was opened with has been revoked')),
  );
  app.addHook('onClose', (_instance, done) => {
    stopEndingRevoked?.();
    done();
  });
  app.decorateRequest('game', undefined); // set by requireGame
  // Streams never end by themselves: end them (with SERVER_SHUTDOWN) before the server waits for requests.
  let closing = false;
  app.addHook('preClose', () => {
    closing = true;
    return hub.close();
  });
  // The first hook of every request: the security header every answer carries (set here, it stays on error
  // answers too, and costs no onSend hook), then the refusal while closing.
  app.addHook('onRequest', (_request, reply, done) => {
    void reply.header('x-content-type-options', 'nosniff');
    if (!closing) return done();
    void reply.header('connection', 'close');
    done(new DomainError('UNAVAILABLE', 'the server is shutting down'));
  });

  // One log line per request, without bodies or headers.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ method: request.method, route, status: reply.statusCode });
    metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    request.log.info(
      {
        method: request.method,
        url: loggedUrl(request.url),
        statusCode: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
    done();
  });

  // An empty body on an endpoint whose body is optional is no body; anything but JSON is refused (415).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === '') return done(null, undefined);
    void parseJson(request, text, done);
  });

  // CORS, rate limit and bearer tokens for /api/, before any route is registered so that all inherit the hook.
  await registerGuards(app, {
    tokens: deps.tokens,
    playerTokens: deps.playerTokens,
    rateLimit: deps.rateLimit,
    corsOrigins: deps.corsOrigins,
    accounts: deps.accounts?.accounts,
    publicUrl: deps.publicUrl,
  });
  // A method not served on a path that is served: 405 with Allow, judged after the guards as a 404 is.
  app.addHook('onRequest', methods.hook);
  // Integer query parameters read as numbers; bodies described for the document (forms, optional bodies).
  const optionalBodies = new Set<string>();
  const routes: RouteOptions[] = []; // for the document's text (documentText)
  app.addHook('onRoute', function (route) {
    routes.push(route);
    readTypedQueries(route);
    describeBody(route, this.hasContentTypeParser('application/x-www-form-urlencoded'), optionalBodies);
  });

  for (const schema of [
    ...SHARED_SCHEMAS,
    ...CHALLENGE_SCHEMAS,
    ...SEEK_SCHEMAS,
    ...CHAT_SCHEMAS,
    ...LICHESS_SCHEMAS,
    ...EXPORT_SCHEMAS,
    ...RATING_SCHEMAS,
    ...EVENT_SCHEMAS,
    ...OAUTH_SCHEMAS,
  ])
    app.addSchema(schema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Chess game service',
        description: 'Create and play chess games: moves, undo and redo, draws, FEN and PGN, live NDJSON streams.',
        version: '1.0.0',
        license: { name: 'AGPL-3.0-or-later', url: 'https://www.gnu.org/licenses/agpl-3.0.html' },
      },
      // Under PUBLIC_URL when it is set; else the origin the document is read from.
      servers: [
        deps.publicUrl
          ? { url: deps.publicUrl.replace(/\/+$/, ''), description: 'this service' }
          : { url: '/', description: 'this service: where this document is served from' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description:
              'A service token (API_TOKENS), which acts for any side, or a player token (POST /api/tokens), which acts only for the sides its player holds. Needed once any token exists.',
          },
          serviceToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'A service token (API_TOKENS or API_TOKENS_FILE); a player token is refused with 403.',
          },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (json.$id as string | undefined) ?? `def-${i}`,
    },
    // Each route's errors are completed with those of its kind in the document only: the error mapper's bodies need
    // no serializer of their own, and one per route and status made the service start seconds later.
    transform: ({ schema, url, route }) => ({
      schema: completeErrorResponses({ method: route.method, url, schema }),
      url,
    }),
    // What the routes' schemas cannot say to the generator: which bodies are optional (`describeBodies`).
    transformObject: document => {
      if (!('openapiObject' in document)) return document.swaggerObject;
      for (const [path, methods] of Object.entries(document.openapiObject.paths ?? {})) {
        for (const [method, operation] of Object.entries(methods ?? {})) {
          const body = (operation as { requestBody?: { required?: boolean } } | undefined)?.requestBody;
          if (body && optionalBodies.has(`${method.toUpperCase()} ${path}`)) body.required = false;
        }
      }
      return document.openapiObject;
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  registerErrorHandlers(app);

  // The generator's options take two things from this app: the public URL (servers) and the optional bodies.
  app.get('/openapi.json', { schema: { hide: true } }, (_request, reply) => {
    const context = { publicUrl: deps.publicUrl, optionalBodies: [...optionalBodies].sort() };
    return reply.type('application/json; charset=utf-8').send(documentText(app, routes, context));
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
  app.get('/healthz', { schema: { hide: true } }, () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true, response: { 503: ref(ApiError) } } }, async () => {
    try {
      await deps.store.ping();
    } catch (error) {
      // The store's own UNAVAILABLE says why (a full disk, an unreachable database); anything else is generic.
      throw error instanceof DomainError ? error : new DomainError('UNAVAILABLE', 'the store is unreachable');
    }
    return { status: 'ok' };
  });

  await app.register(gameRoutes, {
    prefix: '/api/board/game',
    games: deps.games,
    publicUrl: deps.publicUrl,
    metrics,
    cursors: listingCursors(await deps.store.secret()),
  });
  const maxStreamsPerClient = deps.maxStreamsPerClient ?? DEFAULTS.maxStreamsPerClient;
  // One client for the stream limit as for the rate limit: its valid token, else its address.
  const clientKey = (request: { ip: string }) => (request as FastifyRequest).clientKey || request.ip;
  await app.register(streamRoutes, {
    prefix: '/api',
    games: deps.games,
    players: deps.players,
    challenges: deps.challenges,
    presence: deps.presence,
    hub,
    maxStreamsPerClient,
    clientKey,
  });
  // Players' ratings (DECISIONS §21), read at the game service's time.
  const ratings =
    deps.ratings && new RatingService({ store: deps.ratings, tokens: deps.playerTokens, now: () => deps.games.now() });
  if (deps.playerTokens) {
    await app.register(tokenRoutes, {
      prefix: '/api',
      publicUrl: deps.publicUrl,
      tokens: deps.playerTokens,
      serviceTokens: (deps.tokens ?? []).length > 0,
      ratings,
    });
  }
  if (ratings) await app.register(ratingRoutes, { prefix: '/api', ratings });
  await app.register(tokenTestRoutes, { prefix: '/api', tokens: deps.playerTokens });
  if (deps.accounts && deps.playerTokens) {
    const { accounts, oauth } = deps.accounts;
    await app.register(oauthApiRoutes, { prefix: '/api', oauth, tokens: deps.playerTokens });
    await app.register(accountPages, { accounts, oauth, tokens: deps.playerTokens, publicUrl: deps.publicUrl });
  }
  if (deps.challenges) await app.register(challengeRoutes, { prefix: '/api', challenges: deps.challenges });
  // The lichess dialect (DECISIONS §17): its paths beside the seed's.
  await app.register(lichessRoutes, {
    prefix: '/api',
    games: deps.games,
    tokens: deps.playerTokens,
    players: deps.players,
    presence: deps.presence,
    chat: deps.chat,
    hub,
    maxStreamsPerClient,
    clientKey,
  });
  if (deps.seeks)
    await app.register(seekRoutes, { prefix: '/api', seeks: deps.seeks, hub, maxStreamsPerClient, clientKey });
  if (deps.exports) {
    const { exports, publicUrl } = deps;
    await app.register(exportRoutes, { exports, games: deps.games, hub, publicUrl, maxStreamsPerClient, clientKey });
  }
  if (deps.engine) await app.register(aiRoutes, { prefix: '/api', games: deps.games, engine: deps.engine });
  await app.register(boardRoutes); // GET /, /game/:gameId and /assets/: the board page (dist/web)
  return app;
}
