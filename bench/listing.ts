/**
 * What a page of a player's games costs as the store grows (DECISIONS §13): the list of one player's games, and
 * of all games, at 10^4, 10^5 and 10^6 stored games, on SQLite and on PostgreSQL. The page must cost the same at
 * every size (indexed, not scanned).
 *
 * ```sh
 * npm run bench:listing                              # SQLite and PostgreSQL, 10^4 to 10^6 games
 * SIZES=10000,100000 STORES=sqlite npm run bench:listing
 * ```
 *
 * The games are written straight into the store's tables in bulk (the same columns and data the store writes),
 * since a million games through the API would take the benchmark's whole time; then, at each size, REPEAT pages
 * of 50 through `GET /api/board/game` (app.inject: validation, the store's query, the views, serialization) and
 * the store's query alone. A test player holds 200 games spread over the whole range of positions; the other games
 * belong to 1,000 other players; every other game is over.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import pg from 'pg';
import { ChangeFeed } from '../src/bus/feed.ts';
import { newGame } from '../src/domain/game.ts';
import { buildApp } from '../src/http/app.ts';
import { GameService } from '../src/service/games.ts';
import { newGameId } from '../src/service/ids.ts';
import { PostgresGameStore } from '../src/store/postgres.ts';
import { SqliteGameStore } from '../src/store/sqlite.ts';
import type { GameStore } from '../src/store/store.ts';
import { dataOf } from '../src/store/rows.ts';
import { quantile } from './common.ts';

const SIZES = (process.env.SIZES ?? '10000,100000,1000000').split(',').map(Number);
const STORES = (process.env.STORES ?? 'sqlite,postgres').split(',');
const REPEAT = Number(process.env.REPEAT ?? 300);
const POSTGRES = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PLAYER = 'bench-player';
const PLAYER_GAMES = 200;

/** The stored data of a new untimed game between two players (what the store writes for a creation). */
const dataFor = (white: string, black: string): string =>
  JSON.stringify(
    dataOf(
      newGame({
        id: 'AAAAAAAA',
        createdAt: '2026-01-01T00:00:00.000Z',
        white: { id: white, displayName: white },
        black: { id: black, displayName: black },
      }).record,
    ),
  );

/** Which rows from `from` to `to` (seq numbers) are the test player's: 200 spread over the final range. */
const isPlayers = (seq: number, total: number) => seq % Math.floor(total / PLAYER_GAMES) === 0;

interface Bulk {
  /** Writes the games of seq `from` to `to` (inclusive). */
  fill(from: number, to: number, total: number): Promise<void>;
  store: GameStore;
  close(): Promise<void>;
}

async function sqliteBulk(): Promise<Bulk> {
  const dir = mkdtempSync(join(tmpdir(), 'chess-bench-listing-'));
  const path = join(dir, 'chess.sqlite');
  await SqliteGameStore.open(path).close(); // creates and migrates the file
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  const insert = db.prepare(
    `INSERT INTO games (id, version, created_at, updated_at, data, deadline, white_id, black_id, ended, seq)
     VALUES (?, 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', ?, NULL, ?, ?, ?, ?)`,
  );
  const other = dataFor('other', 'rival');
  const mine = dataFor(PLAYER, 'rival');
  const fill = db.transaction((from: number, to: number, total: number) => {
    for (let seq = from; seq <= to; seq++) {
      const players = isPlayers(seq, total);
      const white = players ? PLAYER : `player${seq % 1000}`;
      insert.run(`s${seq.toString(36).padStart(7, '0')}`, players ? mine : other, white, 'rival', seq % 2, seq);
    }
  });
  const store = SqliteGameStore.open(path);
  return {
    fill: (from, to, total) => {
      // The test player's games are re-spread over the whole range at each size.
      db.prepare(`UPDATE games SET white_id = 'player0' WHERE white_id = ?`).run(PLAYER);
      fill(from, to, total);
      db.prepare(`UPDATE games SET white_id = ?, data = ? WHERE seq % ? = 0`).run(
        PLAYER,
        mine,
        Math.floor(total / PLAYER_GAMES),
      );
      return Promise.resolve();
    },
    store,
    close: async () => {
      await store.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresBulk(): Promise<Bulk> {
  const name = `chess_bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: POSTGRES });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES);
  url.pathname = `/${name}`;
  const store = await PostgresGameStore.open(url.toString());
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  const other = dataFor('other', 'rival');
  const mine = dataFor(PLAYER, 'rival');
  return {
    fill: async (from, to, total) => {
      await client.query(
        `INSERT INTO games (id, version, created_at, data, deadline, white_id, black_id, ended, seq)
         SELECT 'p' || lpad(to_hex(s), 7, '0'), 1, '2026-01-01T00:00:00.000Z', $3, NULL, 'player' || (s % 1000),
                'rival', s % 2, s
         FROM generate_series($1::bigint, $2::bigint) AS s`,
        [from, to, other],
      );
      await client.query(`UPDATE games SET white_id = 'player0' WHERE white_id = $1`, [PLAYER]);
      await client.query(`UPDATE games SET white_id = $1, data = $2 WHERE seq % $3 = 0`, [
        PLAYER,
        mine,
        Math.floor(total / PLAYER_GAMES),
      ]);
      await client.query(`SELECT setval('games_seq', $1)`, [to + 1]);
      await client.query('VACUUM ANALYZE games');
    },
    store,
    close: async () => {
      await store.close();
      await client.end();
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** The median and p99 of `run` over REPEAT calls, in ms. */
async function time(run: () => Promise<unknown>): Promise<string> {
  for (let i = 0; i < 20; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return `${quantile(times, 0.5).toFixed(3)} / ${quantile(times, 0.99).toFixed(3)}`;
}

console.log(`node ${process.version}; ms per page of 50, median / p99 over ${REPEAT}`);
console.log(
  '| store | games stored | player, all (HTTP) | player, ongoing (HTTP) | all games, page 3 (HTTP) | player, all (store) |',
);
console.log('| --- | --- | --- | --- | --- | --- |');
for (const kind of STORES) {
  const bulk = kind === 'postgres' ? await postgresBulk() : await sqliteBulk();
  const games = new GameService({
    store: bulk.store,
    bus: new ChangeFeed(bulk.store),
    newId: newGameId,
    clock: () => new Date(),
    sharedStore: kind === 'postgres',
    cacheSize: 1, // every page restores its games, as a cold read does
  });
  const app = await buildApp({ games, store: bulk.store, bus: new ChangeFeed(bulk.store) });
  try {
    let stored = 0;
    for (const size of SIZES) {
      await bulk.fill(stored + 1, size, size);
      stored = size;
      const page = (query: string) => async () => {
        const res = await app.inject(`/api/board/game?${query}`);
        if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
      };
      const third = JSON.parse((await app.inject('/api/board/game?limit=50')).body).nextCursor as string;
      const thirdCursor = JSON.parse((await app.inject(`/api/board/game?limit=50&cursor=${third}`)).body).nextCursor;
      const row = [
        kind,
        size.toLocaleString('en'),
        await time(page(`player=${PLAYER}&limit=50`)),
        await time(page(`player=${PLAYER}&status=ongoing&limit=50`)),
        await time(page(`limit=50&cursor=${thirdCursor}`)),
        await time(() => bulk.store.listGames({ player: PLAYER, status: 'all', limit: 51 })),
      ];
      console.log(`| ${row.join(' | ')} |`);
    }
  } finally {
    await app.close();
    games.close();
    await bulk.close();
  }
}
