/** Builds the app on a given store (in-memory SQLite by default) for `app.inject()` tests. */
import assert from 'node:assert/strict';
import { after, type TestContext } from 'node:test';
import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { ChangeFeed } from '../../src/bus/feed.ts';
import { PlayerFeed } from '../../src/bus/players.ts';
import { buildApp, type AppDeps } from '../../src/http/app.ts';
import { GameService } from '../../src/service/games.ts';
import { newGameId } from '../../src/service/ids.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import type { GameStore } from '../../src/store/store.ts';
import { countingStore } from './store.ts';
import { PlayerTokens } from '../../src/service/tokens.ts';
import { MemoryGameStore } from '../../src/store/memory.ts';
import type { TokenStore } from '../../src/store/tokens.ts';
import { ERROR_STATUS, type ErrorCode } from '../../src/contract/vocabulary.ts';
import { WELL_FORMED, type ApiErrorBody } from '../../src/contract/shapes.ts';
import { ChallengeService } from '../../src/service/challenges.ts';
import type { ChallengeStore } from '../../src/store/challenges.ts';
import { SeekService } from '../../src/service/seeks.ts';
import type { SeekStore } from '../../src/store/seeks.ts';
import { GamePresence } from '../../src/service/presence.ts';
import type { PresenceStore } from '../../src/store/presence.ts';
import type { EnginePool } from '../../src/engine/index.ts';
import { EngineMoves } from '../../src/service/engineMoves.ts';
import type { EngineTurnStore } from '../../src/store/engineTurns.ts';
import { ChatService } from '../../src/service/chat.ts';
import type { ChatStore } from '../../src/store/chat.ts';
import { GameExports } from '../../src/service/gameExports.ts';
import type { HistoryStore } from '../../src/store/history.ts';
import type { RatingStore } from '../../src/store/ratings.ts';
import type { AccountStore } from '../../src/store/accounts.ts';
import { Accounts } from '../../src/service/accounts.ts';
import { OAuth } from '../../src/service/oauth.ts';
import { PasswordHasher } from '../../src/service/passwords.ts';

export interface TestApp {
  app: FastifyInstance;
  store: GameStore;
  games: GameService;
  playerTokens: PlayerTokens;
  players: PlayerFeed;
  challenges: ChallengeService | undefined; // when the store keeps challenges
  seeks: SeekService | undefined; // when the store keeps seeks
  presence: GamePresence | undefined; // when the store keeps presence
  engineMoves: EngineMoves | undefined; // with an engine
  chat: ChatService | undefined; // when the store keeps chat lines
  accounts: { accounts: Accounts; oauth: OAuth } | undefined; // with options.accounts
}

/** The token store of a test's store: the store itself when it keeps tokens, else one in memory. */
const tokenStoreOf = (store: GameStore): TokenStore =>
  'insertToken' in store ? (store as GameStore & TokenStore) : new MemoryGameStore();

export interface TestAppOptions {
  store?: GameStore;
  publicUrl?: string;
  /** Guard rails, as `AppDeps` takes them; all off by default. */
  tokens?: readonly string[];
  rateLimit?: AppDeps['rateLimit'];
  corsOrigins?: readonly string[];
  logger?: AppDeps['logger'];
  trustProxy?: AppDeps['trustProxy'];
  playerTokens?: PlayerTokens;
  /** Other instances share the store (PostgreSQL): the service reads through to it. */
  sharedStore?: boolean;
  /** CHALLENGE_TTL_S in ms; 3600 s by default. */
  challengeTtlMs?: number;
  /** How long a real-time seek lives without renewal; LEASE_MS by default. */
  seekLeaseMs?: number;
  /** How often opponents' presence is read for the lichess streams (200 ms in tests). */
  presenceTickMs?: number;
  /** The service's time (ms since the epoch); the real time by default. */
  now?: () => number;
  /** The computer opponent's engine (DECISIONS §18): with it, POST /api/challenge/ai and the engine's turns. */
  engine?: EnginePool;
  /** Accounts and OAuth (DECISIONS §20), with fast password hashes; `signup` as SIGNUP says. */
  accounts?: { signup?: 'open' | 'closed' } | boolean;
}

