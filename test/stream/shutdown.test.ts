/**
 * SIGTERM on the real server process (DECISIONS §12): every open stream gets an `error` event
 * SERVER_SHUTDOWN and then its end, a client that does not read does not hold the exit up, the store is
 * closed and the process exits 0 well within its 10 s watchdog.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { startServer, within } from '../helpers/server.ts';
import { openSilentClient, openStream, type StreamClient } from './helpers.ts';
import { clientOf, gameAction } from '../helpers/client.ts';

test('SIGTERM: each stream gets SERVER_SHUTDOWN and ends, and the process exits 0', async (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'stream-shutdown-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const server = await startServer({ DATABASE_URL: join(dir, 'chess.sqlite') });
  t.after(() => server.stop('SIGKILL'));
  const base = `${server.url}/api/board/game`;

  // 1. Two games, four streams that read and one client that never reads.
  const client = clientOf(server.url);
  const create = async () => (await client.unwrap(client.api.POST('/api/board/game', { body: {} }))).gameId;
  const a = await create();
  const b = await create();
  const streams: StreamClient[] = [];
  for (const id of [a, a, a, b]) streams.push(await openStream(`${base}/${id}/stream`));
  const silent = await openSilentClient(`${base}/${a}/stream`);
  t.after(() => silent.socket.destroy());
  t.assert.equal((await gameAction(client, a, 'move/e2e4')).status, 200);
  for (const [i, stream] of streams.entries()) await stream.waitForEvents(i < 3 ? 2 : 1);

  // 2. SIGTERM: the readers get the error line, then a clean end of the response.
  const started = performance.now();
  const code = await within(server.stop('SIGTERM'), 9000, 'the process to exit after SIGTERM');
  const took = performance.now() - started;
  t.assert.equal(code, 0, server.logs.slice(-10).join('\n'));
  t.assert.ok(took < 6000, `exited after ${Math.round(took)} ms`);
  for (const stream of streams) {
    t.assert.equal(await within(stream.finished, 5000, 'the stream to end'), 'end');
    const last = stream.events.at(-1);
    t.assert.equal(last.type, 'error');
    t.assert.equal(last.error.code, 'SERVER_SHUTDOWN');
    t.assert.equal(typeof last.error.message, 'string');
    t.assert.equal(stream.rest, '', 'no partial line after it');
    t.assert.equal(stream.events.filter(event => event.type === 'error').length, 1);
  }
  t.assert.ok(silent.closed || (await within(silent.resume(), 5000, 'the silent connection to close')));
  t.assert.ok(
    server.logs.some(line => line.includes('shutting down')),
    'the shutdown is logged',
  );
});
