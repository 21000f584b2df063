/**
 * The page's NDJSON streams, read with `fetch`: a game's (`GET /api/board/game/{id}/stream`: a `gameFull` line,
 * then `gameState` lines), the same game's in lichess's shape for its chat (`GET /api/board/game/stream/{id}`:
 * `chatLine` lines after its `gameFull`; the seed's own stream carries no chat) and a player's events (`GET /api/stream/event`: a `gameStart` line per ongoing game of
 * the player and a `challenge` line per pending challenge, then `gameStart` and `gameFinish` as games start and
 * end, and `challenge`, `challengeCanceled` and `challengeDeclined` as challenges are made and answered). Both send empty heartbeat lines and an
 * `error` line before the server closes them. When a connection drops (or stays silent longer than
 * `idleTimeoutMs`, i.e. several missed heartbeats) the stream reconnects with exponential backoff and jitter, and
 * what the new connection sends first brings the page up to date. A 4xx answer other than 429 (no such game, bad
 * id, missing token) stops it: retrying cannot help.
 *
 * ```ts
 * const stream = new GameStream('AbCd1234', {
 *   onGame: game => render(game), onState: state => render(state), onNotice: e => show(e.message),
 *   onFatal: error => show(error.message), onConnection: (status, retryMs) => indicator(status, retryMs),
 * });
 * stream.start(); // ... stream.stop();
 * new PlayerEventStream({ onOpen: () => list.clear(), onEvent: line => list.apply(line), ...same }).start();
 * ```
 */
import { ApiError, api, asApiError, authHeaders, errorOf, type GameFull, type GameState } from './api.ts';
import type { GameEvent, StreamError } from '../contract/events.ts';
import type { PlayerGameLine } from './myGamesState.ts';
import type { ChallengeLine } from '../contract/events.ts';
import type { ChatLineEvent } from '../contract/chat.ts';

/** A line of a player's event stream other than `error`: a game starting or ending, or a challenge's news. */
export type PlayerLine = PlayerGameLine | ChallengeLine;

export type ConnectionStatus = 'connecting' | 'live' | 'reconnecting' | 'stopped';

/** What every stream reports besides its lines. */
export interface ConnectionHandlers {
  /** The `error` line the server sends before it closes a stream (SERVER_SHUTDOWN, SLOW_CONSUMER). */
  onNotice(error: StreamError): void;
  /** A refusal that retrying cannot fix; the stream has stopped. */
  onFatal(error: ApiError): void;
  onConnection(status: ConnectionStatus, retryInMs?: number): void;
}

export interface StreamHandlers extends ConnectionHandlers {
  onGame(game: GameFull): void;
  onState(state: GameState): void;
}

export interface PlayerEventHandlers extends ConnectionHandlers {
  /**
   * A connection was answered: the lines it sends first are the player's ongoing games and pending challenges, from
   * scratch.
   */
  onOpen(): void;
  onEvent(line: PlayerLine): void;
}

export interface StreamOptions {
  idleTimeoutMs?: number; // 45000: the server sends a heartbeat every 10 s by default
  minBackoffMs?: number; // 500
  maxBackoffMs?: number; // 15000
}

/** The connection, reconnection and line reading every stream shares; a subclass says where and what lines mean. */
abstract class NdjsonStream<Line extends { type: string }> {
  private stopped = true;
  private failures = 0;
  private controller: AbortController | undefined;
  private wake: (() => void) | undefined;
  private readonly idleTimeoutMs: number;
  private readonly minBackoffMs: number;
  private readonly maxBackoffMs: number;

  constructor(
    private readonly connection: ConnectionHandlers,
    options: StreamOptions,
  ) {
    this.idleTimeoutMs = options.idleTimeoutMs ?? 45_000;
    this.minBackoffMs = options.minBackoffMs ?? 500;
    this.maxBackoffMs = options.maxBackoffMs ?? 15_000;
  }

  protected abstract url(): string;

  /** A connection was answered with a body to read. */
  protected abstract opened(): void;

  /** A line other than `error`, while the stream runs. */
  protected abstract line(line: Line): void;

  /** Whether the stream has said all it will (its end is then no drop to reconnect after); never by default. */
  protected complete(): boolean {
    return false;
  }

