/**
 * The request benchmark's tables (bench/run.ts): each store's throughput as a ratio to the bare server, several
 * PostgreSQL instances behind one port against one, and what a write costs as a game grows.
 */
import { latency, row, table, type Store, type Summary, type Target } from './harness.ts';
import { TITLES as titles, type Workload } from './workloads.ts';

export const GROWTH_GAMES = 32;
export const GROWTH_PLIES = [10, 400] as const;
const GROWTH_TARGET = 1.25; // CPU per write at 400 plies over that at 10, at most
// PostgreSQL's ratio to bare as a fraction of SQLite's, at least.
const STORE_TARGETS: Partial<Record<Workload, number>> = { getGame: 0.8, move: 0.5 };

export type Results = Map<Workload, Map<Target, Summary>>;

/** Each workload on each store against the bare server: req/s and their ratios, latencies, CPU, refusals. */
export function throughputTable(
  throughput: Workload[],
  results: Results,
  bare: Target,
  stores: Store[],
  storeTargets: Target[],
): string[] {
  const names = storeTargets.map(target => target.name);
  const both = stores.length === 2;
  const hasPostgres = stores.includes('postgres');
  const rows = throughput.map(workload => {
    const byTarget = results.get(workload)!;
    const b = byTarget.get(bare)!;
    const s = storeTargets.map(target => byTarget.get(target)!);
    const cells = [titles[workload], ...s.map(x => x.rps.toFixed(0)), b.rps.toFixed(0)];
    cells.push(...s.map(x => `**${(x.rps / b.rps).toFixed(2)}**`));
    if (both) {
      const target = STORE_TARGETS[workload];
      cells.push(`**${(s[1]!.rps / s[0]!.rps).toFixed(2)}**${target ? ` (target ${target})` : ''}`);
    }
    cells.push(...s.map(latency), latency(b), s.map(x => (x.p99 / b.p99).toFixed(1)).join(' / '));
    cells.push([...s, b].map(x => x.cpu.toFixed(0)).join(' / '));
    if (hasPostgres) cells.push(s[stores.indexOf('postgres')]!.databaseCpu.toFixed(0));
    cells.push([...s.map(x => `${x.non2xx} of ${x.total}`), String(b.non2xx)].join(' / '));
    return row(cells);
  });
  return [
    '',
    ...table(
      [
        'Workload',
        ...names.map(name => `${name} req/s`),
        'bare req/s',
        ...names.map(name => `${name} ratio`),
        ...(both ? ['PostgreSQL / SQLite'] : []),
        ...names.map(name => `${name} p50 / p99 ms`),
        'bare p50 / p99 ms',
        `p99 ratio, ${names.join(' / ')}`,
        `CPU µs per request, ${[...names, 'bare'].join(' / ')}`,
        ...(hasPostgres ? ['PostgreSQL server CPU µs per request'] : []),
        `non-2xx, ${[...names, 'bare'].join(' / ')}`,
      ],
      rows,
    ),
  ];
}

/** POST move and GET game on one PostgreSQL instance and on `instances` behind the proxy. */
export function groupTable(
  throughput: Workload[],
  results: Results,
  single: Target,
  group: Target,
  instances: number,
  connections: number,
  cores: number,
): string[] {
  const rows = throughput
    .filter(w => w === 'move' || w === 'getGame')
    .map(workload => {
      const one = results.get(workload)!.get(single)!;
      const many = results.get(workload)!.get(group)!;
      return row([
        titles[workload],
        one.rps.toFixed(0),
        many.rps.toFixed(0),
        `**${(many.rps / one.rps).toFixed(2)}**`,
        `${latency(one)}; ${latency(many)}`,
        `${one.cpu.toFixed(0)} / ${many.cpu.toFixed(0)} / ${many.proxyCpu.toFixed(0)}`,
        `${one.databaseCpu.toFixed(0)} / ${many.databaseCpu.toFixed(0)}`,
        `${one.non2xx} of ${one.total} / ${many.non2xx} of ${many.total}`,
      ]);
    });
  if (rows.length > 0) {
    return [
      '',
      ...table(
        [
          'Workload',
          'PostgreSQL req/s, 1 instance',
          `${instances} instances behind the proxy`,
          `${instances} / 1`,
          `p50 / p99 ms, 1; ${instances}`,
          `CPU µs per request: 1 instance / ${instances} together / proxy`,
          `PostgreSQL server CPU µs per request, 1 / ${instances}`,
          `non-2xx, 1 / ${instances}`,
        ],
        rows,
      ),
      '',
      `${instances} instances on one database behind a round-robin TCP proxy (one port). The proxy spreads ` +
        `connections, not requests: each instance holds a share of the ${connections} connections, and a ` +
        `game's successive changes arrive at any of them. On ${cores} cores shared by the instances, the proxy, ` +
        `the PostgreSQL server and the load generator, no core is left idle for another instance to use, so the ` +
        `total cannot be expected to grow with the instances and may fall (each instance also hears of the ` +
        `others' changes). This is a smoke test of scale-out (one address, one database, changes made through ` +
        `one instance taken up by the others, refusals counted), not a measure of it: that needs the instances, ` +
        `the database and the load on machines of their own.`,
    ];
  }
  return [];
}

/** Undo and redo at 10 and at 400 plies: writes per second and the CPU per write at both lengths. */
export function growthTable(growth: Map<Target, Map<number, Summary>>): string[] {
  const [short, long] = GROWTH_PLIES;
  const rows = [...growth.keys()].map(target => {
    const at = growth.get(target)!;
    const a = at.get(short)!;
    const z = at.get(long)!;
    return row([
      target.name,
      a.rps.toFixed(0),
      z.rps.toFixed(0),
      `${a.cpu.toFixed(0)} / ${z.cpu.toFixed(0)}`,
      `**${(z.cpu / a.cpu).toFixed(2)}x**`,
      target.database ? `${a.databaseCpu.toFixed(0)} / ${z.databaseCpu.toFixed(0)}` : '-',
      `${latency(a)}; ${latency(z)}`,
      `${a.non2xx} of ${a.total} / ${z.non2xx} of ${z.total}`,
    ]);
  });
  return [
    '',
    ...table(
      [
        `Undo and redo, ${GROWTH_GAMES} games`,
        `writes/s at ${short} plies`,
        `writes/s at ${long} plies`,
        `CPU µs per write, ${short} / ${long} plies`,
        `CPU ${long} / ${short} (target at most ${GROWTH_TARGET}x)`,
        `PostgreSQL server CPU µs per write, ${short} / ${long}`,
        `p50 / p99 ms, ${short}; ${long}`,
        `non-2xx, ${short} / ${long}`,
      ],
      rows,
    ),
  ];
}
