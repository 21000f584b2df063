/**
 * Several real server processes on one PostgreSQL database: any instance serves any game, changes reach the
 * streams of every instance, conflicting changes apply once, a killed instance loses nothing acknowledged,
 * and a database outage gives 503s (never a hang or a 500) and heals without a restart.
 */
import { after, before, describe, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, type ServerProcess } from '../helpers/server.ts';
import { createTestDatabase, postgresSkip, type TestDatabase } from '../helpers/postgres.ts';
import { Outage } from '../helpers/outage.ts';
import { clientOf } from '../helpers/client.ts';

const skip = await postgresSkip();

interface Line {
  type: string;
  state?: { moves: string[]; status: string };
  game?: { state: { moves: string[] } };
  error?: { code: string };
}

/** Follows a game's NDJSON stream through the client; `lines` grows as events arrive. */
async function follow(base: string, gameId: string) {
  const controller = new AbortController();
  const events = await clientOf(base).stream('/api/board/game/{gameId}/stream', {
    params: { path: { gameId } },
    signal: controller.signal,
  });
  const lines: Line[] = [];
  const done = (async () => {
    try {
      for await (const event of events) lines.push(event);
    } catch {
      // aborted
    }
  })();
  return {
    lines,
    close: async () => {
      controller.abort();
      await done;
    },
  };
}

async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** A change to a game through the client, as its path below the game says it: its answer's status and error. */
async function act(
  base: string,
  gameId: string,
  action: `move/${string}` | 'undo' | 'redo' | 'draw/offer' | 'draw/decline',
): Promise<{ status: number; error: unknown }> {
  const { api } = clientOf(base);
  const path = { params: { path: { gameId } } };
  const answer = action.startsWith('move/')
    ? await api.POST('/api/board/game/{gameId}/move/{uci}', {
        params: { path: { gameId, uci: action.slice('move/'.length) } },
      })
    : action === 'undo'
      ? await api.POST('/api/board/game/{gameId}/undo', path)
      : action === 'redo'
        ? await api.POST('/api/board/game/{gameId}/redo', path)
        : await api.POST('/api/board/game/{gameId}/draw/{action}', {
            params: { path: { gameId, action: action === 'draw/offer' ? 'offer' : 'decline' } },
          });
  return { status: answer.response.status, error: answer.error };
}

async function createGame(base: string): Promise<string> {
  const client = clientOf(base);
  return (await client.unwrap(client.api.POST('/api/board/game', { body: {} }))).gameId;
}

async function movesOf(base: string, gameId: string): Promise<string[]> {
  const client = clientOf(base);
  return (await client.unwrap(client.api.GET('/api/board/game/{gameId}', { params: { path: { gameId } } }))).state
    .moves;
}

