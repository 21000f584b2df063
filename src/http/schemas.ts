/**
 * The HTTP layer's own schemas: path and query parameters, and the error answers of each route. The API's shapes
 * (bodies and answers) are declared once in `contract/shapes.ts`.
 */
import type { preValidationHookHandler } from 'fastify';
import { Type, type Static, type TSchema } from 'typebox';
import { ApiError, ref } from '../contract/shapes.ts';
import {
  DRAW_ACTIONS,
  GAME_ID_PATTERN,
  SQUARE_PATTERN,
  TAKEBACK_ACTIONS,
  UCI_PATTERN,
} from '../contract/vocabulary.ts';

export const GameIdParams = Type.Object({ gameId: Type.String({ pattern: GAME_ID_PATTERN }) });
export const MoveParams = Type.Object({
  gameId: Type.String({ pattern: GAME_ID_PATTERN }),
  uci: Type.String({ pattern: UCI_PATTERN, description: 'move in UCI, e.g. e2e4 or e7e8q' }),
});
export const DrawParams = Type.Object({
  gameId: Type.String({ pattern: GAME_ID_PATTERN }),
  action: Type.Enum(DRAW_ACTIONS),
});
export const TakebackParams = Type.Object({
  gameId: Type.String({ pattern: GAME_ID_PATTERN }),
  action: Type.Enum(TAKEBACK_ACTIONS),
});
export const MovesQuery = Type.Object({
  square: Type.Optional(
    Type.String({ pattern: `^$|${SQUARE_PATTERN}`, description: 'only moves from this square, e.g. e2' }),
  ),
});

export const ListQuery = Type.Object({
  player: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "only this player's games" })),
  status: Type.Optional(Type.Enum(['ongoing', 'ended', 'all'], { description: 'which games; all by default' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'games per page; 50 by default' })),
  cursor: Type.Optional(Type.String({ maxLength: 64, description: "an earlier page's nextCursor" })),
});

/**
 * The 200 answer of a stream: NDJSON whose every line is one of `lines` (an empty line is a heartbeat). The error
 * answers of a stream, given before it starts, are JSON as everywhere (`errorResponses`).
 */
export const ndjsonAnswer = (lines: TSchema, description: string) => ({
  description,
  content: { 'application/x-ndjson': { schema: lines } },
});

/** What each error status of the API means, as the OpenAPI document says it (the body is an ApiError). */
const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'the request is invalid: a parameter, the body or the action (its code says which)',
  401: 'a token is needed, or the one given is unknown or revoked',
  403: 'the token may not do this (FORBIDDEN, NOT_A_PLAYER, NOT_YOUR_TURN, TAKEBACK_NEEDS_CONSENT)',
  404: 'no such game, player, challenge or seek',
  409: 'not allowed in a rated game (NOT_ALLOWED_IN_RATED)',
  413: 'the request body is too large',
  415: 'the request body is not of a media type this operation reads',
  429: 'too many requests, or too many streams open (Retry-After says when to try again)',
  500: 'an internal error; nothing was changed',
  503: 'the store cannot be reached or is full (also the computer when no engine starts); nothing was changed',
};

/** The error answer of a status: an ApiError in JSON, with what the status means. */
const errorResponse = (status: number) =>
  Type.Unsafe<Static<typeof ApiError>>({ ...ref(ApiError), description: ERROR_DESCRIPTIONS[status] ?? 'an error' });

/** Error responses a route can give, for the OpenAPI document and serialization. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map(status => [status, errorResponse(status)])) as Record<
    number,
    ReturnType<typeof errorResponse>
  >;

/** Methods whose requests may carry a body, which Fastify reads whatever the route (hence 413 and 415). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A documented route's schema, for the document, with the error answers every route of its kind can give whatever it
 * does (DECISIONS §19): 500 and 503 everywhere (the store failing); on `/api/`, 401 (a token unknown or revoked, once
 * authentication is on) and 429 (the rate limit); a method with a body, 400 (a body that is not JSON), 413 and 415;
 * a change on `/api/board/` or `/api/bot/`, 403 (a bot plays through `/api/bot/`, a person through `/api/board/`);
 * no 401 where no token is needed (an empty `security`); and a description for each success. The route's
 * own schema is not changed: the service serializes what the route declares.
 */
