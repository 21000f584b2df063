/**
 * How the A/B mode combines its rounds (bench/common.ts, pairedMedian): each two consecutive rounds, one with each
 * build first, as the geometric mean of their ratios, then the median of those, so that a build that fares worse
 * when it runs second is judged as often in each place.
 */
import { test, type TestContext } from 'node:test';
import { median, pairedMedian } from '../../bench/common.ts';

test('two rounds, one with each build first, count as the geometric mean of their ratios', (t: TestContext) => {
  t.assert.equal(pairedMedian([0.8, 1.25]), 1);
  t.assert.ok(Math.abs(pairedMedian([0.9, 0.4]) - 0.6) < 1e-12);
});

test('an order effect leaves the figure where the two places meet, where the plain median picks a side', (t: TestContext) => {
  // This build first in odd rounds (1.0), second in even ones (0.8): five rounds, three of them first.
  const rounds = [1.0, 0.8, 1.0, 0.8, 1.0];
  t.assert.equal(median(rounds), 1.0);
  const paired = pairedMedian(rounds);
  t.assert.ok(Math.abs(paired - Math.sqrt(0.8)) < 1e-12, `${paired}`);
});

test('an odd last round counts alone, and one round is its own figure', (t: TestContext) => {
  t.assert.equal(pairedMedian([0.7]), 0.7);
  // Pairs 0.5 (0.25, 1) and 1 (1, 1), and the last round 2: the median of 0.5, 1 and 2.
  t.assert.equal(pairedMedian([0.25, 1, 1, 1, 2]), 1);
});
