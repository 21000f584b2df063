/**
 * What the fuzz tests share: an app whose every answer is checked (never 5xx; a 4xx is an ApiError whose status
 * matches its code; a 2xx matches the OpenAPI document), a pool of games in every kind of state, the check that
 * a refused request leaves its game byte-identical, and generators of inputs: mutations of valid UCI, squares,
 * ids, FENs and PGNs, random games, JSON of every shape and raw bytes.
 *
 * FUZZ_RUNS sets the runs per property (default 2,500); FUZZ_SEED replays a failing run.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { Chess } from 'chessops/chess';
import { makeSanAndPlay } from 'chessops/san';
import { squareRank } from 'chessops/util';
import type { NormalMove } from 'chessops/types';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import { json, makeTestApp, responseChecker, type ResponseChecker, type TestApp } from '../helpers/app.ts';
import { ERROR_STATUS, type ErrorCode } from '../../src/contract/vocabulary.ts';
import type { PlayerInfo } from '../../src/contract/shapes.ts';

export const RUNS = Math.max(1, Number(process.env.FUZZ_RUNS ?? 2500));
export const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

/** fast-check parameters: stop at the first failure (shrinking through HTTP is slow), print the seed. */
export const params = (numRuns = RUNS): fc.Parameters<unknown> => ({
  numRuns,
  endOnFailure: true,
  ...(SEED === undefined ? {} : { seed: SEED }),
});

export const BASE = '/api/board/game';

// ---------------------------------------------------------------------------------------------------------
// The app and its checks

export interface FuzzApp extends TestApp {
  checker: ResponseChecker;
  /** Ids of every game the store was asked to create. */
  created: string[];
  /** Requests sent, for the report. */
  sent: { count: number };
}

export async function makeFuzzApp(options: { tokens?: string[] } = {}): Promise<FuzzApp> {
  const store = SqliteGameStore.open(':memory:');
  const created: string[] = [];
  const create = store.create.bind(store);
  store.create = async record => {
    created.push(record.id);
    return create(record);
  };
  const testApp = await makeTestApp({ store, ...options });
  return { ...testApp, checker: await responseChecker(testApp.app), created, sent: { count: 0 } };
}

/** A request in a failure message: method, URL, the start of the payload and the headers. */
export function describeRequest(request: InjectOptions): string {
  const url = typeof request.url === 'string' ? request.url : JSON.stringify(request.url);
  const { payload } = request;
  const text = Buffer.isBuffer(payload)
    ? payload.toString('utf8')
    : typeof payload === 'string'
      ? payload
      : JSON.stringify(payload);
  const body = payload === undefined ? '' : ` payload=${JSON.stringify(text.slice(0, 300))}`;
  return `${request.method ?? 'GET'} ${url}${body} headers=${JSON.stringify(request.headers ?? {})}`;
}

/** Sends a request and checks the answer: never 5xx, an ApiError for 4xx, the document's schema for 2xx. */
export async function send(fuzz: FuzzApp, request: InjectOptions): Promise<LightMyRequestResponse> {
  fuzz.sent.count++;
  const res = await fuzz.app.inject(request);
  assert.ok(res.statusCode < 500, `${res.statusCode} for ${describeRequest(request)}: ${res.body}`);
  assert.ok(res.statusCode >= 200, `${res.statusCode} for ${describeRequest(request)}`);
  try {
    fuzz.checker.check(res);
  } catch (error) {
    throw new Error(`${describeRequest(request)}: ${(error as Error).message}`, { cause: error });
  }
  return res;
}

/** What a client reads about a game, byte for byte, and its stored version. */
async function readGame(fuzz: FuzzApp, id: string, headers?: Record<string, string>): Promise<string> {
  const res = await fuzz.app.inject({ url: `${BASE}/${id}`, ...(headers ? { headers } : {}) });
  assert.equal(res.statusCode, 200, `GET ${id}: ${res.body}`);
  return `${res.body}\nversion ${(await fuzz.store.get(id))!.version}`;
}

