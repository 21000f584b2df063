/**
 * Request throughput: the real service on SQLite and on PostgreSQL against a bare Fastify server (`bench/bare.ts`)
 * answering constant JSON of the same shapes, on the same machine in one run. Each runs as its own process; the
 * load comes from another process (autocannon's programmatic API). Rounds alternate SQLite, PostgreSQL and bare,
 * and the table shows the median of the rounds: each store as a ratio to bare, side by side, and PostgreSQL's
 * ratio as a fraction of SQLite's. CPU per request is read from /proc for the target's processes and, on
 * PostgreSQL, apart for the database server's backends of the target's database (they share the same cores).
 *
 * ```sh
 * npm run bench                                   # full: 3 rounds of 10 s per workload and target, both stores
 * QUICK=1 npm run bench                           # 2 rounds of 2 s
 * npm run bench -- --store postgres               # one store (sqlite, postgres or both, the default)
 * POSTGRES=0 npm run bench                        # the same as --store sqlite
 * npm run bench -- --store postgres --instances 2 # also two PostgreSQL instances behind one port
 * WORKLOADS=move,import npm run bench             # some of getGame, move, moves, create, import, export, growth
 * WORKLOADS=growth npm run bench                  # what a durable write costs at 10 and at 400 plies
 * ROUNDS=5 DURATION=8 CONNECTIONS=10 npm run bench
 * PROFILE_DIR=./profiles npm run bench            # also a CPU profile of each store's service
 * npm run bench:ab -- REF                         # A/B: this work tree against commit REF (--against REF)
 * QUICK=1 WORKLOADS=getGame,move BARE=0 npm run bench:ab -- HEAD~1 --store sqlite --json ab.json
 * npm run bench -- --against REF --build OTHER --repo ../clone  # two commits of another repository
 * ```
 *
 * A/B (`--against REF`): REF is built in a scratch folder (bench/builds.ts: `git archive`, this tree's node_modules
 * when the package-lock.json is the same, else `npm ci`; the build is kept for later runs) and runs as one more
 * service per store, on the same runtime, alternating with this build's round by round (every other round in the
 * opposite order). A table then gives each figure as this build over REF: requests per second, requests per
 * CPU-second of the service, p50 and p99, each the median of the rounds' pairwise ratios (two rounds, one with each
 * build first, taken together: pairedMedian), with a verdict (slower or faster when both throughput ratios are
 * beyond 5 %). `--build C` measures commit C instead of the work tree, `--repo DIR` looks both commits up in another
 * repository, `--json FILE` writes the figures, `BARE=0` leaves the bare server out.
 *
 * Workloads: GET a game of 80 plies, POST a move (each game gets a fixed cycle of knight moves, spread over
 * enough fresh games that none reaches fivefold repetition), GET the legal moves of a middlegame position, POST
 * create, POST import of an 80-ply PGN, GET a player's 100 newest games as PGN (the 100 games of 80 plies imported
 * before the rounds: the export's `until` leaves out the games the other workloads make); by default all six (five
 * with --against, whose other build may not export). `growth` (only when named) imports 32 games of 10
 * plies and 32 of 400 plies into each store and sends them alternating undo and redo: the writes per second and
 * the service's CPU per write at both lengths.
 *
 * `--instances N` starts N more PostgreSQL services on a database of their own and a round-robin TCP proxy in
 * front of them (bench/proxy.ts), and runs POST move and GET game through it as one more target.
 *
 * After the last round each store's service is killed with SIGKILL (SIGTERM when profiling), started again on
 * the same file or database, and every game that took moves is read back through the API: every acknowledged
 * move must be there.
 *
 * The parts: this file conducts; bench/harness.ts starts and stops the processes and sums the rounds up,
 * bench/workloads.ts says what each workload sends, bench/load.ts is the load process, bench/proxy.ts the proxy,
 * bench/runReport.ts and bench/abReport.ts the tables.
 */
