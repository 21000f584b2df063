/// <reference lib="dom" />
// (the functions given to page.evaluate run in the browser)
/**
 * The board page's routes without a browser (app.inject): `/` and `/game/{id}` answer the page, every asset
 * it references answers 200 with its content type and cache headers, nothing it loads comes from elsewhere,
 * and none of these routes is in the OpenAPI document.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildWeb, referencedAssets } from '../../scripts/build.ts';
import { registerErrorHandlers } from '../../src/http/errors.ts';
import { boardRoutes } from '../../src/http/routes/board.ts';
import { assertError, makeTestApp, mediaType } from '../helpers/app.ts';

let app: FastifyInstance;
before(async () => {
  await buildWeb({ ifStale: true });
  app = (await makeTestApp()).app;
});
after(() => app.close());

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  map: 'application/json; charset=utf-8',
  svg: 'image/svg+xml',
};

test('GET / and GET /game/{id} answer the page, revalidated on every load', async () => {
  const home = await app.inject('/');
  assert.equal(home.statusCode, 200);
  assert.equal(home.headers['content-type'], 'text/html; charset=utf-8');
  assert.equal(home.headers['cache-control'], 'no-cache');
  assert.equal(home.headers['x-content-type-options'], 'nosniff');
  assert.match(String(home.headers['content-security-policy']), /default-src 'self'/);
  assert.match(home.body, /data-testid="fen"/);
  assert.match(home.body, /data-testid="status"/);

  for (const path of ['/game/AbCd1234', '/game/abc', '/game/not%20an%20id']) {
    const res = await app.inject(path);
    assert.equal(res.statusCode, 200, path);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8', path);
    assert.equal(res.body, home.body, `${path}: the page finds the game itself`);
  }

  const etag = String(home.headers.etag);
  const again = await app.inject({ url: '/', headers: { 'if-none-match': etag } });
  assert.equal(again.statusCode, 304);
  assert.equal(again.body, '');
  const head = await app.inject({ method: 'HEAD', url: '/' });
  assert.equal(head.statusCode, 200);
});

test('every asset the page references answers 200 with its content type; nothing is loaded from elsewhere', async () => {
  const html = (await app.inject('/')).body;
  const assets = referencedAssets(html);
  for (const ext of ['js', 'css', 'svg'])
    assert.ok(
      assets.some(name => name.endsWith(`.${ext}`)),
      `a .${ext} asset`,
    );
  assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//, 'no asset from another origin');

  const checked = new Set<string>();
  const check = async (name: string) => {
    if (checked.has(name)) return '';
    checked.add(name);
    const res = await app.inject(`/assets/${name}`);
    assert.equal(res.statusCode, 200, name);
    assert.equal(res.headers['content-type'], TYPES[name.split('.').at(-1)!], name);
    assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable', name);
    assert.ok(res.rawPayload.length > 0, `${name} is not empty`);
    return res.body;
  };
  for (const name of assets) {
    const body = await check(name);
    if (name.endsWith('.css')) {
      // chessground's board and pieces are inlined: the only URLs are data: URLs.
      const urls = [...body.matchAll(/url\(\s*['"]?([^'")]*)/g)].map(match => match[1]!);
      assert.ok(urls.length > 0);
      for (const url of urls) assert.match(url, /^data:/, `${name} loads ${url.slice(0, 60)}`);
      assert.doesNotMatch(body, /@import|@font-face/, `${name} imports nothing`);
    }
    const map = /sourceMappingURL=([A-Za-z0-9._-]+)/.exec(body);
    if (map) await check(map[1]!);
  }
});

test('an unknown asset, a path outside the assets and a wrong name answer NOT_FOUND', async () => {
  for (const path of [
    '/assets/nope.js',
    '/assets/app.exe',
    '/assets/..%2Findex.html',
    '/assets/..%2F..%2Fpackage.json',
    '/assets/index.html',
    '/assets/',
    '/assets/.hidden.js',
  ]) {
    assertError(await app.inject(path), 'NOT_FOUND');
  }
});

test('the page routes are not in the OpenAPI document', async () => {
  const doc = JSON.parse((await app.inject('/openapi.json')).body) as { paths: Record<string, unknown> };
  // Every operation is under /api/ but one, lichess's export of a game (DECISIONS §22), which is no page.
  const operation = (path: string) => path.startsWith('/api/') || path === '/game/export/{gameId}';
  for (const path of Object.keys(doc.paths)) assert.ok(operation(path), `${path} is in the document`);
});

test('without a built page, / answers UNAVAILABLE with what to do', async () => {
  const empty = await mkdtemp(join(tmpdir(), 'no-web-'));
  const bare = Fastify();
  registerErrorHandlers(bare);
  await bare.register(boardRoutes, { root: empty });
  try {
    const res = await bare.inject('/');
    assertError(res, 'UNAVAILABLE');
    assert.match(res.body, /npm run build/);
    assert.equal(mediaType(await bare.inject('/assets/app.js')), 'application/json');
  } finally {
    await bare.close();
    await rm(empty, { recursive: true, force: true });
  }
});
