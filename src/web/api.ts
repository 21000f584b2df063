/**
 * The page's client of the service's public REST API (`/api/board/game`, `/api/account` for who the token acts
 * as, `/api/challenge` and `/api/board/seek` for finding an opponent, `/api/challenge/ai` for playing the computer,
 * a game's `chat`) and its NDJSON streams, all through the service's typed client (`chess-game-service-client`,
 * generated from the OpenAPI document, DECISIONS §19). Every request carries the API token as it is at that moment
 * and skips the HTTP cache; every failure becomes an `ApiError` with the service's own code and message.
 *
 * ```ts
 * const game = await api.create({ white: { id: 'w', displayName: 'Ann' }, clock: { initial: 300000, increment: 0 } });
 * try { await api.move(game.gameId, 'e2e5'); } catch (error) { show(asApiError(error).message); }
 * ```
 */

// The API's shapes and vocabularies, declared once for the service and the page (types only: the bundle holds
// none of the schema library). What the service answers is typed by the client, from the OpenAPI document.
import type { ApiErrorBody, ClockRequest, PlayerInfo } from '../contract/shapes.ts';
import type { DrawAction, TakebackAction } from '../contract/vocabulary.ts';
import type { DeclineReason } from '../contract/vocabulary.ts';
import type { ChallengeBody, ComputerBody, SeekBody } from './challengesState.ts';
import {
  ChessApiError,
  createChessClient,
  type ApiAnswer,
  type ChessClient,
  type ChessStream,
  type DataOf,
  type StreamEvent,
  type StreamInitArgument,
  type StreamPath,
} from 'chess-game-service-client';

export type {
  Account,
  ApiErrorBody,
  ClockRequest,
  GameFull,
  GameState,
  LegalMove,
  PlayerInfo,
} from '../contract/shapes.ts';
export type { Color, DrawAction, GameStatus, TakebackAction } from '../contract/vocabulary.ts';
export { ENDED_STATUSES } from '../contract/vocabulary.ts';

/** An error answered by the service (status >= 400), or NETWORK when it could not be reached. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string | null,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof DOMException && error.name === 'AbortError') return new ApiError(0, 'ABORTED', 'cancelled');
  return new ApiError(0, 'NETWORK', 'the service cannot be reached; check the connection');
}

const TOKEN_KEY = 'chess.apiToken';
let memoryToken: string | undefined; // the token set on this page, also when storage is disabled

export function getToken(): string {
  if (memoryToken !== undefined) return memoryToken;
  try {
    return localStorage.getItem(TOKEN_KEY) ?? '';
  } catch {
    return ''; // storage disabled: no token
  }
}

export function setToken(token: string): void {
  try {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  } catch {
    // storage disabled: the token lasts as long as the page
  }
  memoryToken = token;
}

/** The service's address: the page's own origin (evaluated when first needed, so unit tests may import this file). */
const origin = (): string => globalThis.location.origin;

/**
 * The page's fetch: every request carries the token as it is now (it can change while the page runs) and skips the
 * HTTP cache, whose copy of a game would be stale.
 */
function pageFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const headers = new Headers(request.headers);
  const token = getToken();
  if (token) headers.set('authorization', `Bearer ${token}`);
  else headers.delete('authorization');
  return fetch(request, { headers, cache: 'no-store' });
}

let shared: ChessClient | undefined;
/** The typed client of the service (created on first use). */
const client = (): ChessClient => (shared ??= createChessClient({ baseUrl: origin(), fetch: pageFetch }));

/** The ApiError of a refused answer: its body's code, message and field when it is an ApiError, and its Retry-After. */
export function errorOf(response: Response, body: unknown): ApiError {
  const retryHeader = response.headers.get('retry-after');
  const retryAfter = retryHeader !== null && /^\d+$/.test(retryHeader) ? Number(retryHeader) : undefined;
  const error: Partial<ApiErrorBody> = typeof body === 'object' && body !== null ? body : {};
  const code = typeof error.code === 'string' ? error.code : `HTTP_${response.status}`;
  const message =
    typeof error.message === 'string' && error.message !== ''
      ? error.message
      : `the service answered ${response.status} ${response.statusText}`.trim();
  return new ApiError(response.status, code, message, error.field, retryAfter);
}

/** The data of a call through the client; a refusal becomes an ApiError, a failed fetch NETWORK (or ABORTED). */
async function data<A extends ApiAnswer>(call: () => Promise<A>): Promise<DataOf<A>> {
  let answer: A;
  try {
    answer = await call();
  } catch (error) {
    throw asApiError(error);
  }
  if (!answer.response.ok) throw errorOf(answer.response, answer.error);
  return answer.data as DataOf<A>;
}

