/**
 * The guard rails in front of the API (DECISIONS §10): CORS for configured origins, the rate limit and bearer
 * authentication. They apply to `/api/` only; health, readiness, metrics, the documents and the board page
 * stay open and unlimited.
 *
 * One `onRequest` hook, in this order: find the client (a service token, a player token, a session from the
 * service's own pages (origin.ts) when no Authorization is given, else the address) and who acts (the player of a
 * player token or session; otherwise the service, for any side), count the request against that
 * client's budget (429 `RATE_LIMITED` beyond it, so that guessing tokens is limited too), then refuse a request
 * without a valid token when authentication is on: when service tokens are configured or any player token was
 * ever issued (401 `UNAUTHORIZED`, with `WWW-Authenticate: Bearer` from the error mapper), unless the route needs
 * none (`POST /api/token/test`, `POST /api/token`); then the token's scopes (scopes.ts: 403 MISSING_SCOPE) and the
 * rule of bots and the Board API. A stream is one request: it passes the
 * hook once, when it opens. Errors are thrown to the one error mapper (errors.ts).
 *
 * Two protocol rules apply to every request, so that no answer is one of Node's bare ones: HTTP/1.1 without
 * Host is refused with an ApiError, and an `Expect` other than 100-continue is ignored.
 *
 * ```ts
 * await registerGuards(app, { tokens: ['s3cret-token'], rateLimit: { max: 300, windowMs: 60_000 }, corsOrigins: [] });
 * ```
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { fastifyCookie } from '@fastify/cookie';
import cors from '@fastify/cors';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import { DomainError } from '../domain/errors.ts';
import { playerActor, SERVICE, type Actor } from '../domain/seats.ts';
import type { PlayerTokens } from '../service/tokens.ts';
import type { Accounts } from '../service/accounts.ts';
import { missingScope } from './scopes.ts';
import { isSameOrigin, SESSION_COOKIE } from './origin.ts';
import type { StoredToken } from '../store/tokens.ts';
import { BearerTokens } from './auth.ts';

export interface RateLimitSettings {
  max: number; // requests per window per client; 0 = no limit
  windowMs: number; // e.g. 60000
}

export interface GuardOptions {
  tokens?: readonly string[] | undefined; // service tokens; none (and no player token) = authentication off
  playerTokens?: PlayerTokens | undefined; // player tokens, issued by the service (DECISIONS §13)
  rateLimit?: RateLimitSettings | undefined; // absent = no limit
  corsOrigins?: readonly string[] | undefined; // none = no CORS headers
  accounts?: Accounts | undefined; // accounts (DECISIONS §20): a session cookie from the service's own pages acts
  publicUrl?: string | undefined; // the service's origin, for the session's same-origin check
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is asking, for limits: `token:<digest prefix>` with a valid token, else `address:<ip>`. */
    clientKey: string;
    /** Who acts (API requests): a player with a player token; else the service, for any side. */
    actor: Actor;
    /** Whether the request carries a valid service token (the token endpoints need one). */
    serviceToken: boolean;
    /**
     * The hash of the valid player token (or session) the request carries, if any: the streams it opens end when it
     * is revoked (or the session ends).
     */
    playerTokenHash: string | undefined;
    /** The scopes of the player token the request carries; undefined: every scope (service tokens, sessions). */
    tokenScopes: string[] | undefined;
  }
}

/** Response headers a browser client may read across origins. */
const EXPOSED_HEADERS = ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

/**
 * Bots and the Board API (DECISIONS §17, §16a): a bot plays through /api/bot/... only, so its changes on the Board
 * API's paths (moves, offers, seeks) are 403 FORBIDDEN; and a person's commands on /api/bot/... are 403 too, as
 * lichess refuses them (but the upgrade that makes them a bot). Reads are not changes. Judged on the route's
 * pattern, as the router matched it: however the path was written (`/api/%62oard/...`), the rule is the route's.
 * A service token, or no token with authentication off, acts for any side and is neither.
 */