export function completeErrorResponses<S extends object>(route: {
  method: string | string[];
  url: string;
  schema: S;
}): S {
  const schema = route.schema as { hide?: boolean; response?: Record<string, unknown> };
  if (!schema.response || schema.hide) return route.schema;
  const response: Record<string, unknown> = { ...schema.response };
  const methods = [route.method].flat();
  const statuses = [500, 503];
  // A route that needs no token (its `security` is empty) never answers 401.
  const tokenFree = (schema as { security?: unknown[] }).security?.length === 0;
  if (route.url.startsWith('/api/')) statuses.push(...(tokenFree ? [] : [401]), 429);
  if (methods.some(method => BODY_METHODS.has(method))) statuses.push(400, 413, 415);
  const reads = methods.every(method => method === 'GET' || method === 'HEAD');
  const playsOn = route.url.startsWith('/api/board/') || route.url.startsWith('/api/bot/');
  if (playsOn && !reads) statuses.push(403);
  for (const status of statuses) response[status] ??= errorResponse(status);
  // A success without words of its own says what its status says, rather than the generator's "Default Response".
  for (const [status, answer] of Object.entries(response)) {
    const described = typeof (answer as { description?: unknown }).description === 'string';
    if (!described && SUCCESS_DESCRIPTIONS[status]) {
      response[status] = { ...(answer as object), description: SUCCESS_DESCRIPTIONS[status] };
    }
  }
  return { ...route.schema, response };
}

const SUCCESS_DESCRIPTIONS: Record<string, string> = { 200: 'OK', 201: 'Created' };

/**
 * What a route's body schema cannot tell the document by itself: the media types it is read from (JSON, and forms
 * where the route's plugin takes them, as lichess's clients send), and whether it may be left out (TypeBox's
 * `Optional`), recorded in `optionalBodies` as `METHOD /path/{param}` for the document's `requestBody.required`.
 */
export function describeBody(
  route: { method: string | string[]; url: string; schema?: unknown },
  takesForms: boolean,
  optionalBodies: Set<string>,
): void {
  const schema = route.schema as { body?: object; consumes?: string[]; hide?: boolean } | undefined;
  if (!schema?.body || schema.hide) return;
  if (takesForms) schema.consumes ??= ['application/json', 'application/x-www-form-urlencoded'];
  if (!('~optional' in schema.body)) return;
  const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  for (const method of [route.method].flat()) optionalBodies.add(`${method} ${path}`);
}

const DECIMAL = /^[0-9]{1,15}$/;

/**
 * Query parameters arrive as text; those a route's schema types as integers (DECISIONS §19: the document says
 * `integer`) are read as numbers when they are decimal digits (no sign, no point), and those it types as booleans
 * (lichess's export options, DECISIONS §22) as booleans when they are `true` or `false`, before validation, which
 * judges the number (its range) or refuses the text (INVALID_QUERY). The validator coerces nothing itself: a JSON
 * body's "60000" stays a string, and is refused where a number is asked for.
 */
export function readTypedQueries(route: {
  schema?: unknown;
  preValidation?: preValidationHookHandler | preValidationHookHandler[] | undefined;
}): void {
  const query = (route.schema as { querystring?: { properties?: Record<string, { type?: unknown }> } } | undefined)
    ?.querystring;
  const typed = Object.entries(query?.properties ?? {}).filter(
    ([, property]) => property.type === 'integer' || property.type === 'boolean',
  );
  if (typed.length === 0) return;
  const read: preValidationHookHandler = (request, _reply, done) => {
    const values = request.query as Record<string, unknown>;
    for (const [name, { type }] of typed) {
      const value = values[name];
      if (typeof value !== 'string') continue;
      if (type === 'integer' && DECIMAL.test(value)) values[name] = Number(value);
      if (type === 'boolean' && (value === 'true' || value === 'false')) values[name] = value === 'true';
    }
    done();
  };
  route.preValidation = [read, ...[route.preValidation ?? []].flat()];
}

/**
 * The schema of one operation: its OpenAPI identity, its inputs (which type the handler's request) and its
 * answers, the errors of `errors` included. `security` names the scheme: `bearerAuth` (a service or player
 * token) or `serviceToken` (a service token only).
 */
export function operation<Inputs extends object, Answers extends object>(
  operationId: string,
  summary: string,
  inputs: Inputs,
  answers: Answers,
  errors: readonly number[],
  { tag = 'games', security = 'bearerAuth' }: { tag?: string; security?: 'bearerAuth' | 'serviceToken' } = {},
) {
  return {
    operationId,
    summary,
    tags: [tag],
    security: [{ [security]: [] }],
    ...inputs,
    // Typed by the answers alone: a handler returns its answer and throws its errors (the error mapper's).
    response: { ...answers, ...errorResponses(...errors) } as Answers,
  };
}
