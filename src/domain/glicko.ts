/**
 * Glicko-2 (Glickman, "Example of the Glicko-2 system"), as lichess rates (DECISIONS §21): lichess's calculator
 * (`chess.rating.glicko` in scalachess) and what lila does around it (`lila.rating.Glicko`, `PerfExt.addOrReset`,
 * the "live deviation" read with each perf). Pure: the time is a parameter.
 *
 * A rated game is its own rating period. Before it, each side's deviation grows with the time since that side's last
 * rated game (`liveDeviation`: 0.21436 rating periods a day, step 6 of the paper); the game then updates both sides
 * from the other's values before the game (steps 3 to 8, with no further growth in step 6, lila's
 * `skipDeviationIncrease`), with no colour advantage. The result is bounded as lila bounds it: a rating moves at
 * most 700 points, stays within 400-4000, a deviation within 45-500, a volatility at most 0.1.
 *
 * ```ts
 * const before = { white: newPerf(), black: newPerf() };
 * const after = ratedGame(before, 'white', now); // { white: Perf (1741...), black: Perf (1258...) }
 * ratingDiff(before.white, after.white);         // 241: the whole ratings' difference
 * ```
 */

/** A player's Glicko-2 values on the rating scale (not the algorithm's internal one). */
export interface Glicko {
  readonly rating: number; // e.g. 1500
  readonly deviation: number; // e.g. 500
  readonly volatility: number; // e.g. 0.09
}

/** A player's rating in one perf, as lila keeps it. */
export interface Perf {
  readonly glicko: Glicko;
  readonly games: number; // rated games played in this perf
  /** The whole ratings after each of the last rated games, newest first (kept once 10 games were played before), at most 12. */
  readonly recent: readonly number[];
  /** When the last rated game ended (ms since the epoch); null before the first. */
  readonly latest: number | null;
}

/** One game of a rating period, from one player's side: the opponent's values and the score (1, 0.5 or 0). */
export interface GameResult {
  readonly opponent: Glicko;
  readonly score: number;
}

/** lichess's parameters (lila `Glicko`, scalachess `Tau.default`). */
export const GLICKO = Object.freeze({
  tau: 0.75,
  minRating: 400,
  maxRating: 4000,
  minDeviation: 45,
  maxDeviation: 500,
  maxVolatility: 0.1,
  defaultRating: 1500,
  defaultVolatility: 0.09,
  /** Chosen by lichess so that a typical player's deviation goes from 60 to 110 in a year without games. */
  ratingPeriodsPerDay: 0.21436,
  provisionalDeviation: 110,
  maxRatingDelta: 700,
  recentMax: 12,
});

const SCALE = 173.7178; // the paper's 173.7178: the rating scale over the algorithm's
const DAY_MS = 86_400_000;
const CONVERGENCE_TOLERANCE = 0.000001;
const ITERATION_MAX = 1000;

/** A new player's perf: 1500, deviation 500, volatility 0.09, no games. */
export const newPerf = (): Perf => ({
  glicko: { rating: GLICKO.defaultRating, deviation: GLICKO.maxDeviation, volatility: GLICKO.defaultVolatility },
  games: 0,
  recent: [],
  latest: null,
});

const toMu = (rating: number) => (rating - GLICKO.defaultRating) / SCALE;
const toPhi = (deviation: number) => deviation / SCALE;
const g = (phi: number) => 1 / Math.sqrt(1 + (3 * phi * phi) / (Math.PI * Math.PI));
const expected = (mu: number, muJ: number, phiJ: number) => 1 / (1 + Math.exp(-g(phiJ) * (mu - muJ)));

/** Step 6 of the paper: a deviation (internal scale) after `periods` rating periods without a game. */
const grown = (phi: number, sigma: number, periods: number) => Math.sqrt(phi * phi + periods * sigma * sigma);

/**
 * One rating period of the paper (steps 2 to 8) for one player: its values after `results`, with `elapsedPeriods`
 * periods of deviation growth in step 6 (1 in the paper; 0 as lichess rates a game, the growth since the player's
 * last game having been applied to its deviation beforehand). Without results only step 6 applies. The values are
 * not bounded here (see `boundedAfterGame`).
 */