/**
 * Sends a request about game `id` and checks it: after a 4xx the game reads byte-identical and no game was
 * created. Returns the answer; `changed` tells whether the game may have changed (a 2xx).
 */
export async function sendAbout(
  fuzz: FuzzApp,
  id: string,
  request: InjectOptions,
  headers?: Record<string, string>,
): Promise<LightMyRequestResponse> {
  const before = await readGame(fuzz, id, headers);
  const games = fuzz.created.length;
  const res = await send(fuzz, request);
  if (res.statusCode >= 400) {
    const after = await readGame(fuzz, id, headers);
    assert.equal(after, before, `${describeRequest(request)} -> ${res.statusCode} changed game ${id}`);
    assert.equal(fuzz.created.length, games, `${describeRequest(request)} -> ${res.statusCode} created a game`);
  }
  return res;
}

/** Sends a request that may create a game; after a 4xx, checks that none was created. */
export async function sendCreating(fuzz: FuzzApp, request: InjectOptions): Promise<LightMyRequestResponse> {
  const games = fuzz.created.length;
  const res = await send(fuzz, request);
  if (res.statusCode >= 400) {
    assert.equal(fuzz.created.length, games, `${describeRequest(request)} -> ${res.statusCode} created a game`);
  }
  return res;
}

// ---------------------------------------------------------------------------------------------------------
// A pool of games in every kind of state, recreated when a request changed one

export interface PoolGame {
  kind: string;
  id: string;
}

/** How to reach each kind of state: a FEN (or the start) and requests after it. */
export const GAME_RECIPES: Array<{ kind: string; fen?: string; steps: string[] }> = [
  { kind: 'start', steps: [] },
  { kind: 'opening with redo', steps: ['move/e2e4', 'move/e7e5', 'move/g1f3', 'move/b8c6', 'undo', 'undo'] },
  { kind: 'castling both sides', fen: 'r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1', steps: [] },
  { kind: 'en passant', fen: 'rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3', steps: [] },
  { kind: 'promotion pending', fen: '1n6/P6k/8/8/8/8/8/K7 w - - 0 40', steps: ['move/a7b8'] },
  { kind: 'draw offered', steps: ['move/d2d4', 'draw/offer'] },
  { kind: 'fifty-move claim', fen: '7k/8/8/8/8/8/8/K5R1 w - - 99 80', steps: ['move/g1g2'] },
  { kind: 'check', steps: ['move/e2e4', 'move/f7f6', 'move/d1h5'] },
  { kind: 'checkmate', steps: ['move/f2f3', 'move/e7e5', 'move/g2g4', 'move/d8h4'] },
  { kind: 'stalemate', fen: '7k/5Q2/6K1/8/8/8/8/8 b - - 0 1', steps: [] },
  { kind: 'resigned', steps: ['move/e2e4', 'resign'] },
  { kind: 'agreed draw', steps: ['draw/offer', 'draw/accept'] },
  { kind: 'black to move', fen: 'r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 3 20', steps: [] },
];

export class GamePool {
  private games: PoolGame[] = [];
  private readonly dirty = new Set<number>();

  constructor(
    private readonly fuzz: FuzzApp,
    private readonly headers: Record<string, string> = {},
    private readonly players: { white?: PlayerInfo; black?: PlayerInfo } = {}, // the games' seats
  ) {}

  async init(): Promise<this> {
    for (let i = 0; i < GAME_RECIPES.length; i++) this.games.push(await this.make(i));
    return this;
  }

  get ids(): string[] {
    return this.games.map(game => game.id);
  }

  /** The game of recipe `index`, in its recipe's state (recreated if a request changed it). */
  async get(index: number): Promise<PoolGame> {
    const i = index % this.games.length;
    if (this.dirty.has(i)) {
      this.games[i] = await this.make(i);
      this.dirty.delete(i);
    }
    return this.games[i]!;
  }

  /** Marks the game of recipe `index` as changed. */
  changed(index: number): void {
    this.dirty.add(index % this.games.length);
  }