function botRule(request: FastifyRequest): DomainError | undefined {
  const { actor } = request;
  if (actor.kind !== 'player' || request.method === 'GET' || request.method === 'HEAD') return undefined;
  const route = request.routeOptions.url;
  if (route === undefined) return undefined;
  if (actor.bot && route.startsWith('/api/board/')) {
    return new DomainError('FORBIDDEN', 'a bot plays through the Bot API (/api/bot/...), not the Board API');
  }
  if (!actor.bot && route.startsWith('/api/bot/') && route !== BOT_UPGRADE) {
    return new DomainError(
      'FORBIDDEN',
      `the Bot API is for bots: ${actor.player.id} plays through the Board API (/api/board/...), or becomes a bot first (POST ${BOT_UPGRADE})`,
    );
  }
  return undefined;
}

const BOT_UPGRADE = '/api/bot/account/upgrade';

/**
 * Whether the request's route needs no token even when authentication is on: one whose document says so with an
 * empty `security` (`POST /api/token/test`, as on lichess). Its requests still count against the rate limit.
 */
const needsNoToken = (request: FastifyRequest): boolean =>
  (request.routeOptions.schema as { security?: unknown[] } | undefined)?.security?.length === 0;

/** One game's export (DECISIONS §22): outside `/api/`, guarded as the API is. */
const GAME_EXPORT = '/game/export/';

/**
 * Whether a request is for the API: a route under `/api/` or a game's export, or an unmatched path there (404s are
 * guarded too).
 */
export function isApiRequest(request: FastifyRequest): boolean {
  const route = request.routeOptions.url;
  if (route?.startsWith('/api/') || route?.startsWith(GAME_EXPORT)) return true;
  // The router decodes the path before matching ('/%61pi/...' is '/api/...'), so judge the decoded path.
  const raw = request.url.split('?', 1)[0]!;
  let path = raw;
  try {
    path = decodeURIComponent(raw);
  } catch {
    // undecodable: the raw path is what there is
  }
  return path === '/api' || path.startsWith('/api/') || path.startsWith(GAME_EXPORT);
}

export async function registerGuards(app: FastifyInstance, options: GuardOptions): Promise<void> {
  const tokens = new BearerTokens(options.tokens ?? []);
  const corsOrigins = new Set(options.corsOrigins ?? []);
  const limit = options.rateLimit && options.rateLimit.max > 0 ? options.rateLimit : undefined;

  if (corsOrigins.size > 0) {
    // Registered before the guard hook, so that a preflight (which carries no token) is answered first.
    await app.register(cors, {
      origin: (origin, callback) => callback(null, origin !== undefined && corsOrigins.has(origin) ? origin : false),
      methods: ['GET', 'HEAD', 'POST', 'DELETE'],
      allowedHeaders: ['authorization', 'content-type', 'accept'],
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    });
  }

  // HTTP/1.1 requires a Host header (RFC 9112 §3.2). Node's own refusal has no body, so the app refuses it.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      done(new DomainError('INVALID_BODY', 'an HTTP/1.1 request needs a Host header'));
    } else {
      done();
    }
  });
  // An Expect other than 100-continue would get Node's bare 417; the expectation is ignored instead (RFC 9110
  // §10.1.1 allows either) and the request is served like any other.
  app.server.on('checkExpectation', (request, response) => app.server.emit('request', request, response));

  app.decorateRequest('clientKey', '');
  app.decorateRequest('actor', null as never); // set for every API request by the hook below
  app.decorateRequest('serviceToken', false);
  app.decorateRequest('playerTokenHash', undefined);
  app.decorateRequest('tokenScopes', undefined);
  let limiter: ReturnType<FastifyInstance['createRateLimit']> | undefined;
  if (limit) {
    await app.register(rateLimit, {
      global: false, // only the guard hook below counts, and only /api/ requests
      max: limit.max,
      timeWindow: limit.windowMs,
      cache: 100_000,
      keyGenerator: request => request.clientKey,
    });
    limiter = app.createRateLimit();
  }
  const { playerTokens, accounts, publicUrl } = options;

  // Callback style, so that a request that waits for nothing (no rate limit, no player token to look up) costs no
  // promise. In order: who the client is (a service token, a player token, else its address), the rate limit
  // (counted before the token is judged, so that guessing tokens is limited too), then authentication.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    // A CORS preflight carries no credentials; a disallowed one falls through to NOT_FOUND.
    if (request.method === 'OPTIONS' || !isApiRequest(request)) return done();
    const header = request.headers.authorization;
    const serviceKey = tokens.identify(header);
    request.actor = SERVICE;
    request.serviceToken = serviceKey !== undefined;
    // The address now, while the connection is there: the client may leave while a token is looked up.
    const addressKey = `address:${normalizeIP(request.ip)}`;
    const judge = (player: StoredToken | undefined, authOn: boolean) => {
      if (player) {
        request.actor = playerActor(player.player, player.bot === true);
        request.playerTokenHash = player.hash;
        // The operator's tokens and sessions (no scopes of their own) have every scope.
        request.tokenScopes = player.scopes;
      }
      request.clientKey = serviceKey ?? (player ? `token:${player.hash.slice(0, 24)}` : addressKey);
      const refused =
        authOn && !serviceKey && !player && !needsNoToken(request)
          ? unauthorized(header)
          : (scopeRule(request) ?? botRule(request));
      if (!limiter) return done(refused);
      limiter(request).then(
        state => done(limitError(state, reply) ?? refused),
        (error: Error) => done(error),
      );
    };
    const presented = serviceKey === undefined ? BearerTokens.tokenOf(header) : undefined;
    // A session cookie acts only where no Authorization is given, and only from the service's own pages.
    const cookies = header === undefined && accounts ? request.headers.cookie : undefined;
    const sessionId = cookies === undefined ? undefined : fastifyCookie.parse(cookies)[SESSION_COOKIE];
    const player =
      presented !== undefined && playerTokens
        ? playerTokens.identify(presented)
        : sessionId !== undefined && isSameOrigin(request, publicUrl)
          ? sessionToken(accounts!, sessionId)
          : undefined;
    const authOn = tokens.enabled || (playerTokens ? playerTokens.issuedAny() : false);
    if (!(player instanceof Promise) && !(authOn instanceof Promise)) return judge(player, authOn);
    Promise.all([player, authOn])
      .then(([found, on]) => judge(found, on))
      .catch((error: Error) => done(error));
  });
}