/** Password hashes fast enough for tests (the service's own cost a few tenths of a second of one core a hash). */
export const TEST_SCRYPT = { N: 1024, r: 8, p: 1 };

export async function makeTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const store = options.store ?? SqliteGameStore.open(':memory:');
  const bus = new ChangeFeed(store);
  const players: PlayerFeed = new PlayerFeed((gameId, version) => games.gameAt(gameId, version));
  const ratings = 'perfsOf' in store ? (store as GameStore & RatingStore) : undefined;
  const games: GameService = new GameService({
    store,
    ratings,
    bus,
    players,
    newId: newGameId,
    clock: options.now ? () => new Date(options.now!()) : () => new Date(),
    sharedStore: options.sharedStore ?? false,
  });
  const { publicUrl, tokens, rateLimit, corsOrigins, logger, trustProxy } = options;
  const playerTokens = options.playerTokens ?? new PlayerTokens({ store: tokenStoreOf(store), now: Date.now });
  const challengeStore = 'insertChallenge' in store ? (store as GameStore & ChallengeStore & TokenStore) : undefined;
  const challenges =
    challengeStore &&
    new ChallengeService({
      store: challengeStore,
      ratings,
      games,
      players,
      ttlMs: options.challengeTtlMs ?? 3_600_000,
      sharedStore: options.sharedStore ?? false,
    });
  const seekStore = 'insertSeek' in store ? (store as GameStore & SeekStore) : undefined;
  const seeks = seekStore && new SeekService({ store: seekStore, ratings, games, leaseMs: options.seekLeaseMs });
  const presenceStore = 'lastSeen' in store ? (store as GameStore & PresenceStore) : undefined;
  const presence =
    presenceStore &&
    new GamePresence({ store: presenceStore, now: () => games.now(), tickMs: options.presenceTickMs ?? 200 });
  const engineMoves =
    options.engine && 'claimEngineTurn' in store
      ? new EngineMoves({
          games,
          store: store as GameStore & EngineTurnStore,
          engine: options.engine,
          pollMs: 200,
        })
      : undefined;
  if (engineMoves) {
    games.onCommitted = game => engineMoves.committed(game);
    engineMoves.start();
  }
  const chatStore = 'appendChat' in store ? (store as GameStore & ChatStore) : undefined;
  const chat = chatStore && new ChatService({ store: chatStore, games, sharedStore: options.sharedStore ?? false });
  const historyStore = 'playerGames' in store ? (store as GameStore & HistoryStore) : undefined;
  const exports = historyStore && new GameExports(historyStore, games);
  const accountStore = 'insertAccount' in store ? (store as GameStore & AccountStore & TokenStore) : undefined;
  const accountSettings = options.accounts === true ? {} : options.accounts || undefined;
  const accounts =
    accountSettings && accountStore
      ? {
          accounts: new Accounts({
            store: accountStore,
            tokens: playerTokens,
            passwords: new PasswordHasher(TEST_SCRYPT),
            now: options.now ?? Date.now,
            signup: accountSettings.signup ?? 'open',
          }),
          oauth: new OAuth({ store: accountStore, tokens: playerTokens, now: options.now ?? Date.now }),
        }
      : undefined;
  const app = await buildApp({
    ...(accounts ? { accounts } : {}),
    games,
    challenges,
    seeks,
    presence,
    ...(options.engine ? { engine: options.engine } : {}),
    chat,
    exports,
    store,
    ratings,
    bus,
    players,
    publicUrl,
    tokens,
    playerTokens,
    rateLimit,
    corsOrigins,
    logger,
    trustProxy,
  });
  app.addHook('onClose', () => {
    challenges?.close();
    seeks?.close();
    presence?.close();
    engineMoves?.close();
  });
  return { app, store, games, playerTokens, players, challenges, seeks, chat, presence, engineMoves, accounts };
}

/**
 * An app on a store shared with another instance (`sharedStore`, as on PostgreSQL): one SQLite database in
 * memory, which the app reaches through a store that counts its reads and updates, and `other`, a second
 * service on the same database.
 */