import { type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildServer, SERVER_OUTPUT } from '../scripts/build.ts';
import { abReport, abTable } from './abReport.ts';
import { buildCommit, type Build } from './builds.ts';
import { exportPgn } from '../src/domain/pgn.ts';
import { inParallel, randomGame, setting } from './common.ts';
import type { Fixtures } from './bare.ts';
import {
  createDatabase,
  json,
  readBack,
  startLoad,
  startProcess,
  stop,
  STORE_LABEL,
  summarize,
  type Store,
  type Summary,
  type Target,
} from './harness.ts';
import { GROWTH_GAMES, GROWTH_PLIES, groupTable, growthTable, throughputTable } from './runReport.ts';
import {
  PLIES_PER_GAME,
  THROUGHPUT,
  EXPORT_GAMES,
  TITLES as titles,
  type Job,
  type RoundResult,
  type Workload,
} from './workloads.ts';

const PROXY = fileURLToPath(new URL('proxy.ts', import.meta.url));

interface Options {
  stores: Store[];
  explicit: boolean;
  instances: number;
  against: string | undefined; // A/B: the commit to compare with
  build: string | undefined; // A/B: the commit measured as "this" build instead of the work tree
  repo: string | undefined; // A/B: the repository those commits are in, this one by default
  json: string | undefined; // a file for the A/B figures as JSON
}

function options(): Options {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      store: { type: 'string' }, // sqlite, postgres or both (the default)
      instances: { type: 'string' }, // PostgreSQL instances behind one port, besides the single one
      against: { type: 'string' },
      build: { type: 'string' },
      repo: { type: 'string' },
      json: { type: 'string' },
    },
  });
  if ((values.build ?? values.repo ?? values.json) !== undefined && values.against === undefined)
    throw new Error('--build, --repo and --json go with --against REF');
  const store = values.store ?? (process.env.POSTGRES === '0' ? 'sqlite' : 'both');
  if (!['sqlite', 'postgres', 'both'].includes(store))
    throw new Error(`--store: sqlite, postgres or both; got '${store}'`);
  if (process.env.POSTGRES === '0' && store !== 'sqlite') throw new Error(`POSTGRES=0 means --store sqlite`);
  const raw = values.instances ?? '1';
  if (!/^[1-9]\d*$/.test(raw)) throw new Error(`--instances must be a whole number from 1; got '${raw}'`);
  const instances = Number(raw);
  const stores: Store[] = store === 'both' ? ['sqlite', 'postgres'] : [store as Store];
  if (instances > 1 && !stores.includes('postgres')) throw new Error('--instances needs PostgreSQL (--store postgres)');
  if (instances > 1 && values.against !== undefined) throw new Error('--instances and --against: one at a time');
  return {
    stores,
    explicit: values.store !== undefined || instances > 1,
    instances,
    against: values.against,
    build: values.build,
    repo: values.repo,
    json: values.json,
  };
}

