/**
 * The API's actions answered `{ok: true}`: routes that differ from one another only by their method, path,
 * operation (the schema) and the call they make, so each is declared as one row of its plugin's table instead of a
 * route written out again.
 *
 * ```ts
 * okAction(app, {
 *   method: 'DELETE',
 *   url: '/board/seek/:id',
 *   schema: operation('deleteSeek', 'Withdraw a seek', { params: SeekParams }, OK, [401, 403, 404, 429]),
 *   act: request => seeks.withdraw(request.actor, request.params.id),
 * });
 * ```
 */
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  preValidationHookHandler,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { OkResponse, ref } from '../contract/shapes.ts';

/** A plugin's app with TypeBox's type provider: the handlers' requests are typed by their schemas. */
export type TypedApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** A request as a route of `schema` receives it. */
export type RequestOf<S extends FastifySchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression,
  S,
  TypeBoxTypeProvider
>;

/** The answer of an action: `{ok: true}`. */
export const OK = { 200: ref(OkResponse) };

export interface OkActionRoute<S extends FastifySchema> {
  method: 'POST' | 'DELETE';
  url: string;
  schema: S; // operation(...), with OK as its answers
  preValidation?: preValidationHookHandler | undefined; // e.g. requireGame's hook
  lichess?: boolean; // an action of the lichess dialect: its errors carry lichess's `error` too
  /** The action: the route answers `{ok: true}` once it resolves, and its error when it rejects. */
  act: (request: RequestOf<S>, reply: FastifyReply) => Promise<unknown>;
}

export function okAction<S extends FastifySchema>(app: TypedApp, route: OkActionRoute<S>): void {
  const { method, url, schema, preValidation, lichess, act } = route;
  // Registered with the schema's general type: the handler only awaits `act`, typed by `S` above.
  app.route<RouteGenericInterface, unknown, FastifySchema>({
    method,
    url,
    schema,
    ...(preValidation ? { preValidation } : {}),
    ...(lichess ? { config: { lichess: true } } : {}),
    handler: async (request, reply) => {
      await act(request as RequestOf<S>, reply);
      return { ok: true as const };
    },
  });
}