export async function makeSharedApp(t: TestContext) {
  const database = SqliteGameStore.open(':memory:');
  t.after(() => database.close());
  const store = countingStore(database);
  const clock = () => new Date();
  const bus = new ChangeFeed(store);
  const games = new GameService({ store, bus, newId: newGameId, clock, sharedStore: true });
  const app = await buildApp({ games, store, bus });
  t.after(() => app.close());
  const other = new GameService({
    store: database,
    bus: new ChangeFeed(database),
    newId: newGameId,
    clock,
    sharedStore: true,
  });
  return { app, store, database, other };
}

export const json = <T = any>(res: LightMyRequestResponse): T => JSON.parse(res.body) as T;

/** Creates a game and plays the given UCI moves, failing loudly on any rejection. */
export async function gameWithMoves(app: FastifyInstance, moves: string[] = [], body?: object): Promise<string> {
  const created = await app.inject({ method: 'POST', url: '/api/board/game', ...(body ? { payload: body } : {}) });
  if (created.statusCode !== 201) throw new Error(`create failed: ${created.body}`);
  const id = json(created).gameId as string;
  for (const uci of moves) {
    const res = await app.inject({ method: 'POST', url: `/api/board/game/${id}/move/${uci}` });
    if (res.statusCode !== 200) throw new Error(`move ${uci} failed: ${res.body}`);
  }
  return id;
}

export async function importFen(app: FastifyInstance, fen: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/board/game/import/fen', payload: { fen } });
  if (res.statusCode !== 201) throw new Error(`import failed: ${res.body}`);
  return json(res).gameId as string;
}

export type Inject = (options: InjectOptions | string) => Promise<LightMyRequestResponse>;

interface OpenApiOperation {
  method: string;
  template: string;
  pattern: RegExp;
  parameters: number; // path parameters in the template: literal paths win over templated ones
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

/** The media type of a Content-Type header without its parameters, e.g. 'application/json'. */
export const mediaType = (res: LightMyRequestResponse): string =>
  String(res.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();

/**
 * Checks responses against the app's own OpenAPI document (GET /openapi.json): the status is declared for the
 * operation, the media type is one the document lists, and a JSON body validates against its schema, with
 * `#/components/schemas/X` references resolved. Every error response is checked as an ApiError (DECISIONS §1).
 */
export class ResponseChecker {
  private readonly ajv = new Ajv({ strict: false, allErrors: true }).addFormat(WELL_FORMED, {
    type: 'string',
    validate: (text: string) => text.isWellFormed(),
  });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly operations: OpenApiOperation[] = [];

  constructor(readonly doc: any) {
    for (const [template, methods] of Object.entries<Record<string, any>>(doc.paths ?? {})) {
      const names: string[] = template.match(/\{[^}]+\}/g) ?? [];
      const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
      for (const [method, operation] of Object.entries<any>(methods)) {
        this.operations.push({
          method: method.toUpperCase(),
          template,
          pattern: new RegExp(`^${source}$`),
          parameters: names.length,
          responses: operation.responses ?? {},
        });
      }
    }
    this.operations.sort((a, b) => a.parameters - b.parameters);
  }

  /** The documented operation that serves `method path`, literal paths first. */
  operation(method: string, path: string): OpenApiOperation | undefined {
    return this.operations.find(op => op.method === method.toUpperCase() && op.pattern.test(path));
  }

  /** Validates `value` against a schema of the document; returns Ajv's error text or undefined. */
  schemaErrors(schema: unknown, value: unknown): string | undefined {
    const key = JSON.stringify(schema);
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile({ components: this.doc.components, allOf: [schema] });
      this.validators.set(key, validate);
    }
    return validate(value) ? undefined : this.ajv.errorsText(validate.errors);
  }

  schema(name: string): unknown {
    const schema = this.doc.components?.schemas?.[name];
    assert.ok(schema, `the OpenAPI document has no schema ${name}`);
    return { $ref: `#/components/schemas/${name}` };
  }

