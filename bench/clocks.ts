/**
 * What running clocks cost the service (DECISIONS §14): its timers while 10,000 clocked games run at once, and how
 * late the flags fall when 1,000 deadlines come together.
 *
 * ```sh
 * npm run bench:clocks                      # 10000 running games, 10 s of waiting, 1000 simultaneous flags
 * GAMES=20000 WAIT_S=30 FLAGS=2000 npm run bench:clocks
 * ```
 *
 * One process: a GameService on a fresh SQLite file, as the server runs it, without HTTP.
 * 1. GAMES untimed games, each with its two first moves, then GAMES clocked ones (an hour a side, so that none
 *    ends): the RSS each clocked game adds beyond an untimed one is what its clock and its timer hold.
 * 2. WAIT_S seconds with every clock running and nothing else happening: the process's CPU per second of waiting
 *    (the timers, and whatever else an idle server does).
 * 3. FLAGS games of 2 s whose second moves are made together, so that their deadlines fall within a few
 *    milliseconds: each flag's delay is the time from its deadline to the commit of its end (the event published).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChangeFeed } from '../src/bus/feed.ts';
import { SERVICE } from '../src/domain/seats.ts';
import { makeMove } from '../src/domain/transitions.ts';
import { GameService } from '../src/service/games.ts';
import { newGameId } from '../src/service/ids.ts';
import { SqliteGameStore } from '../src/store/sqlite.ts';
import { quantile, rssKiB } from './common.ts';

const GAMES = Number(process.env.GAMES ?? 10_000);
const WAIT_S = Number(process.env.WAIT_S ?? 10);
const FLAGS = Number(process.env.FLAGS ?? 1_000);

const dir = mkdtempSync(join(tmpdir(), 'chess-bench-clocks-'));
const store = SqliteGameStore.open(join(dir, 'chess.sqlite'));
const feed = new ChangeFeed(store);
const flaggedAt = new Map<string, number>();
const publish = feed.publish.bind(feed);
feed.publish = change => {
  if (change.event.state.status === 'outOfTime') flaggedAt.set(change.gameId, Date.now());
  publish(change);
};
const games = new GameService({
  store,
  bus: feed,
  newId: newGameId,
  clock: () => new Date(),
  cacheSize: 3 * GAMES + FLAGS,
  cacheBytes: 8 * 1024 ** 3,
});

/** Creates `count` games with `clock`, and makes the two first moves of each, `parallel` at a time. */
async function started(count: number, clock: { initial: number; increment: number } | undefined): Promise<string[]> {
  const ids: string[] = [];
  const parallel = 64;
  for (let i = 0; i < count; i += parallel) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(parallel, count - i) }, async () => {
        const id = (await games.create({ clock })).record.id;
        for (const uci of ['e2e4', 'e7e5']) await games.change(id, (game, now) => makeMove(game, uci, SERVICE, now));
        return id;
      }),
    );
    ids.push(...batch);
  }
  return ids;
}

const settle = async () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  await new Promise(resolve => setTimeout(resolve, 500));
  gc?.();
};

/** Heap used (after a full collection) and RSS, in bytes. */
const memory = async () => {
  await settle();
  return { heap: process.memoryUsage().heapUsed, rss: rssKiB(process.pid) * 1024 };
};

/** The process's CPU time over `seconds` of doing nothing, in µs per second. */
const idleCpu = async (seconds: number) => {
  const cpu = process.cpuUsage();
  await new Promise(resolve => setTimeout(resolve, seconds * 1000));
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / seconds;
};

try {
  await started(Math.ceil(GAMES / 10), undefined); // warm-up: the code compiled, the file's pages cached
  const base = await memory();
  await started(GAMES, undefined);
  const untimed = await memory();
  const idleUntimed = await idleCpu(WAIT_S);
  await started(GAMES, { initial: 3_600_000, increment: 0 });
  const clocked = await memory();
  const idleClocked = await idleCpu(WAIT_S);
  const per = (a: number, b: number) => ((b - a) / GAMES).toFixed(0);
  console.log(
    `node ${process.version}, ${GAMES} untimed and ${GAMES} running clocked games, ${games.armedClocks()} timers`,
  );
  console.log(
    `heap per untimed game ${per(base.heap, untimed.heap)} B, per clocked game ${per(untimed.heap, clocked.heap)} B; ` +
      `RSS per untimed game ${per(base.rss, untimed.rss)} B, per clocked game ${per(untimed.rss, clocked.rss)} B`,
  );
  console.log(
    `CPU per second of waiting: ${idleUntimed.toFixed(0)} µs with no clock running, ` +
      `${idleClocked.toFixed(0)} µs with ${GAMES} clocks running`,
  );

  // FLAGS games of 2 s: the first moves one by one, then every second move asked for at once.
  const initial = 2_000;
  const ids: string[] = [];
  for (let i = 0; i < FLAGS; i++) {
    const id = (await games.create({ clock: { initial, increment: 0 } })).record.id;
    await games.change(id, (game, now) => makeMove(game, 'e2e4', SERVICE, now));
    ids.push(id);
  }
  const deadlines = new Map<string, number>();
  await Promise.all(
    ids.map(async id => {
      const { event } = await games.change(id, (game, now) => makeMove(game, 'e7e5', SERVICE, now));
      deadlines.set(id, event.state.serverTime! + initial);
    }),
  );
  const spread = Math.max(...deadlines.values()) - Math.min(...deadlines.values());
  const until = Math.max(...deadlines.values()) + 5_000;
  while (flaggedAt.size < FLAGS && Date.now() < until) await new Promise(resolve => setTimeout(resolve, 50));
  const delays = ids.map(id => (flaggedAt.get(id) ?? NaN) - deadlines.get(id)!).sort((a, b) => a - b);
  const missing = delays.filter(Number.isNaN).length;
  console.log(
    `${FLAGS} flags with deadlines within ${spread} ms: delay p50 ${quantile(delays, 0.5)} ms, p99 ${quantile(delays, 0.99)} ms, ` +
      `max ${delays.at(-1 - missing)} ms${missing ? `, ${missing} not flagged` : ''}`,
  );
} finally {
  games.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
