/**
 * GET /metrics (DECISIONS §12) in the Prometheus text format: the stream gauges and counters, requests and
 * their latency by route, games created, moves applied and store commit latency, each moving as it should.
 */
import { test, type TestContext } from 'node:test';
import { listenApp, metricValue, parseMetrics, waitUntil, type ListeningApp, type Sample } from './helpers.ts';
import { clientOf, gameAction } from '../helpers/client.ts';

const MOVE_ROUTE = { method: 'POST', route: '/api/board/game/:gameId/move/:uci' };

async function scrape(server: ListeningApp): Promise<Sample[]> {
  const res = await fetch(`${server.url}/metrics`); // Prometheus text, not an operation of the API's document
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status}`);
  const type = res.headers.get('content-type') ?? '';
  if (!type.startsWith('text/plain')) throw new Error(`GET /metrics: content-type ${type}`);
  return parseMetrics(await res.text());
}

test('metrics of streams, requests, games, moves and store commits move as expected', async (t: TestContext) => {
  const server = await listenApp(t);
  const client = clientOf(server.url);
  const before = await scrape(server);
  const delta = (after: Sample[], name: string, labels?: Record<string, string>) =>
    metricValue(after, name, labels) - metricValue(before, name, labels);
  for (const name of [
    'streams_open',
    'stream_events_sent_total',
    'stream_slow_consumers_total',
    'games_created_total',
    'moves_applied_total',
    'store_commit_duration_seconds_count',
  ]) {
    t.assert.ok(
      before.some(sample => sample.name === name),
      `${name} is exposed`,
    );
  }
  t.assert.equal(metricValue(before, 'streams_open'), 0);

  // 1. Two games (one from FEN), two streams on the first: two gameFull events.
  const { gameId: id } = await client.unwrap(client.api.POST('/api/board/game', { body: {} }));
  const fen = await client.api.POST('/api/board/game/import/fen', { body: { fen: '4k3/P7/8/8/8/8/8/4K3 w - - 0 1' } });
  t.assert.equal(fen.response.status, 201);
  const streams = [await server.open(id), await server.open(id)];
  for (const stream of streams) await stream.waitForEvents(1);
  let now = await scrape(server);
  t.assert.equal(metricValue(now, 'streams_open'), 2);
  t.assert.equal(delta(now, 'games_created_total'), 2);
  t.assert.equal(delta(now, 'store_commit_duration_seconds_count'), 2);
  t.assert.equal(delta(now, 'stream_events_sent_total'), 2);

  // 2. Two moves and an undo on the streamed game, a pending promotion and its move on the other, one refusal.
  for (const path of ['move/e2e4', 'move/e7e5', 'undo'] as const) {
    t.assert.equal((await gameAction(client, id, path)).status, 200, path);
  }
  const other = fen.data!.gameId;
  const pending = await gameAction(client, other, 'move/a7a8');
  t.assert.equal(pending.data && 'status' in pending.data ? pending.data.status : undefined, 'promotionPending');
  t.assert.equal((await gameAction(client, other, 'move/a7a8q')).status, 200);
  t.assert.equal((await gameAction(client, id, 'move/e2e5')).status, 400);
  for (const stream of streams) await stream.waitForEvents(4);
  now = await scrape(server);
  t.assert.equal(delta(now, 'moves_applied_total'), 3, 'a pending promotion is not a move applied');
  t.assert.equal(delta(now, 'store_commit_duration_seconds_count'), 2 + 5, 'one commit per change');
  t.assert.ok(delta(now, 'store_commit_duration_seconds_sum') > 0);
  t.assert.equal(delta(now, 'stream_events_sent_total'), 2 + 2 * 3, 'one line per stream and change');
  t.assert.equal(delta(now, 'http_requests_total', { ...MOVE_ROUTE, status: '200' }), 4);
  t.assert.equal(delta(now, 'http_requests_total', { ...MOVE_ROUTE, status: '400' }), 1);
  t.assert.equal(delta(now, 'http_request_duration_seconds_count', MOVE_ROUTE), 5);
  t.assert.ok(delta(now, 'http_request_duration_seconds_sum', MOVE_ROUTE) > 0);
  const slowest = metricValue(now, 'http_request_duration_seconds_bucket', { ...MOVE_ROUTE, le: '+Inf' });
  t.assert.equal(slowest, 5);

  // 3. A stream that closes leaves the gauge.
  streams[0]!.close();
  await waitUntil(
    () => server.openStreams() === 1,
    () => 'the server to notice the closed stream',
  );
  now = await scrape(server);
  t.assert.equal(metricValue(now, 'streams_open'), 1);
  t.assert.equal(delta(now, 'stream_slow_consumers_total'), 0);
});