/** The id a session is known by where a token would be: it is no token (no scopes of its own). */
const SESSION_ID = 'session';

/** A session as the guard takes a token: its account's player, its hash (its streams end with it). */
async function sessionToken(accounts: Accounts, sessionId: string): Promise<StoredToken | undefined> {
  const session = await accounts.session(sessionId);
  if (!session) return undefined;
  const { account, hash } = session;
  return { id: SESSION_ID, hash, player: { id: account.id, displayName: account.displayName }, createdAt: '' };
}

/** 403 MISSING_SCOPE when the token lacks the scope the operation needs (DECISIONS §20). */
function scopeRule(request: FastifyRequest): DomainError | undefined {
  const route = request.routeOptions.url;
  const missing = route === undefined ? undefined : missingScope(request.method, route, request.tokenScopes);
  return missing === undefined
    ? undefined
    : new DomainError('MISSING_SCOPE', `this token lacks the scope ${missing}, which this operation needs`, missing);
}

/** The 401 of a request without a valid token, when authentication is on. */
const unauthorized = (header: string | undefined): DomainError =>
  new DomainError(
    'UNAUTHORIZED',
    BearerTokens.presents(header)
      ? 'the bearer token is not valid'
      : 'this request needs an Authorization: Bearer <token> header',
  );

type LimitState = Awaited<ReturnType<ReturnType<FastifyInstance['createRateLimit']>>>;

/** Sets the rate-limit headers of a request near or over its limit; the error when it is over. */
function limitError(state: LimitState, reply: FastifyReply): DomainError | undefined {
  if (state.isAllowed) return undefined;
  reply.header('x-ratelimit-limit', state.max);
  reply.header('x-ratelimit-remaining', state.remaining);
  reply.header('x-ratelimit-reset', state.ttlInSeconds);
  if (!state.isExceeded) return undefined;
  const seconds = Math.max(1, state.ttlInSeconds);
  reply.header('retry-after', String(seconds));
  return new DomainError(
    'RATE_LIMITED',
    `too many requests: at most ${state.max} every ${formatWindow(state.timeWindow)}; retry in ${seconds} s`,
  );
}

const formatWindow = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);
