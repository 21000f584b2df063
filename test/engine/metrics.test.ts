/**
 * The engine pool's hooks onto the service's Prometheus registry (`engineMetricsHooks`): what GET /metrics shows
 * after a search that needed a restart.
 */
import { test, type TestContext } from 'node:test';
import { INITIAL_FEN } from 'chessops/fen';
import { createEnginePool } from '../../src/engine/index.ts';
import { createMetrics, engineMetricsHooks } from '../../src/http/metrics.ts';
import { fakeEngine } from './fakeEngine.ts';

test('searches queued and running, their time by level, and restarts reach the registry', async (t: TestContext) => {
  const fake = fakeEngine({ crashOn: [1], searchMs: 100 });
  const metrics = createMetrics();
  const pool = createEnginePool({ enginePath: fake.path, metrics: engineMetricsHooks(metrics) });
  t.after(async () => {
    await pool.close();
    fake.remove();
  });
  const text = async () => metrics.registry.metrics();
  const value = (body: string, name: string) => {
    const line = body.split('\n').find(l => l.startsWith(`${name} `));
    return line === undefined ? undefined : Number(line.slice(name.length + 1));
  };
  const first = pool.search({ fen: INITIAL_FEN, moves: [], level: 5 });
  const second = pool.search({ fen: INITIAL_FEN, moves: ['e2e4'], level: 3 });
  const during = await text();
  t.assert.equal(value(during, 'engine_searches_running'), 1);
  t.assert.equal(value(during, 'engine_searches_queued'), 1);
  await Promise.all([first, second]);
  const after = await text();
  t.assert.equal(value(after, 'engine_searches_running'), 0);
  t.assert.equal(value(after, 'engine_searches_queued'), 0);
  t.assert.equal(value(after, 'engine_restarts_total'), 1);
  t.assert.equal(value(after, 'engine_search_duration_seconds_count{level="5"}'), 1);
  t.assert.equal(value(after, 'engine_search_duration_seconds_count{level="3"}'), 1);
  t.assert.ok(value(after, 'engine_search_duration_seconds_sum{level="5"}')! >= 0.1, 'its crash and retry included');
});