  check(res: LightMyRequestResponse): void {
    const method = res.raw.req.method ?? 'GET';
    const path = (res.raw.req.url ?? '').split('?')[0]!;
    const where = `${method} ${path} -> ${res.statusCode}`;
    if (res.statusCode >= 400) assertApiError(res, this);
    const operation = this.operation(method, path);
    if (!operation) return; // not a documented route (health, docs, unknown paths)
    const declared = operation.responses[String(res.statusCode)];
    // Every answer, errors included, is one the document declares for the operation (DECISIONS §19).
    assert.ok(declared, `${where}: status not declared for ${operation.template}`);
    const content = declared.content;
    if (!content) return;
    const media = mediaType(res);
    const entry = content[media];
    assert.ok(entry, `${where}: media type '${media}' is not one of ${Object.keys(content).join(', ')}`);
    const schema = entry.schema;
    if (schema === undefined) return;
    if (media === 'application/x-ndjson') {
      this.checkLines(schema, res.body, where);
      return;
    }
    const body: unknown = media === 'application/json' ? JSON.parse(res.body) : res.body;
    const errors = this.schemaErrors(schema, body);
    assert.equal(errors, undefined, `${where}: body does not match the OpenAPI schema: ${errors}\n${res.body}`);
  }

  /** Checks each line of an NDJSON body against the schema of its lines; an empty line is a heartbeat. */
  checkLines(schema: unknown, text: string, where: string): void {
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const errors = this.schemaErrors(schema, JSON.parse(line));
      assert.equal(errors, undefined, `${where}: a line does not match the OpenAPI schema: ${errors}\n${line}`);
    }
  }

  /** The schema of the NDJSON lines of `method path`'s 200 answer. */
  lineSchema(method: string, path: string): unknown {
    const operation = this.operation(method, path);
    const schema = operation?.responses['200']?.content?.['application/x-ndjson']?.schema;
    assert.ok(schema, `${method} ${path}: the document declares no NDJSON answer`);
    return schema;
  }

  /** Checks one parsed line of the stream `method path` against the document. */
  checkLine(method: string, path: string, line: unknown): void {
    const errors = this.schemaErrors(this.lineSchema(method, path), line);
    assert.equal(
      errors,
      undefined,
      `${method} ${path}: a line does not match the OpenAPI schema: ${errors}\n${JSON.stringify(line)}`,
    );
  }
}

/**
 * Asserts the ApiError rules of DECISIONS §1: JSON media type, exactly {code, message, field?}, a known code
 * whose status is the response status, a non-empty message; with a checker, also the document's ApiError schema.
 */
export function assertApiError(res: LightMyRequestResponse, checker?: ResponseChecker): ApiErrorBody {
  const where = `${res.raw.req.method} ${res.raw.req.url} -> ${res.statusCode}`;
  assert.equal(mediaType(res), 'application/json', `${where}: an error must be application/json: ${res.body}`);
  const parsed: unknown = JSON.parse(res.body);
  assert.ok(parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed), `${where}: not an object`);
  const body = parsed as Record<string, unknown>;
  for (const key of Object.keys(body)) {
    assert.ok(
      ['code', 'message', 'field', 'error'].includes(key),
      `${where}: unexpected property '${key}' in ${res.body}`,
    );
  }
  // The lichess paths say the message again as lichess's `error` (DECISIONS §17); no other path does.
  if ('error' in body) assert.equal(body.error, body.message, `${where}: error must repeat the message`);
  assert.equal(typeof body.code, 'string', `${where}: code must be a string`);
  assert.ok(Object.hasOwn(ERROR_STATUS, body.code as string), `${where}: unknown code ${String(body.code)}`);
  assert.equal(
    ERROR_STATUS[body.code as ErrorCode],
    res.statusCode,
    `${where}: status does not match ${String(body.code)}`,
  );
  assert.equal(typeof body.message, 'string', `${where}: message must be a string`);
  assert.ok((body.message as string).length > 0, `${where}: message must not be empty`);
  if ('field' in body) assert.ok(body.field === null || typeof body.field === 'string', `${where}: bad field`);
  if (checker) {
    const errors = checker.schemaErrors(checker.schema('ApiError'), body);
    assert.equal(errors, undefined, `${where}: not an ApiError: ${errors}`);
  }
  return body as unknown as ApiErrorBody;
}

