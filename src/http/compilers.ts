/**
 * The routes' validators (Ajv) and response serializers (fast-json-stringify), as Fastify builds them by default,
 * but built once per process for every app that has the same schemas, and serializers only when first used.
 *
 * By default each app builds a validator for every route's parameters and body and a serializer for every status
 * every route declares (its errors too) before it listens, and each serializer build walks every shared schema:
 * with the API's shared schemas that was most of an app's start-up (seconds), mostly for serializers no request
 * uses. Here a serializer is built on its route's first answer with that status, and a validator or serializer
 * built for one app serves every app of the process whose route schema, shared schemas and options are the same
 * (the test suites build hundreds of apps; a server builds one). A stream's lines are written by its hub, never
 * through the reply, so the unions of its lines are never built at all.
 *
 * ```ts
 * Fastify({ ajv: AJV_OPTIONS, serializerOpts: SERIALIZER_OPTIONS, schemaController: { compilersFactory } });
 * ```
 *
 * The options objects must be the same objects for every app (module constants), since they are part of the key.
 * A custom validator builder makes Fastify leave a `headers` schema's names as written instead of lowercasing
 * them: no route has a headers schema.
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/** What Fastify hands a builder for one route's part or answer. */
interface RouteSchema {
  schema: unknown;
  method?: string;
  url?: string;
  httpPart?: string;
  httpStatus?: string;
  contentType?: string;
}
type Build<F> = (externalSchemas: Record<string, unknown>, options: unknown) => (route: RouteSchema) => F;
type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/** A number per object, so that two different shared schemas under one id (or two options objects) never share. */
const objectIds = new WeakMap<object, number>();
let lastObjectId = 0;
function idOf(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(JSON.stringify(value));
  let id = objectIds.get(value);
  if (id === undefined) objectIds.set(value, (id = ++lastObjectId));
  return `#${id}`;
}

/**
 * Wraps one of Fastify's default builders: what it builds for a route is kept by the shared schemas (by identity),
 * the options (by identity) and the route's schema (as JSON: the routes make theirs afresh for each app), and
 * built by `lazily` (given how to build it) when first asked for.
 */
function shared<F>(build: Build<F>, lazily: (make: () => F) => F): Build<F> {
  const built = new Map<string, Map<string, F>>();
  return (externalSchemas, options) => {
    const key = `${Object.keys(externalSchemas)
      .sort()
      .map(id => `${id}=${idOf(externalSchemas[id])}`)
      .join(',')};${idOf(options)}`;
    let cache = built.get(key);
    if (!cache) built.set(key, (cache = new Map<string, F>()));
    const routes = cache;
    let compile: ((route: RouteSchema) => F) | undefined;
    return route => {
      const routeKey = `${route.httpPart ?? ''} ${route.httpStatus ?? ''} ${route.contentType ?? ''} ${JSON.stringify(route.schema)}`;
      let made = routes.get(routeKey);
      if (made === undefined) {
        made = lazily(() => (compile ??= build(externalSchemas, options))(route));
        routes.set(routeKey, made);
      }
      return made;
    };
  };
}

type Serialize = (data: unknown) => string;

/** Fastify's `schemaController.compilersFactory`. */
export const compilersFactory: CompilersFactory = {
  // Built at once: Fastify reads a validator's own properties (its schema, its errors) around each call.
  buildValidator: shared(AjvCompiler() as Build<unknown>, make => make()) as CompilersFactory['buildValidator'],
  // Built on the first answer that needs it.
  buildSerializer: shared(SerializerSelector() as Build<Serialize>, make => {
    let serialize: Serialize | undefined;
    return data => (serialize ??= make())(data);
  }) as CompilersFactory['buildSerializer'],
};
