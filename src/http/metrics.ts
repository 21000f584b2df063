/**
 * Prometheus metrics of one app (its own registry, so that several apps can live in one test process).
 *
 * ```ts
 * const metrics = createMetrics();
 * metrics.gamesCreated.inc();
 * await metrics.registry.metrics(); // the text served at GET /metrics
 * createEnginePool({ metrics: engineMetricsHooks(metrics) }); // the engine's searches and restarts
 * ```
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { EngineMetrics } from '../engine/index.ts';

export type Metrics = ReturnType<typeof createMetrics>;

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route and status',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by route',
      labelNames: ['method', 'route'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
    openStreams: new Gauge({ name: 'streams_open', help: 'Game streams open now', registers }),
    eventsSent: new Counter({
      name: 'stream_events_sent_total',
      help: 'Event lines written to game streams (gameFull, gameState, error; heartbeats not counted)',
      registers,
    }),
    slowConsumers: new Counter({
      name: 'stream_slow_consumers_total',
      help: 'Streams cut because their client stopped reading',
      registers,
    }),
    gamesCreated: new Counter({
      name: 'games_created_total',
      help: 'Games created (new, FEN import, PGN import)',
      registers,
    }),
    movesApplied: new Counter({ name: 'moves_applied_total', help: 'Moves applied to games', registers }),
    storeReads: new Counter({
      name: 'store_game_reads_total',
      help: 'Games read from the store (a read the games in memory could not answer)',
      registers,
    }),
    storeCommit: new Histogram({
      name: 'store_commit_duration_seconds',
      help: 'Time to commit one change to the store',
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    }),
    engineQueued: new Gauge({
      name: 'engine_searches_queued',
      help: 'Engine searches waiting for an engine process',
      registers,
    }),
    engineRunning: new Gauge({ name: 'engine_searches_running', help: 'Engine searches running now', registers }),
    engineSearch: new Histogram({
      name: 'engine_search_duration_seconds',
      help: 'Time from asking the engine for a move to its answer (queue and retries included), by level',
      labelNames: ['level'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 1.5, 2.5, 5, 10],
      registers,
    }),
    engineRestarts: new Counter({
      name: 'engine_restarts_total',
      help: 'Engine processes killed and replaced after a crash, a hang or a wrong answer',
      registers,
    }),
  };
}

/** The engine pool's hooks onto the app's metrics (`createEnginePool({ metrics })`). */
export function engineMetricsHooks(metrics: Metrics): EngineMetrics {
  return {
    queued: count => metrics.engineQueued.set(count),
    running: count => metrics.engineRunning.set(count),
    searched: (level, seconds) => metrics.engineSearch.observe({ level: String(level) }, seconds),
    restarted: () => metrics.engineRestarts.inc(),
  };
}
