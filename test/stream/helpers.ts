/**
 * Helpers for stream tests over real sockets: an app listening on a free port, an NDJSON client that keeps
 * every line it reads, a client that never reads, and waiting for conditions instead of sleeping.
 *
 * ```ts
 * const server = await listenApp(t, { heartbeatMs: 50 });
 * const stream = await openStream(`${server.url}/api/board/game/${id}/stream`);
 * await stream.waitForEvents(1); // the gameFull
 * ```
 */
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from '../../src/http/app.ts';
import { createMetrics, type Metrics } from '../../src/http/metrics.ts';
import { timedStore } from '../../src/store/timed.ts';
import { GameService } from '../../src/service/games.ts';
import { ChangeFeed } from '../../src/bus/feed.ts';
import { newGameId } from '../../src/service/ids.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import type { GameStore } from '../../src/store/store.ts';
import type { Result } from '../../src/domain/errors.ts';
import { newGame, type Change, type Game } from '../../src/domain/game.ts';
import { drawAction, makeMove, undo } from '../../src/domain/transitions.ts';
import { legalMovesOf } from '../../src/domain/views.ts';
import { checkerOf, type ResponseChecker } from '../helpers/app.ts';

/** Generous bounds: these tests must pass on a loaded two-core machine. */
export const WAIT_MS = 15_000;

export interface ListeningApp {
  app: FastifyInstance;
  games: GameService;
  store: GameStore;
  metrics: Metrics;
  /** The streams open now, as the app reports them (its `streams_open` metric). */
  openStreams(): number;
  url: string;
  /** `${url}/api/board/game/${id}/stream` */
  streamUrl(id: string): string;
  /** Opens a stream that is closed (client side) when the test ends. */
  open(id: string, options?: StreamOptions): Promise<StreamClient>;
}

export type AppOptions = Partial<Omit<AppDeps, 'games' | 'store' | 'bus' | 'metrics'>> & { store?: GameStore };

/** The app with an in-memory SQLite store, listening on 127.0.0.1 on a free port; closed after the test. */
export async function listenApp(t: TestContext, options: AppOptions = {}): Promise<ListeningApp> {
  const { store: given, ...deps } = options;
  const metrics = createMetrics();
  // The metric's last value, kept as the app sets it, for the tests that wait for streams to open or close.
  let openStreams = 0;
  const setOpenStreams = metrics.openStreams.set.bind(metrics.openStreams);
  metrics.openStreams.set = ((value: number) => {
    openStreams = value;
    setOpenStreams(value);
  }) as typeof metrics.openStreams.set;
  const store = timedStore(given ?? SqliteGameStore.open(':memory:'), () => metrics.storeCommit.startTimer());
  const bus = new ChangeFeed(store);
  const games = new GameService({ store, bus, newId: newGameId, clock: () => new Date() });
  const app = await buildApp({ maxStreamsPerClient: 0, ...deps, games, store, bus, metrics });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const url = `http://127.0.0.1:${address.port}`;
  const clients: StreamClient[] = [];
  t.after(async () => {
    for (const client of clients) client.close();
    await app.close();
  });
  const streamUrl = (id: string) => `${url}/api/board/game/${id}/stream`;
  return {
    app,
    games,
    store,
    metrics,
    openStreams: () => openStreams,
    url,
    streamUrl,
    open: async (id, streamOptions) => {
      const client = await openStream(streamUrl(id), streamOptions);
      clients.push(client);
      return client;
    },
  };
}

export interface StreamOptions {
  headers?: Record<string, string>;
}

/** One open HTTP response read line by line. Non-200 answers are read whole into `body`. */
export interface StreamClient {
  status: number;
  headers: IncomingHttpHeaders;
  /** Every complete line in order; '' is a heartbeat. */
  lines: string[];
  /** When each line arrived (performance.now()). */
  times: number[];
  /** The parsed non-empty lines. */
  events: any[];
  /** The whole body, for answers that are not streams. */
  body: string;
  /** Bytes after the last newline when the response ended (a cut line). */
  rest: string;
  /** Set once the response has ended or its connection closed. */
  done: boolean;
  /** Resolves when the response has ended or its connection closed: 'end' for a clean end. */
  finished: Promise<'end' | 'aborted'>;
  waitFor(condition: () => boolean, what: string, ms?: number): Promise<void>;
  waitForEvents(count: number, ms?: number): Promise<any[]>;
  /** Closes the connection from the client side. */
  close(): void;
}

