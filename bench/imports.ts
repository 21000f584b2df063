/**
 * Memory under a stream of long-game imports (DECISIONS §15): a real server under a 256 MiB V8 heap limit, its
 * default settings otherwise, takes IMPORTS imports of one legal 10,000-ply PGN (69 KB; about 1 MB of heap once
 * imported) and must stay alive and answering. Prints the server's RSS as the imports go.
 *
 * ```sh
 * npm run bench:imports                      # 10000 imports, --max-old-space-size=256
 * IMPORTS=2000 HEAP_MIB=128 npm run bench:imports
 * ```
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { buildServer, SERVER_OUTPUT } from '../scripts/build.ts';
import { longGameSans, pgnOf } from '../test/helpers/longGame.ts';
import { freePort, rssKiB } from './common.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const IMPORTS = Number(process.env.IMPORTS ?? 10_000);
const HEAP_MIB = Number(process.env.HEAP_MIB ?? 256);
const CONNECTIONS = 4;
const REPORT_EVERY = Math.max(1, Math.round(IMPORTS / 10));
const mib = (kib: number): string => `${(kib / 1024).toFixed(0)} MiB`;

async function main(): Promise<void> {
  const pgn = JSON.stringify({ pgn: pgnOf(longGameSans(10_000)) });
  const dir = mkdtempSync(join(tmpdir(), 'bench-imports-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  await buildServer({ ifStale: true });
  const server = spawn(process.execPath, [`--max-old-space-size=${HEAP_MIB}`, SERVER_OUTPUT], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: join(dir, 'chess.sqlite'),
      RATE_LIMIT_MAX: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
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
    let rssPeak = rssStart;
    const sampler = setInterval(() => {
      if (server.exitCode === null) rssPeak = Math.max(rssPeak, rssKiB(pid));
    }, 100);
    process.stdout.write(
      `Node ${process.version}, ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)}; ` +
        `server under --max-old-space-size=${HEAP_MIB}, default GAME_CACHE_SIZE and GAME_CACHE_BYTES.\n\n` +
        `| imports | RSS now | RSS highest so far | imports per second |\n| --- | --- | --- | --- |\n` +
        `| 0 | ${mib(rssStart)} | ${mib(rssStart)} | |\n`,
    );
    const started = performance.now();
    let sent = 0;
    let done = 0;
    let firstId: string | undefined;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (sent < IMPORTS) {
          sent++;
          const res = await fetch(`${url}/api/board/game/import/pgn`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: pgn,
          });
          const body = (await res.json()) as { gameId?: string };
          if (res.status !== 201) throw new Error(`import answered ${res.status}: ${JSON.stringify(body)}`);
          firstId ??= body.gameId;
          if (++done % REPORT_EVERY === 0) {
            const seconds = (performance.now() - started) / 1000;
            process.stdout.write(
              `| ${done} | ${mib(rssKiB(pid))} | ${mib(rssPeak)} | ${(done / seconds).toFixed(0)} |\n`,
            );
          }
        }
      }),
    );
    clearInterval(sampler);
    const first = await fetch(`${url}/api/board/game/${firstId}`);
    const game = (await first.json()) as { state?: { moves?: unknown[] } };
    const alive = first.status === 200 && game.state?.moves?.length === 10_000;
    process.stdout.write(
      `\n${done} imports acknowledged; highest RSS ${mib(rssPeak)}; the first game read back whole from the store: ` +
        `${alive ? 'yes' : 'NO'}. Target (DECISIONS §15, alive and answering): ${alive ? 'met' : 'MISSED'}.\n`,
    );
  } finally {
    server.kill('SIGTERM');
    await new Promise(resolve => (server.exitCode === null ? server.once('exit', resolve) : resolve(undefined)));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
