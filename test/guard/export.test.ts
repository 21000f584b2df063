/**
 * DECISIONS §22: a player's export holds bounded memory however many games the player has. A real server under a
 * small V8 heap limit (HEAP_LIMIT_MIB) exports a player's 20,000 games, each 40 plies with clocks (about
 * 8 KB of heap each once restored: 160 MB for the archive), to a reader that takes them all, then to one that stops
 * reading: the server lives within its heap limit (HEAP_LIMIT_MIB, where the archive would not fit), its heap in use
 * (its own /metrics, sampled throughout) stays under that limit and the young generation (HEAP_BOUND_MIB), and under STOPPED_HEAP_BOUND_MIB while the reader is stopped; the first
 * game comes within a second, every game comes once, and the stopped reader is sent no more than a page or so until
 * it reads again. Each export counts as one of the client's streams (MAX_STREAMS_PER_CLIENT).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import { archiveRecord } from '../helpers/archive.ts';
import { startServer } from '../helpers/server.ts';

const GAMES = 20_000;
const HEAP_LIMIT_MIB = 64;
// V8's young generation is not in --max-old-space-size: its two semi-spaces come on top, so the heap in use may pass
// the old space's limit by as much. Its size is set here, so that the bound is exact: the old space's limit and the
// young generation's whole size (80 MiB, half the archive's 160 MB).
const SEMI_SPACE_MIB = 8;
const HEAP_BOUND_MIB = HEAP_LIMIT_MIB + 2 * SEMI_SPACE_MIB;
const STOPPED_HEAP_BOUND_MIB = 40;
const PLAYER = 'archivist';
/** The store file of the player's games, written before the server opens it. */
async function archive(path: string): Promise<void> {
  const store = SqliteGameStore.open(path);
  for (let i = 0; i < GAMES; i += 1000) {
    const batch = Array.from({ length: Math.min(1000, GAMES - i) }, (_, k) => archiveRecord(i + k, PLAYER));
    await Promise.all(batch.map(game => store.create(game, { deadline: null, ended: true })));
  }
  await store.close();
}

/** The server's heap in use, from its own metrics. */
async function heapUsed(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?)/m.exec(text)?.[1]);
}

test(`an export of ${GAMES} games: the server's heap stays under ${HEAP_BOUND_MIB} MiB, a stopped reader holds it to a page`, async (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'chess-export-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'chess.sqlite');
  await archive(path);
  const server = await startServer({
    DATABASE_URL: path,
    NODE_OPTIONS: `--max-old-space-size=${HEAP_LIMIT_MIB} --max-semi-space-size=${SEMI_SPACE_MIB}`,
    RATE_LIMIT_MAX: '0',
    MAX_STREAMS_PER_CLIENT: '1',
  });
  t.after(() => server.stop('SIGKILL'));
  let peak = 0;
  const sampling = { on: true };
  const sampler = (async () => {
    while (sampling.on) {
      peak = Math.max(peak, await heapUsed(server.url));
      await sleep(100);
    }
  })();

  // A reader that takes it all: every game once, in order, the first within a second.
  const started = Date.now();
  const res = await fetch(`${server.url}/api/games/user/${PLAYER}?clocks=true`, {
    headers: { accept: 'application/x-ndjson' },
  });
  t.assert.equal(res.status, 200);
  let first: number | undefined;
  let count = 0;
  let previous = '';
  let buffer = '';
  const decoder = new TextDecoder();
  const reader = res.body!.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    first ??= Date.now() - started;
    buffer += decoder.decode(chunk.value, { stream: true });
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    for (const line of lines) {
      if (line === '') continue;
      const game = JSON.parse(line) as { id: string; clocks: number[] };
      if (previous) t.assert.ok(game.id < previous, 'newest first');
      previous = game.id;
      count++;
    }
  }
  t.assert.equal(count, GAMES);
  t.assert.ok(first! < 1000, `first bytes after ${first} ms`);

  // A reader that stops: the server sends what the sockets hold, and no more, until it reads again.
  const received = { bytes: 0 };
  const paused = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
    const req = request(`${server.url}/api/games/user/${PLAYER}?clocks=true`, resolve);
    req.on('error', reject);
    req.end();
  });
  // What it has read, PGN: the games whose text is complete are counted, the rest kept.
  let games = 0;
  let text = '';
  const read = (chunk: Buffer) => {
    received.bytes += chunk.length;
    text += chunk.toString('utf8');
    const cut = text.lastIndexOf('\n[Event ');
    if (cut > 0) {
      games += (text.slice(0, cut).match(/^\[Event /gm) ?? []).length;
      text = text.slice(cut + 1);
    }
  };
  paused.on('data', (chunk: Buffer) => {
    read(chunk);
    paused.pause();
  });
  await sleep(1500);
  const whileStopped = received.bytes;
  await sleep(1500);
  const total = GAMES * 1_200; // the whole PGN is more than 1,200 bytes a game
  t.assert.ok(received.bytes < total / 10, `a stopped reader got ${received.bytes} of about ${total} bytes`);
  t.assert.equal(received.bytes, whileStopped, 'nothing more while stopped');
  const heapWhileStopped = await heapUsed(server.url);
  // The stopped export is one of the client's streams: with a cap of one, another is refused before it starts.
  const second = await fetch(`${server.url}/api/games/user/${PLAYER}`);
  t.assert.equal(second.status, 429);
  t.assert.equal(((await second.json()) as { code: string }).code, 'RATE_LIMITED');
  // Reading again, it gets the rest.
  paused.removeAllListeners('data');
  paused.on('data', read);
  paused.resume();
  await new Promise(resolve => paused.on('end', resolve));
  games += (text.match(/^\[Event /gm) ?? []).length;
  t.assert.equal(games, GAMES);

  sampling.on = false;
  await sampler;
  t.diagnostic(
    `peak heap ${(peak / 2 ** 20).toFixed(1)} MiB; while stopped ${(heapWhileStopped / 2 ** 20).toFixed(1)} MiB`,
  );
  t.assert.ok(peak < HEAP_BOUND_MIB * 2 ** 20, `peak heap ${(peak / 2 ** 20).toFixed(1)} MiB`);
  t.assert.ok(heapWhileStopped < STOPPED_HEAP_BOUND_MIB * 2 ** 20, 'a stopped reader holds no archive');
});
