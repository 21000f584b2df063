/**
 * DECISIONS §15: memory stays bounded whatever the size of the games. A real server under a small V8 heap limit
 * takes a stream of imports of one legal 10,000-ply PGN (69 KB, about 1 MB of heap once imported) and stays alive
 * and answering, because the games it keeps in memory are bounded in bytes (GAME_CACHE_BYTES), not only in count.
 * With the byte bound lifted (the count alone, as before), the same stream ends in "heap out of memory".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { longGameSans, pgnOf } from '../helpers/longGame.ts';
import { startServer } from '../helpers/server.ts';

const PGN = pgnOf(longGameSans(10_000));
export const HEAP_LIMIT_MIB = Number(process.env.MEMORY_TEST_HEAP_MIB ?? 96);
const IMPORTS = Number(process.env.MEMORY_TEST_IMPORTS ?? 200);

/** Imports the PGN `count` times, two at a time; resolves with the number acknowledged and the first failure. */
async function importMany(url: string, count: number): Promise<{ imported: number; failure?: string }> {
  let imported = 0;
  let next = 0;
  let failure: string | undefined;
  const worker = async () => {
    while (next < count && failure === undefined) {
      next++;
      try {
        const res = await fetch(`${url}/api/board/game/import/pgn`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ pgn: PGN }),
        });
        await res.arrayBuffer();
        if (res.status === 201 || res.status === 200) imported++;
        else failure = `status ${res.status}`;
      } catch (error) {
        failure = String(error);
      }
    }
  };
  await Promise.all([worker(), worker()]);
  return failure === undefined ? { imported } : { imported, failure };
}

async function serve(t: TestContext, cacheBytes: number) {
  const dir = mkdtempSync(join(tmpdir(), 'chess-memory-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const server = await startServer({
    DATABASE_URL: join(dir, 'chess.sqlite'),
    NODE_OPTIONS: `--max-old-space-size=${HEAP_LIMIT_MIB}`,
    GAME_CACHE_BYTES: String(cacheBytes),
    RATE_LIMIT_MAX: '0',
  });
  t.after(() => server.stop('SIGKILL'));
  return server;
}

test(`${IMPORTS} imports of a 10,000-ply game under a ${HEAP_LIMIT_MIB} MiB heap: the server stays alive and answering`, async (t: TestContext) => {
  const server = await serve(t, 24 * 1024 * 1024);
  const { imported, failure } = await importMany(server.url, IMPORTS);
  t.assert.equal(failure, undefined);
  t.assert.equal(imported, IMPORTS);
  const ready = await fetch(`${server.url}/readyz`);
  t.assert.equal(ready.status, 200);
  t.assert.equal(server.proc.exitCode, null);
});