async function main(): Promise<void> {
  const { stores: wanted, explicit, instances, against, build, repo, json: jsonFile } = options();
  const loadBefore = loadavg(); // what the machine was doing before this run's own load
  const withBare = process.env.BARE !== '0';
  if (!withBare && !against) throw new Error('BARE=0 goes with --against REF (the ratios are to bare otherwise)');
  const quick = process.env.QUICK === '1';
  const rounds = setting('ROUNDS', quick ? 2 : 3);
  const seconds = setting('DURATION', quick ? 2 : 10);
  const connections = setting('CONNECTIONS', 10);
  const only = process.env.WORKLOADS?.split(','); // e.g. 'move,import'; the five throughput workloads by default
  const all: Workload[] = [...THROUGHPUT, 'growth'];
  const unknown = only?.filter(name => !all.some(w => w === name));
  if (unknown?.length) throw new Error(`WORKLOADS: some of ${all.join(', ')}; got '${unknown.join(',')}'`);
  const chosen = only ? all.filter(w => only.includes(w)) : THROUGHPUT.filter(w => !against || w !== 'export'); // another build may not export
  const dir = mkdtempSync(join(tmpdir(), 'bench-run-'));
  const sqlitePath = join(dir, 'chess.sqlite');
  const profileDir = process.env.PROFILE_DIR;
  const children: ChildProcess[] = [];
  const drops: (() => Promise<void>)[] = [];
  const cleanUp = () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', cleanUp);
  const serviceEnv = {
    RATE_LIMIT_MAX: '0',
    MAX_STREAMS_PER_CLIENT: '0',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', // 'info' adds one log line per request
  };
  try {
    // With --against, each build's profiles go to a folder of its own under PROFILE_DIR, named by its label.
    const profileOf = (label: string | undefined) =>
      profileDir ? ['--cpu-prof', '--cpu-prof-dir', label ? join(profileDir, label) : profileDir] : [];
    // The service runs as npm start runs it, from its bundle: this work tree's, or with --build a commit's. With
    // --against, the other commit's too, built in a scratch folder (bench/builds.ts).
    let self: Build | undefined;
    if (build) self = await buildCommit(build, repo ? { repo } : {});
    else await buildServer({ ifStale: true });
    const other = against ? await buildCommit(against, repo ? { repo } : {}) : undefined;
    const selfLabel = self ? self.label : 'this';

    // The stores' services: a fresh SQLite file, fresh PostgreSQL databases (dropped at the end).
    const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    const databaseName = (suffix: string) => `bench_${process.pid}_${Date.now()}_${suffix}`;
    const databases: Partial<Record<Store, string>> = { sqlite: sqlitePath };
    const otherDatabases: Partial<Record<Store, string>> = { sqlite: join(dir, 'other.sqlite') };
    if (wanted.includes('postgres')) {
      try {
        const database = await createDatabase(adminUrl, databaseName('one'));
        drops.push(database.drop);
        databases.postgres = database.url;
        if (other) {
          const second = await createDatabase(adminUrl, databaseName('other'));
          drops.push(second.drop);
          otherDatabases.postgres = second.url;
        }
      } catch (error) {
        if (explicit) throw error;
        process.stderr.write(`PostgreSQL not used (${String(error)})\n`);
      }
    }
    const stores = wanted.filter(store => databases[store] !== undefined);
    const startService = (store: Store, extra: string[] = []) =>
      self
        ? startProcess(
            `${STORE_LABEL[store]} ${self.label}`,
            [...extra, self.server],
            { ...serviceEnv, DATABASE_URL: databases[store]! },
            self.dir,
          )
        : startProcess(STORE_LABEL[store], [...extra, SERVER_OUTPUT], {
            ...serviceEnv,
            DATABASE_URL: databases[store]!,
          });
    const startOther = (store: Store, extra: string[] = []) =>
      startProcess(
        `${STORE_LABEL[store]} ${other!.label}`,
        [...extra, other!.server],
        { ...serviceEnv, DATABASE_URL: otherDatabases[store]! },
        other!.dir,
      );
    const services = new Map<Store, Target>();
    const others = new Map<Store, Target>(); // the same stores on the build compared with (--against)
    for (const store of stores) {
      const database = store === 'postgres' ? databases.postgres : undefined;
      const { url, proc } = await startService(store, profileOf(other ? selfLabel : undefined));
      children.push(proc);
      const name = other ? `${STORE_LABEL[store]} ${selfLabel}` : STORE_LABEL[store];
      services.set(store, { name, url, procs: [proc], ...(database ? { database } : {}) });
      if (other) {
        const otherDatabase = store === 'postgres' ? otherDatabases.postgres : undefined;
        const started = await startOther(store, profileOf(other.label));
        children.push(started.proc);
        others.set(store, {
          name: `${STORE_LABEL[store]} ${other.label}`,
          url: started.url,
          procs: [started.proc],
          ...(otherDatabase ? { database: otherDatabase } : {}),
        });
      }
    }

    // N more PostgreSQL services on a database of their own (each instance hears every change on its database,
    // which would burden the single instance's rounds), behind the proxy.
    let group: Target | undefined;
    if (instances > 1) {
      const database = await createDatabase(adminUrl, databaseName('group'));
      drops.push(database.drop);
      const members = [];
      for (let i = 0; i < instances; i++) {
        const member = await startProcess(`PostgreSQL instance ${i + 1}`, [SERVER_OUTPUT], {
          ...serviceEnv,
          DATABASE_URL: database.url,
        });
        children.push(member.proc);
        members.push(member);
      }
      const proxy = await startProcess('proxy', ['--import', 'tsx', PROXY], {
        BACKENDS: members.map(member => member.port).join(','),
      });
      children.push(proxy.proc);
      group = {
        name: `PostgreSQL ×${instances}`,
        url: proxy.url,
        procs: members.map(member => member.proc),
        proxy: proxy.proc,
        database: database.url,
      };
    }

    // Fixtures: an 80-ply game, a middlegame (the first 30 plies of it) in every store; answers recorded from the
    // first store for the bare server.
    const full = randomGame(80, 1);
    const pgn = exportPgn(full, { site: '?' });
    const middle = exportPgn(randomGame(30, 1), { site: '?' });
    const post = { method: 'POST', headers: { 'content-type': 'application/json' } };
    const importPgn = async (target: Target, text: string) =>
      (await json(`${target.url}/api/board/game/import/pgn`, { ...post, body: JSON.stringify({ pgn: text }) })) as {
        gameId: string;
      };
    const fixtureIds = new Map<Target, { game: string; middlegame: string; exportPath: string }>();
    let imported: unknown;
    for (const target of [...services.values(), ...others.values(), ...(group ? [group] : [])]) {
      const game = await importPgn(target, pgn);
      imported ??= game;
      const middlegame = (await importPgn(target, middle)).gameId;
      // A player's games to export: the imports' white (p1); `until` leaves out the games made later.
      if (chosen.includes('export')) await inParallel(EXPORT_GAMES, 8, () => importPgn(target, pgn));
      const exportPath = `/api/games/user/p1?ongoing=true&max=${EXPORT_GAMES}&until=${Date.now()}`;
      fixtureIds.set(target, { game: game.gameId, middlegame, exportPath });
    }
    const first = services.get(stores[0]!)!;
    const api = `${first.url}/api/board/game`;
    const created = (await json(api, { method: 'POST' })) as { gameId: string };
    const fixtures: Fixtures = {
      game: await json(`${api}/${fixtureIds.get(first)!.game}`),
      moves: await json(`${api}/${fixtureIds.get(first)!.middlegame}/moves`),
      move: await json(`${api}/${created.gameId}/move/g1f3`, { method: 'POST' }),
      created,
      imported,
      exported: await (await fetch(`${first.url}${fixtureIds.get(first)!.exportPath}`)).text(),
    };
    const fixturesPath = join(dir, 'fixtures.json');
    writeFileSync(fixturesPath, JSON.stringify(fixtures));
    let bare: Target | undefined; // BARE=0 (with --against): none
    if (withBare) {
      const bareProcess = await startProcess('bare', ['--import', 'tsx', 'bench/bare.ts'], { FIXTURES: fixturesPath });
      children.push(bareProcess.proc);
      bare = { name: 'bare', url: bareProcess.url, procs: [bareProcess.proc] };
      fixtureIds.set(bare, fixtureIds.get(first)!);
    }

    // The load process.
    const load = startLoad(children);
    const { round } = load;
    const jobOf = (target: Target, workload: Workload, duration: number): Job => ({
      url: target.url,
      workload,
      seconds: duration,
      connections,
      gameId: workload === 'moves' ? fixtureIds.get(target)!.middlegame : fixtureIds.get(target)!.game,
      gameIds: [],
      pgn,
      exportPath: fixtureIds.get(target)!.exportPath,
      games: 0,
      track: false,
      pids: target.procs.map(proc => proc.pid!),
      ...(target.proxy ? { proxyPid: target.proxy.pid! } : {}),
      ...(target.database ? { database: target.database } : {}),
    });
    const report = (label: string, result: RoundResult) =>
      process.stderr.write(
        `${label}: ${result.rps.toFixed(0)}/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, ` +
          `CPU ${result.cpuUs.toFixed(0)} µs/request` +
          (result.proxyCpuUs === undefined ? '' : ` (proxy ${result.proxyCpuUs.toFixed(0)})`) +
          (result.databaseCpuUs === undefined ? '' : ` (database ${result.databaseCpuUs.toFixed(0)})`) +
          `, non-2xx ${result.non2xx} ${JSON.stringify(result.refused)}, errors ${result.errors}\n`,
      );

    const storeTargets = stores.map(store => services.get(store)!);
    const otherTargets = stores.flatMap(store => (others.has(store) ? [others.get(store)!] : []));
    const acked = new Map<Target, Map<string, number>>(
      [...storeTargets, ...otherTargets].map(target => [target, new Map()]),
    );
    const sent = new Map<Target, number>();
    const estimate = new Map<Target, number>(); // move rps per target, to size the games of the next round
    const results = new Map<Workload, Map<Target, Summary>>();
    // With PROFILE_DIR: when each round ran on each target, beside its profiles, so that bench/layers.ts can take a
    // workload's rounds out of a profile of the whole process and divide by their requests.
    const windows = new Map<Target, { workload: string; warmup: boolean; window: [number, number]; total: number }[]>();
    const noteWindow = (target: Target, workload: string, warmup: boolean, result: RoundResult) =>
      windows.set(target, [
        ...(windows.get(target) ?? []),
        { workload, warmup, window: result.window, total: result.total },
      ]);
    const roundsOf = new Map<Workload, Map<Target, RoundResult[]>>(); // each round's figures, for the A/B ratios
    for (const workload of chosen.filter(w => w !== 'growth')) {
      const title = titles[workload];
      const targets = [...storeTargets, ...otherTargets, ...(bare ? [bare] : [])];
      if (group && (workload === 'move' || workload === 'getGame')) targets.push(group);
      const perTarget = new Map<Target, RoundResult[]>();
      for (let r = -1; r < rounds; r++) {
        // A/B: every other round runs the targets in the opposite order, so that neither build always follows
        // the other (a round after a write workload inherits its checkpoints, the machine's load drifts).
        for (const target of other && r % 2 !== 0 ? [...targets].reverse() : targets) {
          const warmup = r < 0;
          const duration = warmup ? Math.min(2, seconds) : seconds;
          const rate = estimate.get(target) ?? 3000;
          const tracked = acked.get(target);
          const result = await round({
            ...jobOf(target, workload, duration),
            games: Math.max(connections * 20, Math.ceil((rate * duration * 3) / PLIES_PER_GAME)),
            track: tracked !== undefined && workload === 'move',
          });
          if (workload === 'move') estimate.set(target, result.rps);
          if (result.acked && tracked) {
            for (const [id, count] of Object.entries(result.acked)) tracked.set(id, (tracked.get(id) ?? 0) + count);
            sent.set(target, (sent.get(target) ?? 0) + result.total);
          }
          if (!warmup) perTarget.set(target, [...(perTarget.get(target) ?? []), result]);
          noteWindow(target, workload, warmup, result);
          report(`${title} ${target.name}${warmup ? ' (warm-up)' : ` round ${r + 1}`}`, result);
        }
      }
      results.set(workload, new Map([...perTarget].map(([target, list]) => [target, summarize(list)])));
      roundsOf.set(workload, perTarget);
    }

    // Growth: 32 games of each length per store, made by importing a PGN of that length.
    const growth = new Map<Target, Map<number, Summary>>();
    if (chosen.includes('growth')) {
      const games = new Map<Target, Map<number, string[]>>();
      for (const target of [...storeTargets, ...otherTargets]) {
        const byLength = new Map<number, string[]>();
        for (const plies of GROWTH_PLIES) {
          const text = exportPgn(randomGame(plies, plies), { site: '?' });
          byLength.set(plies, await inParallel(GROWTH_GAMES, 8, async () => (await importPgn(target, text)).gameId));
        }
        games.set(target, byLength);
      }
      const perCase = new Map<string, RoundResult[]>();
      for (let r = -1; r < rounds; r++) {
        for (const target of [...storeTargets, ...otherTargets]) {
          for (const plies of GROWTH_PLIES) {
            const warmup = r < 0;
            const result = await round({
              ...jobOf(target, 'growth', warmup ? Math.min(2, seconds) : seconds),
              gameIds: games.get(target)!.get(plies)!,
            });
            const key = `${target.name} ${plies}`;
            if (!warmup) perCase.set(key, [...(perCase.get(key) ?? []), result]);
            noteWindow(target, `growth${plies}`, warmup, result);
            report(`undo/redo at ${plies} plies ${target.name}${warmup ? ' (warm-up)' : ` round ${r + 1}`}`, result);
          }
        }
      }
      for (const target of [...storeTargets, ...otherTargets])
        growth.set(
          target,
          new Map(GROWTH_PLIES.map(plies => [plies, summarize(perCase.get(`${target.name} ${plies}`)!)])),
        );
    }
    load.stop();
    if (profileDir) {
      for (const [target, list] of windows) {
        const pid = target.procs[0]!.pid!;
        const folder = otherTargets.includes(target)
          ? join(profileDir, other!.label)
          : other
            ? join(profileDir, selfLabel)
            : profileDir;
        mkdirSync(folder, { recursive: true });
        writeFileSync(join(folder, `rounds-${pid}.json`), `${JSON.stringify({ target: target.name, rounds: list })}\n`);
      }
    }

    // Durability: kill each store's service without warning (SIGTERM when profiling, so that the profile is
    // written), start it again on the same store, and read back through the API every game that took moves.
    const durability: string[] = [];
    const signal = profileDir ? 'SIGTERM' : 'SIGKILL';
    const restarts = stores.flatMap(store => [
      { target: services.get(store)!, restart: () => startService(store) },
      ...(others.has(store) ? [{ target: others.get(store)!, restart: () => startOther(store) }] : []),
    ]);
    for (const { target, restart } of restarts) {
      await stop(target.procs[0]!, signal);
      const tracked = acked.get(target)!;
      if (tracked.size === 0) continue;
      const back = await readBack(restart, tracked, children);
      durability.push(
        `POST move durability (${target.name}, read back through the API after ${signal} and a restart): ` +
          `${back.total} moves acknowledged in ${back.games} games (of ${sent.get(target)} sent), ${back.lost} ` +
          `lost, ${back.unacknowledged} stored without an answer (in flight when a round ended).`,
      );
      if (back.lost > 0) process.exitCode = 1;
    }

    const cpu = cpus()[0]?.model ?? 'unknown';
    const cores = availableParallelism();
    const names = storeTargets.map(target => target.name);
    const out = [
      `Node ${process.version}, ${cores} cores (${cpu}), load average before ${loadBefore
        .map(x => x.toFixed(1))
        .join(' / ')}; ${rounds} rounds of ${seconds} s per target and workload, ${connections} connections, ` +
        `pipelining 1, medians over rounds; stores: ${names.join(', ')}.`,
    ];
    const throughput = chosen.filter(w => w !== 'growth');
    if (throughput.length > 0 && bare)
      out.push('', ...throughputTable(throughput, results, bare, stores, storeTargets));
    if (group) {
      out.push(...groupTable(throughput, results, services.get('postgres')!, group, instances, connections, cores));
    }
    if (growth.size > 0) out.push(...growthTable(growth));

    if (other && throughput.length > 0) {
      const report = abReport(
        throughput.map(workload => ({
          workload,
          title: titles[workload],
          stores: stores.map(store => ({
            store: STORE_LABEL[store],
            self: roundsOf.get(workload)!.get(services.get(store)!)!,
            other: roundsOf.get(workload)!.get(others.get(store)!)!,
          })),
        })),
      );
      const sides = {
        self: { label: selfLabel, commit: self?.commit ?? null },
        other: { label: other.label, commit: other.commit },
      };
      out.push('', ...abTable(report, sides.self.label, sides.other.label));
      if (jsonFile) {
        const header = { node: process.version, cores, loadavg: loadBefore, rounds, seconds, connections };
        writeFileSync(jsonFile, `${JSON.stringify({ ...header, ...sides, workloads: report }, null, 2)}\n`);
      }
    }

    if (durability.length > 0) out.push('', ...durability);
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    cleanUp();
    for (const drop of drops) await drop().catch((error: unknown) => process.stderr.write(`drop: ${String(error)}\n`));
  }
}

await main();