export function glicko2(player: Glicko, results: readonly GameResult[], tau: number, elapsedPeriods: number): Glicko {
  const mu = toMu(player.rating);
  const phi = toPhi(player.deviation);
  const sigma = player.volatility;
  if (results.length === 0) {
    return { ...player, deviation: grown(phi, sigma, elapsedPeriods) * SCALE };
  }
  // Step 3 and 4: the estimated variance v and the improvement delta, from the opponents' values.
  let vInverse = 0;
  let outcome = 0; // sum of g(phi_j) (s_j - E)
  for (const { opponent, score } of results) {
    const phiJ = toPhi(opponent.deviation);
    const e = expected(mu, toMu(opponent.rating), phiJ);
    vInverse += g(phiJ) ** 2 * e * (1 - e);
    outcome += g(phiJ) * (score - e);
  }
  const v = 1 / vInverse;
  const delta = v * outcome;
  // Step 5: the new volatility, by the Illinois algorithm as lichess iterates it.
  const a = Math.log(sigma * sigma);
  const f = (x: number) =>
    (Math.exp(x) * (delta * delta - phi * phi - v - Math.exp(x))) / (2 * (phi * phi + v + Math.exp(x)) ** 2) -
    (x - a) / (tau * tau);
  let A = a;
  let B: number;
  if (delta * delta > phi * phi + v) B = Math.log(delta * delta - phi * phi - v);
  else {
    let k = 1;
    while (f(a - k * tau) < 0) k++;
    B = a - k * tau;
  }
  let fA = f(A);
  let fB = f(B);
  let iterations = 0;
  while (Math.abs(B - A) > CONVERGENCE_TOLERANCE && iterations < ITERATION_MAX) {
    iterations++;
    const C = A + ((A - B) * fA) / (fB - fA);
    const fC = f(C);
    if (fC * fB <= 0) {
      A = B;
      fA = fB;
    } else fA /= 2;
    B = C;
    fB = fC;
  }
  const newSigma = Math.exp(A / 2);
  // Steps 6 to 8.
  const phiStar = grown(phi, newSigma, elapsedPeriods);
  const newPhi = 1 / Math.sqrt(1 / (phiStar * phiStar) + 1 / v);
  const newMu = mu + newPhi * newPhi * outcome;
  return { rating: newMu * SCALE + GLICKO.defaultRating, deviation: newPhi * SCALE, volatility: newSigma };
}

const clamp = (x: number, low: number, high: number) => Math.min(high, Math.max(low, x));

/** lila's `cap`: the bounds a player's values are used and kept within. */
const capped = (glicko: Glicko): Glicko => ({
  rating: clamp(glicko.rating, GLICKO.minRating, GLICKO.maxRating),
  deviation: clamp(glicko.deviation, GLICKO.minDeviation, GLICKO.maxDeviation),
  volatility: Math.min(glicko.volatility, GLICKO.maxVolatility),
});

/**
 * A perf's deviation at `now`: grown from its last rated game's end by the rating periods since (lila's "live
 * deviation"), within 45-500. A perf without a game keeps its own.
 */
export function liveDeviation(perf: Perf, now: number): number {
  const { deviation, volatility } = perf.glicko;
  const periods = perf.latest === null ? 0 : ((now - perf.latest) * GLICKO.ratingPeriodsPerDay) / DAY_MS;
  return clamp(grown(toPhi(deviation), volatility, periods) * SCALE, GLICKO.minDeviation, GLICKO.maxDeviation);
}

/** The perf as it stands at `now`, its deviation grown with the time since its last rated game. */
export const perfAt = (perf: Perf, now: number): Perf => ({
  ...perf,
  glicko: { ...perf.glicko, deviation: liveDeviation(perf, now) },
});

/** Whether a rating is still provisional: its deviation (at the time asked) 110 or more. */
export const isProvisional = (glicko: Glicko): boolean => glicko.deviation >= GLICKO.provisionalDeviation;

/** The rating as shown: truncated to a whole number. */
export const intRating = (glicko: Glicko): number => Math.trunc(glicko.rating);

/**
 * lila's `addOrReset`: a perf after a rated game that ended at `at`, from the calculator's values: the rating moved
 * at most 700 points, a value beyond sanity replaced by a new player's, then bounded; one more game; the whole
 * rating remembered among the recent ones once 10 games were played before this one.
 */
function afterGame(before: Perf, computed: Glicko, at: number): Perf {
  const rating = clamp(
    computed.rating,
    before.glicko.rating - GLICKO.maxRatingDelta,
    before.glicko.rating + GLICKO.maxRatingDelta,
  );
  const candidate = { ...computed, rating };
  const sane =
    rating > 0 &&
    candidate.deviation > 0 &&
    candidate.deviation < 1000 &&
    candidate.volatility > 0 &&
    candidate.volatility < GLICKO.maxVolatility * 2;
  const glicko = capped(sane ? candidate : newPerf().glicko);
  const recent = before.games < 10 ? before.recent : [intRating(glicko), ...before.recent].slice(0, GLICKO.recentMax);
  return { glicko, games: before.games + 1, recent, latest: at };
}

export type Winner = 'white' | 'black' | undefined; // undefined: a draw

/**
 * Both sides' perfs after a rated game between them that ended at `at` with `winner` (undefined: a draw), from their
 * perfs as stored before it (their deviations grow to `at` here first).
 */
export function ratedGame(
  before: { white: Perf; black: Perf },
  winner: Winner,
  at: number,
): { white: Perf; black: Perf } {
  const white = capped(perfAt(before.white, at).glicko);
  const black = capped(perfAt(before.black, at).glicko);
  const whiteScore = winner === 'white' ? 1 : winner === 'black' ? 0 : 0.5;
  return {
    white: afterGame(before.white, glicko2(white, [{ opponent: black, score: whiteScore }], GLICKO.tau, 0), at),
    black: afterGame(before.black, glicko2(black, [{ opponent: white, score: 1 - whiteScore }], GLICKO.tau, 0), at),
  };
}

/** lichess's `ratingDiff`: the whole rating after minus the whole rating before. */
export const ratingDiff = (before: Perf, after: Perf): number => intRating(after.glicko) - intRating(before.glicko);

/** lichess's `prog`: the rating's progress over the recent games (the newest kept less the oldest kept), else 0. */
export const progress = (perf: Perf): number =>
  perf.recent.length === 0 ? 0 : perf.recent[0]! - perf.recent[perf.recent.length - 1]!;
