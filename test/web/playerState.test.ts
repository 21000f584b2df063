/** The player card's rows and chart (src/web/playerState.ts): perfs played first, `?` while provisional, one scale. */
import { test, type TestContext } from 'node:test';
import { chartOf, perfRowsOf } from '../../src/web/playerState.ts';

const fresh = { games: 0, rating: 1500, rd: 500, prog: 0, prov: true as const };

test('perf rows: the perfs played first, in lichess order; provisional ratings with a ?', (t: TestContext) => {
  const perfs = {
    ultraBullet: fresh,
    bullet: fresh,
    blitz: { games: 12, rating: 1662, rd: 80, prog: 14 },
    rapid: { games: 1, rating: 1741, rd: 290, prog: 0, prov: true as const },
    classical: fresh,
    correspondence: fresh,
  };
  t.assert.deepEqual(perfRowsOf(perfs).slice(0, 3), [
    { perf: 'Blitz', rating: '1662', games: 12 },
    { perf: 'Rapid', rating: '1741?', games: 1 },
    { perf: 'UltraBullet', rating: '1500?', games: 0 },
  ]);
});

test('chart: days along, ratings up, every perf on one scale; none without a point', (t: TestContext) => {
  t.assert.equal(chartOf([{ name: 'Blitz', points: [] }], 300, 120), undefined);
  const chart = chartOf(
    [
      { name: 'Bullet', points: [] },
      {
        name: 'Blitz',
        points: [
          [2026, 2, 1, 1500],
          [2026, 2, 3, 1600],
        ],
      },
      { name: 'Rapid', points: [[2026, 2, 2, 1550]] },
    ],
    300,
    120,
  );
  t.assert.deepEqual(chart, {
    lines: [
      { name: 'Blitz', points: '0,120 300,0' },
      { name: 'Rapid', points: '150,60' },
    ],
    low: 1500,
    high: 1600,
  });
});
