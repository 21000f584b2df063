/**
 * The page's client of the service's public REST API (`/api/board/game`, `/api/account` for who the token acts
 * as, `/api/challenge` and `/api/board/seek` for finding an opponent, `/api/challenge/ai` for playing the computer,
 * a game's `chat`), and the addresses of its streams. Every request carries the API token when one is set; every
 * failure becomes an `ApiError` with the service's own code and message.
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
import type { ChallengeJson, ChallengeList } from '../contract/challenges.ts';
import type { PlayerGameChat } from '../contract/chat.ts';
import type { DeclineReason } from '../domain/challenge.ts';
import type { AiGame } from '../contract/ai.ts';
import type { ChallengeBody, ComputerBody, SeekBody } from './challengesState.ts';

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
const CHALLENGE = '/api/challenge';
const challenge = (id: string) => `${CHALLENGE}/${encodeURIComponent(id)}`;
const SEEK = '/api/board/seek';

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
  let idle = setTimeout(() => ((silent = true), controller.abort()), idleTimeoutMs);
  try {
    const headers = authHeaders({ accept: 'application/x-ndjson', 'content-type': 'application/json' });
    const init: RequestInit = {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: controller.signal,
      cache: 'no-store',
    };
    const res = await fetch(SEEK, init);
    if (!res.ok) throw await errorOf(res);
    if (!res.body) return;
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      clearTimeout(idle);
      if (done) break;
      idle = setTimeout(() => ((silent = true), controller.abort()), idleTimeoutMs);
      text += decoder.decode(value, { stream: true });
    }
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      let parsed: { type?: string; error?: Partial<ApiErrorBody> };
      try {
        parsed = JSON.parse(line) as typeof parsed;
      } catch {
        continue; // not JSON: nothing to say
      }
      if (parsed.type === 'error') {
        const code = parsed.error?.code ?? 'SEEK_FAILED';
        throw new ApiError(res.status, code, parsed.error?.message ?? 'the seek ended without a game');
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
  /** The game's stream in lichess's shape, which carries its chat (DECISIONS §17). */
  lichessStreamUrl: (id: string) => `${BASE}/stream/${encodeURIComponent(id)}`,
  /** The game's players' room, the oldest line first (for its players). */
  chat: (id: string) => json<PlayerGameChat>('GET', `${game(id)}/chat`),
  /** Writes a line in the game's players' room. */
  say: (id: string, text: string) => json<{ ok: true }>('POST', `${game(id)}/chat`, { room: 'player', text }),
  /** The token's player's ongoing games, the most recently changed first. */
  ongoingGames: (limit = 100) => json<GamePage>('GET', `${BASE}?status=ongoing&limit=${limit}`),
  eventStreamUrl: () => '/api/stream/event',
  /** Challenges a player (DECISIONS §16): the body has the form's keys (`clock.limit`, `days`, `color`). */
  challenge: (playerId: string, body: ChallengeBody) =>
    json<ChallengeJson>('POST', `${CHALLENGE}/${encodeURIComponent(playerId)}`, body),
  /** A game against the computer (DECISIONS §18): the answer's `id` is the game's, `player` the person's colour. */
  challengeAi: (body: ComputerBody) => json<AiGame>('POST', `${CHALLENGE}/ai`, body),
  /** The token's player's pending challenges, received and made. */
  challenges: () => json<ChallengeList>('GET', CHALLENGE),
  acceptChallenge: (id: string) => json<{ ok: true }>('POST', `${challenge(id)}/accept`),
  declineChallenge: (id: string, reason: DeclineReason = 'generic') =>
    json<{ ok: true }>('POST', `${challenge(id)}/decline`, { reason }),
  cancelChallenge: (id: string) => json<{ ok: true }>('POST', `${challenge(id)}/cancel`),
  /** A real-time seek: resolves once paired, rejects when refused or withdrawn (abort `signal`). */
  seekRealTime,
  /** A correspondence seek: answered at once with its id, open until paired or withdrawn (cancelSeek). */
  seekCorrespondence: (body: SeekBody) => json<{ id: string }>('POST', SEEK, body),
  cancelSeek: async (id: string) => void (await call('DELETE', `${SEEK}/${encodeURIComponent(id)}`)),
};
