/**
 * The chess game service's NDJSON operations (those whose 200 answer is application/x-ndjson), by path, with their
 * method: generated from client/openapi.json. Do not edit: run `npm run client:generate`.
 */
import type { StreamMethodOf, StreamPath } from './streamTypes.ts';

export const STREAM_METHODS = {
  '/api/board/game/{gameId}/stream': 'get',
  '/api/stream/event': 'get',
  '/api/board/game/stream/{gameId}': 'get',
  '/api/bot/game/stream/{gameId}': 'get',
  '/api/bot/online': 'get',
  '/api/board/seek': 'post',
  '/api/games/user/{id}': 'get',
  '/api/games/export/_ids': 'post',
} as const satisfies { [Path in StreamPath]: StreamMethodOf<Path> };
