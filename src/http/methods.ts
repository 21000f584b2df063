/**
 * 405 for a method the service does not serve on a path it serves (DECISIONS §19): `METHOD_NOT_ALLOWED` with an
 * `Allow` header naming the methods it does serve there. Fastify routes a request by method first, so a path served
 * for GET alone looks unknown to a POST; a second router holding every route's path for each of its methods tells
 * the two cases apart. The answer is made in an onRequest hook, before any body is read, so that a method with a
 * body the service does not parse (QUERY without a content type) gets it too, and so does a 404.
 *
 * ```ts
 * const methods = allowedMethods(app, { maxParamLength: 16384 }); // before any route is added
 * app.addHook('onRequest', methods.hook); // after the guards: a request is authenticated first, as for a 404
 * ```
 */
import FindMyWay from 'find-my-way';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { DomainError } from '../domain/errors.ts';

type Method = FindMyWay.HTTPMethod;

export function allowedMethods(
  app: FastifyInstance,
  options: { maxParamLength: number },
): { allow(method: string, path: string): string[]; hook: typeof hook } {
  const router = FindMyWay({ maxParamLength: options.maxParamLength });
  const methods = new Set<string>();
  app.addHook('onRoute', route => {
    // A catch-all (CORS's preflight route for every path) serves no path in particular.
    if (route.url === '*' || route.url === '/*') return;
    for (const method of [route.method].flat()) {
      if (router.hasRoute(method as Method, route.url)) continue;
      router.on(method as Method, route.url, () => undefined);
      methods.add(method);
    }
  });

  /** The methods served at `path` (no query), other than `method`. */
  function allow(method: string, path: string): string[] {
    const served: string[] = [];
    for (const other of methods) {
      if (other === method) continue;
      try {
        if (router.find(other as Method, path)) served.push(other);
      } catch {
        // A path the router cannot decode is served for no method.
      }
    }
    return served.sort();
  }

  function hook(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    if (!request.is404) return done();
    const path = request.url.split('?', 1)[0]!;
    const served = allow(request.method, path);
    // No route: answered here too, before a body the service would not parse could turn it into a 400.
    if (served.length === 0) return done(new DomainError('NOT_FOUND', `no route ${request.method} ${path}`));
    void reply.header('allow', served.join(', '));
    done(
      new DomainError(
        'METHOD_NOT_ALLOWED',
        `${request.method} is not served on ${path}; it serves ${served.join(', ')}`,
      ),
    );
  }

  return { allow, hook };
}
