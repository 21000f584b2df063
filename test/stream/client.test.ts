/**
 * The typed client (client/) against a real server process: the two-player example plays its whole game (tokens, a
 * challenge with a clock, both game streams, a takeback, fool's mate), and the client's streams skip heartbeats,
 * end with the answer, close their connection when left or aborted, and throw ChessApiError for a refused request.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, suite, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChessApiError, createChessClient, type ChessClient } from 'chess-game-service-client';
import { playTwoPlayers } from '../../client/examples/twoPlayers.ts';
import { startServer, within, type ServerProcess } from '../helpers/server.ts';
import { WAIT_MS } from './helpers.ts';

const SERVICE = 'client-test-service-token';

suite('the typed client against a server', () => {
  let server: ServerProcess;
  let dir: string;
  let service: ChessClient;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chess-client-'));
    server = await startServer({
      DATABASE_URL: join(dir, 'chess.sqlite'),
      API_TOKENS: SERVICE,
      RATE_LIMIT_MAX: '0',
      STREAM_HEARTBEAT_MS: '50',
    });
    service = createChessClient({ baseUrl: server.url, token: SERVICE });
  });
  after(async () => {
    await server.stop('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  /** The server's open streams, as its metrics say. */
  const openStreams = async (): Promise<number> => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    return Number(/^streams_open (\d+)$/m.exec(text)?.[1]);
  };
  const streamsClosed = async () => {
    while ((await openStreams()) !== 0) await sleep(20);
  };

  test('the two-player example plays fool’s mate with a takeback, both players following the game', async t => {
    const outcome = await within(playTwoPlayers({ baseUrl: server.url, serviceToken: SERVICE }), WAIT_MS, 'the game');
    t.assert.deepEqual(outcome.moves, ['f2f3', 'e7e5', 'g2g4', 'd8h4']);
    t.assert.equal(outcome.status, 'checkmate');
    t.assert.equal(outcome.winner, 'black');
    for (const seen of [outcome.seenByWhite, outcome.seenByBlack]) {
      const taken = seen.findIndex(moves => moves.join(' ') === 'f2f3 e7e5 g2g3');
      assert.ok(taken > 0, `2. g3 seen: ${JSON.stringify(seen)}`);
      assert.ok(
        seen.slice(taken + 1).some(moves => moves.join(' ') === 'f2f3 e7e5'),
        'then the position after the takeback',
      );
      t.assert.deepEqual(seen.at(-1), outcome.moves);
    }
    const game = await service.unwrap(
      service.api.GET('/api/board/game/{gameId}', { params: { path: { gameId: outcome.gameId } } }),
    );
    t.assert.deepEqual([game.white.id, game.black.id], ['ann', 'bob']);
    t.assert.equal(game.state.status, 'checkmate');
    await within(streamsClosed(), WAIT_MS, 'the example closes its streams');
  });

  test('a stream skips heartbeats, yields its error line and ends when the server ends the answer', async t => {
    const carl = await service.unwrap(
      service.api.POST('/api/tokens', { body: { player: { id: 'carl', displayName: 'Carl' } } }),
    );
    const { gameId } = await service.unwrap(
      service.api.POST('/api/board/game', { body: { white: carl.player, black: { id: 'dora', displayName: 'Dora' } } }),
    );
    const client = createChessClient({ baseUrl: server.url, token: carl.token });
    const events = await client.stream('/api/board/game/{gameId}/stream', { params: { path: { gameId } } });
    t.assert.equal(events.response.headers.get('content-type'), 'application/x-ndjson');
    const first = await events.next();
    t.assert.equal(first.done, false);
    t.assert.equal(first.value?.type, 'gameFull');
    await sleep(200); // heartbeats every 50 ms meanwhile: none is an event
    await client.unwrap(
      client.api.POST('/api/board/game/{gameId}/move/{uci}', { params: { path: { gameId, uci: 'e2e4' } } }),
    );
    const second = await events.next();
    t.assert.equal(second.value?.type, 'gameState');
    // Revoking the token the stream was opened with ends it, after an error line.
    await service.unwrap(service.api.DELETE('/api/tokens/{id}', { params: { path: { id: carl.id } } }));
    const rest: string[] = [];
    for await (const event of events) rest.push(event.type === 'error' ? `error ${event.error.code}` : event.type);
    t.assert.deepEqual(rest, ['error UNAUTHORIZED']);
    await within(streamsClosed(), WAIT_MS, 'the stream is closed');
  });

  test('leaving a for-await loop closes the connection', async t => {
    const { gameId } = await service.unwrap(service.api.POST('/api/board/game', { body: {} }));
    const events = await service.stream('/api/board/game/{gameId}/stream', { params: { path: { gameId } } });
    t.assert.equal(await openStreams(), 1);
    for await (const event of events) {
      t.assert.equal(event.type, 'gameFull');
      break;
    }
    await within(streamsClosed(), WAIT_MS, 'the server sees the stream closed');
    t.assert.deepEqual(await events.next(), { done: true, value: undefined });
  });

  test('aborting the signal closes the connection and a waiting next() throws its reason', async t => {
    const { gameId } = await service.unwrap(service.api.POST('/api/board/game', { body: {} }));
    const controller = new AbortController();
    const events = await service.stream('/api/board/game/{gameId}/stream', {
      params: { path: { gameId } },
      signal: controller.signal,
    });
    t.assert.equal((await events.next()).value?.type, 'gameFull');
    const waiting = events.next();
    const reason = new Error('stop following');
    controller.abort(reason);
    await t.assert.rejects(waiting, error => error === reason);
    await within(streamsClosed(), WAIT_MS, 'the server sees the stream closed');
  });

  test('a refused request throws ChessApiError with the ApiError answer', async t => {
    const unknown = service.stream('/api/board/game/{gameId}/stream', { params: { path: { gameId: 'AAAAAAAA' } } });
    await t.assert.rejects(unknown, (error: unknown) => {
      assert.ok(error instanceof ChessApiError);
      t.assert.equal(error.status, 404);
      t.assert.equal(error.code, 'GAME_NOT_FOUND');
      t.assert.equal(error.body.code, 'GAME_NOT_FOUND');
      return true;
    });
    const anonymous = createChessClient({ baseUrl: server.url });
    const refused = await anonymous.api.POST('/api/board/game', { body: {} });
    t.assert.equal(refused.response.status, 401);
    t.assert.equal(refused.error?.code, 'UNAUTHORIZED');
    await t.assert.rejects(
      service.unwrap(
        service.api.POST('/api/board/game/{gameId}/move/{uci}', {
          params: { path: { gameId: 'AAAAAAAA', uci: 'e2e4' } },
        }),
      ),
      (error: unknown) => error instanceof ChessApiError && error.status === 404 && error.code === 'GAME_NOT_FOUND',
    );
  });
});