  private async make(index: number): Promise<PoolGame> {
    const recipe = GAME_RECIPES[index]!;
    const { app } = this.fuzz;
    const created = recipe.fen
      ? await app.inject({
          method: 'POST',
          url: `${BASE}/import/fen`,
          payload: { fen: recipe.fen, ...this.players },
          headers: this.headers,
        })
      : await app.inject({ method: 'POST', url: BASE, payload: this.players, headers: this.headers });
    assert.equal(created.statusCode, 201, created.body);
    const id = json(created).gameId as string;
    for (const step of recipe.steps) {
      const res = await app.inject({ method: 'POST', url: `${BASE}/${id}/${step}`, headers: this.headers });
      assert.equal(res.statusCode, 200, `${recipe.kind}: ${step}: ${res.body}`);
    }
    return { kind: recipe.kind, id };
  }
}

// ---------------------------------------------------------------------------------------------------------
// Text mutations

type Edit =
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'replace'; at: number; text: string }
  | { kind: 'duplicate'; at: number; length: number }
  | { kind: 'swap'; at: number; other: number }
  | { kind: 'truncate'; at: number };

const position = fc.nat({ max: 1 << 20 });

/** Edits that insert `pieces` (and now and then arbitrary text), delete, duplicate, swap or truncate. */
function edits(pieces: fc.Arbitrary<string>, maxEdits: number): fc.Arbitrary<Edit[]> {
  const text = fc.oneof(
    { weight: 6, arbitrary: pieces },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) },
    { weight: 1, arbitrary: fc.constantFrom(' ', '  ', '\t', '\n', '\r\n', '\u0000', '\u00a0', '\u2028', '\ufeff') },
  );
  const edit: fc.Arbitrary<Edit> = fc.oneof(
    fc.record({ kind: fc.constant('insert' as const), at: position, text }),
    fc.record({ kind: fc.constant('delete' as const), at: position, length: fc.integer({ min: 1, max: 6 }) }),
    fc.record({ kind: fc.constant('replace' as const), at: position, text }),
    fc.record({ kind: fc.constant('duplicate' as const), at: position, length: fc.integer({ min: 1, max: 12 }) }),
    fc.record({ kind: fc.constant('swap' as const), at: position, other: position }),
    fc.record({ kind: fc.constant('truncate' as const), at: position }),
  );
  return fc.array(edit, { minLength: 1, maxLength: maxEdits });
}

function applyEdits(source: string, list: readonly Edit[]): string {
  let text = source;
  for (const edit of list) {
    const at = text.length === 0 ? 0 : edit.at % (text.length + 1);
    switch (edit.kind) {
      case 'insert':
        text = text.slice(0, at) + edit.text + text.slice(at);
        break;
      case 'delete':
        text = text.slice(0, at) + text.slice(at + edit.length);
        break;
      case 'replace':
        text = text.slice(0, at) + edit.text + text.slice(at + edit.text.length);
        break;
      case 'duplicate':
        text = text.slice(0, at + edit.length) + text.slice(at, at + edit.length) + text.slice(at + edit.length);
        break;
      case 'swap': {
        if (text.length < 2) break;
        const i = at % text.length;
        const j = edit.other % text.length;
        const chars = [...text];
        if (i < chars.length && j < chars.length) [chars[i], chars[j]] = [chars[j]!, chars[i]!];
        text = chars.join('');
        break;
      }
      case 'truncate':
        text = text.slice(0, at);
        break;
    }
  }
  return text;
}

/** Strings made from `sources` by a few edits that insert `pieces`; the sources themselves now and then. */
export function mutationsOf(sources: fc.Arbitrary<string>, pieces: fc.Arbitrary<string>, maxEdits = 4) {
  return fc.oneof(
    { weight: 1, arbitrary: sources },
    { weight: 6, arbitrary: fc.tuple(sources, edits(pieces, maxEdits)).map(([text, list]) => applyEdits(text, list)) },
  );
}

