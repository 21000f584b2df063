/**
 * The one error mapper: every error that leaves the app, the framework's own included, becomes an ApiError
 * body `{ code, message, field? }` with the status of its code. Deliberate client errors pass through;
 * anything else is logged with its stack and answered as INTERNAL without internals.
 */
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.ts';
import { parseTimeControl } from '../domain/clock.ts';
import { ERROR_STATUS, type ErrorCode } from '../contract/vocabulary.ts';
import type { ApiErrorBody } from '../contract/shapes.ts';

type ValidationError = NonNullable<FastifyError['validation']>[number];

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A lichess path (DECISIONS §17): its errors also carry lichess's `error`. */
    lichess?: boolean;
  }
}

/** Which code a schema failure of each request part and field becomes, with a message for people. */
const PARAMETER_ERRORS: Record<string, { code: ErrorCode; message: (value: unknown, route: string) => string }> = {
  uci: {
    code: 'INVALID_UCI',
    message: value => `'${String(value)}' is not a move in UCI notation: expected e.g. e2e4 or e7e8q`,
  },
  square: {
    code: 'INVALID_SQUARE',
    message: value => `'${String(value)}' is not a square: expected a file a-h and a rank 1-8, e.g. e2`,
  },
  action: {
    code: 'INVALID_ACTION',
    message: (value, route) =>
      route.includes('/takeback/')
        ? `'${String(value)}' is not a takeback action: expected offer, accept or decline`
        : `'${String(value)}' is not a draw action: expected offer, accept, decline or claim`,
  },
};

export function toApiError(error: unknown, request: FastifyRequest): { status: number; body: ApiErrorBody } {
  if (error instanceof DomainError) return { status: error.status, body: error.toBody() };
  const fastifyError = error as Partial<FastifyError>;
  if (fastifyError.validation && fastifyError.validation.length > 0) {
    const { validation, validationContext } = fastifyError;
    return fromValidation(validation[0]!, validationContext, request, validation);
  }
  const status = fastifyError.statusCode ?? 500;
  const made = (code: ErrorCode, message: string) => ({ status: ERROR_STATUS[code], body: { code, message } });
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return made('BODY_TOO_LARGE', 'request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return made('UNSUPPORTED_MEDIA_TYPE', 'request body must be JSON (Content-Type: application/json)');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return made('INVALID_BODY', 'request body is empty');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return made('INVALID_BODY', 'request body is not valid JSON');
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return made('NOT_FOUND', 'the request URL is malformed');
    default:
      break;
  }
  if (status === 413) return made('BODY_TOO_LARGE', 'request body is too large');
  if (status === 415)
    return made('UNSUPPORTED_MEDIA_TYPE', 'request body must be JSON (Content-Type: application/json)');
  if (status === 429) return made('RATE_LIMITED', 'too many requests');
  if (status === 404) return made('NOT_FOUND', 'no such route');
  if (status >= 400 && status < 500) {
    const message = error instanceof SyntaxError ? 'request body is not valid JSON' : 'the request is invalid';
    return { status: 400, body: { code: 'INVALID_BODY', message } };
  }
  return made('INTERNAL', 'internal error');
}

/** The fields of an issue's place: its instance path, and the property it misses. */
function issuePath(issue: ValidationError): string[] {
  const path = issue.instancePath.split('/').filter(Boolean);
  const missing = (issue.params as { missingProperty?: unknown }).missingProperty;
  if (typeof missing === 'string') path.push(missing);
  return path;
}

/** A clock object whose fields are of neither form or of both: the domain's error, naming `clock` or its field. */
function clockFormError(clock: unknown): { status: number; body: ApiErrorBody } | undefined {
  if (typeof clock !== 'object' || clock === null || Array.isArray(clock)) return undefined;
  const parsed = parseTimeControl(clock);
  return parsed.ok ? undefined : { status: parsed.error.status, body: parsed.error.toBody() };
}

