/**
 * The stores keep a player's bound of ongoing real-time games against the computer (DECISIONS §16a, store/
 * engineGames.ts): each store's `create` counts them and inserts as one step and rejects the sixth with
 * RATE_LIMITED; games that end, correspondence and unlimited ones, and games between people are not counted; the
 * unnamed default players (authentication off) have their bound too; racing creations never pass it. On the store
 * in memory, SQLite and PostgreSQL (two connections pools, as two instances).
 */
import { suite, test, type TestContext } from 'node:test';
import type { TimeControl } from '../../src/domain/clock.ts';
import { engineSeat } from '../../src/domain/engineSeat.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { newGame, type GameRecord } from '../../src/domain/game.ts';
import { indexOfGame } from '../../src/domain/transitions.ts';
import { DEFAULT_BLACK, DEFAULT_WHITE } from '../../src/domain/types.ts';
import type { PlayerInfo } from '../../src/contract/shapes.ts';
import { MemoryGameStore } from '../../src/store/memory.ts';
import { PostgresGameStore } from '../../src/store/postgres.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import type { GameStore } from '../../src/store/store.ts';
import { databaseOfFile } from '../helpers/postgres.ts';

const pg = await databaseOfFile();
const BLITZ: TimeControl = { initial: 300_000, increment: 0 };
let ids = 0;

function game(white: PlayerInfo, black: PlayerInfo, clock?: TimeControl) {
  const made = newGame({
    id: `Eg${String(++ids).padStart(6, '0')}`,
    createdAt: new Date().toISOString(),
    white,
    black,
    clock,
  });
  return { record: made.record, index: indexOfGame(made) };
}

const create = (store: GameStore, { record, index }: ReturnType<typeof game>) => store.create(record, index);

async function rateLimited(promise: Promise<boolean>): Promise<boolean> {
  try {
    await promise;
    return false;
  } catch (error) {
    if (error instanceof DomainError && error.code === 'RATE_LIMITED') return true;
    throw error;
  }
}

function bound(open: (t: TestContext) => Promise<GameStore[]>) {
  test('five ongoing real-time games against the computer, the sixth refused; only those count', async (t: TestContext) => {
    const stores = await open(t);
    const store = stores[0]!;
    const other = stores.at(-1)!;
    const ann = { id: `ann-${ids}`, displayName: 'Ann' };
    const bob = { id: `bob-${ids}`, displayName: 'Bob' };
    const made: GameRecord[] = [];
    for (let i = 0; i < 5; i++) {
      const g = i % 2 ? game(engineSeat(8), ann, BLITZ) : game(ann, engineSeat(1), BLITZ);
      t.assert.equal(await create(i % 2 ? other : store, g), true);
      made.push(g.record);
    }
    t.assert.equal(await rateLimited(create(store, game(ann, engineSeat(3), BLITZ))), true);
    t.assert.equal(await rateLimited(create(other, game(engineSeat(3), ann, BLITZ))), true);
    t.assert.equal(await create(store, game(ann, engineSeat(3), { daysPerMove: 1 })), true);
    t.assert.equal(await create(store, game(ann, engineSeat(3))), true);
    t.assert.equal(await create(store, game(ann, bob, BLITZ)), true);
    t.assert.equal(await create(store, game(bob, engineSeat(3), BLITZ)), true);
    // A game that ends frees its place.
    const ended = { ...made[0]!, version: 2, result: { kind: 'resign' as const, winner: 'black' as const } };
    t.assert.equal(await store.update(ended, 1, undefined, { deadline: null, ended: true }), true);
    t.assert.equal(await create(other, game(ann, engineSeat(3), BLITZ)), true);
    t.assert.equal(await rateLimited(create(store, game(ann, engineSeat(3), BLITZ))), true);
  });

  test('the unnamed players of authentication off have their bound, in either seat', async (t: TestContext) => {
    const store = (await open(t))[0]!;
    for (const person of [DEFAULT_WHITE, DEFAULT_BLACK]) {
      for (let i = 0; i < 5; i++) {
        const g = i % 2 ? game(engineSeat(2), person, BLITZ) : game(person, engineSeat(2), BLITZ);
        t.assert.equal(await create(store, g), true, `${person.id}, game ${i + 1}`);
      }
      t.assert.equal(await rateLimited(create(store, game(person, engineSeat(2), BLITZ))), true);
    }
  });

  test('creations racing (on both instances) make exactly five', async (t: TestContext) => {
    const stores = await open(t);
    const cid = { id: `cid-${ids}`, displayName: 'Cid' };
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        rateLimited(create(stores[i % stores.length]!, game(cid, engineSeat(1), BLITZ))).then(limited =>
          limited ? 'limit' : 'made',
        ),
      ),
    );
    t.assert.equal(outcomes.filter(outcome => outcome === 'made').length, 5, outcomes.join(' '));
  });
}

suite('in memory', () => bound(async () => [new MemoryGameStore()]));

suite('on SQLite', () =>
  bound(async t => {
    const store = SqliteGameStore.open(':memory:');
    t.after(() => store.close());
    return [store];
  }),
);

suite('on PostgreSQL, two instances', { skip: pg.skip }, () =>
  bound(async t => {
    const stores = await Promise.all([PostgresGameStore.open(pg.url()), PostgresGameStore.open(pg.url())]);
    t.after(() => Promise.all(stores.map(store => store.close())));
    return stores;
  }),
);