  /** The stream is up to date: the next drop starts the backoff from its shortest delay. */
  protected live(): void {
    this.failures = 0;
    this.connection.onConnection('live');
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
    this.connection.onConnection('stopped');
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
      this.connection.onConnection(this.failures === 0 ? 'connecting' : 'reconnecting');
      let retryAfterMs: number | undefined;
      try {
        const res = await fetch(this.url(), {
          headers: authHeaders({ accept: 'application/x-ndjson' }),
          signal: controller.signal,
          cache: 'no-store',
        });
        if (!res.ok) {
          const error = await errorOf(res);
          if (res.status >= 400 && res.status < 500 && res.status !== 429) {
            this.stopped = true;
            this.connection.onFatal(error);
            this.connection.onConnection('stopped');
            return;
          }
          if (error.retryAfterSeconds !== undefined) retryAfterMs = error.retryAfterSeconds * 1000;
        } else if (res.body) {
          this.opened();
          await this.read(res.body, controller);
          if (this.complete() && !controller.signal.aborted) {
            this.stopped = true;
            this.connection.onConnection('stopped');
            return;
          }
        }
      } catch (error) {
        const apiError = asApiError(error);
        if (apiError.code !== 'ABORTED' && apiError.code !== 'NETWORK') throw error;
      }
      if (this.stopped) return;
      this.failures += 1;
      const delay = retryAfterMs ?? this.backoff();
      this.connection.onConnection('reconnecting', delay);
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

  private dispatch(text: string): void {
    let line: Line | { type: 'error'; error: StreamError };
    try {
      line = JSON.parse(text) as Line | { type: 'error'; error: StreamError };
    } catch {
      return; // not JSON: ignore the line, what the next connection sends first repairs anything missed
    }
    if (this.stopped) return;
    if (line.type === 'error') this.connection.onNotice((line as { error: StreamError }).error);
    else this.line(line as Line);
  }
}

/** Follows a game: live from its `gameFull` line, which each connection sends first. */
export class GameStream extends NdjsonStream<GameEvent> {
  constructor(
    readonly gameId: string,
    private readonly handlers: StreamHandlers,
    options: StreamOptions = {},
  ) {
    super(handlers, options);
  }

  protected url(): string {
    return api.streamUrl(this.gameId);
  }

  protected opened(): void {
    // live once the gameFull has come
  }

  protected line(event: GameEvent): void {
    switch (event.type) {
      case 'gameFull':
        this.live();
        this.handlers.onGame(event.game);
        break;
      case 'gameState':
        this.handlers.onState(event.state);
        break;
      default:
        break;
    }
  }
}

export interface ChatStreamHandlers extends ConnectionHandlers {
  /** A connection is live: lines written from now on come through `onLine`. */
  onOpen(): void;
  onLine(line: ChatLineEvent): void;
}

/**
 * Follows a game's chat on its lichess stream: live from its `gameFull` line; the game's own lines (gameFull,
 * gameState) are the seed stream's business and are left alone.
 */
export class ChatStream extends NdjsonStream<{ type: string }> {
  constructor(
    readonly gameId: string,
    private readonly handlers: ChatStreamHandlers,
    options: StreamOptions = {},
  ) {
    super(handlers, options);
  }

  protected url(): string {
    return api.lichessStreamUrl(this.gameId);
  }

  protected opened(): void {
    // live once the gameFull has come
  }

  /** lichess's game stream ends with the game: its chat says no more (DECISIONS §17). */
  private over = false;

  protected complete(): boolean {
    return this.over;
  }

  protected line(line: { type: string }): void {
    const status = line.type === 'gameFull' ? (line as { state?: { status?: string } }).state?.status : undefined;
    if (line.type === 'gameState' || status !== undefined) {
      const name = status ?? (line as { status?: string }).status;
      this.over = name !== 'created' && name !== 'started';
    }
    if (line.type === 'gameFull') {
      this.live();
      this.handlers.onOpen();
    } else if (line.type === 'chatLine') {
      this.handlers.onLine(line as ChatLineEvent);
    }
  }
}

/**
 * Follows the games of the token's player starting and ending: live from the answer, since a player with no ongoing
 * game is sent nothing but heartbeats. No line marks the end of the ongoing games a connection sends first.
 */
export class PlayerEventStream extends NdjsonStream<PlayerGameLine | ChallengeLine> {
  constructor(
    private readonly handlers: PlayerEventHandlers,
    options: StreamOptions = {},
  ) {
    super(handlers, options);
  }

  protected url(): string {
    return api.eventStreamUrl();
  }

  protected opened(): void {
    this.live();
    this.handlers.onOpen();
  }

  protected line(line: PlayerGameLine | ChallengeLine): void {
    if (PLAYER_LINES.has(line.type)) this.handlers.onEvent(line);
  }
}

const PLAYER_LINES: ReadonlySet<string> = new Set<PlayerLine['type']>([
  'gameStart',
  'gameFinish',
  'challenge',
  'challengeCanceled',
  'challengeDeclined',
]);
