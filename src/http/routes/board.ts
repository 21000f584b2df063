/**
 * The board page: `GET /` and `GET /game/{gameId}` answer the same HTML page (the page reads the game id from
 * the address and asks the API for the game, so an unknown id shows the API's own error), and
 * `GET /assets/{file}` answers the files the page references. The files are built from src/web into
 * dist/web by `npm run build` (scripts/build.ts), which also runs on `npm ci`.
 *
 * Asset names carry a hash of their content, so they are cached for a year; the page itself is revalidated
 * on every load (ETag). None of these routes is part of the API's OpenAPI document.
 *
 * ```ts
 * await app.register(boardRoutes); // or { root: '/path/to/dist/web' }
 * ```
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../domain/errors.ts';
import { WEB_ROOT } from '../../paths.ts';

export interface BoardRoutesOptions {
  root?: string; // the built page, dist/web by default
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9]+)+$/;

/** Everything the page loads comes from this origin; chessground's board and pieces are data: images. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const boardRoutes: FastifyPluginAsync<BoardRoutesOptions> = async (app, options) => {
  const root = options.root ?? WEB_ROOT;
  const hide = { schema: { hide: true } };

  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    let html: Buffer;
    try {
      html = await readFile(join(root, 'index.html'));
    } catch {
      throw new DomainError('UNAVAILABLE', 'the board page is not built: run `npm run build`');
    }
    const etag = `"${createHash('sha256').update(html).digest('base64url').slice(0, 27)}"`;
    reply
      .header('cache-control', 'no-cache')
      .header('etag', etag)
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('referrer-policy', 'same-origin')
      .header('x-frame-options', 'DENY');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type('text/html; charset=utf-8').send(html);
  };

  app.get('/', hide, page);
  app.get('/game/:gameId', hide, page);

  app.get<{ Params: { file: string } }>('/assets/:file', hide, async (request, reply) => {
    const { file } = request.params;
    const type = CONTENT_TYPES[extname(file).toLowerCase()];
    const body =
      type && ASSET_NAME.test(file) ? await readFile(join(root, 'assets', file)).catch(() => undefined) : undefined;
    if (!type || !body) throw new DomainError('NOT_FOUND', `no asset ${file}`);
    // Built asset names carry a hash of their content: a changed file is a new name.
    return reply.type(type).header('cache-control', 'public, max-age=31536000, immutable').send(body);
  });
};
