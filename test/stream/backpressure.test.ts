/**
 * Streams and time (DECISIONS §9): a client that stops reading is cut once its backlog passes the bound, with
 * SLOW_CONSUMER when it can still read it, while the other subscribers get everything; idle streams get an
 * empty line every heartbeat period, busy ones do not.
 */
import type { ServerResponse } from 'node:http';
import { test, type TestContext } from 'node:test';
import { makeMove, redo, undo } from '../../src/domain/transitions.ts';
import {
  dechunk,
  listenApp,
  metricValue,
  openSilentClient,
  parseMetrics,
  scriptedChanges,
  waitUntil,
} from './helpers.ts';

const BACKLOG = 64 * 1024;
const CUT_GRACE_MS = 1000; // how long the hub lets a cut client read its last line (stream.ts)

test('a client that stops reading is cut; the others get everything and memory stays bounded', async (t: TestContext) => {
  const server = await listenApp(t, { maxStreamBacklogBytes: BACKLOG });
  // Server-side responses of the streams, to watch their backlog.
  const responses: ServerResponse[] = [];
  server.app.server.on('request', (req, res: ServerResponse) => {
    if (req.url?.endsWith('/stream')) responses.push(res);
  });

  // 1. A game long enough that each state line is a few kilobytes.
  const id = (await server.games.create({})).record.id;
  for (const transition of scriptedChanges(150)) await server.games.change(id, transition);

  // 2. A reader and a client that never reads.
  const reader = await server.open(id);
  await reader.waitForEvents(1);
  const silent = await openSilentClient(server.streamUrl(id));
  await waitUntil(
    () => server.openStreams() === 2 && responses.length === 2,
    () => 'both streams open',
  );
  const silentRes = responses[1]!;

  // 3. Undo and redo until the silent stream is cut; let the event loop turn so that the reader reads.
  const expected: string[] = [];
  let largest = 0;
  let worstBacklog = 0;
  let cutAt = 0;
  const open = () => server.openStreams();
  for (let i = 0; i < 20_000 && open() === 2; i++) {
    const change = await server.games.change(id, i % 2 === 0 ? g => undo(g) : g => redo(g));
    const text = JSON.stringify({ type: 'gameState', state: change.event.state });
    expected.push(text);
    largest = Math.max(largest, text.length + 1);
    worstBacklog = Math.max(worstBacklog, silentRes.writableLength);
    await new Promise(resolve => setImmediate(resolve));
    if (open() < 2) cutAt = performance.now();
  }
  t.assert.equal(server.openStreams(), 1, 'the silent stream was cut');
  // The bound: what was queued when the check passed, one more line, and the SLOW_CONSUMER line.
  t.assert.ok(
    worstBacklog <= BACKLOG + 2 * largest + 1024,
    `the backlog stayed bounded: ${worstBacklog} bytes (bound ${BACKLOG}, lines up to ${largest})`,
  );

  // 4. The client starts reading at once: it gets a prefix of the events, then SLOW_CONSUMER, then the end.
  const { raw } = await silent.resume();
  const readAt = performance.now();
  const { head, body } = dechunk(raw);
  t.assert.match(head, /^HTTP\/1\.1 200/);
  const lines = body.split('\n');
  const complete = lines.slice(0, -1).filter(line => line !== '');
  t.assert.equal(JSON.parse(complete[0]!).type, 'gameFull');
  const last = complete.at(-1)!;
  const states = complete.slice(1).filter(line => line !== last || !line.includes('"error"'));
  t.assert.deepEqual(states, expected.slice(0, states.length), 'what it got is a prefix of the sequence');
  if (readAt - cutAt < CUT_GRACE_MS) {
    t.assert.equal(JSON.parse(last).error?.code, 'SLOW_CONSUMER', `the last line: ${last.slice(0, 200)}`);
  } else {
    t.diagnostic(`read ${Math.round(readAt - cutAt)} ms after the cut: the SLOW_CONSUMER line may be gone`);
  }
  t.assert.ok(silent.closed, 'the connection is closed');

  // 5. The reader goes on: a few more changes, and it has every event exactly once.
  for (let i = 0; i < 3; i++) {
    const change = await server.games.change(id, expected.length % 2 === 0 ? g => undo(g) : g => redo(g));
    expected.push(JSON.stringify({ type: 'gameState', state: change.event.state }));
  }
  await reader.waitForEvents(1 + expected.length);
  t.assert.deepEqual(
    reader.events.slice(1).map(event => JSON.stringify(event)),
    expected,
  );
  t.assert.equal(reader.done, false);

  const metrics = parseMetrics(await server.metrics.registry.metrics());
  t.assert.equal(metricValue(metrics, 'stream_slow_consumers_total'), 1);
  t.assert.equal(metricValue(metrics, 'streams_open'), 1);
});

