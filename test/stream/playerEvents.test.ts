/**
 * A player's event stream, `GET /api/stream/event` (DECISIONS §13), over real sockets to real server processes:
 * a `gameStart` for each ongoing game first, then `gameStart` and `gameFinish` exactly once each as the player's
 * games start and end (a resumed game starts again; another player's games, and a game imported already over,
 * send nothing); heartbeats, the per-client cap and the shutdown line as on game streams. On SQLite, and across
 * two PostgreSQL instances (the games made through the other one).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, suite, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, twoPostgresInstances, type ServerProcess } from '../helpers/server.ts';
import { clientOf, gameAction, type GameAction } from '../helpers/client.ts';
import { ChessApiError, type components } from 'chess-game-service-client';
import { postgresSkip } from '../helpers/postgres.ts';
import { openStream, type StreamClient } from './helpers.ts';

const SERVICE = 'event-stream-service-token';

const issue = async (base: string, id: string) => {
  const service = clientOf(base, SERVICE);
  return service.unwrap(service.api.POST('/api/tokens', { body: { player: { id, displayName: id } } }));
};

/** A game created through `base` as the holder of `token`; its id. */
const create = async (base: string, token: string, body: components['schemas']['CreateGameRequest'] = {}) => {
  const client = clientOf(base, token);
  return (await client.unwrap(client.api.POST('/api/board/game', { body }))).gameId;
};

/** A change that must succeed, through `base` as the holder of `token`. */
const act = async (base: string, token: string, gameId: string, action: GameAction) => {
  const res = await gameAction(clientOf(base, token), gameId, action);
  if (res.status >= 300) throw new Error(`${action}: ${res.status} ${JSON.stringify(res.error)}`);
};

/** The stream's events as [type, gameId], and the ids of one type. */
const seen = (stream: StreamClient) => stream.events.map(event => [event.type, event.game?.gameId]);

/**
 * The scenario on two bases (the same server twice on SQLite; two instances on PostgreSQL): the player's stream on
 * `a`, everything else through `b`.
 */
async function scenario(t: TestContext, a: string, b: string, tag: string): Promise<void> {
  const [ann, bob] = [await issue(a, `ann-${tag}`), await issue(a, `bob-${tag}`)];
  // Two games already ongoing, and one already over, before the stream opens (games between two players are
  // paired by the service).
  const before1 = await create(b, SERVICE, { white: ann.player, black: bob.player });
  const before2 = await create(b, SERVICE, { white: bob.player, black: ann.player });
  const overBefore = await create(b, SERVICE, { white: ann.player, black: bob.player });
  await act(b, ann.token, overBefore, 'resign');

  const stream = await openStream(`${a}/api/stream/event`, { headers: { authorization: `Bearer ${ann.token}` } });
  t.after(() => stream.close());
  t.assert.equal(stream.status, 200);
  t.assert.equal(stream.headers['content-type'], 'application/x-ndjson');
  await stream.waitForEvents(2);
  t.assert.deepEqual(
    new Set(seen(stream).map(([type, id]) => `${type} ${id}`)),
    new Set([`gameStart ${before1}`, `gameStart ${before2}`]),
  );
  t.assert.equal(stream.events[0].game.white.id !== undefined, true, 'each line carries the GameFull');

  // Games created while the stream is open: a game against Bob (paired by the service), a practice board, Bob's
  // practice board (nothing), a PGN imported already over (nothing).
  const versus = await create(b, SERVICE, { white: ann.player, black: bob.player });
  const practice = await create(b, ann.token);
  await create(b, bob.token);
  const mate = '1. f3 e5 2. g4 Qh4# 0-1';
  const annAtB = clientOf(b, ann.token);
  const importedOver = (await annAtB.unwrap(annAtB.api.POST('/api/board/game/import/pgn', { body: { pgn: mate } })))
    .gameId;
  // Ends: a resignation, an agreed draw, a mate; then an undo of the mate resumes its game.
  await act(b, bob.token, before1, 'resign');
  await act(b, ann.token, versus, 'draw/offer');
  await act(b, bob.token, versus, 'draw/accept');
  for (const uci of ['f2f3', 'e7e5', 'g2g4', 'd8h4']) await act(b, ann.token, practice, `move/${uci}`);
  await act(b, ann.token, practice, 'undo');
  const expected = [
    ['gameStart', versus],
    ['gameStart', practice],
    ['gameFinish', before1],
    ['gameFinish', versus],
    ['gameFinish', practice],
    ['gameStart', practice],
  ];
  await stream.waitForEvents(2 + expected.length);
  await sleep(500); // a duplicate, or an event for a game that is not Ann's, would be here by now
  t.assert.deepEqual(seen(stream).slice(2), expected);
  t.assert.equal(stream.events.length, 2 + expected.length, `no other line: ${JSON.stringify(seen(stream))}`);
  const finish = stream.events.find(event => event.type === 'gameFinish' && event.game.gameId === practice);
  t.assert.equal(finish.game.state.status, 'checkmate', 'a finish carries the game as it ended');
  t.assert.ok(!seen(stream).some(([, id]) => id === importedOver || id === overBefore));

  // A reconnecting client gets the ongoing games again.
  const again = await openStream(`${a}/api/stream/event`, { headers: { authorization: `Bearer ${ann.token}` } });
  t.after(() => again.close());
  await again.waitForEvents(2);
  await sleep(200);
  t.assert.deepEqual(new Set(seen(again).map(([, id]) => id)), new Set([before2, practice]));
}

