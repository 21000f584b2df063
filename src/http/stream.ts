/**
 * Live game streams (NDJSON). One hub per app holds every open stream: each stream subscribes to the bus
 * from its snapshot's version, each change is serialized once and the same bytes go to every stream of the
 * game, heartbeats come from one shared timer, clients that stop reading are cut, the streams opened with a player
 * token end when it is revoked, and everything is closed on shutdown.
 *
 * Snapshot and subscription are atomic: the stream subscribes from the snapshot's version, and the bus
 * delivers every later change once, in order, reading back from the store's change log whatever was
 * committed in between (see bus/feed.ts).
 *
 * ```ts
 * const hub = new StreamHub({ bus, heartbeatMs: 10_000, maxBacklogBytes: 1 << 20 });
 * await hub.attach(gameId, res, clientAddress, () => games.get(gameId)); // res: head already written
 * hub.endOwnedBy(tokenHash, streamErrorLine('UNAUTHORIZED', '...')); // the streams opened with a revoked token
 * hub.sendExtra(gameId, LICHESS_DIALECT, 'player', chatLine); // to that game's lichess streams taking 'player' lines
 * await hub.close(); // SERVER_SHUTDOWN to everyone
 * ```
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { EventBus, GameChange } from '../bus/bus.ts';
import { type Game } from '../domain/game.ts';
import { eventJsonOf, gameFullOf } from '../domain/views.ts';
import { isOver } from '../domain/status.ts';
import { ENDED_STATUSES } from '../contract/vocabulary.ts';
import type { GameEvent } from '../contract/events.ts';
import type { ErrorCode } from '../contract/vocabulary.ts';
import { DomainError } from '../domain/errors.ts';

export interface StreamHubOptions {
  bus: EventBus;
  heartbeatMs: number; // empty line on idle streams, e.g. 10000
  maxBacklogBytes: number; // unread bytes a client may leave queued before it is cut, e.g. 1048576
  onEventSent?: (count: number) => void;
  onSlowConsumer?: () => void;
  onOpenStreamsChanged?: (open: number) => void;
  now?: () => number; // the time a snapshot's clock is read at, ms since the epoch; Date.now
  /** A stream with an owner (the hash of the player token it was opened with) holds it until it closes. */
  holdOwner?: (owner: string) => () => void;
}

/**
 * An event line, also framed as one HTTP/1.1 chunk. Once a stream's head and first line are out, its lines
 * go straight to the socket as these prebuilt chunks: the same bytes for every stream, one write each,
 * instead of res.write's framing (four buffers, a cork and a deferred uncork per stream and event).
 */
interface Frame {
  line: Buffer;
  chunk: Buffer;
}

const CRLF = Buffer.from('\r\n');

const frame = (bytes: Buffer): Frame => ({
  line: bytes,
  chunk: Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, CRLF]),
});

const HEARTBEAT = frame(Buffer.from('\n'));

/** How long a cut stream may take to read its last line before its connection is destroyed. */
const CUT_GRACE_MS = 1000;

/**
 * The shape of a game stream's lines: the seed's own (`gameFull` with a GameFull, then the change's `gameState`
 * event) or another API's (lichess's, DECISIONS §17). `line` is called once per change for all the dialect's streams.
 */
export interface StreamDialect {
  first(game: Game, now: number): object | Promise<object>;
  line(change: GameChange): string;
  /** The stream ends once the line showing the game over is out (lichess's streams do); the seed's never end. */
  endsWhenOver?: boolean;
}

export const SEED_DIALECT: StreamDialect = {
  first: (game, now) => ({ type: 'gameFull', game: gameFullOf(game, now) }),
  line: change => eventJsonOf(change.event),
};

const line = (event: GameEvent): Buffer => Buffer.from(`${JSON.stringify(event)}\n`);

export const streamErrorLine = (
  code: 'SERVER_SHUTDOWN' | 'SLOW_CONSUMER' | 'RESYNC_REQUIRED' | ErrorCode,
  message: string,
): Buffer => line({ type: 'error', error: { code, message } });

/**
 * The last line of a stream whose beginning failed after its head went out (DECISIONS §16a): the store's
 * UNAVAILABLE, or another refusal with its code, as the request's error would have said; anything else INTERNAL.
 */
const openingFailedLine = (error: unknown): Buffer =>
  error instanceof DomainError
    ? streamErrorLine(error.code, error.message)
    : streamErrorLine('INTERNAL', 'the stream could not be opened');