test('idle streams get an empty line every heartbeat period; streams with traffic do not', async (t: TestContext) => {
  const server = await listenApp(t, { heartbeatMs: 60 });
  const id = (await server.games.create({})).record.id;
  const stream = await server.open(id);
  await stream.waitForEvents(1);
  const opened = performance.now();
  await stream.waitFor(() => stream.lines.filter(line => line === '').length >= 4, 'four heartbeats');
  t.assert.equal(stream.events.length, 1, 'heartbeats carry no event');
  t.assert.ok(performance.now() - opened >= 3 * 60 - 20, 'not faster than the period');
  t.assert.ok(
    stream.lines.every((line, i) => i === 0 || line === ''),
    'the gameFull, then empty lines only',
  );
});

test('no stream is silent for longer than a heartbeat period, however its last line falls between ticks', async (t: TestContext) => {
  // A heartbeat is due a period after a stream's last line, not a period after the first tick that found it idle:
  // lichess clients time a stream out when it stays silent a little longer than the period (lichess-bot: 15 s for
  // lichess's 7 s). Streams opened at five moments of the timer's period, each timed from its gameFull.
  const period = 600;
  const server = await listenApp(t, { heartbeatMs: period });
  const gaps: number[] = [];
  for (let i = 0; i < 5; i++) {
    await new Promise(resolve => setTimeout(resolve, (period * (2 * i + 1)) / 10)); // 0.1 to 0.9 of a period
    const stream = await server.open((await server.games.create({})).record.id);
    await stream.waitForEvents(1);
    const lastLine = performance.now();
    await stream.waitFor(() => stream.lines.includes(''), 'a heartbeat');
    gaps.push(performance.now() - lastLine);
    stream.close();
  }
  const late = gaps.filter(gap => gap > period + 150);
  t.assert.deepEqual(late, [], `silences (ms): ${gaps.map(Math.round).join(', ')}`);
});

test('a stream with an event every few milliseconds gets no heartbeat', async (t: TestContext) => {
  const server = await listenApp(t, { heartbeatMs: 300 });
  const id = (await server.games.create({})).record.id;
  const busy = await server.open(id);
  await busy.waitForEvents(1);
  const idle = await server.open((await server.games.create({})).record.id);
  await idle.waitForEvents(1);

  // A change every 20 ms for 1.5 s, from a timer: after any stall of the process the earliest timer runs first,
  // so a change always comes before the heartbeat that would otherwise be due.
  let count = 0;
  await new Promise<void>(resolve => {
    const timer = setInterval(() => {
      void server.games.change(id, count % 2 === 0 ? g => makeMove(g, 'e2e4') : g => undo(g));
      if (++count === 75) {
        clearInterval(timer);
        resolve();
      }
    }, 20);
  });
  await busy.waitForEvents(1 + 75);
  t.assert.equal(busy.lines.filter(line => line === '').length, 0, 'no heartbeat between events');
  t.assert.ok(idle.lines.filter(line => line === '').length >= 2, 'the idle stream got heartbeats meanwhile');
});