/**
 * Opens one of the service's NDJSON streams through the client (DECISIONS §19): resolves once answered 200, with
 * its events, heartbeats skipped. `onBytes` hears every chunk read, heartbeats included, for an idle timer. A
 * refusal rejects with its ApiError (Retry-After included), a failed fetch with NETWORK or ABORTED.
 */
export async function openStream<Path extends StreamPath>(
  onBytes: () => void,
  path: Path,
  ...init: StreamInitArgument<Path>
): Promise<ChessStream<StreamEvent<Path>>> {
  let refused: Response | undefined;
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const response = await pageFetch(input, init);
    if (!response.ok) refused = response;
    if (!response.ok || !response.body) return response;
    const { status, statusText, headers } = response;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          onBytes();
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status, statusText, headers });
  };
  try {
    return await createChessClient({ baseUrl: origin(), fetch }).stream(path, ...init);
  } catch (error) {
    if (refused) throw errorOf(refused, error instanceof ChessApiError ? error.body : undefined);
    throw asApiError(error);
  }
}

/**
 * A real-time seek (DECISIONS §16): the answer stays open, with empty lines as heartbeats, while the service
 * searches, and ends with no data once paired. Resolves then; rejects with the service's error (a refusal, or an
 * `error` line), with ABORTED when `signal` withdraws the seek, and with NETWORK when the connection drops or stays
 * silent for `idleTimeoutMs` (several missed heartbeats).
 */
async function seekRealTime(body: SeekBody, signal: AbortSignal, idleTimeoutMs = 45_000): Promise<void> {
  const controller = new AbortController();
  const withdraw = () => controller.abort();
  signal.addEventListener('abort', withdraw);
  let silent = false as boolean; // set by the idle timer
  let idle: ReturnType<typeof setTimeout> | undefined;
  const awake = () => {
    clearTimeout(idle);
    idle = setTimeout(() => ((silent = true), controller.abort()), idleTimeoutMs);
  };
  awake();
  try {
    const events = await openStream(awake, '/api/board/seek', { body, signal: controller.signal });
    // The document types the seek's lines as text (heartbeats); the one it may end with is a stream's error line.
    for await (const event of events as AsyncIterable<unknown>) {
      if (isErrorLine(event)) {
        const code = event.error.code ?? 'SEEK_FAILED';
        throw new ApiError(events.response.status, code, event.error.message || 'the seek ended without a game');
      }
    }
  } catch (error) {
    if (silent && !signal.aborted) throw new ApiError(0, 'NETWORK', 'the search was interrupted; search again');
    throw asApiError(error);
  } finally {
    clearTimeout(idle);
    signal.removeEventListener('abort', withdraw);
  }
}

/** Whether a stream's line is its `error` line (SERVER_SHUTDOWN, SLOW_CONSUMER...). */
const isErrorLine = (line: unknown): line is { type: 'error'; error: Partial<ApiErrorBody> } =>
  typeof line === 'object' &&
  line !== null &&
  (line as { type?: unknown }).type === 'error' &&
  typeof (line as { error?: unknown }).error === 'object';

export interface NewGame {
  white?: PlayerInfo;
  black?: PlayerInfo;
  clock?: ClockRequest; // none: untimed
}

const gamePath = (gameId: string) => ({ params: { path: { gameId } } });
const challengePath = (id: string) => ({ params: { path: { id } } });

