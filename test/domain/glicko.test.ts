/**
 * Glicko-2 as lichess rates (DECISIONS §21): Glickman's worked example, scalachess's own cases, games computed by
 * lichess's calculator with lila's steps around it (test/fixtures/glicko), and properties over random players.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { suite, test } from 'node:test';
import fc from 'fast-check';
import {
  GLICKO,
  glicko2,
  intRating,
  isProvisional,
  liveDeviation,
  newPerf,
  progress,
  ratedGame,
  ratingDiff,
  type Glicko,
  type Perf,
  type Winner,
} from '../../src/domain/glicko.ts';

const DAY = 86_400_000;
const NOW = Date.parse('2026-12-01T12:00:00Z');

function close(actual: number, expected: number, tolerance: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual}, expected ${expected} ± ${tolerance}`);
}

const perf = (
  rating: number,
  deviation: number,
  volatility: number,
  latest: number | null = null,
  games = 20,
): Perf => ({
  glicko: { rating, deviation, volatility },
  games,
  recent: [],
  latest,
});

suite('Glickman, "Example of the Glicko-2 system"', () => {
  test('the worked example: 1500/200/0.06 beats 1400/30, loses to 1550/100 and 1700/300 (tau 0.5)', () => {
    const after = glicko2(
      { rating: 1500, deviation: 200, volatility: 0.06 },
      [
        { opponent: { rating: 1400, deviation: 30, volatility: 0.06 }, score: 1 },
        { opponent: { rating: 1550, deviation: 100, volatility: 0.06 }, score: 0 },
        { opponent: { rating: 1700, deviation: 300, volatility: 0.06 }, score: 0 },
      ],
      0.5,
      1,
    );
    // The paper: r' = 1464.06, RD' = 151.52, sigma' = 0.05999.
    close(after.rating, 1464.06, 0.01, 'rating');
    close(after.deviation, 151.52, 0.01, 'deviation');
    close(after.volatility, 0.05999, 0.00001, 'volatility');
  });

  test('a player without games in a period: only the deviation grows (step 6)', () => {
    const before: Glicko = { rating: 1500, deviation: 200, volatility: 0.06 };
    const after = glicko2(before, [], 0.5, 1);
    assert.equal(after.rating, 1500);
    assert.equal(after.volatility, 0.06);
    close(after.deviation, Math.sqrt((200 / 173.7178) ** 2 + 0.06 ** 2) * 173.7178, 1e-9, 'deviation');
  });
});

suite("scalachess's cases (GlickoCalculatorTest, RatingCalculatorTest): one game, no deviation growth", () => {
  const rate = (white: Glicko, black: Glicko, winner: Winner) => {
    const score = winner === 'white' ? 1 : winner === 'black' ? 0 : 0.5;
    return {
      w: glicko2(white, [{ opponent: black, score }], GLICKO.tau, 0),
      b: glicko2(black, [{ opponent: white, score: 1 - score }], GLICKO.tau, 0),
    };
  };
  const cases: Array<{
    name: string;
    white: Glicko;
    black: Glicko;
    winner: Winner;
    w: [number, number, number];
    b: [number, number, number];
    tolerance: [number, number, number];
  }> = [
    // R 1500, RD 350, V 0.06 (GlickoCalculatorTest)
    ...(
      [
        ['white', [1662.21, 290.2305, 0.0599993], [1337.79, 290.2305, 0.0599993]],
        ['black', [1337.79, 290.2305, 0.0599993], [1662.21, 290.2305, 0.0599993]],
        [undefined, [1500, 290.2305, 0.0599977], [1500, 290.2305, 0.0599977]],
      ] as const
    ).map(([winner, w, b]) => ({
      name: `1500/350/0.06 each, ${winner ?? 'draw'}`,
      white: { rating: 1500, deviation: 350, volatility: 0.06 },
      black: { rating: 1500, deviation: 350, volatility: 0.06 },
      winner,
      w: [...w] as [number, number, number],
      b: [...b] as [number, number, number],
      tolerance: [0.005, 0.00005, 0.0000001] as [number, number, number],
    })),
    // New players: 1500, 500, 0.09 (RatingCalculatorTest)
    ...(
      [
        ['white', [1741, 396, 0.0899983], [1258, 396, 0.0899983]],
        ['black', [1258, 396, 0.0899983], [1741, 396, 0.0899983]],
        [undefined, [1500, 396, 0.0899954], [1500, 396, 0.0899954]],
      ] as const
    ).map(([winner, w, b]) => ({
      name: `new players, ${winner ?? 'draw'}`,
      white: newPerf().glicko,
      black: newPerf().glicko,
      winner,
      w: [...w] as [number, number, number],
      b: [...b] as [number, number, number],
      tolerance: [1, 1, 0.0000001] as [number, number, number],
    })),
    ...(
      [
        ['white', [1422.63, 77.4956, 0.06], [1506.32, 105.8706, 0.065]],
        ['black', [1389.99, 77.4956, 0.06], [1568.9, 105.8706, 0.065]],
        [undefined, [1406.31, 77.4956, 0.06], [1537.61, 105.8706, 0.065]],
      ] as const
    ).map(([winner, w, b]) => ({
      name: `1400/79/0.06 against 1550/110/0.065, ${winner ?? 'draw'}`,
      white: { rating: 1400, deviation: 79, volatility: 0.06 },
      black: { rating: 1550, deviation: 110, volatility: 0.065 },
      winner,
      w: [...w] as [number, number, number],
      b: [...b] as [number, number, number],
      tolerance: [0.005, 0.00005, 0.00001] as [number, number, number],
    })),
    ...(
      [
        ['white', [1216.73, 59.9006, 0.053013], [1635.99, 196.9873, 0.062028]],
        ['black', [1199.29, 59.9006, 0.052999], [1855.42, 196.9873, 0.061999]],
        [undefined, [1208.01, 59.9006, 0.053002], [1745.71, 196.9873, 0.062006]],
      ] as const
    ).map(([winner, w, b]) => ({
      name: `1200/60/0.053 against 1850/200/0.062, ${winner ?? 'draw'}`,
      white: { rating: 1200, deviation: 60, volatility: 0.053 },
      black: { rating: 1850, deviation: 200, volatility: 0.062 },
      winner,
      w: [...w] as [number, number, number],
      b: [...b] as [number, number, number],
      tolerance: [0.005, 0.00005, 0.000001] as [number, number, number],
    })),
  ];
  for (const c of cases) {
    test(c.name, () => {
      const { w, b } = rate(c.white, c.black, c.winner);
      for (const [side, got, want] of [
        ['white', w, c.w],
        ['black', b, c.b],
      ] as const) {
        close(got.rating, want[0], c.tolerance[0], `${side} rating`);
        close(got.deviation, want[1], c.tolerance[1], `${side} deviation`);
        close(got.volatility, want[2], c.tolerance[2], `${side} volatility`);
      }
    });
  }
});

interface LichessCase {
  name: string;
  now: number;
  white: { glicko: Glicko; latest: number | null };
  black: { glicko: Glicko; latest: number | null };
  winner: 'white' | 'black' | 'draw';
  after: [Glicko, Glicko];
}
const { cases: lichessCases } = JSON.parse(
  readFileSync(new URL('../fixtures/glicko/lichess-games.json', import.meta.url), 'utf8'),
) as { cases: LichessCase[] };

suite("games rated by lichess's calculator, with lila's steps around it (test/fixtures/glicko)", () => {
  for (const c of lichessCases) {
    test(`${c.name}: ${c.winner === 'draw' ? 'a draw' : `${c.winner} wins`}`, () => {
      const before = {
        white: { ...newPerf(), glicko: c.white.glicko, latest: c.white.latest, games: 30 },
        black: { ...newPerf(), glicko: c.black.glicko, latest: c.black.latest, games: 30 },
      };
      const after = ratedGame(before, c.winner === 'draw' ? undefined : c.winner, c.now);
      for (const [side, i] of [
        ['white', 0],
        ['black', 1],
      ] as const) {
        const want = c.after[i];
        // To the rating point, and then some: the same doubles but for the order of a few operations.
        close(after[side].glicko.rating, want.rating, 1e-6, `${side} rating`);
        close(after[side].glicko.deviation, want.deviation, 1e-6, `${side} deviation`);
        close(after[side].glicko.volatility, want.volatility, 1e-9, `${side} volatility`);
        assert.equal(intRating(after[side].glicko), Math.trunc(want.rating), `${side} whole rating`);
        assert.equal(after[side].latest, c.now);
        assert.equal(after[side].games, 31);
      }
    });
  }
});

suite('deviation growth with time away (lila "live deviation")', () => {
  test('a typical player goes from 60 to 110 in a year without rated games', () => {
    close(liveDeviation(perf(1500, 60, 0.06, NOW - 365 * DAY), NOW), 110, 0.01, 'deviation');
  });
  test('no growth before the first game, and never beyond 500 or below 45', () => {
    assert.equal(liveDeviation(newPerf(), NOW), 500);
    assert.equal(liveDeviation(perf(1500, 480, 0.09, NOW - 3650 * DAY), NOW), 500);
    assert.equal(liveDeviation(perf(1500, 40, 0.06, NOW), NOW), 45);
  });
  test('a rated game after a long absence moves the rating more than one after a day', () => {
    const opponent = perf(1900, 70, 0.06, NOW - DAY);
    const away = ratedGame({ white: perf(2100, 50, 0.06, NOW - 730 * DAY), black: opponent }, 'black', NOW);
    const recent = ratedGame({ white: perf(2100, 50, 0.06, NOW - DAY), black: opponent }, 'black', NOW);
    assert.ok(away.white.glicko.rating < recent.white.glicko.rating);
  });
});

suite('what a perf keeps', () => {
  test('provisional while the deviation is 110 or more', () => {
    assert.equal(isProvisional({ rating: 1500, deviation: 110, volatility: 0.06 }), true);
    assert.equal(isProvisional({ rating: 1500, deviation: 109.99, volatility: 0.06 }), false);
  });
  test('ratingDiff is the whole ratings after less before; the recent ratings from the 11th game on', () => {
    let white = newPerf();
    let black = newPerf();
    for (let i = 0; i < 14; i++) {
      const before = { white, black };
      ({ white, black } = ratedGame(before, i % 3 === 0 ? 'black' : 'white', NOW + i * DAY));
      assert.equal(
        ratingDiff(before.white, white),
        Math.trunc(white.glicko.rating) - Math.trunc(before.white.glicko.rating),
      );
      assert.equal(white.games, i + 1);
      assert.equal(white.recent.length, Math.max(0, i - 9)); // from the 11th game: 10 played before it
      if (white.recent.length > 0) assert.equal(white.recent[0], intRating(white.glicko));
    }
    assert.equal(progress(white), white.recent[0]! - white.recent[white.recent.length - 1]!);
    assert.equal(progress(newPerf()), 0);
  });
  test('a rating moves at most 700 points in one game', () => {
    const after = ratedGame(
      { white: perf(1500, 500, 0.09, null, 0), black: perf(3200, 45, 0.05, NOW - DAY) },
      'white',
      NOW,
    );
    assert.ok(after.white.glicko.rating - 1500 <= GLICKO.maxRatingDelta);
  });
});

suite('properties', () => {
  const glickoArb = fc.record({
    rating: fc.double({ min: 400, max: 4000, noNaN: true }),
    deviation: fc.double({ min: 45, max: 500, noNaN: true }),
    volatility: fc.double({ min: 0.03, max: 0.1, noNaN: true }),
  });
  const perfArb = fc.record({
    glicko: glickoArb,
    games: fc.nat({ max: 1000 }),
    recent: fc.constant([] as number[]),
    latest: fc.option(fc.integer({ min: NOW - 3000 * DAY, max: NOW }), { nil: null }),
  });
  const winnerArb = fc.constantFrom<Winner>('white', 'black', undefined);

  test('a win never lowers a rating, a loss never raises one', () => {
    fc.assert(
      fc.property(perfArb, perfArb, (white, black) => {
        const won = ratedGame({ white, black }, 'white', NOW);
        assert.ok(won.white.glicko.rating >= white.glicko.rating);
        assert.ok(won.black.glicko.rating <= black.glicko.rating);
        const lost = ratedGame({ white, black }, 'black', NOW);
        assert.ok(lost.white.glicko.rating <= white.glicko.rating);
        assert.ok(lost.black.glicko.rating >= black.glicko.rating);
      }),
    );
  });

  test('ratings stay within 400-4000, deviations within 45-500, volatilities at most 0.1', () => {
    fc.assert(
      fc.property(perfArb, perfArb, winnerArb, (white, black, winner) => {
        const after = ratedGame({ white, black }, winner, NOW);
        for (const side of [after.white, after.black]) {
          assert.ok(side.glicko.rating >= 400 && side.glicko.rating <= 4000, `rating ${side.glicko.rating}`);
          assert.ok(side.glicko.deviation >= 45 && side.glicko.deviation <= 500, `deviation ${side.glicko.deviation}`);
          assert.ok(
            side.glicko.volatility > 0 && side.glicko.volatility <= 0.1,
            `volatility ${side.glicko.volatility}`,
          );
        }
      }),
    );
  });

  test('a game never raises a deviation beyond its value at the game (a result is information)', () => {
    fc.assert(
      fc.property(perfArb, perfArb, winnerArb, (white, black, winner) => {
        const after = ratedGame({ white, black }, winner, NOW);
        assert.ok(after.white.glicko.deviation <= Math.max(45, liveDeviation(white, NOW)) + 1e-9);
        assert.ok(after.black.glicko.deviation <= Math.max(45, liveDeviation(black, NOW)) + 1e-9);
      }),
    );
  });

  test('colours do not matter: the same players with colours swapped get the same ratings', () => {
    fc.assert(
      fc.property(perfArb, perfArb, winnerArb, (a, b, winner) => {
        const one = ratedGame({ white: a, black: b }, winner, NOW);
        const swapped = ratedGame(
          { white: b, black: a },
          winner === 'white' ? 'black' : winner === 'black' ? 'white' : undefined,
          NOW,
        );
        assert.equal(one.white.glicko.rating, swapped.black.glicko.rating);
        assert.equal(one.black.glicko.rating, swapped.white.glicko.rating);
      }),
    );
  });
});