const documents = new Map<string, Promise<ResponseChecker>>();

/** The OpenAPI document a server serves, read once per server (it costs the test process no app of its own). */
function documentChecker(origin: string): Promise<ResponseChecker> {
  let document = documents.get(origin);
  if (!document) {
    document = fetch(`${origin}/openapi.json`).then(async res => {
      assert.equal(res.status, 200, `GET ${origin}/openapi.json`);
      return checkerOf(await res.text());
    });
    documents.set(origin, document);
  }
  return document;
}

/** Lines of streams that did not match their schema in the OpenAPI document; none may be left at the end. */
const offSchema: string[] = [];
/** Checks not done yet: the document is read while the first stream opens, never before it. */
const checking = new Set<Promise<void>>();
const settledChecks = async (): Promise<string[]> => {
  while (checking.size > 0) await Promise.all(checking);
  return offSchema;
};
after(async () =>
  assert.deepEqual(await settledChecks(), [], 'every stream line matches its schema in the OpenAPI document'),
);

/**
 * GET a stream on a fresh connection; resolves once the status line and headers are in. Every line read is checked
 * against the schema of the operation's lines in the OpenAPI document (DECISIONS §19), without delaying the stream:
 * `waitFor` and the end of the test file report a line that does not match.
 */
export function openStream(url: string, options: StreamOptions = {}): Promise<StreamClient> {
  const { origin, pathname } = new URL(url);
  const document = documentChecker(origin);
  const check = (event: unknown) => {
    const done = document.then(checker => {
      const operation = checker.operation('GET', pathname);
      const schema = operation?.responses['200']?.content?.['application/x-ndjson']?.schema;
      const errors = schema === undefined ? undefined : checker.schemaErrors(schema, event);
      if (errors !== undefined) offSchema.push(`GET ${pathname}: ${errors}: ${JSON.stringify(event)}`);
    });
    checking.add(done);
    void done.finally(() => checking.delete(done));
  };
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      agent: false,
      headers: { accept: 'application/x-ndjson', ...options.headers },
    });
    req.once('error', reject);
    req.once('response', (res: IncomingMessage) => {
      const client = readLines(res, () => req.destroy(), check);
      req.removeListener('error', reject);
      req.on('error', () => undefined); // a reset after the end is reported through `finished`
      resolve(client);
    });
    req.end();
  });
}

function readLines(res: IncomingMessage, destroy: () => void, check: (event: unknown) => void): StreamClient {
  let buffered = '';
  let settle: (how: 'end' | 'aborted') => void = () => undefined;
  const finished = new Promise<'end' | 'aborted'>(resolve => (settle = resolve));
  const client: StreamClient = {
    status: res.statusCode ?? 0,
    headers: res.headers,
    lines: [],
    times: [],
    events: [],
    body: '',
    rest: '',
    done: false,
    finished,
    waitFor: async (condition, what, ms = WAIT_MS) => {
      await waitUntil(condition, () => `${what}; lines so far:\n${client.lines.slice(-5).join('\n')}`, ms);
      assert.deepEqual(await settledChecks(), [], 'every stream line matches its schema in the OpenAPI document');
    },
    waitForEvents: async (count, ms = WAIT_MS) => {
      await client.waitFor(() => client.events.length >= count, `${count} events`, ms);
      return client.events.slice(0, count);
    },
    close: destroy,
  };
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    if (client.status !== 200) {
      client.body += chunk;
      return;
    }
    buffered += chunk;
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      client.lines.push(line);
      client.times.push(performance.now());
      if (line !== '') {
        const event: unknown = JSON.parse(line);
        check(event);
        client.events.push(event);
      }
      newline = buffered.indexOf('\n');
    }
  });
  const finish = (how: 'end' | 'aborted') => {
    if (client.done) return;
    client.done = true;
    client.rest = buffered;
    settle(how);
  };
  res.once('end', () => finish('end'));
  res.once('aborted', () => finish('aborted'));
  res.once('error', () => finish('aborted'));
  res.once('close', () => finish(res.complete ? 'end' : 'aborted'));
  return client;
}

