/**
 * The typed client (client/) exports a player's games from a real server process (DECISIONS §22): the NDJSON stream
 * of `GET /api/games/user/{id}` as typed GameJson events, one game's PGN and JSON, games by ids and the current game.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { createChessClient } from 'chess-game-service-client';
import { startServer } from '../helpers/server.ts';

const SERVICE = 'export-client-service-token';

/** An answer of PGN or JSON, asked for as JSON. */
const asJson = <T>(answer: T) => answer as Exclude<T, string>;

test("the typed client exports a player's games from a running server", async (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'chess-export-client-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const server = await startServer({
    DATABASE_URL: join(dir, 'chess.sqlite'),
    API_TOKENS: SERVICE,
    RATE_LIMIT_MAX: '0',
  });
  t.after(() => server.stop('SIGTERM'));
  const client = createChessClient({ baseUrl: server.url, token: SERVICE });
  const ann = { id: 'ann', displayName: 'Ann' };
  const bob = { id: 'bob', displayName: 'Bob' };

  const ids: string[] = [];
  for (const moves of [['f2f3', 'e7e5', 'g2g4', 'd8h4'], ['e2e4', 'e7e5'], ['d2d4']]) {
    const { gameId } = await client.unwrap(
      client.api.POST('/api/board/game', {
        body: { white: ann, black: bob, clock: { initial: 300_000, increment: 0 } },
      }),
    );
    for (const uci of moves) {
      await client.unwrap(
        client.api.POST('/api/board/game/{gameId}/move/{uci}', { params: { path: { gameId, uci } } }),
      );
    }
    ids.push(gameId);
  }
  await client.unwrap(client.api.POST('/api/board/game/{gameId}/resign', { params: { path: { gameId: ids[1]! } } }));

  // The stream: typed GameJson events, newest first, finished games only by default.
  const finished = [];
  for await (const game of await client.stream('/api/games/user/{id}', { params: { path: { id: 'ann' } } })) {
    finished.push([game.id, game.status, game.moves]);
  }
  t.assert.deepEqual(finished, [
    [ids[1], 'resign', 'e4 e5'],
    [ids[0], 'mate', 'f3 e5 g4 Qh4#'],
  ]);
  const all = await client.stream('/api/games/user/{id}', {
    params: { path: { id: 'ann' }, query: { ongoing: true, sort: 'dateAsc', clocks: true, vs: 'bob' } },
  });
  const games = [];
  for await (const game of all) games.push(game);
  t.assert.deepEqual(
    games.map(game => game.id),
    ids,
  );
  t.assert.ok(games.every(game => game.speed === 'blitz' && Array.isArray(game.clocks)));

  // One game: PGN by default, with clocks; JSON when asked.
  const pgn = await client.api.GET('/game/export/{gameId}', { params: { path: { gameId: ids[0]! } }, parseAs: 'text' });
  t.assert.equal(pgn.response.status, 200);
  t.assert.match(pgn.data!, /\[Termination "Normal"\]/);
  t.assert.match(pgn.data!, /\[%clk 0:05:00\]/);
  const one = asJson(
    await client.unwrap(
      client.api.GET('/game/export/{gameId}', {
        params: { path: { gameId: ids[0]! } },
        headers: { accept: 'application/json' },
      }),
    ),
  );
  t.assert.equal(one.winner, 'black');

  // By ids, in the order given; and the current game.
  const byIds = await client.api.POST('/api/games/export/_ids', {
    body: `${ids[2]},${ids[0]}`,
    bodySerializer: body => body,
    headers: { 'content-type': 'text/plain' },
    parseAs: 'text',
  });
  t.assert.deepEqual(
    [...byIds.data!.matchAll(/\[GameId "(\w+)"\]/g)].map(match => match[1]),
    [ids[2], ids[0]],
  );
  const current = asJson(
    await client.unwrap(
      client.api.GET('/api/user/{id}/current-game', {
        params: { path: { id: 'ann' } },
        headers: { accept: 'application/json' },
      }),
    ),
  );
  t.assert.equal(current.id, ids[2]);
});
