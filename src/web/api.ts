/**
 * The page's client of the service's public REST API (`/api/board/game`, and `/api/account` for who the token
 * acts as), and the addresses of its streams. Every request carries the API token when one is set; every failure
 * becomes an `ApiError` with the service's own code and message.
 *
 * ```ts
 * const game = await api.create({ white: { id: 'w', displayName: 'Ann' }, clock: { initial: 300000, increment: 0 } });
 * try { await api.move(game.gameId, 'e2e5'); } catch (error) { show(asApiError(error).message); }
 * ```
 */

// The API's shapes and vocabularies, declared once for the service and the page (types only: the bundle holds
// none of the schema library).
import type {
  Account,
  ApiErrorBody,
  ClockRequest,
  GameFull,
  GamePage,
  GameState,
  LegalMove,
  PlayerInfo,
} from '../contract/shapes.ts';
import type { DrawAction, TakebackAction } from '../contract/vocabulary.ts';

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

/** Request headers with `Authorization: Bearer` when a token is set. */
export function authHeaders(extra: Record<string, string> = {}): Headers {
  const headers = new Headers(extra);
  const token = getToken();
  if (token) headers.set('authorization', `Bearer ${token}`);
  return headers;
}

/** Turns a failed response into an ApiError, with the service's body when it is an ApiError. */
export async function errorOf(res: Response): Promise<ApiError> {
  const retryHeader = res.headers.get('retry-after');
  const retryAfter = retryHeader !== null && /^\d+$/.test(retryHeader) ? Number(retryHeader) : undefined;
  let body: Partial<ApiErrorBody> = {};
  try {
    body = (await res.json()) as Partial<ApiErrorBody>;
  } catch {
    // not JSON (a proxy's page): fall back to the status line
  }
  const code = typeof body.code === 'string' ? body.code : `HTTP_${res.status}`;
  const message =
    typeof body.message === 'string' && body.message !== ''
      ? body.message
      : `the service answered ${res.status} ${res.statusText}`.trim();
  return new ApiError(res.status, code, message, body.field, retryAfter);
}

const BASE = '/api/board/game';
const game = (id: string) => `${BASE}/${encodeURIComponent(id)}`;

async function call(method: string, path: string, body?: unknown): Promise<Response> {
  const headers = authHeaders({ accept: 'application/json' });
  const init: RequestInit = { method, headers, cache: 'no-store' };
  if (body !== undefined) {
    headers.set('content-type', 'application/json');
    init.body = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch (error) {
    throw asApiError(error);
  }
  if (!res.ok) throw await errorOf(res);
  return res;
}

const json = async <T>(method: string, path: string, body?: unknown): Promise<T> =>
  (await (await call(method, path, body)).json()) as T;
const text = async (path: string): Promise<string> => (await call('GET', path)).text();

export interface NewGame {
  white?: PlayerInfo;
  black?: PlayerInfo;
  clock?: ClockRequest; // none: untimed
}

export const api = {
  create: (body: NewGame) => json<GameFull>('POST', BASE, body),
  get: (id: string) => json<GameFull>('GET', game(id)),
  legalMoves: async (id: string) => (await json<{ moves: LegalMove[] }>('GET', `${game(id)}/moves`)).moves,
  move: (id: string, uci: string) => json<GameState>('POST', `${game(id)}/move/${encodeURIComponent(uci)}`),
  undo: (id: string) => json<GameState>('POST', `${game(id)}/undo`),
  redo: (id: string) => json<GameState>('POST', `${game(id)}/redo`),
  resign: (id: string) => json<{ ok: true }>('POST', `${game(id)}/resign`),
  draw: (id: string, action: DrawAction) => json<{ ok: true }>('POST', `${game(id)}/draw/${action}`),
  takeback: (id: string, action: TakebackAction) => json<{ ok: true }>('POST', `${game(id)}/takeback/${action}`),
  abort: (id: string) => json<{ ok: true }>('POST', `${game(id)}/abort`),
  account: () => json<Account>('GET', '/api/account'),
  importFen: (body: NewGame & { fen: string }) => json<GameFull>('POST', `${BASE}/import/fen`, body),
  importPgn: (body: { pgn: string; clock?: ClockRequest }) => json<GameFull>('POST', `${BASE}/import/pgn`, body),
  exportFen: (id: string) => text(`${game(id)}/export/fen`),
  exportPgn: (id: string) => text(`${game(id)}/export/pgn`),
  streamUrl: (id: string) => `${game(id)}/stream`,
  /** The token's player's ongoing games, the most recently changed first. */
  ongoingGames: (limit = 100) => json<GamePage>('GET', `${BASE}?status=ongoing&limit=${limit}`),
  eventStreamUrl: () => '/api/stream/event',
};
