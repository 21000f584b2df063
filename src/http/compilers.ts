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

/** A number per function, so that two options naming different functions (a format's check) never share. */
const functionIds = new WeakMap<object, number>();
let lastFunctionId = 0;
const functionId = (fn: object): string => {
  let id = functionIds.get(fn);
  if (id === undefined) functionIds.set(fn, (id = ++lastFunctionId));
  return `function #${id}`;
};

/** What a value holds, as JSON, each function in it by its own number. */
export const contentOf = (value: unknown): string =>
  String(JSON.stringify(value, (_key, part: unknown) => (typeof part === 'function' ? functionId(part) : part)));

/**
 * What each shared schema holds, by the schema: Fastify clones a shared schema once, when it is added, and hands the
 * same clone, unchanged, to every builder of its app (a score of them), so each is read once per app.
 */
const schemaContents = new WeakMap<object, string>();

/** What a set of shared schemas holds, by `$id`, as contentOf would say it but each schema read once. */
const schemasContentOf = (schemas: Record<string, unknown>): string =>
  Object.entries(schemas)
    .map(([id, schema]) => {
      if (typeof schema !== 'object' || schema === null) return contentOf([id, schema]);
      let content = schemaContents.get(schema);
      if (content === undefined) schemaContents.set(schema, (content = contentOf(schema)));
      return `${JSON.stringify(id)}:${content}`;
    })
    .join(',');

/**
 * Wraps one of Fastify's default builders: what it builds for a route is kept by the shared schemas, the options
 * and the route's schema, each by what it holds (Fastify hands every app its own copies of the shared schemas and
 * the serializer's options, and the routes make their schemas afresh for each app), and built by `lazily` (given
 * how to build it) when first asked for.
 */
function shared<F>(build: Build<F>, lazily: (make: () => F) => F): Build<F> {
  const built = new Map<string, Map<string, F>>();
  return (externalSchemas, options) => {
    const key = `${schemasContentOf(externalSchemas)};${contentOf(options)}`;
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