export const chars = (alphabet: string) => fc.constantFrom(...alphabet);

// ---------------------------------------------------------------------------------------------------------
// URL parts

/** How a fuzzed text goes into a path: fully percent-encoded, or raw where a URL allows it (so '/', '?', '%'). */
export type Encoding = 'encoded' | 'raw';

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RAW_ALLOWED = /[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]/;

export function inPath(text: string, encoding: Encoding): string {
  let out = '';
  for (const char of text) {
    const keep = encoding === 'raw' ? RAW_ALLOWED : UNRESERVED;
    out += keep.test(char)
      ? char
      : [...Buffer.from(char, 'utf8')].map(byte => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return out;
}

export const encoding: fc.Arbitrary<Encoding> = fc.constantFrom('encoded', 'encoded', 'raw');

// ---------------------------------------------------------------------------------------------------------
// Domain inputs

const FILES = 'abcdefgh';
const RANKS = '12345678';

export const wellFormedUci = fc
  .tuple(chars(FILES), chars(RANKS), chars(FILES), chars(RANKS), fc.option(chars('qrbn'), { nil: '' }))
  .map(parts => parts.join(''));

const COMMON_UCI = ['e2e4', 'e7e5', 'g1f3', 'e1g1', 'e1c1', 'e8g8', 'e8c8', 'a7a8q', 'a7b8n', 'e5f6', 'h5f7', 'g1g2'];

export const uciText = mutationsOf(
  fc.oneof(wellFormedUci, fc.constantFrom(...COMMON_UCI)),
  fc.oneof(chars(`${FILES}${RANKS}qrbnkpQRBNKP09xX-=+#/%.?`), wellFormedUci),
);

export const squareText = mutationsOf(
  fc.tuple(chars(FILES), chars(RANKS)).map(([f, r]) => f + r),
  chars(`${FILES}${RANKS}09iIzZ-/%&=?`),
  3,
);

const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const wellFormedId = fc.string({ unit: chars(ID_CHARS), minLength: 8, maxLength: 8 });

export const idText = (existing: string[]) =>
  mutationsOf(fc.oneof(fc.constantFrom(...existing), wellFormedId), chars(`${ID_CHARS}-_.%/ é`), 3);

/** Valid FENs of many kinds, the seeds of FEN mutations. */
export const VALID_FENS = [
  'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
  'rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3',
  'rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 2',
  'r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1',
  'r3k2r/8/8/8/8/8/8/R3K2R b Kq - 3 20',
  '1n6/P6k/8/8/8/8/8/K7 w - - 0 40',
  '7k/8/8/8/8/8/8/K5R1 w - - 99 80',
  '7k/5Q2/6K1/8/8/8/8/8 b - - 0 1',
  'rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3',
  '8/8/8/8/8/8/8/K6k w - - 0 1',
  '4k3/8/8/8/8/8/8/4K2R w K - 149 120',
  '8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1',
  'r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10',
];

const FEN_PIECES = fc.oneof(
  chars('pnbrqkPNBRQK12345678/ wb-KQkq0123456789'),
  fc.constantFrom('/8', '8/', ' - ', ' w ', ' b ', 'KQkq', 'e3', 'e6', '99', '9999', '10000', '-1', '1.5', 'X'),
);

export const fenText = mutationsOf(fc.constantFrom(...VALID_FENS), FEN_PIECES);

/** A legal game of up to `maxPlies` plies from the start, chosen by indices into each position's moves. */
export const randomGame = (maxPlies: number) =>
  fc.array(fc.nat(), { maxLength: maxPlies }).map(choices => {
    const pos = Chess.default();
    const sans: string[] = [];
    for (const choice of choices) {
      const moves: NormalMove[] = [];
      for (const [from, dests] of pos.allDests()) {
        for (const to of dests) {
          const pawn = pos.board.get(from)?.role === 'pawn';
          if (pawn && (squareRank(to) === 0 || squareRank(to) === 7)) {
            for (const promotion of ['queen', 'rook', 'bishop', 'knight'] as const) moves.push({ from, to, promotion });
          } else {
            moves.push({ from, to });
          }
        }
      }
      if (moves.length === 0 || pos.isEnd()) break;
      sans.push(makeSanAndPlay(pos, moves[choice % moves.length]!));
      if (pos.isEnd()) break;
    }
    return sans;
  });

const movetextOf = (sans: readonly string[]) =>
  sans.map((san, i) => (i % 2 === 0 ? `${i / 2 + 1}. ${san}` : san)).join(' ');

const FIXTURES = fileURLToPath(new URL('../fixtures/pgn/', import.meta.url));
export const FIXTURE_PGNS = readdirSync(FIXTURES)
  .filter(name => name.endsWith('.pgn'))
  .map(name => readFileSync(join(FIXTURES, name), 'utf8'));

const TAGS = fc.constantFrom(
  '',
  '[Event "Fuzz"]\n[White "A"]\n[Black "B"]\n\n',
  '[White "?"]\n[Black "Ünïcode \\"q\\""]\n[Result "1-0"]\n\n',
  '[Variant "Standard"]\n\n',
  '[SetUp "1"]\n[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]\n\n',
);

const PGN_PIECES = fc.oneof(
  fc.constantFrom(
    ' ',
    '\n',
    '\n\n',
    '{a comment}',
    '{',
    '}',
    '(',
    ')',
    '(1... e5)',
    '$1',
    '$',
    '!?',
    '??',
    '+',
    '#',
    '1.',
    '12...',
    '1-0',
    '0-1',
    '1/2-1/2',
    '*',
    '[Tag "v"]',
    '[',
    ']',
    '"',
    ';comment\n',
    '\n%escape\n',
    'O-O',
    '0-0-0',
    'O-O-O+',
    'e8=Q',
    'exd6',
    'Nbd7',
    'R1a3',
    'Qh4#',
    'Kxe2',
    '--',
    'Z0',
    '\u2013',
  ),
  chars('abcdefgh12345678NBRQKx=+#-.'),
);

/** PGNs: valid random games with tags and annotations, fixtures, and mutations of both. */
export const pgnText = mutationsOf(
  fc.oneof(
    fc
      .tuple(TAGS, randomGame(60), fc.constantFrom(' *', ' 1-0', ' 1/2-1/2', ''))
      .map(([tags, sans, result]) => `${tags}${movetextOf(sans)}${result}\n`),
    fc.constantFrom(...FIXTURE_PGNS),
  ),
  PGN_PIECES,
  5,
);

/** JSON of every shape, with the field names of the API's bodies used often. */
const FIELD = fc.constantFrom('white', 'black', 'fen', 'pgn', 'id', 'displayName', '__proto__', 'constructor', '');
const scalar = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', ' ', 'x'.repeat(101), 'a\u0000b', 'Player\t1', ...VALID_FENS.slice(0, 2), '1. e4 *'),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
export const jsonBody: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>(tie => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(FIELD, fc.string({ maxLength: 6 })), tie('value'), { maxKeys: 5 }),
    fc.record({ id: tie('value'), displayName: tie('value') }, { requiredKeys: [] }),
  ),
})).value;

