/**
 * The page's NDJSON streams, opened through the service's typed client (api.ts): a game's (`GET /api/board/game/{id}/stream`: a `gameFull` line,
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
import { ApiError, api, asApiError, type GameFull, type GameState } from './api.ts';
import type { StreamEvent } from 'chess-game-service-client';
import type { StreamError } from '../contract/events.ts';
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
abstract class NdjsonStream<Event extends { type: string }, Handlers extends ConnectionHandlers> {
  private stopped = true;
  private failures = 0;
  private controller: AbortController | undefined;
  private wake: (() => void) | undefined;
  private readonly idleTimeoutMs: number;
  private readonly minBackoffMs: number;
  private readonly maxBackoffMs: number;

  /**
   * `connect` opens a connection (resolves once answered 200, rejects with the refusal's ApiError): its lines,
   * heartbeats skipped; `onBytes` hears every chunk read, heartbeats included; `signal` closes it.
   */
  constructor(
    protected readonly handlers: Handlers,
    private readonly connect: (onBytes: () => void, signal: AbortSignal) => Promise<AsyncIterable<Event>>,
    options: StreamOptions,
  ) {
    this.idleTimeoutMs = options.idleTimeoutMs ?? 45_000;
    this.minBackoffMs = options.minBackoffMs ?? 500;
    this.maxBackoffMs = options.maxBackoffMs ?? 15_000;
  }

  /** A connection was answered with a body to read; by default the stream is live once a line says so. */
  protected opened(): void {}

  /** A line other than `error`, while the stream runs. */
  protected abstract line(line: Exclude<Event, { type: 'error' }>): void;

  /** Whether the stream has said all it will (its end is then no drop to reconnect after); never by default. */
  protected complete(): boolean {
    return false;
  }

  /** The stream is up to date: the next drop starts the backoff from its shortest delay. */
  protected live(): void {
    this.failures = 0;
    this.handlers.onConnection('live');
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
      // A connection silent for idleTimeoutMs (several missed heartbeats) is dropped, and reconnected.
      let idle: ReturnType<typeof setTimeout> | undefined;
      const awake = () => {
        clearTimeout(idle);
        idle = setTimeout(() => controller.abort(), this.idleTimeoutMs);
      };
      awake();
      try {
        const lines = await this.connect(awake, controller.signal);
        this.opened();
        await this.read(lines);
        if (this.complete() && !controller.signal.aborted) {
          this.stopped = true;
          this.handlers.onConnection('stopped');
          return;
        }
      } catch (error) {
        const apiError = asApiError(error);
        if (apiError.status >= 400 && apiError.status < 500 && apiError.status !== 429) {
          this.stopped = true;
          this.handlers.onFatal(apiError);
          this.handlers.onConnection('stopped');
          return;
        }
        if (apiError.retryAfterSeconds !== undefined) retryAfterMs = apiError.retryAfterSeconds * 1000;
        else if (apiError.status === 0 && apiError.code !== 'ABORTED' && apiError.code !== 'NETWORK') throw error;
      } finally {
        clearTimeout(idle);
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

  /** Hands each line on until the connection ends, or the stream is stopped. */
  private async read(lines: AsyncIterable<Event>): Promise<void> {
    for await (const line of lines) {
      if (this.stopped) break;
      if (isErrorLine(line)) this.handlers.onNotice(line.error);
      else this.line(line as Exclude<Event, { type: 'error' }>); // what isErrorLine did not take
    }
  }
}

/** Whether a line is the `error` line a server sends before it closes a stream. */
const isErrorLine = <Event extends { type: string }>(
  line: Event,
): line is Extract<Event, { type: 'error'; error: StreamError }> => line.type === 'error';

/** A line of a game's stream (`GET /api/board/game/{id}/stream`), as the document types it. */
type GameLine = StreamEvent<'/api/board/game/{gameId}/stream'>;

/** Follows a game: live from its `gameFull` line, which each connection sends first. */
export class GameStream extends NdjsonStream<GameLine, StreamHandlers> {
  constructor(gameId: string, handlers: StreamHandlers, options: StreamOptions = {}) {
    super(handlers, (onBytes, signal) => api.stream(gameId, onBytes, signal), options);
  }

  protected line(event: Exclude<GameLine, { type: 'error' }>): void {
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

/** A line of a game's lichess stream (`GET /api/board/game/stream/{id}`), as the document types it. */
type LichessGameLine = StreamEvent<'/api/board/game/stream/{gameId}'>;

/**
 * Follows a game's chat on its lichess stream: live from its `gameFull` line; the game's own lines (gameFull,
 * gameState) are the seed stream's business and are left alone.
 */
export class ChatStream extends NdjsonStream<LichessGameLine, ChatStreamHandlers> {
  constructor(gameId: string, handlers: ChatStreamHandlers, options: StreamOptions = {}) {
    super(handlers, (onBytes, signal) => api.lichessStream(gameId, onBytes, signal), options);
  }

  /** lichess's game stream ends with the game: its chat says no more (DECISIONS §17). */
  private over = false;

  protected complete(): boolean {
    return this.over;
  }

  protected line(line: Exclude<LichessGameLine, { type: 'error' }>): void {
    const ended = (status: string) => status !== 'created' && status !== 'started';
    switch (line.type) {
      case 'gameFull':
        this.over = ended(line.state.status);
        this.live();
        this.handlers.onOpen();
        break;
      case 'gameState':
        this.over = ended(line.status);
        break;
      case 'chatLine':
        this.handlers.onLine(line);
        break;
      default:
        break;
    }
  }
}

/** A line of a player's event stream (`GET /api/stream/event`), as the document types it. */
type EventLine = StreamEvent<'/api/stream/event'>;

/**
 * Follows the games of the token's player starting and ending: live from the answer, since a player with no ongoing
 * game is sent nothing but heartbeats. No line marks the end of the ongoing games a connection sends first.
 */
export class PlayerEventStream extends NdjsonStream<EventLine, PlayerEventHandlers> {
  constructor(handlers: PlayerEventHandlers, options: StreamOptions = {}) {
    super(handlers, (onBytes, signal) => api.eventStream(onBytes, signal), options);
  }

  protected opened(): void {
    this.live();
    this.handlers.onOpen();
  }

  protected line(line: Exclude<EventLine, { type: 'error' }>): void {
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