/** A raw connection that sends one GET and then reads nothing until `resume()`. */
export interface SilentClient {
  socket: Socket;
  /** Starts reading; resolves with everything received once the server closes the connection. */
  resume(): Promise<{ raw: string; closedBy: 'end' | 'error' }>;
  /** Whether the socket is closed. */
  readonly closed: boolean;
}

export async function openSilentClient(url: string): Promise<SilentClient> {
  const { hostname, port, pathname } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.pause();
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write(`GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: application/x-ndjson\r\n\r\n`);
  let closed = false;
  socket.once('close', () => (closed = true));
  return {
    socket,
    get closed() {
      return closed;
    },
    resume: () =>
      new Promise(resolve => {
        const chunks: Buffer[] = [];
        let closedBy: 'end' | 'error' = 'end';
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.once('error', () => (closedBy = 'error'));
        socket.once('close', () => resolve({ raw: Buffer.concat(chunks).toString('utf8'), closedBy }));
        socket.resume();
      }),
  };
}

/** The NDJSON lines of a chunked HTTP/1.1 response as read from a raw socket (head removed, chunks joined). */
export function dechunk(raw: string): { head: string; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = split < 0 ? raw : raw.slice(0, split);
  let rest = split < 0 ? '' : raw.slice(split + 4);
  let body = '';
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    if (lineEnd < 0) break;
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!Number.isFinite(size) || size === 0) break;
    const chunk = rest.slice(lineEnd + 2, lineEnd + 2 + size);
    body += chunk;
    if (chunk.length < size) break; // the connection was cut inside this chunk
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
  return { head, body };
}

/** Polls `condition` until it holds; fails after `ms` with `what()` in the message. */
export async function waitUntil(condition: () => boolean, what: () => string, ms = WAIT_MS): Promise<void> {
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what()}`);
    await new Promise(resolve => setTimeout(resolve, 5));
  }
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition. */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample named `name` whose labels include `labels`; 0 when there is none. */
export function metricValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter(
    sample => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

/**
 * A game of `length` changes computed with the domain: legal moves chosen by a seeded generator, some taken
 * back and replaced by another move, some preceded by a draw offer (which the move clears). Every state of it
 * is different (the move list grows, or a flag shows the undo or the offer), so a snapshot names one point.
 */
export function scriptedChanges(length: number, seed = 12345): ((game: Game) => Result<Change>)[] {
  const random = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  let game = newGame({ id: 'AAAAAAAA', createdAt: '2026-01-01T00:00:00.000Z' });
  const script: ((game: Game) => Result<Change>)[] = [];
  const push = (transition: (game: Game) => Result<Change>) => {
    const result = transition(game);
    if (!result.ok) throw new Error(`script: ${result.error.message}`);
    game = result.value.game;
    script.push(transition);
  };
  /** Plays a random legal move other than `except`; false when there is none. */
  const move = (except?: string): boolean => {
    const moves = legalMovesOf(game).filter(m => m.uci !== except);
    if (moves.length === 0) return false;
    const uci = moves[random(moves.length)]!.uci;
    push(g => makeMove(g, uci));
    return true;
  };
  while (script.length < length) {
    if (legalMovesOf(game).length === 0) {
      // The game ended (mate, stalemate, a draw by rule): take moves back until another move can be played.
      let last: string | undefined;
      do {
        last = game.record.moves.at(-1);
        push(g => undo(g));
      } while (!move(last));
      continue;
    }
    const choices = legalMovesOf(game).length;
    move();
    const extra = random(5);
    if (extra === 0 && choices > 1) {
      const played = game.record.moves.at(-1);
      push(g => undo(g));
      move(played);
    } else if (extra === 1 && legalMovesOf(game).length > 0) {
      push(g => drawAction(g, 'offer'));
    }
  }
  return script.slice(0, length);
}
