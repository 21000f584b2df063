/**
 * How long a player's whole archive takes to export (DECISIONS §22): 100,000 games of one player (40 plies each,
 * with clocks: test/helpers/archive.ts), written into each store, then exported by the service (its own process) to
 * a reader in this process as fast as it reads: PGN, PGN with clocks, and NDJSON. The figures are wall time, games
 * per second, and the service's peak resident memory (which must not grow with the archive).
 *
 * ```sh
 * npm run bench:export                       # SQLite and PostgreSQL, 100,000 games
 * GAMES=20000 STORES=sqlite npm run bench:export
 * ```
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { buildServer, SERVER_OUTPUT } from '../scripts/build.ts';
import { PostgresGameStore } from '../src/store/postgres.ts';
import { SqliteGameStore } from '../src/store/sqlite.ts';
import type { GameStore } from '../src/store/store.ts';
import { archiveRecord } from '../test/helpers/archive.ts';
import { rssKiB } from './common.ts';
import { createDatabase, startProcess, stop } from './harness.ts';

const GAMES = Number(process.env.GAMES ?? 100_000);
const STORES = (process.env.STORES ?? 'sqlite,postgres').split(',');
const POSTGRES = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PLAYER = 'archivist';

async function fill(store: GameStore): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < GAMES; i += 2000) {
    const batch = Array.from({ length: Math.min(2000, GAMES - i) }, (_, k) => archiveRecord(i + k, PLAYER));
    await Promise.all(batch.map(record => store.create(record, { deadline: null, ended: true })));
  }
  return (performance.now() - started) / 1000;
}

/** Reads an export to its end: seconds, bytes, and the first byte's time in ms. */
async function exportOnce(url: string, query: string, accept?: string) {
  const started = performance.now();
  const res = await fetch(`${url}/api/games/user/${PLAYER}?${query}`, accept ? { headers: { accept } } : {});
  if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
  const reader = res.body!.getReader();
  let bytes = 0;
  let first: number | undefined;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    first ??= performance.now() - started;
    bytes += chunk.value.length;
  }
  return { seconds: (performance.now() - started) / 1000, bytes, first: first ?? 0 };
}

await buildServer({ ifStale: true });
const rows: string[] = [];
for (const store of STORES) {
  const dir = mkdtempSync(join(tmpdir(), 'chess-bench-export-'));
  let databaseUrl = join(dir, 'chess.sqlite');
  let drop = async () => undefined as void;
  if (store === 'postgres') {
    const database = await createDatabase(POSTGRES, `chess_bench_export_${process.pid}`);
    databaseUrl = database.url;
    drop = database.drop;
  }
  try {
    const opened = store === 'postgres' ? await PostgresGameStore.open(databaseUrl) : SqliteGameStore.open(databaseUrl);
    const filled = await fill(opened);
    await opened.close();
    if (store === 'postgres') {
      // A table filled at once has no statistics until autovacuum analyzes it (within a minute or so): without them
      // the planner reads a page by sorting all the player's entries. The service meets tables as they stand later.
      const client = new pg.Client(databaseUrl);
      await client.connect();
      await client.query('ANALYZE');
      await client.end();
    }
    process.stderr.write(`${store}: ${GAMES} games written in ${filled.toFixed(1)} s\n`);
    const service = await startProcess(store, [SERVER_OUTPUT], { DATABASE_URL: databaseUrl, RATE_LIMIT_MAX: '0' });
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssKiB(service.proc.pid!))), 100);
    try {
      for (const [label, query, accept] of [
        ['PGN', '', undefined],
        ['PGN with clocks', 'clocks=true', undefined],
        ['NDJSON', '', 'application/x-ndjson'],
      ] as const) {
        const { seconds, bytes, first } = await exportOnce(service.url, query, accept);
        rows.push(
          `| ${store} | ${label} | ${seconds.toFixed(2)} s | ${Math.round(GAMES / seconds)} | ` +
            `${(bytes / 2 ** 20).toFixed(0)} MiB | ${first.toFixed(0)} ms |`,
        );
        process.stderr.write(`${rows.at(-1)}\n`);
      }
    } finally {
      clearInterval(sampler);
      await stop(service.proc, 'SIGTERM');
    }
    rows.push(`| ${store} | peak RSS of the service | ${(peak / 1024).toFixed(0)} MiB | | | |`);
  } finally {
    await drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(`A player's ${GAMES} games exported (40 plies each):\n`);
console.log('| store | export | time | games/s | size | first byte |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const row of rows) console.log(row);