describe('several instances on one PostgreSQL database', { skip, timeout: 180_000 }, () => {
  let db: TestDatabase;
  const servers: ServerProcess[] = [];
  const outage = new Outage();
  let proxied: ServerProcess;

  before(async () => {
    db = await createTestDatabase();
    await outage.start();
    const env = { DATABASE_URL: db.url, MAX_STREAMS_PER_CLIENT: '0', RATE_LIMIT_MAX: '0' };
    // Three instances started together: the migrations must run once between them.
    servers.push(...(await Promise.all([startServer(env), startServer(env), startServer(env)])));
    proxied = await startServer({ ...env, DATABASE_URL: outage.url(db.url) });
  });
  after(async () => {
    await Promise.all([...servers, proxied].map(server => server.stop('SIGKILL')));
    await outage.close();
    await db.drop();
  });

  test('a move through one instance reaches the streams of the others, once and in order', async (t: TestContext) => {
    const [a, b, c] = servers as [ServerProcess, ServerProcess, ServerProcess];
    const id = await createGame(a.url);
    const onB = await follow(b.url, id);
    const onC = await follow(c.url, id);
    t.after(() => Promise.all([onB.close(), onC.close()]));
    await until('snapshots', () => onB.lines.length >= 1 && onC.lines.length >= 1);
    const plan: Array<[ServerProcess, Parameters<typeof act>[2]]> = [
      [a, 'move/e2e4'],
      [b, 'move/e7e5'],
      [c, 'move/g1f3'],
      [a, 'undo'],
      [b, 'redo'],
      [c, 'draw/offer'],
      [a, 'draw/decline'],
    ];
    for (const [server, action] of plan) {
      const res = await act(server.url, id, action);
      t.assert.equal(res.status, 200, `${action} through ${server.url}`);
    }
    await until('every event on both streams', () => onB.lines.length >= 8 && onC.lines.length >= 8);
    await sleep(200); // nothing more may arrive
    t.assert.equal(onB.lines.length, 8);
    t.assert.deepEqual(onC.lines, onB.lines);
    t.assert.deepEqual(
      onB.lines.slice(1).map(line => line.state!.moves.length),
      [1, 2, 3, 2, 3, 3, 3],
    );
    t.assert.deepEqual(
      onB.lines.slice(1).map(line => line.state!.status),
      ['started', 'started', 'started', 'started', 'started', 'drawOffered', 'started'],
    );
  });

  test('50 conflicting moves spread over the instances apply exactly once', async (t: TestContext) => {
    const id = await createGame(servers[0]!.url);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => act(servers[i % 3]!.url, id, 'move/e2e4')));
    const statuses = answers.map(res => res.status);
    t.assert.equal(statuses.filter(status => status === 200).length, 1, `statuses: ${statuses.join(',')}`);
    t.assert.equal(statuses.filter(status => status === 400).length, 49);
    for (const server of servers) t.assert.deepEqual(await movesOf(server.url, id), ['e2e4']);
  });

  test('undo and redo through different instances stay consistent', async (t: TestContext) => {
    const [a, b, c] = servers as [ServerProcess, ServerProcess, ServerProcess];
    const id = await createGame(a.url);
    for (const [server, uci] of [
      [a, 'd2d4'],
      [b, 'd7d5'],
      [c, 'c2c4'],
    ] as const) {
      t.assert.equal((await act(server.url, id, `move/${uci}`)).status, 200);
    }
    t.assert.equal((await act(b.url, id, 'undo')).status, 200);
    t.assert.equal((await act(c.url, id, 'undo')).status, 200);
    for (const server of servers) t.assert.deepEqual(await movesOf(server.url, id), ['d2d4']);
    t.assert.equal((await act(a.url, id, 'redo')).status, 200);
    for (const server of servers) t.assert.deepEqual(await movesOf(server.url, id), ['d2d4', 'd7d5']);
    // Two instances racing to undo the same single move: one succeeds; the other finds the state it made.
    const racing = await Promise.all([b, c].map(server => act(server.url, id, 'undo')));
    t.assert.deepEqual(racing.map(res => res.status).sort(), [200, 200]);
    for (const server of servers) t.assert.deepEqual(await movesOf(server.url, id), []);
    t.assert.equal((await act(a.url, id, 'undo')).status, 400);
  });

  test('kill -9 of one instance under load loses no acknowledged change; the others keep serving', async (t: TestContext) => {
    const env = { DATABASE_URL: db.url, MAX_STREAMS_PER_CLIENT: '0', RATE_LIMIT_MAX: '0' };
    const victim = await startServer(env);
    const games = await Promise.all(Array.from({ length: 6 }, () => createGame(victim.url)));
    // Each game shuffles its knights through the victim and a survivor alternately.
    const cycle = ['g1f3', 'g8f6', 'f3g1', 'f6g8'];
    const acknowledged = new Map<string, number>(games.map(id => [id, 0]));
    const unknown = new Map<string, number>(games.map(id => [id, 0]));
    let stop = false;
    let killed = false;
    const load = games.map(async (id, n) => {
      for (let i = 0; !stop && i < 400; i++) {
        const server = i % 2 === 0 && !killed ? victim : servers[n % 3]!;
        try {
          const res = await act(server.url, id, 'undo');
          if (res.status === 200) acknowledged.set(id, acknowledged.get(id)! - 1);
          const move = await act(server.url, id, `move/${cycle[i % 4]}`);
          if (move.status === 200) acknowledged.set(id, acknowledged.get(id)! + 1);
        } catch {
          // the victim is gone: this request's outcome is unknown (at most one per game is in flight)
          unknown.set(id, unknown.get(id)! + 1);
        }
      }
    });
    await sleep(1500);
    killed = true; // requests started from now on go to the survivors
    t.assert.equal(await victim.stop('SIGKILL'), 'SIGKILL');
    await sleep(500);
    stop = true;
    await Promise.all(load);
    // Every game is readable on every survivor, with a consistent move list.
    for (const id of games) {
      const seen = await Promise.all(servers.map(server => movesOf(server.url, id)));
      t.assert.deepEqual(seen[1], seen[0]);
      t.assert.deepEqual(seen[2], seen[0]);
      // The game holds every acknowledged change: its length is the acknowledged net count, give or take
      // the requests whose answers were lost with the victim.
      const drift = Math.abs(seen[0]!.length - acknowledged.get(id)!);
      t.assert.ok(unknown.get(id)! <= 1, `${id}: ${unknown.get(id)} requests lost`);
      t.assert.ok(drift <= unknown.get(id)!, `${id}: ${seen[0]!.length} moves, ${acknowledged.get(id)} acknowledged`);
    }
    t.assert.equal((await clientOf(servers[0]!.url).api.POST('/api/board/game', { body: {} })).response.status, 201);
  });

  test('a database outage: 503 UNAVAILABLE and /readyz 503, never a hang; healed without a restart', async (t: TestContext) => {
    const id = await createGame(proxied.url);
    const stream = await follow(proxied.url, id);
    t.after(() => stream.close());
    await until('snapshot', () => stream.lines.length >= 1);
    t.assert.equal((await act(proxied.url, id, 'move/e2e4')).status, 200);

    outage.cut();
    const started = Date.now();
    const { api } = clientOf(proxied.url);
    const [ready503, ...during] = await Promise.all([
      fetch(`${proxied.url}/readyz`), // not an operation of the API's document
      act(proxied.url, id, 'move/e7e5').then(answer => ({ what: 'move', ...answer })),
      api.GET('/api/board/game/{gameId}', { params: { path: { gameId: id } } }).then(answer => ({
        what: 'read',
        status: answer.response.status,
        error: answer.error,
      })),
      api.POST('/api/board/game', { body: {} }).then(answer => ({
        what: 'create',
        status: answer.response.status,
        error: answer.error,
      })),
    ]);
    t.assert.ok(Date.now() - started < 8000, `answers took ${Date.now() - started} ms`);
    t.assert.equal(ready503.status, 503, `/readyz: ${ready503.status}`);
    t.assert.equal(((await ready503.json()) as { code: string }).code, 'UNAVAILABLE');
    for (const answer of during) {
      t.assert.equal(answer.status, 503, `${answer.what}: ${answer.status}`);
      t.assert.equal((answer.error as { code?: string } | undefined)?.code, 'UNAVAILABLE');
    }
    t.assert.equal((await fetch(`${proxied.url}/healthz`)).status, 200);
    // Meanwhile another instance keeps changing the game: the proxied instance's stream must catch up.
    t.assert.equal((await act(servers[0]!.url, id, 'move/e7e5')).status, 200);
    t.assert.equal((await act(servers[1]!.url, id, 'move/g1f3')).status, 200);

    outage.restore();
    const ready = Date.now() + 15_000;
    while ((await fetch(`${proxied.url}/readyz`)).status !== 200) {
      if (Date.now() > ready) throw new Error('the instance did not become ready again');
      await sleep(100);
    }
    t.assert.equal((await act(proxied.url, id, 'move/b8c6')).status, 200);
    await until('the stream caught up', () => stream.lines.length >= 5, 15_000);
    t.assert.deepEqual(
      stream.lines.map(line => (line.type === 'gameFull' ? line.game!.state.moves : line.state!.moves).join(' ')),
      ['', 'e2e4', 'e2e4 e7e5', 'e2e4 e7e5 g1f3', 'e2e4 e7e5 g1f3 b8c6'],
    );
  });
});
