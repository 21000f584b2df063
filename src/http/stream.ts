/**
 * Live game streams (NDJSON). One hub per app holds every open stream: it subscribes to the bus once per
 * game, serializes each event once and writes the same bytes to every stream of that game, sends heartbeats
 * from one shared timer, cuts clients that stop reading, and closes everything on shutdown.
 *
 * Snapshot and subscription are atomic: a stream subscribes first, buffers what arrives while the snapshot
 * is read, then sends the snapshot and only the buffered events newer than it. Versions make every event
 * arrive exactly once.
 *
 * ```ts
 * const hub = new StreamHub({ bus, heartbeatMs: 10_000, maxBacklogBytes: 1 << 20 });
 * await hub.attach(gameId, res, clientAddress, () => games.get(gameId)); // res: head already written
 * await hub.close(); // SERVER_SHUTDOWN to everyone
 * ```
 */
import type { ServerResponse } from 'node:http';
import type { EventBus, GameChange } from '../bus/bus.ts';
import { gameFullOf, type Game, type GameEvent } from '../domain/game.ts';

export interface StreamHubOptions {
  bus: EventBus;
  heartbeatMs: number; // empty line on idle streams, e.g. 10000
  maxBacklogBytes: number; // unread bytes a client may leave queued before it is cut, e.g. 1048576
  onEventSent?: (count: number) => void;
  onSlowConsumer?: () => void;
  onOpenStreamsChanged?: (open: number) => void;
}

const HEARTBEAT = Buffer.from('\n');

const line = (event: GameEvent): Buffer => Buffer.from(`${JSON.stringify(event)}\n`);

export const streamErrorLine = (code: 'SERVER_SHUTDOWN' | 'SLOW_CONSUMER', message: string): Buffer =>
  line({ type: 'error', error: { code, message } });

class Stream {
  version = 0; // the last version sent; 0 until the snapshot is out
  pending: GameChange[] | undefined = []; // changes that arrived before the snapshot
  wroteSinceTick = true;
  closed = false;

  constructor(
    readonly gameId: string,
    readonly res: ServerResponse,
    readonly client: string,
  ) {}
}

export class StreamHub {
  private readonly options: StreamHubOptions;
  private readonly channels = new Map<string, { streams: Set<Stream>; unsubscribe: () => void }>();
  private readonly perClient = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private open = 0;
  private closing = false;

  constructor(options: StreamHubOptions) {
    this.options = options;
    this.timer = setInterval(() => this.heartbeat(), options.heartbeatMs);
    this.timer.unref();
  }

  get size(): number {
    return this.open;
  }

  /** Streams open now for one client (its address or token). */
  streamsOf(client: string): number {
    return this.perClient.get(client) ?? 0;
  }

  /**
   * Starts streaming a game on a response whose head is written. `snapshot` reads the current game; it is
   * called after the subscription exists.
   */
  async attach(gameId: string, res: ServerResponse, client: string, snapshot: () => Promise<Game>): Promise<void> {
    const stream = new Stream(gameId, res, client);
    if (this.closing) {
      this.write(stream, streamErrorLine('SERVER_SHUTDOWN', 'the server is shutting down'));
      res.end();
      return;
    }
    this.add(stream);
    res.on('close', () => this.remove(stream));
    let game: Game;
    try {
      game = await snapshot();
    } catch {
      this.remove(stream);
      res.destroy();
      return;
    }
    if (stream.closed) return;
    this.write(stream, line({ type: 'gameFull', game: gameFullOf(game) }));
    stream.version = game.record.version;
    const pending = stream.pending ?? [];
    stream.pending = undefined;
    for (const change of pending) this.deliver(stream, change, line(change.event));
  }

  /**
   * Sends SERVER_SHUTDOWN to every stream and ends them; resolves when all are closed, destroying after
   * `graceMs` the connections of clients that do not read their last line.
   */
  async close(graceMs = 2000): Promise<void> {
    this.closing = true;
    clearInterval(this.timer);
    const bye = streamErrorLine('SERVER_SHUTDOWN', 'the server is shutting down');
    const responses: ServerResponse[] = [];
    for (const { streams } of this.channels.values()) {
      for (const stream of streams) responses.push(stream.res);
    }
    const closed = responses.map(res => new Promise<void>(resolve => res.once('close', () => resolve())));
    for (const res of responses) res.end(bye);
    const grace = setTimeout(() => {
      for (const res of responses) res.destroy();
    }, graceMs);
    await Promise.all(closed);
    clearTimeout(grace);
  }

  private add(stream: Stream): void {
    let channel = this.channels.get(stream.gameId);
    if (!channel) {
      const streams = new Set<Stream>();
      const unsubscribe = this.options.bus.subscribe(stream.gameId, change => this.broadcast(streams, change));
      channel = { streams, unsubscribe };
      this.channels.set(stream.gameId, channel);
    }
    channel.streams.add(stream);
    this.perClient.set(stream.client, this.streamsOf(stream.client) + 1);
    this.open++;
    this.options.onOpenStreamsChanged?.(this.open);
  }

  private remove(stream: Stream): void {
    if (stream.closed) return;
    stream.closed = true;
    const channel = this.channels.get(stream.gameId);
    if (channel?.streams.delete(stream)) {
      const left = this.streamsOf(stream.client) - 1;
      if (left > 0) this.perClient.set(stream.client, left);
      else this.perClient.delete(stream.client);
      this.open--;
      this.options.onOpenStreamsChanged?.(this.open);
      if (channel.streams.size === 0) {
        channel.unsubscribe();
        this.channels.delete(stream.gameId);
      }
    }
  }

  private broadcast(streams: Set<Stream>, change: GameChange): void {
    const bytes = line(change.event);
    let sent = 0;
    for (const stream of streams) {
      if (stream.pending) stream.pending.push(change);
      else if (this.deliver(stream, change, bytes)) sent++;
    }
    if (sent > 0) this.options.onEventSent?.(sent);
  }

  private deliver(stream: Stream, change: GameChange, bytes: Buffer): boolean {
    if (change.version <= stream.version) return false;
    stream.version = change.version;
    return this.write(stream, bytes);
  }

  private write(stream: Stream, bytes: Buffer): boolean {
    if (stream.closed) return false;
    const { res } = stream;
    if (res.writableLength > this.options.maxBacklogBytes) {
      this.cut(stream);
      return false;
    }
    stream.wroteSinceTick = true;
    res.write(bytes);
    return true;
  }

  /** A client that stopped reading: tell it why if the socket takes it, then let go of its backlog. */
  private cut(stream: Stream): void {
    const { res } = stream;
    this.remove(stream);
    this.options.onSlowConsumer?.();
    res.end(streamErrorLine('SLOW_CONSUMER', 'the client did not read the stream fast enough'));
    setTimeout(() => res.destroy(), 1000).unref();
  }

  private heartbeat(): void {
    for (const { streams } of this.channels.values()) {
      for (const stream of streams) {
        if (!stream.wroteSinceTick && !stream.pending) this.write(stream, HEARTBEAT);
        stream.wroteSinceTick = false;
      }
    }
  }
}
