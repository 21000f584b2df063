/**
 * Memory and cold reads: many stored games, a bounded number of them in the service's memory.
 *
 * ```sh
 * npm run bench:memory                       # 100000 games of 40 plies, GAME_CACHE_SIZE 10000
 * GAMES=20000 CACHE=2000 PLIES=80 npm run bench:memory
 * SERVER_NODE_FLAGS=--optimize-for-size npm run bench:memory   # flags for the server's node
 * ```
 *
 * Writes GAMES games (seeded random legal games of PLIES plies) into a fresh SQLite file through the store, starts
 * the real server on it (its own process, GAME_CACHE_SIZE=CACHE, LOG_LEVEL=warn, no rate limit), reads every game
 * once over HTTP with 10 connections so that the cache fills and evicts, and reports the server's RSS. Then it
 * reads one game at a time, alternating a game in memory (read a moment ago) and a game that is not (evicted
 * long ago: one store read and a replay of its moves), and reports the median latency of each and the difference.
 * Targets (issue "Performance"): under 400 MiB RSS with 100000 stored and 10000 in memory; a game not in memory
 * answered with under 1 ms extra median latency.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { buildServer, SERVER_OUTPUT } from '../scripts/build.ts';
import { SqliteGameStore } from '../src/store/sqlite.ts';
import { freePort, quantile, randomGame, rssKiB } from './common.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const count = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
};
const GAMES = count('GAMES', 100_000);
const CACHE = count('CACHE', 10_000);
const PLIES = count('PLIES', 40);
const SAMPLES = count('SAMPLES', 2000);
const CONNECTIONS = 10;
const TEMPLATES = 50;

const idOf = (i: number): string => `m${i.toString(36).padStart(7, '0')}`;
const mib = (kib: number): string => `${(kib / 1024).toFixed(0)} MiB`;
const ms = (value: number): string => `${value.toFixed(3)} ms`;

async function fill(path: string): Promise<void> {
  const templates = Array.from({ length: TEMPLATES }, (_, i) => randomGame(PLIES, i + 1).record);
  const store = SqliteGameStore.open(path);
  const createdAt = new Date().toISOString();
  for (let start = 0; start < GAMES; start += 2000) {
    const writes: Promise<boolean>[] = [];
    for (let i = start; i < Math.min(GAMES, start + 2000); i++) {
      writes.push(store.create({ ...templates[i % TEMPLATES]!, id: idOf(i), createdAt }));
    }
    if (!(await Promise.all(writes)).every(Boolean)) throw new Error('an id was taken');
  }
  await store.close();
}

async function read(url: string, id: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/api/board/game/${id}`);
  const body = (await res.json()) as { gameId?: string };
  const elapsed = performance.now() - started;
  if (res.status !== 200 || body.gameId !== id) throw new Error(`GET ${id}: ${res.status}`);
  return elapsed;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-memory-'));
  const path = join(dir, 'chess.sqlite');
  const started = performance.now();
  await fill(path);
  process.stdout.write(
    `${GAMES} games of ${PLIES} plies stored in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  await buildServer({ ifStale: true }); // the server runs as npm start runs it, from its bundle
  const server = spawn(
    process.execPath,
    [...(process.env.SERVER_NODE_FLAGS?.split(' ').filter(Boolean) ?? []), SERVER_OUTPUT],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: path,
        GAME_CACHE_SIZE: String(CACHE),
        RATE_LIMIT_MAX: '0',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  try {
    for (let attempt = 0; ; attempt++) {
      if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}`);
      if (
        await fetch(`${url}/healthz`).then(
          res => res.ok,
          () => false,
        )
      )
        break;
      if (attempt > 300) throw new Error('the server did not start');
      await sleep(100);
    }
    const pid = server.pid!;
    const rssStart = rssKiB(pid);

    // Every game once: the cache fills, then evicts the least recently used.
    const readStart = performance.now();
    let next = 0;
    let rssPeak = rssStart;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssKiB(pid))), 100);
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (next < GAMES) await read(url, idOf(next++));
      }),
    );
    const readSeconds = (performance.now() - readStart) / 1000;
    await sleep(2000);
    clearInterval(sampler);
    const rssFull = rssKiB(pid);
    rssPeak = Math.max(rssPeak, rssFull);

    // One request at a time: a game in memory, then one that is not, alternately.
    const hot: number[] = [];
    const cold: number[] = [];
    const coldIds = Math.max(0, GAMES - CACHE); // games 0 .. GAMES - CACHE - 1 were evicted
    const samples = Math.min(SAMPLES, coldIds);
    for (let k = 0; k < samples; k++) {
      hot.push(await read(url, idOf(GAMES - 1 - (k % 100))));
      cold.push(await read(url, idOf(Math.floor((k * coldIds) / samples))));
    }
    hot.sort((a, b) => a - b);
    cold.sort((a, b) => a - b);
    const rssEnd = rssKiB(pid);

    const load = loadavg()
      .map(x => x.toFixed(1))
      .join(' / ');
    const lines = [
      `Node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown'}), load average ${load}.`,
      `${GAMES} stored games of ${PLIES} plies, GAME_CACHE_SIZE ${CACHE}; every game read once in ${readSeconds.toFixed(1)} s ` +
        `(${Math.round(GAMES / readSeconds)}/s, ${CONNECTIONS} connections).`,
      '',
      '| Figure | Value |',
      '| --- | --- |',
      `| server RSS at start | ${mib(rssStart)} |`,
      `| server RSS, highest while reading every game (sampled every 100 ms) | ${mib(rssPeak)} |`,
      `| server RSS 2 s after reading every game (${CACHE} in memory) | ${mib(rssFull)} |`,
      `| server RSS after the latency samples | ${mib(rssEnd)} |`,
      `| RSS per game in memory ((after - start) / cache size) | ${((rssFull - rssStart) / Math.min(CACHE, GAMES)).toFixed(1)} KiB |`,
      `| GET of a game in memory, p50 / p99 | ${ms(quantile(hot, 0.5))} / ${ms(quantile(hot, 0.99))} |`,
      `| GET of a game not in memory, p50 / p99 | ${ms(quantile(cold, 0.5))} / ${ms(quantile(cold, 0.99))} |`,
      `| extra median latency of a game not in memory | ${ms(quantile(cold, 0.5) - quantile(hot, 0.5))} |`,
      '',
      `Targets: RSS under 400 MiB (highest): ${rssPeak < 400 * 1024 && rssEnd < 400 * 1024 ? 'met' : 'MISSED'}; ` +
        `under 1 ms extra median latency: ${quantile(cold, 0.5) - quantile(hot, 0.5) < 1 ? 'met' : 'MISSED'} ` +
        `(${samples} samples each).`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    server.kill('SIGTERM');
    await new Promise(resolve => (server.exitCode === null ? server.once('exit', resolve) : resolve(undefined)));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