/** Bodies for the three JSON endpoints: near misses of valid ones, and arbitrary JSON. */
export const apiBody = fc.oneof(
  jsonBody,
  fc.record(
    {
      white: fc.oneof(jsonBody, fc.record({ id: scalar, displayName: scalar }, { requiredKeys: [] })),
      black: fc.oneof(jsonBody, fc.record({ id: scalar, displayName: scalar })),
      fen: fc.oneof(scalar, fenText),
      pgn: fc.oneof(scalar, fc.constantFrom(...FIXTURE_PGNS)),
    },
    { requiredKeys: [] },
  ),
);

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;charset=latin1',
  'application/json; charset=utf-16',
  'application/jsonx',
  'application/ld+json',
  'application/problem+json',
  'text/json',
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----x',
  'application/octet-stream',
  'application/x-chess-pgn',
  '*/*',
  ';',
  '',
];

/** A Content-Type header value: a known one, one of them mutated, or none at all. */
export const contentType = fc.option(
  mutationsOf(fc.constantFrom(...CONTENT_TYPES), chars('abcdefghijklmnopqrstuvwxyz/;=-+ "*'), 2).filter(value =>
    /^[\t\x20-\x7e]*$/.test(value),
  ),
  { nil: undefined },
);

// ---------------------------------------------------------------------------------------------------------
// Raw HTTP over a socket, for requests app.inject() cannot send (bytes that are not HTTP)

