/** Builds the app on a given store (in-memory SQLite by default) for `app.inject()` tests. */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/http/app.ts';
import { GameService } from '../../src/service/games.ts';
import { newGameId } from '../../src/service/ids.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import type { GameStore } from '../../src/store/store.ts';

export interface TestApp {
  app: FastifyInstance;
  store: GameStore;
  games: GameService;
}

export async function makeTestApp(options: { store?: GameStore; publicUrl?: string } = {}): Promise<TestApp> {
  const store = options.store ?? SqliteGameStore.open(':memory:');
  const games = new GameService({ store, newId: newGameId, clock: () => new Date() });
  const app = await buildApp({ games, store, publicUrl: options.publicUrl });
  return { app, store, games };
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