suite('player event streams on SQLite', { timeout: 60_000 }, () => {
  let dir: string;
  let server: ServerProcess;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chess-events-'));
    server = await startServer({
      DATABASE_URL: join(dir, 'chess.sqlite'),
      API_TOKENS: SERVICE,
      RATE_LIMIT_MAX: '0',
      STREAM_HEARTBEAT_MS: '100',
      MAX_STREAMS_PER_CLIENT: '3',
    });
  });
  after(async () => {
    await server.stop('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  test('gameStart for each ongoing game first, then gameStart and gameFinish exactly once each', async (t: TestContext) => {
    await scenario(t, server.url, server.url, 'sqlite');
  });

  test('a service token names the player (INVALID_QUERY without one); heartbeats; the per-client cap', async (t: TestContext) => {
    const unnamed = await clientOf(server.url, SERVICE)
      .stream('/api/stream/event')
      .then(
        () => assert.fail('a stream with no player named'),
        (error: unknown) => error,
      );
    assert.ok(unnamed instanceof ChessApiError, String(unnamed));
    t.assert.equal(unnamed.status, 400);
    t.assert.deepEqual(unnamed.body, {
      code: 'INVALID_QUERY',
      message: 'name the player whose events to follow: ?player=ID',
      field: 'player',
    });
    const cid = await issue(server.url, 'cid-cap');
    const headers = { authorization: `Bearer ${cid.token}` };
    const streams = await Promise.all([1, 2, 3].map(() => openStream(`${server.url}/api/stream/event`, { headers })));
    t.after(() => streams.forEach(stream => stream.close()));
    t.assert.deepEqual(
      streams.map(stream => stream.status),
      [200, 200, 200],
    );
    const fourth = await openStream(`${server.url}/api/stream/event`, { headers });
    t.after(() => fourth.close());
    t.assert.equal(fourth.status, 429);
    t.assert.equal(JSON.parse(fourth.body).code, 'RATE_LIMITED');
    await streams[0]!.waitFor(() => streams[0]!.lines.filter(line => line === '').length >= 2, 'two heartbeats');
    const byService = await openStream(`${server.url}/api/stream/event?player=cid-cap`, {
      headers: { authorization: `Bearer ${SERVICE}` },
    });
    t.after(() => byService.close());
    t.assert.equal(byService.status, 200);
  });

  test('at shutdown an open event stream gets SERVER_SHUTDOWN, then its end', async (t: TestContext) => {
    const own = await startServer({ DATABASE_URL: join(dir, 'shutdown.sqlite'), API_TOKENS: SERVICE });
    const dan = await issue(own.url, 'dan');
    const stream = await openStream(`${own.url}/api/stream/event`, {
      headers: { authorization: `Bearer ${dan.token}` },
    });
    t.after(() => stream.close());
    t.assert.equal(stream.status, 200);
    t.assert.equal(await own.stop('SIGTERM'), 0);
    await stream.finished;
    t.assert.equal(stream.events.at(-1)?.error?.code, 'SERVER_SHUTDOWN');
  });
});

const pgSkip = await postgresSkip();
suite('player event streams across two PostgreSQL instances', { skip: pgSkip, timeout: 60_000 }, () => {
  const instances = twoPostgresInstances(SERVICE);

  test('games made through the other instance: gameStart and gameFinish exactly once each', async (t: TestContext) => {
    await scenario(t, ...instances.urls(), 'pg');
  });
});