class Stream {
  wroteSinceTick = true;
  silentTicks = 0; // ticks of the heartbeat timer since the stream's last line, roughly (see heartbeat)
  closed = false;
  unsubscribe: (() => void) | undefined;
  socket: Socket | undefined; // set once chunks may be written to it directly
  release: (() => void) | undefined; // lets go of the owner, if any
  game: GameStreamOf | undefined; // set on a game stream that takes extra lines, with its first line

  constructor(
    readonly res: ServerResponse,
    readonly client: string,
    readonly owner: string | undefined,
  ) {}
}

/** What a game stream follows: its game, its dialect, and the kinds of extra lines it takes (see sendExtra). */
interface GameStreamOf {
  gameId: string;
  dialect: StreamDialect;
  extras: ReadonlySet<string>;
}

export class StreamHub {
  private readonly options: StreamHubOptions;
  private readonly streams = new Set<Stream>();
  private readonly perClient = new Map<string, number>();
  private readonly byOwner = new Map<string, Set<Stream>>();
  /** The game streams of each game that take extra lines. */
  private readonly byGame = new Map<string, Set<Stream>>();
  /** Each change is serialized once per dialect, whatever the number of streams it goes to. */
  private readonly frames = new Map<StreamDialect, WeakMap<GameChange, Frame>>();
  private readonly timer: NodeJS.Timeout;
  private closing = false;
  private uncounted = 0; // events written since the last report to onEventSent
  // Changes are written to the streams on the next turn of the event loop, all at once: the request that
  // made the change gets its answer first instead of waiting for the fan-out.
  private queuedStreams: Stream[] = [];
  private queuedFrames: Frame[] = [];

  constructor(options: StreamHubOptions) {
    this.options = options;
    // Ticks at half the period: a stream silent for two ticks in a row gets its empty line, so that no stream is
    // silent for longer than the period, wherever its last line fell between two ticks.
    this.timer = setInterval(() => this.heartbeat(), options.heartbeatMs / 2);
    this.timer.unref();
  }

  get size(): number {
    return this.streams.size;
  }

  /** Streams open now for one client (its address or token). */
  streamsOf(client: string): number {
    return this.perClient.get(client) ?? 0;
  }

  /**
   * Starts streaming a game on a response whose head is written: the snapshot as `gameFull`, then every
   * change after the snapshot's version, which the bus guarantees once each and in order. `owner`: the hash of the
   * player token the stream was opened with, if any (see endOwnedBy). `dialect`: the shape of the lines (the seed's by
   * default); `extras`: the kinds of lines beside the changes the stream takes (see sendExtra) in the snapshot's game,
   * e.g. the chat rooms its reader reads; `alongside`: lines of the stream's own from elsewhere (the opponent's
   * presence), sent after the first one, until it closes.
   */
  attach(
    gameId: string,
    res: ServerResponse,
    client: string,
    snapshot: () => Promise<Game>,
    owner?: string,
    dialect: StreamDialect = SEED_DIALECT,
    extras: (game: Game) => readonly string[] = () => [],
    alongside?: (send: (line: object) => void) => () => void,
  ): Promise<void> {
    return this.open(res, client, owner, async stream => {
      const game = await snapshot();
      const now = this.options.now ?? Date.now;
      const first = await dialect.first(game, now());
      if (stream.closed) return;
      // Extra lines are queued, so any sent from here on go out after the first line.
      const kinds = extras(game);
      if (kinds.length > 0) this.follow(stream, { gameId, dialect, extras: new Set(kinds) });
      this.write(stream, frame(Buffer.from(`${JSON.stringify(first)}\n`)));
      if (dialect.endsWhenOver && isOver(game)) return this.finish(stream);
      this.started(stream);
      stream.unsubscribe = this.options.bus.subscribe(
        gameId,
        game.record.version,
        change => {
          this.enqueue(stream, this.frameOf(change, dialect));
          // After the flush the enqueue scheduled, so that the change's request is still answered first.
          if (dialect.endsWhenOver && ENDED_STATUSES.has(change.event.state.status)) {
            setImmediate(() => this.finish(stream));
          }
        },
        () =>
          this.end(
            stream,
            streamErrorLine('RESYNC_REQUIRED', 'changes of this game were missed: open the stream again'),
          ),
      );
      // Lines from elsewhere than the game's changes (the opponent's presence), after the first line.
      if (alongside) {
        const offChanges = stream.unsubscribe;
        const offAlongside = alongside(line => this.enqueue(stream, frame(Buffer.from(`${JSON.stringify(line)}\n`))));
        stream.unsubscribe = () => {
          offChanges();
          offAlongside();
        };
      }
    });
  }

