/**
 * Follows a game's NDJSON stream (`GET /api/board/game/{id}/stream`) with `fetch`: a `gameFull` line, then
 * `gameState` lines, empty heartbeat lines, and an `error` line before the server closes the stream. When the
 * connection drops (or stays silent longer than `idleTimeoutMs`, i.e. several missed heartbeats) it reconnects
 * with exponential backoff and jitter, and the new `gameFull` brings the page up to date. A 4xx answer other
 * than 429 (no such game, bad id, missing token) stops it: retrying cannot help.
 *
 * ```ts
 * const stream = new GameStream('AbCd1234', {
 *   onGame: game => render(game), onState: state => render(state), onNotice: e => show(e.message),
 *   onFatal: error => show(error.message), onConnection: (status, retryMs) => indicator(status, retryMs),
 * });
 * stream.start(); // ... stream.stop();
 * ```
 */
import { ApiError, api, asApiError, authHeaders, errorOf, type GameFull, type GameState } from './api.ts';
import type { GameEvent, StreamError } from '../contract/shapes.ts';

export type ConnectionStatus = 'connecting' | 'live' | 'reconnecting' | 'stopped';

export interface StreamHandlers {
  onGame(game: GameFull): void;
  onState(state: GameState): void;
  /** The `error` line the server sends before it closes a stream (SERVER_SHUTDOWN, SLOW_CONSUMER). */
  onNotice(error: StreamError): void;
  /** A refusal that retrying cannot fix; the stream has stopped. */
  onFatal(error: ApiError): void;
  onConnection(status: ConnectionStatus, retryInMs?: number): void;
}

export interface StreamOptions {
  idleTimeoutMs?: number; // 45000: the server sends a heartbeat every 10 s by default
  minBackoffMs?: number; // 500
  maxBackoffMs?: number; // 15000
}

export class GameStream {
  private stopped = true;
  private failures = 0;
  private controller: AbortController | undefined;
  private wake: (() => void) | undefined;
  private readonly idleTimeoutMs: number;
  private readonly minBackoffMs: number;
  private readonly maxBackoffMs: number;

  constructor(
    readonly gameId: string,
    private readonly handlers: StreamHandlers,
    options: StreamOptions = {},
  ) {
    this.idleTimeoutMs = options.idleTimeoutMs ?? 45_000;
    this.minBackoffMs = options.minBackoffMs ?? 500;
    this.maxBackoffMs = options.maxBackoffMs ?? 15_000;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.controller?.abort();
    this.wake?.();
    this.handlers.onConnection('stopped');
  }

  /** Drops the current connection (if any) and connects again at once, e.g. after the token changed. */
  reconnectNow(): void {
    this.failures = 0;
    this.controller?.abort();
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const controller = new AbortController();
      this.controller = controller;
      this.handlers.onConnection(this.failures === 0 ? 'connecting' : 'reconnecting');
      let retryAfterMs: number | undefined;
      try {
        const res = await fetch(api.streamUrl(this.gameId), {
          headers: authHeaders({ accept: 'application/x-ndjson' }),
          signal: controller.signal,
          cache: 'no-store',
        });
        if (!res.ok) {
          const error = await errorOf(res);
          if (res.status >= 400 && res.status < 500 && res.status !== 429) {
            this.stopped = true;
            this.handlers.onFatal(error);
            this.handlers.onConnection('stopped');
            return;
          }
          if (error.retryAfterSeconds !== undefined) retryAfterMs = error.retryAfterSeconds * 1000;
        } else if (res.body) {
          await this.read(res.body, controller);
        }
      } catch (error) {
        const apiError = asApiError(error);
        if (apiError.code !== 'ABORTED' && apiError.code !== 'NETWORK') throw error;
      }
      if (this.stopped) return;
      this.failures += 1;
      const delay = retryAfterMs ?? this.backoff();
      this.handlers.onConnection('reconnecting', delay);
      await this.sleep(delay);
    }
  }

  private backoff(): number {
    const exponential = this.minBackoffMs * 2 ** Math.min(this.failures - 1, 10);
    const capped = Math.min(this.maxBackoffMs, exponential);
    return Math.round(capped * (0.8 + Math.random() * 0.4));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise(resolve => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private async read(body: ReadableStream<Uint8Array>, controller: AbortController): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    let idle = setTimeout(() => controller.abort(), this.idleTimeoutMs);
    try {
      for (;;) {
        const { done, value } = await reader.read();
        clearTimeout(idle);
        if (done || this.stopped) break;
        idle = setTimeout(() => controller.abort(), this.idleTimeoutMs);
        buffer += decoder.decode(value, { stream: true });
        let newline = buffer.indexOf('\n');
        while (newline >= 0) {
          const line = buffer.slice(0, newline).trim();
          buffer = buffer.slice(newline + 1);
          if (line !== '') this.dispatch(line);
          newline = buffer.indexOf('\n');
        }
      }
    } finally {
      clearTimeout(idle);
      reader.releaseLock();
    }
  }

  private dispatch(line: string): void {
    let event: GameEvent;
    try {
      event = JSON.parse(line) as GameEvent;
    } catch {
      return; // not JSON: ignore the line, the next gameFull repairs anything missed
    }
    if (this.stopped) return;
    switch (event.type) {
      case 'gameFull':
        this.failures = 0;
        this.handlers.onConnection('live');
        this.handlers.onGame(event.game);
        break;
      case 'gameState':
        this.handlers.onState(event.state);
        break;
      case 'error':
        this.handlers.onNotice(event.error);
        break;
      default:
        break;
    }
  }
}
