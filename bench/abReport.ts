/**
 * The request benchmark's A/B mode (bench/run.ts `--against REF`): each figure of one workload and store as this
 * build over the other, over the rounds (pairedMedian), with a verdict, and its table.
 */
import { pairedMedian } from './common.ts';
import { latency, row, summarize, table, type Summary } from './harness.ts';
import type { RoundResult, Workload } from './workloads.ts';

/** Each figure of one workload and store as this build over the other, over the rounds (pairedMedian). */
interface AbFigures {
  rps: number; // requests per second: below 1, this build answers fewer
  cpuRate: number; // requests per CPU-second of the service (1 / CPU per request): below 1, this build costs more
  p50: number; // latency: above 1, this build is slower
  p99: number;
}
export interface AbEntry {
  workload: Workload;
  title: string;
  stores: { store: string; self: Summary; other: Summary; ratio: AbFigures; verdict: string }[];
}

/** Beyond this, both throughput ratios the same way, a change is reported as slower or faster. */
const AB_MARGIN = 0.05;

/**
 * Ratios of round i of this build to round i of the other (the two ran one after the other, alternating which
 * first), combined over the rounds by pairedMedian: a round shares the machine's state of its moment, which the
 * medians of each side alone would not.
 */
export function abReport(
  input: {
    workload: Workload;
    title: string;
    stores: { store: string; self: RoundResult[]; other: RoundResult[] }[];
  }[],
): AbEntry[] {
  return input.map(({ workload, title, stores }) => ({
    workload,
    title,
    stores: stores.map(({ store, self, other }) => {
      const pairs = self.map((mine, i) => [mine, other[i]!] as const);
      const ratio: AbFigures = {
        rps: pairedMedian(pairs.map(([a, b]) => a.rps / b.rps)),
        cpuRate: pairedMedian(pairs.map(([a, b]) => b.cpuUs / a.cpuUs)),
        p50: pairedMedian(pairs.map(([a, b]) => a.p50 / b.p50)),
        p99: pairedMedian(pairs.map(([a, b]) => a.p99 / b.p99)),
      };
      const side = (x: number) => (x < 1 - AB_MARGIN ? -1 : x > 1 + AB_MARGIN ? 1 : 0);
      const [a, b] = [side(ratio.rps), side(ratio.cpuRate)];
      const verdict =
        a === b
          ? ['slower', `within ${AB_MARGIN * 100} %`, 'faster'][a + 1]!
          : a * b < 0
            ? 'mixed: run it again'
            : `${['slower', '', 'faster'][a + b + 1]} by one measure`;
      return { store, self: summarize(self), other: summarize(other), ratio, verdict };
    }),
  }));
}

export function abTable(report: AbEntry[], self: string, other: string): string[] {
  const rows = report.flatMap(({ title, stores }) =>
    stores.map(({ store, self: a, other: b, ratio, verdict }) =>
      row([
        title,
        store,
        `${a.rps.toFixed(0)} / ${b.rps.toFixed(0)}`,
        `**${ratio.rps.toFixed(2)}**`,
        `${(1e6 / a.cpu).toFixed(0)} / ${(1e6 / b.cpu).toFixed(0)}`,
        `**${ratio.cpuRate.toFixed(2)}**`,
        `${a.cpu.toFixed(0)} / ${b.cpu.toFixed(0)}`,
        `${latency(a)}; ${latency(b)}`,
        `${ratio.p50.toFixed(2)} / ${ratio.p99.toFixed(2)}`,
        verdict,
      ]),
    ),
  );
  return [
    `A/B: ${self} against ${other}, each figure as ${self} / ${other} (the rounds alternate which build runs ` +
      `first; the median of the rounds' ratios, each two rounds' as their geometric mean). Throughput below 1 and ` +
      `latency above 1: ${self} is slower.`,
    '',
    ...table(
      [
        'Workload',
        'store',
        `req/s, ${self} / ${other}`,
        'req/s ratio',
        `req per CPU-second, ${self} / ${other}`,
        'req per CPU-second ratio',
        `CPU µs per request, ${self} / ${other}`,
        `p50 / p99 ms, ${self}; ${other}`,
        'p50 / p99 ratio',
        'verdict',
      ],
      rows,
    ),
  ];
}
