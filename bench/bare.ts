/**
 * The baseline of `bench/run.ts`: plain Fastify (no schemas, hooks, store or chess) answering constant JSON of
 * the same shapes as the service's endpoints, recorded from the service in the same run. Whatever the bench
 * measures beyond this is the service's own cost: validation, the store, the domain and serialization.
 *
 * ```sh
 * FIXTURES=/tmp/fixtures.json PORT=3001 node --import tsx bench/bare.ts
 * ```
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

export interface Fixtures {
  game: unknown; // GET /api/board/game/{id}: a GameFull
  moves: unknown; // GET /api/board/game/{id}/moves: {moves}
  move: unknown; // POST /api/board/game/{id}/move/{uci}: a GameState
  created: unknown; // POST /api/board/game: a GameFull
  imported: unknown; // POST /api/board/game/import/pgn: a GameFull
  exported: string; // GET /api/games/user/{id}: a player's games as PGN
}

const fixtures = JSON.parse(readFileSync(process.env.FIXTURES!, 'utf8')) as Fixtures;
const app = Fastify({ logger: false });

app.get('/healthz', async () => ({ ok: true }));
app.post('/api/board/game', async (_request, reply) => reply.code(201).send(fixtures.created));
app.post('/api/board/game/import/pgn', async (_request, reply) => reply.code(201).send(fixtures.imported));
app.get('/api/board/game/:gameId', async () => fixtures.game);
app.get('/api/board/game/:gameId/moves', async () => fixtures.moves);
app.post('/api/board/game/:gameId/move/:uci', async () => fixtures.move);
app.get('/api/games/user/:id', async (_request, reply) =>
  reply.type('application/x-chess-pgn; charset=utf-8').send(fixtures.exported),
);

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