  /**
   * Starts a stream of other events on a response whose head is written (a player's events): `start` sends the
   * first lines with `send`, may end the stream with `end` (what was sent goes out first), and returns how to stop
   * following; the hub adds heartbeats, the slow-consumer cut, the per-client count, the shutdown line and the end
   * with the owner's token (`owner`, see endOwnedBy), as for game streams.
   */
  attachFeed(
    res: ServerResponse,
    client: string,
    owner: string | undefined,
    start: (send: (event: object) => void, end: (finished?: boolean) => void) => Promise<() => void>,
  ): Promise<void> {
    return this.open(res, client, owner, async stream => {
      const send = (event: object) => this.enqueue(stream, frame(Buffer.from(`${JSON.stringify(event)}\n`)));
      // Finished: all was said, and the reader takes its time to read it; else cut (what was sent goes out first).
      const end = (finished = false) => {
        if (stream.closed || !this.streams.has(stream)) return;
        if (finished) this.finish(stream);
        else this.end(stream, Buffer.alloc(0));
      };
      const stop = await start(send, end);
      if (stream.closed) return stop();
      this.flush(); // the first lines go out now, with the head
      stream.res.flushHeaders(); // and the head also when there were none
      this.started(stream);
      stream.unsubscribe = stop;
    });
  }

  /**
   * Adds a stream on `res` and runs `begin`. A stream whose beginning fails (its opening reads: the store
   * unreachable) ends with an error line saying why, never silently: its head is out, so this is all the client
   * learns (DECISIONS §16a).
   */
  private async open(
    res: ServerResponse,
    client: string,
    owner: string | undefined,
    begin: (stream: Stream) => Promise<void>,
  ): Promise<void> {
    const stream = new Stream(res, client, owner);
    // The client may have gone while the request waited: its 'close' has been emitted already.
    if (res.closed || res.destroyed) return;
    if (this.closing) {
      res.end(streamErrorLine('SERVER_SHUTDOWN', 'the server is shutting down'));
      this.count(1);
      return;
    }
    this.add(stream);
    res.on('close', () => this.remove(stream));
    try {
      await begin(stream);
    } catch (error) {
      if (stream.closed) return; // the client went away meanwhile
      this.end(stream, openingFailedLine(error));
    }
  }

  /** The head went out with the first line; from now on the response is a series of chunks on this socket. */
  private started(stream: Stream): void {
    if (stream.res.chunkedEncoding && stream.res.socket) stream.socket = stream.res.socket;
  }

  /**
   * Ends every stream opened with the player token of this hash (it was revoked), each with `last` (an error line),
   * as a slow consumer is cut: what was delivered before goes out first, then the line, then the end.
   */
  endOwnedBy(owner: string, last: Buffer): void {
    for (const stream of [...(this.byOwner.get(owner) ?? [])]) this.end(stream, last);
  }

  /**
   * Sends a line that is no change of the game (a chat line) to the game's streams in `dialect` that take lines of
   * `kind`, after whatever changes were sent to them before. A stream gets those sent from its first line on.
   */
  sendExtra(gameId: string, dialect: StreamDialect, kind: string, event: object): void {
    const streams = this.byGame.get(gameId);
    if (!streams) return;
    let framed: Frame | undefined;
    for (const stream of streams) {
      if (stream.game?.dialect !== dialect || !stream.game.extras.has(kind)) continue;
      framed ??= frame(Buffer.from(`${JSON.stringify(event)}\n`));
      this.enqueue(stream, framed);
    }
  }

  private follow(stream: Stream, game: GameStreamOf): void {
    stream.game = game;
    const streams = this.byGame.get(game.gameId);
    if (streams) streams.add(stream);
    else this.byGame.set(game.gameId, new Set([stream]));
  }

  /**
   * Sends SERVER_SHUTDOWN to every stream and ends them; resolves when all are closed, destroying after
   * `graceMs` the connections of clients that do not read their last line.
   */
  async close(graceMs = 2000): Promise<void> {
    this.closing = true;
    clearInterval(this.timer);
    this.flush();
    const bye = streamErrorLine('SERVER_SHUTDOWN', 'the server is shutting down');
    const responses = [...this.streams].map(stream => stream.res);
    const closed = responses.map(res =>
      res.closed ? Promise.resolve() : new Promise<void>(resolve => res.once('close', () => resolve())),
    );
    for (const stream of [...this.streams]) this.remove(stream);
    for (const res of responses) res.end(bye);
    this.count(responses.length);
    const grace = setTimeout(() => {
      for (const res of responses) res.destroy();
    }, graceMs);
    await Promise.all(closed);
    clearTimeout(grace);
  }

