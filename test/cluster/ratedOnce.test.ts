/**
 * Rated once across instances (DECISIONS §21): two instances on one PostgreSQL database, 50 rated games between 20
 * players ending at once, each by a race (both players resigning, one on each instance; or the flag against the
 * other player's resignation), and one instance SIGKILLed while the ends are being recorded. Every game is rated
 * exactly once, and every player's perf equals a replay of the results in the order they were recorded; an
 * instance started again afterwards changes nothing.
 */
import { after, before, describe, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { GameRecord } from '../../src/domain/game.ts';
import { newPerf, ratedGame, ratingDiff, type Perf } from '../../src/domain/glicko.ts';
import { perfTypeOf } from '../../src/domain/ratings.ts';
import { callAs, startServer, type ServerProcess } from '../helpers/server.ts';
import { createTestDatabase, postgresSkip, type TestDatabase } from '../helpers/postgres.ts';

const skip = await postgresSkip();
const SERVICE = 'service-token-for-rated-once-01';
const env = { API_TOKENS: SERVICE, RATE_LIMIT_MAX: '0', MAX_STREAMS_PER_CLIENT: '0' };
const PLAYERS = 20;
const GAMES = 50;
const FLAG_LIMIT_S = 15; // the shortest clock a challenge takes

interface Player {
  id: string;
  token: string;
}

async function ok(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const answer = await callAs(base, token, method, path, body);
  if (answer.status !== 200 && answer.status !== 201) {
    throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer;
}

describe('rated once across instances, one killed during the ends', { skip, timeout: 120_000 }, () => {
  let db: TestDatabase;
  const servers: ServerProcess[] = [];

  before(async () => {
    db = await createTestDatabase();
    servers.push(...(await Promise.all([1, 2].map(() => startServer({ ...env, DATABASE_URL: db.url })))));
  });

  after(async () => {
    await Promise.all(servers.map(server => server.stop('SIGKILL')));
    await db.drop();
  });

  test('50 rated games ending in races, an instance SIGKILLed: each rated once, every perf a replay', async (t: TestContext) => {
    const [a, b] = servers.map(server => server.url) as [string, string];
    const players: Player[] = [];
    for (let i = 0; i < PLAYERS; i++) {
      const id = `rated-${i}`;
      const issued = await ok(a, SERVICE, 'POST', '/api/tokens', { player: { id, displayName: `Player ${i}` } });
      players.push({ id, token: issued.body.token as string });
    }
    // Each game between two of the 20, so that most players are in several games ending at the same moment.
    const games: Array<{ id: string; white: Player; black: Player; flag: boolean }> = [];
    for (let i = 0; i < GAMES; i++) {
      const white = players[i % PLAYERS]!;
      const black = players[(i + 1 + (i % 3) * 5) % PLAYERS]!; // never white: 1, 6 or 11 seats on
      const flag = i % 2 === 1;
      const clock = { 'clock.limit': flag ? FLAG_LIMIT_S : 300, 'clock.increment': 0 };
      const made = await ok(i % 2 ? a : b, white.token, 'POST', `/api/challenge/${black.id}`, {
        ...clock,
        color: 'white',
        rated: true,
      });
      const id = made.body.id as string;
      await ok(i % 2 ? b : a, black.token, 'POST', `/api/challenge/${id}/accept`);
      games.push({ id, white, black, flag });
    }
    // Both sides move (a game ended before both moved is not rated); a flag game's white clock runs from black's
    // move: its deadline.
    const deadlines = new Map<string, number>();
    await Promise.all(
      games.map(async ({ id, white, black }) => {
        await ok(a, white.token, 'POST', `/api/board/game/${id}/move/e2e4`);
        const { body: state } = await ok(b, black.token, 'POST', `/api/board/game/${id}/move/e7e5`);
        deadlines.set(id, (state.serverTime as number) + (state.wtime as number)); // white's flag
      }),
    );
    // The ends, in races: the resignation games race two resignations (white's on one instance, black's on the
    // other), all at once; each flag game races both instances' clock timers against black's resignation, sent at its
    // deadline. The first instance is killed in the middle of them.
    const at = (time: number) => sleep(Math.max(0, time - Date.now()));
    const flagTimes = [...deadlines].filter(([id]) => games.find(g => g.id === id)!.flag).map(([, d]) => d);
    const middle = flagTimes.sort((x, y) => x - y)[Math.floor(flagTimes.length / 2)]!;
    // Around each deadline (the state's, of the server's clock; the same machine's): from 40 ms before it to 60 ms after.
    const ends = games.flatMap(({ id, white, black, flag }, i) =>
      flag
        ? [
            at(deadlines.get(id)! - 40 + (i % 5) * 25).then(() =>
              callAs(b, black.token, 'POST', `/api/board/game/${id}/resign`),
            ),
          ]
        : [
            at(middle).then(() => callAs(a, white.token, 'POST', `/api/board/game/${id}/resign`)),
            at(middle).then(() => callAs(b, black.token, 'POST', `/api/board/game/${id}/resign`)),
          ],
    );
    const settled = Promise.allSettled(ends); // those sent to the killed instance fail
    await at(middle + 15);
    const killed = await servers[0]!.stop('SIGKILL');
    t.diagnostic(`first instance: ${killed}`);
    const answers = await settled;
    t.diagnostic(
      `ends answered: ${answers.filter(r => r.status === 'fulfilled' && r.value.status === 200).length} ok of ${answers.length}`,
    );

    // Every game ends (the second instance's clocks end the flag games it has not seen resigned).
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    t.after(() => client.end());
    const read = async () =>
      (
        await client.query<{ id: string; seq: string; data: GameRecord }>(
          'SELECT id, seq, data::json AS data FROM games WHERE id = ANY($1) ORDER BY seq',
          [games.map(game => game.id)],
        )
      ).rows;
    let rows = await read();
    for (let tries = 0; tries < 100 && rows.some(row => row.data.result === null); tries++) {
      await sleep(100);
      rows = await read();
    }
    t.assert.equal(rows.length, GAMES);
    t.assert.deepEqual(
      rows.filter(row => row.data.result === null).map(row => row.id),
      [],
      'every game is over',
    );

    // The replay: each perf (player and perf type) from a new player's, the results applied in the order the games
    // were recorded (their seq: a game's end is its last write), each at the time it was rated.
    const replayed = new Map<string, Perf>();
    for (const { id, data } of rows) {
      const ratings = data.ratings!;
      t.assert.equal(typeof ratings.ratedAt, 'number', `${id} is rated`);
      const perfType = perfTypeOf(data.clock?.control);
      const key = (player: string) => `${player}/${perfType}`;
      const result = data.result!;
      const winner = result.kind === 'resign' || result.kind === 'outOfTime' ? (result.winner ?? undefined) : undefined;
      const before = {
        white: replayed.get(key(data.white.id)) ?? newPerf(),
        black: replayed.get(key(data.black.id)) ?? newPerf(),
      };
      const next = ratedGame(before, winner, ratings.ratedAt!);
      t.assert.deepEqual(
        [ratings.white.ratingDiff, ratings.black.ratingDiff],
        [ratingDiff(before.white, next.white), ratingDiff(before.black, next.black)],
        `${id}: its changes are the replay's`,
      );
      replayed.set(key(data.white.id), next.white);
      replayed.set(key(data.black.id), next.black);
    }
    const kinds = rows.map(row => row.data.result!.kind);
    t.diagnostic(
      `ends: ${kinds.filter(k => k === 'resign').length} resignations, ${kinds.filter(k => k === 'outOfTime').length} flags`,
    );
    const stored = async () => {
      const { rows: perfs } = await client.query<PerfRow>(
        "SELECT player_id || '/' || perf AS key, rating, deviation, volatility, games, latest, recent FROM perfs",
      );
      return new Map(perfs.map(row => [row.key, perfOfRow(row)]));
    };
    const storedPerfs = await stored();
    t.assert.deepEqual(storedPerfs, replayed, 'every perf is the replay of its results in the order recorded');
    const gamesPlayed = [...storedPerfs.values()].reduce((sum, perf) => sum + perf.games, 0);
    t.assert.equal(gamesPlayed, 2 * GAMES, 'each game rated once, for both its players');

    // An instance started again (as after the crash) changes no rating.
    const again = await startServer({ ...env, DATABASE_URL: db.url });
    servers.push(again);
    await sleep(500);
    t.assert.deepEqual(await stored(), storedPerfs);
    const user = await ok(again.url, SERVICE, 'GET', `/api/user/${players[0]!.id}`);
    const counted = Object.values<{ games: number }>(user.body.perfs).reduce((n, p) => n + p.games, 0);
    t.assert.equal(counted, games.filter(g => g.white === players[0] || g.black === players[0]).length);
  });
});

interface PerfRow {
  key: string;
  rating: number;
  deviation: number;
  volatility: number;
  games: number;
  latest: string;
  recent: string;
}

const perfOfRow = (row: PerfRow): Perf => ({
  glicko: { rating: row.rating, deviation: row.deviation, volatility: row.volatility },
  games: row.games,
  recent: JSON.parse(row.recent) as number[],
  latest: Number(row.latest),
});
