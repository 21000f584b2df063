/**
 * The OpenAPI document's text (GET /openapi.json), made once per process for every app that documents the same.
 *
 * `@fastify/swagger` makes an app's document on its first request, from the routes as registered, the shared
 * schemas and its options: tens of milliseconds an app, most of them resolving the shared schemas' references
 * again. A server makes one app; the test suites make hundreds, nearly all of the same few kinds. Here the text made
 * for one app serves every app of the process whose routes (method, path, schema, the generator's own route
 * options), shared schemas and other inputs (`context`: what the generator's options take from the app) are the
 * same, each compared by what it holds; a few documents at most are kept.
 *
 * ```ts
 * const routes: RouteOptions[] = [];
 * app.addHook('onRoute', route => void routes.push(route));
 * app.get('/openapi.json', (_request, reply) => reply.type('application/json').send(documentText(app, routes, context)));
 * ```
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { contentOf } from './compilers.ts';

/** How many different documents are kept: the kinds of app one process makes (a server: one). */
const KEPT = 16;

/** The documents' texts by a digest of everything they are made from, the least recently made first. */
const documents = new Map<string, string>();

/**
 * The text of `app.swagger()` for an app whose routes are `routes` (every route the app registered, in order, as
 * its `onRoute` hook saw them: the generator reads the same objects) and whose generator options take `context`
 * from the app (the public URL, say). Call it once the app is ready.
 */
export function documentText(app: FastifyInstance, routes: readonly RouteOptions[], context: unknown): string {
  const inputs = contentOf([
    routes.map(route => [
      route.method,
      route.url,
      route.schema,
      (route as { links?: unknown }).links,
      route.config?.swagger,
      (route.config as { swaggerTransform?: unknown } | undefined)?.swaggerTransform,
    ]),
    app.getSchemas(),
    context,
  ]);
  const key = createHash('sha256').update(inputs).digest('base64');
  let text = documents.get(key);
  if (text === undefined) {
    text = JSON.stringify(app.swagger());
    if (documents.size >= KEPT) documents.delete(documents.keys().next().value!);
    documents.set(key, text);
  }
  return text;
}