  private frameOf(change: GameChange, dialect: StreamDialect): Frame {
    let frames = this.frames.get(dialect);
    if (!frames) {
      frames = new WeakMap();
      this.frames.set(dialect, frames);
    }
    let framed = frames.get(change);
    if (!framed) {
      framed = frame(Buffer.from(`${dialect.line(change)}\n`));
      frames.set(change, framed);
    }
    return framed;
  }

  private add(stream: Stream): void {
    this.streams.add(stream);
    this.perClient.set(stream.client, this.streamsOf(stream.client) + 1);
    if (stream.owner !== undefined) {
      const owned = this.byOwner.get(stream.owner);
      if (owned) owned.add(stream);
      else this.byOwner.set(stream.owner, new Set([stream]));
      stream.release = this.options.holdOwner?.(stream.owner);
    }
    this.options.onOpenStreamsChanged?.(this.streams.size);
  }

  private remove(stream: Stream): void {
    if (stream.closed) return;
    stream.closed = true;
    stream.unsubscribe?.();
    if (this.streams.delete(stream)) {
      const left = this.streamsOf(stream.client) - 1;
      if (left > 0) this.perClient.set(stream.client, left);
      else this.perClient.delete(stream.client);
      if (stream.owner !== undefined) {
        const owned = this.byOwner.get(stream.owner);
        owned?.delete(stream);
        if (owned?.size === 0) this.byOwner.delete(stream.owner);
        stream.release?.();
      }
      if (stream.game) {
        const streams = this.byGame.get(stream.game.gameId);
        streams?.delete(stream);
        if (streams?.size === 0) this.byGame.delete(stream.game.gameId);
      }
      this.options.onOpenStreamsChanged?.(this.streams.size);
    }
  }

  private enqueue(stream: Stream, framed: Frame): void {
    if (this.queuedStreams.length === 0) setImmediate(() => this.flush());
    this.queuedStreams.push(stream);
    this.queuedFrames.push(framed);
  }

  private flush(): void {
    const streams = this.queuedStreams;
    const frames = this.queuedFrames;
    if (streams.length === 0) return;
    this.queuedStreams = [];
    this.queuedFrames = [];
    for (let i = 0; i < streams.length; i++) this.write(streams[i]!, frames[i]!);
  }

  private write(stream: Stream, framed: Frame): boolean {
    if (stream.closed) return false;
    const { res, socket } = stream;
    if (res.writableLength > this.options.maxBacklogBytes) {
      this.options.onSlowConsumer?.();
      this.end(stream, streamErrorLine('SLOW_CONSUMER', 'the client did not read the stream fast enough'));
      return false;
    }
    stream.wroteSinceTick = true;
    if (socket) socket.write(framed.chunk);
    else res.write(framed.line);
    if (framed !== HEARTBEAT) this.count(1);
    return true;
  }

  /** Reports written events to onEventSent once per burst of writes, not once per stream. */
  private count(events: number): void {
    if (!this.options.onEventSent || events === 0) return;
    if (this.uncounted === 0) {
      queueMicrotask(() => {
        const sent = this.uncounted;
        this.uncounted = 0;
        this.options.onEventSent?.(sent);
      });
    }
    this.uncounted += events;
  }

  /** Ends a stream with a last error line, if the socket takes it, and lets go of its backlog. */
  private end(stream: Stream, last: Buffer): void {
    const { res } = stream;
    this.flush(); // what was delivered before the end goes out before the last line
    this.remove(stream);
    res.end(last);
    this.count(1);
    setTimeout(() => res.destroy(), CUT_GRACE_MS).unref();
  }

  /** Ends a stream that has said all it had to say: its lines go out, then the end of the response. */
  private finish(stream: Stream): void {
    if (stream.closed) return;
    this.flush();
    this.remove(stream);
    stream.res.end();
  }

  private heartbeat(): void {
    this.flush(); // a stream with a change on its way is not idle
    for (const stream of this.streams) {
      // A line since the last tick: at most half a period ago, so the tick after next is at most a period after it.
      if (stream.wroteSinceTick) stream.silentTicks = 1;
      else if (++stream.silentTicks >= 2 && stream.unsubscribe) {
        this.write(stream, HEARTBEAT);
        stream.silentTicks = 0;
      }
      stream.wroteSinceTick = false;
    }
  }
}
