/**
 * What the player card shows (DECISIONS §21), from the ratings API's answers: a row per perf (its rating, `?` while
 * provisional, its games) and the rating history as the points of a small chart. No network and no DOM.
 *
 * ```ts
 * perfRowsOf(user.perfs);          // [{ perf: 'Blitz', rating: '1662', games: 3 }, ...] (the perfs played first)
 * chartOf(history, 300, 120);      // { lines: [{ name: 'Blitz', points: '0,120 150,60 300,0' }], low, high }
 * ```
 */
import type { LichessPerfs } from '../contract/shapes.ts';
import type { RatingHistory } from '../contract/ratings.ts';
import { PERF_NAMES } from '../contract/vocabulary.ts';

export interface PerfRow {
  perf: string; // e.g. 'Blitz'
  rating: string; // e.g. '1662', '1500?' while provisional
  games: number;
}

/** A row per perf, lichess's order, the perfs with games first. */
export function perfRowsOf(perfs: LichessPerfs): PerfRow[] {
  const rows = (Object.keys(PERF_NAMES) as Array<keyof LichessPerfs>).map(key => ({
    perf: PERF_NAMES[key],
    rating: `${perfs[key].rating}${perfs[key].prov ? '?' : ''}`,
    games: perfs[key].games,
  }));
  return [...rows.filter(row => row.games > 0), ...rows.filter(row => row.games === 0)];
}

export interface Chart {
  lines: Array<{ name: string; points: string }>; // an SVG polyline's points per perf with a history
  low: number;
  high: number;
}

/**
 * The history as polylines in a `width` × `height` box: days along, ratings up (the lowest at the bottom), every
 * perf on the same scales. Undefined without a point.
 */
export function chartOf(history: RatingHistory, width: number, height: number): Chart | undefined {
  const dayOf = ([year, month, day]: number[]) => Date.UTC(year!, month, day);
  const all = history.flatMap(entry => entry.points);
  if (all.length === 0) return undefined;
  const days = all.map(dayOf);
  const ratings = all.map(point => point[3]!);
  const [first, last] = [Math.min(...days), Math.max(...days)];
  const [low, high] = [Math.min(...ratings), Math.max(...ratings)];
  const x = (day: number) => (last === first ? width / 2 : ((day - first) / (last - first)) * width);
  const y = (rating: number) => (high === low ? height / 2 : height - ((rating - low) / (high - low)) * height);
  const round = (n: number) => Math.round(n * 10) / 10;
  const lines = history
    .filter(entry => entry.points.length > 0)
    .map(entry => ({
      name: entry.name,
      points: entry.points.map(point => `${round(x(dayOf(point)))},${round(y(point[3]!))}`).join(' '),
    }));
  return { lines, low, high };
}