export const api = {
  create: (body: NewGame) => data(() => client().api.POST('/api/board/game', { body })),
  get: (id: string) => data(() => client().api.GET('/api/board/game/{gameId}', gamePath(id))),
  legalMoves: async (id: string) =>
    (await data(() => client().api.GET('/api/board/game/{gameId}/moves', gamePath(id)))).moves,
  move: (id: string, uci: string) =>
    data(() => client().api.POST('/api/board/game/{gameId}/move/{uci}', { params: { path: { gameId: id, uci } } })),
  undo: (id: string) => data(() => client().api.POST('/api/board/game/{gameId}/undo', gamePath(id))),
  redo: (id: string) => data(() => client().api.POST('/api/board/game/{gameId}/redo', gamePath(id))),
  resign: (id: string) => data(() => client().api.POST('/api/board/game/{gameId}/resign', gamePath(id))),
  draw: (id: string, action: DrawAction) =>
    data(() =>
      client().api.POST('/api/board/game/{gameId}/draw/{action}', { params: { path: { gameId: id, action } } }),
    ),
  takeback: (id: string, action: TakebackAction) =>
    data(() =>
      client().api.POST('/api/board/game/{gameId}/takeback/{action}', { params: { path: { gameId: id, action } } }),
    ),
  abort: (id: string) => data(() => client().api.POST('/api/board/game/{gameId}/abort', gamePath(id))),
  account: () => data(() => client().api.GET('/api/account')),
  user: (userId: string) => data(() => client().api.GET('/api/user/{userId}', { params: { path: { userId } } })),
  ratingHistory: (userId: string) =>
    data(() => client().api.GET('/api/user/{userId}/rating-history', { params: { path: { userId } } })),
  recentGames: async (player: string) =>
    (
      await data(() =>
        client().api.GET('/api/board/game', { params: { query: { player, status: 'ended', limit: 10 } } }),
      )
    ).games,
  importFen: (body: NewGame & { fen: string }) => data(() => client().api.POST('/api/board/game/import/fen', { body })),
  importPgn: (body: { pgn: string; clock?: ClockRequest }) =>
    data(() => client().api.POST('/api/board/game/import/pgn', { body })),
  exportFen: (id: string) =>
    data(() => client().api.GET('/api/board/game/{gameId}/export/fen', { ...gamePath(id), parseAs: 'text' })),
  exportPgn: (id: string) =>
    data(() => client().api.GET('/api/board/game/{gameId}/export/pgn', { ...gamePath(id), parseAs: 'text' })),
  /** Every game of a player, ongoing ones too, as one PGN (DECISIONS §22). */
  playerGamesPgn: (player: string) =>
    data(() =>
      client().api.GET('/api/games/user/{id}', {
        params: { path: { id: player }, query: { ongoing: true } },
        parseAs: 'text',
      }),
    ),
  /** The game's stream: a gameFull line, then gameState lines. */
  stream: (id: string, onBytes: () => void, signal: AbortSignal) =>
    openStream(onBytes, '/api/board/game/{gameId}/stream', { ...gamePath(id), signal }),
  /** The game's stream in lichess's shape, which carries its chat (DECISIONS §17). */
  lichessStream: (id: string, onBytes: () => void, signal: AbortSignal) =>
    openStream(onBytes, '/api/board/game/stream/{gameId}', { ...gamePath(id), signal }),
  /** The game's players' room, the oldest line first (for its players). */
  chat: (id: string) => data(() => client().api.GET('/api/board/game/{gameId}/chat', gamePath(id))),
  /** Writes a line in the game's players' room. */
  say: (id: string, text: string) =>
    data(() => client().api.POST('/api/board/game/{gameId}/chat', { ...gamePath(id), body: { room: 'player', text } })),
  /** The token's player's ongoing games, the most recently changed first. */
  ongoingGames: (limit = 100) =>
    data(() => client().api.GET('/api/board/game', { params: { query: { status: 'ongoing', limit } } })),
  /** The token's player's events: their games starting and ending, challenges made and answered. */
  eventStream: (onBytes: () => void, signal: AbortSignal) => openStream(onBytes, '/api/stream/event', { signal }),
  /** Challenges a player (DECISIONS §16): the body has the form's keys (`clock.limit`, `days`, `color`). */
  challenge: (playerId: string, body: ChallengeBody) =>
    data(() => client().api.POST('/api/challenge/{playerId}', { params: { path: { playerId } }, body })),
  /** A game against the computer (DECISIONS §18): the answer's `id` is the game's, `player` the person's colour. */
  challengeAi: (body: ComputerBody) => data(() => client().api.POST('/api/challenge/ai', { body })),
  /** The token's player's pending challenges, received and made. */
  challenges: () => data(() => client().api.GET('/api/challenge')),
  acceptChallenge: (id: string) => data(() => client().api.POST('/api/challenge/{id}/accept', challengePath(id))),
  declineChallenge: (id: string, reason: DeclineReason = 'generic') =>
    data(() => client().api.POST('/api/challenge/{id}/decline', { ...challengePath(id), body: { reason } })),
  cancelChallenge: (id: string) => data(() => client().api.POST('/api/challenge/{id}/cancel', challengePath(id))),
  /** A real-time seek: resolves once paired, rejects when refused or withdrawn (abort `signal`). */
  seekRealTime,
  /** A correspondence seek: answered at once with its id, open until paired or withdrawn (cancelSeek). */
  seekCorrespondence: async (body: SeekBody): Promise<{ id: string }> => {
    const created = await data(() => client().api.POST('/api/board/seek', { body }));
    if ('id' in created) return created; // a correspondence seek is answered {id}, not NDJSON
    throw new ApiError(200, 'SEEK_FAILED', 'the service did not answer the seek with its id');
  },
  cancelSeek: async (id: string) =>
    void (await data(() => client().api.DELETE('/api/board/seek/{id}', challengePath(id)))),
};