/** Writes `bytes`, half-closes, and resolves with everything the server answered before closing (latin1). */
export function rawExchange(port: number, bytes: Uint8Array | string, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no end of the answer after ${timeoutMs} ms; so far: ${JSON.stringify(answer.slice(0, 300))}`));
    }, timeoutMs);
    socket.on('data', chunk => (answer += chunk.toString('latin1')));
    socket.on('error', () => undefined); // a reset after the answer is fine; the answer is judged
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
  });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The first response of a raw answer, or undefined when the server answered nothing. */
export function firstResponse(answer: string): RawResponse | undefined {
  if (answer === '') return undefined;
  const end = answer.indexOf('\r\n\r\n');
  assert.ok(end > 0, `not an HTTP response: ${JSON.stringify(answer.slice(0, 300))}`);
  const [statusLine, ...lines] = answer.slice(0, end).split('\r\n');
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine!);
  assert.ok(match, `not an HTTP status line: ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = Buffer.from(answer.slice(end + 4), 'latin1');
  const length = headers['content-length'] === undefined ? rest.length : Number(headers['content-length']);
  return { status: Number(match[1]), headers, body: rest.subarray(0, length).toString('utf8') };
}

/** Asserts what every raw answer must be: nothing, or HTTP with status < 500, and an ApiError when >= 400. */
export function assertRawAnswer(answer: string, what: string): RawResponse | undefined {
  const res = firstResponse(answer);
  if (!res) return undefined;
  assert.ok(res.status >= 200 && res.status < 500, `${what}: status ${res.status}: ${answer.slice(0, 500)}`);
  assert.equal(res.headers['x-content-type-options'], 'nosniff', `${what}: ${answer.slice(0, 500)}`);
  if (res.status >= 400) {
    assert.match(res.headers['content-type'] ?? '', /^application\/json/, `${what}: ${answer.slice(0, 500)}`);
    const body = JSON.parse(res.body) as Record<string, unknown>;
    assert.equal(typeof body.code, 'string', `${what}: ${res.body}`);
    assert.equal(ERROR_STATUS[body.code as ErrorCode], res.status, `${what}: ${res.body}`);
    assert.equal(typeof body.message, 'string', `${what}: ${res.body}`);
    for (const key of Object.keys(body)) assert.ok(['code', 'message', 'field'].includes(key), `${what}: ${res.body}`);
  }
  return res;
}

const rawPost = (path: string, body: string, headers = '') =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\n${headers}Content-Type: application/json\r\n` +
  `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/** Requests as bytes: valid ones of many kinds, the seeds of raw mutations. */
export const RAW_REQUESTS = [
  'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n',
  'POST /api/board/game HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n',
  rawPost('/api/board/game', '{}'),
  rawPost('/api/board/game/import/fen', JSON.stringify({ fen: VALID_FENS[0] })),
  rawPost('/api/board/game', '{"white":{"id":"w","displayName":"W"}}', 'Connection: keep-alive\r\n'),
  'POST /api/board/game/import/pgn HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
    'Transfer-Encoding: chunked\r\n\r\n10\r\n{"pgn":"1. e4 *"\r\n1\r\n}\r\n0\r\n\r\n',
  'GET /api/board/game/AbCd1234/moves?square=e2 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\n\r\n',
  'GET /api/board/game/AbCd1234 HTTP/1.0\r\n\r\n',
];
