/**
 * A player's event stream looks at the player's games again when announcements may have been missed (a resync);
 * a look that fails because the store is unreachable is tried again until it succeeds (DECISIONS §13a), so a game
 * started meanwhile elsewhere still gets its `gameStart`.
 */
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeTestApp } from '../helpers/app.ts';
import { storeWith } from '../helpers/store.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import { makeRecord } from '../store/gameStore.contract.ts';
import { openStream } from './helpers.ts';

test('a look again that fails is retried until the store answers; the game it missed then starts', async (t: TestContext) => {
  const database = SqliteGameStore.open(':memory:');
  let down = false;
  let looks = 0;
  const store = storeWith(database, {
    ongoingGames: (player, after, limit) => {
      looks++;
      return down ? Promise.reject(new Error('store unreachable')) : database.ongoingGames(player, after, limit);
    },
  });
  const { app, players } = await makeTestApp({ store });
  t.after(async () => {
    await app.close();
    await database.close();
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const stream = await openStream(`${base}/api/stream/event?player=ann`);
  t.after(() => stream.close());
  t.assert.equal(stream.status, 200);
  t.assert.equal(looks, 1, 'the opening list');

  // A game made where this instance did not hear of it (another instance, announcements lost), while the store
  // cannot be read: the look the resync asks for fails.
  const record = makeRecord({ white: { id: 'ann', displayName: 'Ann' } });
  t.assert.equal(await database.create(record, { deadline: null, ended: false }), true);
  down = true;
  players.resync();
  await sleep(300);
  t.assert.equal(looks, 2);
  t.assert.deepEqual(stream.events, []);

  down = false;
  await stream.waitForEvents(1, 5000);
  t.assert.ok(looks >= 3, 'looked again after the failure');
  await sleep(1500); // no further look or line once one succeeded
  t.assert.deepEqual(
    stream.events.map(event => `${event.type} ${event.game.gameId}`),
    [`gameStart ${record.id}`],
  );
  t.assert.equal(looks, 3);
});