function fromValidation(
  issue: ValidationError,
  context: string | undefined,
  request: FastifyRequest,
  validation: readonly ValidationError[] = [issue],
): { status: number; body: ApiErrorBody } {
  const path = issuePath(issue);
  const missing = (issue.params as { missingProperty?: unknown }).missingProperty;
  if (context === 'params' || context === 'querystring') {
    const name = path[0] ?? '';
    const rule = PARAMETER_ERRORS[name];
    const source = (context === 'params' ? request.params : request.query) as Record<string, unknown>;
    const route = request.routeOptions.url ?? '';
    if (rule)
      return { status: 400, body: { code: rule.code, message: rule.message(source[name], route), field: name } };
  }
  if (context === 'querystring') {
    const name = path[0] ?? '';
    const value = (request.query as Record<string, unknown>)[name];
    return {
      status: 400,
      body: {
        code: 'INVALID_QUERY',
        message: `query parameter ${name} ${describe(issue)}: '${String(value)}'`,
        field: name,
      },
    };
  }
  if (context === 'body' && path[0] === 'clock') {
    const clock = (request.body as { clock?: unknown } | undefined)?.clock;
    const form = clockFormError(clock);
    if (form) return form;
    // Of the clock's form (by its fields), the first issue: the other form's issues say nothing to its sender.
    const fields =
      typeof clock === 'object' && clock !== null && 'daysPerMove' in clock
        ? ['daysPerMove']
        : ['initial', 'increment'];
    const ofForm = validation.find(candidate => fields.includes(issuePath(candidate).at(-1) ?? ''));
    if (ofForm && ofForm !== issue) return fromValidation(ofForm, context, request, [ofForm]);
  }
  const field = path.join('.');
  if (field === 'fen' && typeof missing !== 'string') {
    return { status: 400, body: { code: 'INVALID_FEN', message: `fen ${issue.message ?? 'is invalid'}`, field } };
  }
  if (field === 'pgn' && typeof missing !== 'string') {
    return { status: 400, body: { code: 'INVALID_PGN', message: `pgn ${issue.message ?? 'is invalid'}`, field } };
  }
  const subject = field === '' ? 'request body' : field;
  const body: ApiErrorBody = { code: 'INVALID_BODY', message: `${subject} ${describe(issue)}` };
  if (field !== '') body.field = field;
  return { status: 400, body };
}

function describe(issue: ValidationError): string {
  const params: Record<string, unknown> = issue.params;
  switch (issue.keyword) {
    case 'required':
      return 'is required';
    case 'minLength':
      return `must have at least ${String(params.limit)} character${params.limit === 1 ? '' : 's'}`;
    case 'maxLength':
      return `must have at most ${String(params.limit)} characters`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'pattern':
    case 'format':
      return 'must not contain control characters or unpaired surrogates';
    case 'type':
      return `must be ${String(params.type) === 'object' ? 'a JSON object' : `of type ${String(params.type)}`}`;
    default:
      return issue.message ?? 'is invalid';
  }
}

/**
 * Fastify's `clientErrorHandler`: a request Node cannot parse (bytes that are not HTTP, headers beyond the size
 * limit, a request that never completes) is answered before any route or hook, so it gets its ApiError here.
 * The connection is closed after it, as Node does.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const message =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'the request headers are too large'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'the request was not received in time'
        : 'the request is not valid HTTP';
  const body = JSON.stringify({ code: 'INVALID_BODY', message } satisfies ApiErrorBody);
  if (socket.writable) {
    socket.write(
      'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

export function registerErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply: FastifyReply) => {
    const { status, body } = toApiError(error, request);
    // The lichess paths (DECISIONS §17) also say it as lichess's Error does: `error`, the message.
    if (request.routeOptions.config.lichess) body.error = body.message;
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.debug({ code: body.code }, 'request rejected');
    // The headers each code promises: an integer Retry-After of at least 1 s, and the scheme a 401 asks for.
    if (status === 429) {
      const seconds = Math.ceil(Number(reply.getHeader('retry-after')));
      reply.header('retry-after', String(Number.isFinite(seconds) && seconds >= 1 ? seconds : 1));
    }
    if (status === 401 && !reply.hasHeader('www-authenticate')) reply.header('www-authenticate', 'Bearer');
    return reply.code(status).type('application/json; charset=utf-8').send(body);
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .type('application/json; charset=utf-8')
      .send({ code: 'NOT_FOUND', message: `no route ${request.method} ${request.url.split('?')[0]}` }),
  );
}
