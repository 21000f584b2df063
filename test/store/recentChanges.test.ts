/** The in-memory change log of the stores no other instance shares: order, filtering and its byte budget. */
import { test, type TestContext } from 'node:test';
import { ENTRY_BYTES, RecentChanges } from '../../src/store/recentChanges.ts';
import { stateEvent } from './gameStore.contract.ts';

const entry = (moves: string[]): string => JSON.stringify(stateEvent(moves));
const versions = (log: RecentChanges, gameId: string, after = 0): number[] =>
  log.since(gameId, after).map(change => change.version);

test('since lists a game’s changes after a version, in order, as copies', (t: TestContext) => {
  const log = new RecentChanges();
  log.append('AAAA0001', 2, entry(['e2e4']));
  log.append('BBBB0001', 2, entry(['d2d4']));
  log.append('AAAA0001', 3, entry(['e2e4', 'e7e5']));
  t.assert.deepEqual(
    log.since('AAAA0001', 1).map(change => [change.gameId, change.version, change.event.state.moves]),
    [
      ['AAAA0001', 2, ['e2e4']],
      ['AAAA0001', 3, ['e2e4', 'e7e5']],
    ],
  );
  t.assert.deepEqual(versions(log, 'AAAA0001', 2), [3]);
  t.assert.deepEqual(log.since('AAAA0001', 3), []);
  t.assert.deepEqual(log.since('CCCC0001', 0), []);
  // What a caller does with what it read does not change the log.
  log.since('BBBB0001', 0)[0]!.event.state.moves.push('d7d5');
  t.assert.deepEqual(log.since('BBBB0001', 0)[0]!.event.state.moves, ['d2d4']);
});

test('past its budget the log lets the oldest changes go first, whatever their game', (t: TestContext) => {
  const size = entry(['e2e4']).length + ENTRY_BYTES;
  const log = new RecentChanges(size * 10); // room for ten entries of this size
  for (let version = 2; version <= 21; version++) {
    log.append(version % 2 === 0 ? 'AAAA0001' : 'BBBB0001', version, entry(['e2e4']));
  }
  // The last ten of twenty: versions 12 to 21, alternating between the two games.
  t.assert.deepEqual(versions(log, 'AAAA0001'), [12, 14, 16, 18, 20]);
  t.assert.deepEqual(versions(log, 'BBBB0001'), [13, 15, 17, 19, 21]);
});

test('the newest change stays even when it alone is larger than the budget', (t: TestContext) => {
  const log = new RecentChanges(10);
  log.append('AAAA0001', 2, entry(['e2e4']));
  log.append('AAAA0001', 3, entry(['e2e4', 'e7e5']));
  t.assert.deepEqual(versions(log, 'AAAA0001'), [3]);
});

test('a long run of changes keeps the log within its budget', (t: TestContext) => {
  const size = entry(['e2e4']).length + ENTRY_BYTES;
  const log = new RecentChanges(size * 100);
  for (let i = 0; i < 50_000; i++)
    log.append(`G${String(i % 300).padStart(7, '0')}`, 2 + Math.floor(i / 300), entry(['e2e4']));
  let kept = 0;
  for (let g = 0; g < 300; g++) kept += log.since(`G${String(g).padStart(7, '0')}`, 0).length;
  t.assert.equal(kept, 100);
  // The newest 100 changes are those of i = 49900 to 49999: one each of games 100 to 199, at version 168.
  t.assert.deepEqual(versions(log, 'G0000199'), [168]);
  t.assert.deepEqual(versions(log, 'G0000100'), [168]);
  t.assert.deepEqual(log.since('G0000099', 0), []);
  t.assert.deepEqual(log.since('G0000200', 0), []);
});

test('the budget counts each entry by its size, so a large change pushes out several small ones', (t: TestContext) => {
  const small = entry(['e2e4']);
  const large = entry(Array.from({ length: 200 }, () => 'e2e4'));
  // Room for the large entry and two small ones, each with the cost of an entry besides its JSON.
  const log = new RecentChanges(large.length + 2 * small.length + 3 * ENTRY_BYTES);
  for (let version = 2; version <= 5; version++) log.append('AAAA0001', version, small);
  log.append('BBBB0001', 2, large);
  t.assert.deepEqual(versions(log, 'AAAA0001'), [4, 5]);
  t.assert.deepEqual(versions(log, 'BBBB0001'), [2]);
  // One small one more: the oldest small one leaves, the large one (not the oldest) stays.
  log.append('AAAA0001', 6, small);
  t.assert.deepEqual(versions(log, 'AAAA0001'), [5, 6]);
  t.assert.deepEqual(versions(log, 'BBBB0001'), [2]);
});

test('a version not above the last one logged for its game is left out', (t: TestContext) => {
  const log = new RecentChanges();
  log.append('AAAA0001', 3, entry(['e2e4']));
  log.append('AAAA0001', 3, entry(['d2d4']));
  log.append('AAAA0001', 2, entry(['c2c4']));
  log.append('AAAA0001', 4, entry(['e2e4', 'e7e5']));
  t.assert.deepEqual(
    log.since('AAAA0001', 0).map(change => [change.version, change.event.state.moves]),
    [
      [3, ['e2e4']],
      [4, ['e2e4', 'e7e5']],
    ],
  );
});