/** Asserts an ApiError with this code, its status, and exactly this `field` (absent when not given). */
export function assertError(res: LightMyRequestResponse, code: ErrorCode, field?: string): ApiErrorBody {
  const where = `${res.raw.req.method} ${res.raw.req.url}`;
  assert.equal(res.statusCode, ERROR_STATUS[code], `${where}: expected ${code}, got ${res.statusCode} ${res.body}`);
  const body = assertApiError(res);
  assert.equal(body.code, code, `${where}: ${res.body}`);
  assert.equal(body.field, field, `${where}: field of ${res.body}`);
  return body;
}

export async function responseChecker(app: FastifyInstance): Promise<ResponseChecker> {
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  if (res.statusCode !== 200) throw new Error(`GET /openapi.json failed: ${res.statusCode} ${res.body}`);
  return checkerOf(res.body);
}

/** Checkers by their document's text: the apps and servers of a test process serve few different documents. */
const checkers = new Map<string, ResponseChecker>();

/** The checker of an OpenAPI document (its JSON text), with the validators it compiled for an identical one. */
export function checkerOf(document: string): ResponseChecker {
  let checker = checkers.get(document);
  if (!checker) {
    checker = new ResponseChecker(JSON.parse(document));
    checkers.set(document, checker);
  }
  return checker;
}

export interface CheckedTestApp extends TestApp {
  checker: ResponseChecker;
  /** `app.inject` that checks the response against the OpenAPI document (and ApiError rules) first. */
  call: Inject;
}

/** makeTestApp whose every `call` is checked against the OpenAPI document; the app is closed after the test. */
export async function makeCheckedApp(t: TestContext, options: TestAppOptions = {}): Promise<CheckedTestApp> {
  const testApp = await makeTestApp(options);
  t.after(() => testApp.app.close());
  return checked(testApp);
}

/**
 * One default checked app for a test file whose tests each touch only games of their own, rather than one app a
 * test: made for the first test that asks, closed when the tests of the process end.
 *
 * ```ts
 * const fileApp = appOfFile();
 * test('...', async () => { const { app, call } = await fileApp(); });
 * ```
 */
export function appOfFile(): () => Promise<CheckedTestApp> {
  let made: Promise<CheckedTestApp> | undefined;
  after(async () => {
    if (made) await (await made).app.close();
  });
  return () => (made ??= makeTestApp().then(checked));
}

async function checked(testApp: TestApp): Promise<CheckedTestApp> {
  const checker = await responseChecker(testApp.app);
  const call: Inject = async request => {
    const res = await testApp.app.inject(request);
    checker.check(res);
    return res;
  };
  return { ...testApp, checker, call };
}

/** Everything a client can read about a game, to compare before and after a request. */
export async function snapshotGame(call: Inject, id: string): Promise<Record<string, unknown>> {
  const base = `/api/board/game/${id}`;
  const [game, moves, fen, pgn] = await Promise.all([
    call(base),
    call(`${base}/moves`),
    call(`${base}/export/fen`),
    call(`${base}/export/pgn`),
  ]);
  for (const res of [game, moves, fen, pgn]) {
    if (res.statusCode !== 200) throw new Error(`snapshot of ${id} failed: ${res.statusCode} ${res.body}`);
  }
  return { game: json(game), moves: json(moves), fen: fen.body, pgn: pgn.body };
}

/** A request as a token (undefined: no Authorization), its answer checked against the OpenAPI document. */
export type RequestAs = (token: string | undefined, request: InjectOptions | string) => Promise<LightMyRequestResponse>;

/** Requests to `app` as one token or another, each answer checked against the app's OpenAPI document. */
export async function requestsAs(app: FastifyInstance): Promise<RequestAs> {
  const checker = await responseChecker(app);
  return async (token, request) => {
    const options = typeof request === 'string' ? { url: request } : request;
    const res = await app.inject({
      ...options,
      headers: { ...options.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });
    checker.check(res);
    return res;
  };
}
