/**
 * The contract every GameStore adapter keeps (src/store/store.ts). Each adapter's test file calls
 * `runGameStoreContract` with a factory for a fresh, empty store; the store is closed after each test.
 *
 * ```ts
 * runGameStoreContract('MemoryGameStore', async () => new MemoryGameStore());
 * ```
 */
import { describe, test, type TestContext } from 'node:test';
import type { GameRecord } from '../../src/domain/game.ts';
import type { GameStore, StateEvent } from '../../src/store/store.ts';

const INITIAL_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

let counter = 0;
/** A new record with a fresh id (8 letters or digits) and the given fields. */
export function makeRecord(fields: Partial<GameRecord> = {}): GameRecord {
  counter++;
  return {
    id: `Ct${String(counter).padStart(6, '0')}`,
    version: 1,
    createdAt: '2026-01-31T12:00:00.000Z',
    white: { id: 'p1', displayName: 'Player 1' },
    black: { id: 'p2', displayName: 'Player 2' },
    startFen: INITIAL_FEN,
    moves: [],
    redo: [],
    pendingPromotion: null,
    drawOffer: null,
    takebackOffer: null,
    result: null,
    clock: null,
    moveClocks: [],
    ...fields,
  };
}

/** Records that use every field a game can have, each value kind at least once. */
export const VARIED_RECORDS = (): GameRecord[] => [
  makeRecord(),
  makeRecord({
    version: 7,
    white: { id: 'w-é', displayName: 'Ünïcødé "quoted" \\ 😀' },
    black: { id: 'b', displayName: 'Black Side' },
    moves: ['e2e4', 'e7e5', 'g1f3'],
    redo: ['f1c4', 'b8c6'],
    drawOffer: 'white',
  }),
  makeRecord({
    startFen: '8/P6k/8/8/8/8/8/K7 w - - 0 1',
    pendingPromotion: 'a7a8',
  }),
  makeRecord({ moves: ['e2e4'], result: { kind: 'resign', winner: 'black' } }),
  makeRecord({ moves: ['d2d4', 'd7d5'], result: { kind: 'drawAgreed' }, drawOffer: null }),
  makeRecord({ startFen: '7k/8/8/8/8/8/8/K5R1 w - - 100 80', result: { kind: 'drawClaimed' } }),
  // A rated game over, with its ratings as it began and their changes (DECISIONS §21).
  makeRecord({
    moves: ['e2e4'],
    result: { kind: 'resign', winner: 'white' },
    rated: true,
    ratings: {
      white: { rating: 1712, provisional: false, ratingDiff: 9 },
      black: { rating: 1500, provisional: true, ratingDiff: -187 },
      ratedAt: 1_772_366_400_000,
    },
  }),
];

/** A gameState event whose moves tell which change it belongs to. */
export function stateEvent(moves: string[]): StateEvent {
  return {
    type: 'gameState',
    state: {
      fen: INITIAL_FEN,
      pgn: '',
      turn: moves.length % 2 === 0 ? 'white' : 'black',
      status: 'started',
      winner: null,
      moves,
      undoAvailable: moves.length > 0,
      redoAvailable: false,
      drawOfferedBy: null,
      takebackOfferedBy: null,
    },
  };
}

export function runGameStoreContract(
  name: string,
  makeStore: () => Promise<GameStore>,
  options: { skip?: string | false } = {},
): void {
  describe(`GameStore contract: ${name}`, { skip: options.skip ?? false }, () => {
    const open = async (t: TestContext): Promise<GameStore> => {
      const store = await makeStore();
      t.after(() => store.close());
      return store;
    };

    test('create stores a record that get returns unchanged', async (t: TestContext) => {
      const store = await open(t);
      for (const record of VARIED_RECORDS()) {
        t.assert.equal(await store.create(record), true);
        t.assert.deepEqual(await store.get(record.id), record);
      }
    });

    test('create with an id that is taken resolves false and keeps the first record', async (t: TestContext) => {
      const store = await open(t);
      const first = makeRecord({ moves: ['e2e4'] });
      t.assert.equal(await store.create(first), true);
      const second = { ...makeRecord(), id: first.id, moves: ['d2d4'] };
      t.assert.equal(await store.create(second), false);
      t.assert.deepEqual(await store.get(first.id), first);
    });

    test('get of an unknown id resolves undefined', async (t: TestContext) => {
      const store = await open(t);
      t.assert.equal(await store.get('ZZZZ9999'), undefined);
      await store.create(makeRecord());
      t.assert.equal(await store.get('ZZZZ9999'), undefined);
    });

    test('ids are case-sensitive', async (t: TestContext) => {
      const store = await open(t);
      const upper = makeRecord({ id: 'ABCDEFGH' });
      const lower = makeRecord({ id: 'abcdefgh', moves: ['e2e4'] });
      t.assert.equal(await store.create(upper), true);
      t.assert.equal(await store.create(lower), true);
      t.assert.deepEqual(await store.get('ABCDEFGH'), upper);
      t.assert.deepEqual(await store.get('abcdefgh'), lower);
      t.assert.equal(await store.get('AbCdEfGh'), undefined);
    });

    test('update with the stored version replaces the record', async (t: TestContext) => {
      const store = await open(t);
      const record = makeRecord();
      await store.create(record);
      const next: GameRecord = { ...record, version: 2, moves: ['e2e4'], drawOffer: 'black' };
      t.assert.equal(await store.update(next, 1), true);
      t.assert.deepEqual(await store.get(record.id), next);
      const third: GameRecord = { ...next, version: 3, moves: [], redo: ['e2e4'], drawOffer: null };
      t.assert.equal(await store.update(third, 2), true);
      t.assert.deepEqual(await store.get(record.id), third);
      const ended: GameRecord = { ...third, version: 4, result: { kind: 'resign', winner: 'white' } };
      t.assert.equal(await store.update(ended, 3), true);
      t.assert.deepEqual(await store.get(record.id), ended);
    });

    test('update with a stale or future version resolves false and changes nothing', async (t: TestContext) => {
      const store = await open(t);
      const record = makeRecord();
      await store.create(record);
      const v2: GameRecord = { ...record, version: 2, moves: ['e2e4'] };
      t.assert.equal(await store.update(v2, 1), true);
      const lost: GameRecord = { ...record, version: 2, moves: ['d2d4'] };
      t.assert.equal(await store.update(lost, 1), false); // someone else wrote version 2 first
      t.assert.equal(await store.update({ ...v2, version: 4 }, 3), false);
      t.assert.equal(await store.update({ ...v2, version: 1 }, 0), false);
      t.assert.deepEqual(await store.get(record.id), v2);
    });

    test('of two updates from the same version exactly one wins', async (t: TestContext) => {
      const store = await open(t);
      const record = makeRecord();
      await store.create(record);
      const results = await Promise.all([
        store.update({ ...record, version: 2, moves: ['e2e4'] }, 1),
        store.update({ ...record, version: 2, moves: ['d2d4'] }, 1),
      ]);
      t.assert.deepEqual([...results].sort(), [false, true]);
      const stored = (await store.get(record.id))!;
      t.assert.deepEqual(stored.moves, results[0] ? ['e2e4'] : ['d2d4']);
    });

    test('update of an unknown id resolves false and creates nothing', async (t: TestContext) => {
      const store = await open(t);
      const record = makeRecord({ version: 2 });
      t.assert.equal(await store.update(record, 1), false);
      t.assert.equal(await store.get(record.id), undefined);
    });

    test('records are kept apart', async (t: TestContext) => {
      const store = await open(t);
      const records = VARIED_RECORDS();
      for (const record of records) await store.create(record);
      await store.update({ ...records[0]!, version: 2, moves: ['c2c4'] }, 1);
      for (const record of records.slice(1)) t.assert.deepEqual(await store.get(record.id), record);
    });

    test('a returned record is a copy: changing it does not change the store', async (t: TestContext) => {
      const store = await open(t);
      const record = makeRecord({ moves: ['e2e4'] });
      await store.create(record);
      const got = (await store.get(record.id)) as unknown as { moves: string[]; white: { displayName: string } };
      got.moves.push('e7e5');
      got.white.displayName = 'changed';
      t.assert.deepEqual(await store.get(record.id), record);
    });

    test('update logs its event at the new version; changesSince lists them in order', async (t: TestContext) => {
      const store = await open(t);
      const record = makeRecord();
      const other = makeRecord();
      await store.create(record);
      await store.create(other);
      const states = [['e2e4'], ['e2e4', 'e7e5'], ['e2e4']];
      for (const [i, moves] of states.entries()) {
        const next = { ...record, version: i + 2, moves };
        t.assert.equal(await store.update(next, i + 1, stateEvent(moves)), true);
      }
      t.assert.equal(await store.update({ ...other, version: 2, moves: ['d2d4'] }, 1, stateEvent(['d2d4'])), true);
      // A refused update logs nothing.
      t.assert.equal(await store.update({ ...record, version: 9, moves: ['c2c4'] }, 8, stateEvent(['c2c4'])), false);

      const all = await store.changesSince(record.id, 1);
      t.assert.deepEqual(
        all.map(change => [change.gameId, change.version, change.event.state.moves]),
        states.map((moves, i) => [record.id, i + 2, moves]),
      );
      t.assert.deepEqual(
        (await store.changesSince(record.id, 3)).map(change => change.version),
        [4],
      );
      t.assert.deepEqual(await store.changesSince(record.id, 4), []);
      t.assert.deepEqual(
        (await store.changesSince(other.id, 0)).map(change => change.event),
        [stateEvent(['d2d4'])],
      );
      t.assert.deepEqual(await store.changesSince('ZZZZ9999', 0), []);
    });

    test('an update whose event does not raise the version by one rejects and changes nothing', async (t: TestContext) => {
      const store = await open(t);
      const record = makeRecord();
      await store.create(record);
      for (const version of [1, 3]) {
        await t.assert.rejects(
          store.update({ ...record, version, moves: ['e2e4'] }, 1, stateEvent(['e2e4'])),
          /raise the version by one/,
        );
      }
      t.assert.deepEqual(await store.get(record.id), record);
      t.assert.deepEqual(await store.changesSince(record.id, 0), []);
      // Without an event, the version is the caller's business.
      t.assert.equal(await store.update({ ...record, version: 3 }, 1), true);
    });

    test('listGames: most recently written first, by seat and status, before a position; a write moves a game up', async (t: TestContext) => {
      const store = await open(t);
      const player = `p-${makeRecord().id}`; // a player of this test alone, on a store other tests share
      const mine = { id: player, displayName: 'P' };
      const records = [
        makeRecord({ white: mine }),
        makeRecord({ black: mine }),
        makeRecord({ white: mine, black: mine }),
        makeRecord({ white: mine }),
      ];
      for (const [i, record] of records.entries()) {
        t.assert.equal(await store.create(record, { deadline: null, ended: i === 3 }), true);
      }
      await store.create(makeRecord()); // another player's
      const [a, b, c, d] = records.map(record => record.id);
      const ids = async (status: 'ongoing' | 'ended' | 'all', before?: number, limit = 10) =>
        (await store.listGames({ player, status, limit, before })).map(listed => listed.record.id);
      t.assert.deepEqual(await ids('all'), [d, c, b, a], 'a game held on both seats is listed once');
      t.assert.deepEqual(await ids('ongoing'), [c, b, a]);
      t.assert.deepEqual(await ids('ended'), [d]);
      const page = await store.listGames({ player, status: 'all', limit: 2 });
      t.assert.deepEqual(await ids('all', page.at(-1)!.seq), [b, a], 'the games after a position');
      t.assert.deepEqual(page[0]!.record, records[3], 'each listed with its record');
      t.assert.equal(
        await store.update({ ...records[0]!, version: 2 }, 1, undefined, { deadline: 5, ended: false }),
        true,
      );
      t.assert.deepEqual(await ids('all'), [a, d, c, b]);
      t.assert.deepEqual(
        await ids('all', page.at(-1)!.seq),
        [b],
        'a game that changed is no longer after the old position',
      );
      t.assert.deepEqual(
        (await store.clockedGames()).filter(game => game.id === a),
        [{ id: a, deadline: 5 }],
        'and its deadline is the one written last',
      );
    });

    test("an unnamed player's lists (its own seat is left out of the seat indexes) hold its games in either seat", async (t: TestContext) => {
      const store = await open(t);
      const named = { id: `p-${makeRecord().id}`, displayName: 'P' };
      const p1 = { id: 'p1', displayName: 'Player 1' };
      const p2 = { id: 'p2', displayName: 'Player 2' };
      const records = [
        makeRecord({ black: named }), // p1 in its own seat
        makeRecord({ white: named, black: p1 }), // p1 in the other seat
        makeRecord({ white: p2, black: p1 }), // both in the other's seat
        makeRecord(), // p1 against p2, over
        makeRecord({ white: named }), // p2 in its own seat
      ];
      for (const [i, record] of records.entries()) {
        t.assert.equal(await store.create(record, { deadline: null, ended: i === 3 }), true);
      }
      const [a, b, c, d, e] = records.map(record => record.id);
      const ours = new Set(records.map(record => record.id));
      // Other tests' games between unnamed players may share the store: only this test's are looked at.
      const ids = async (player: string, status: 'ongoing' | 'ended' | 'all') =>
        (await store.listGames({ player, status, limit: 100 }))
          .map(listed => listed.record.id)
          .filter(id => ours.has(id));
      t.assert.deepEqual(await ids('p1', 'all'), [d, c, b, a]);
      t.assert.deepEqual(await ids('p1', 'ongoing'), [c, b, a]);
      t.assert.deepEqual(await ids('p1', 'ended'), [d]);
      t.assert.deepEqual(await ids('p2', 'all'), [e, d, c]);
      t.assert.deepEqual(await ids(named.id, 'all'), [e, b, a], "and a named player's list is as before");
      const ongoing = async (player: string) =>
        (await store.ongoingGames(player, undefined, 100)).map(record => record.id).filter(id => ours.has(id));
      t.assert.deepEqual(await ongoing('p1'), [a, b, c]);
      t.assert.deepEqual(await ongoing('p2'), [c, e]);
      t.assert.equal(await store.update({ ...records[0]!, version: 2, moves: ['e2e4'] }, 1), true);
      t.assert.deepEqual(await ids('p1', 'all'), [a, d, c, b], 'a write moves a game up');
      t.assert.deepEqual(await ids(named.id, 'all'), [a, e, b]);
    });

    test('secret: 64 hex digits, the same at every call', async (t: TestContext) => {
      const store = await open(t);
      const secret = await store.secret();
      t.assert.match(secret, /^[0-9a-f]{64}$/);
      t.assert.equal(await store.secret(), secret);
    });

    test("ongoingGames: a player's games not over, in id order after an id; a write does not move a game", async (t: TestContext) => {
      const store = await open(t);
      const player = `p-${makeRecord().id}`; // a player of this test alone, on a store other tests share
      const mine = { id: player, displayName: 'P' };
      const records = [
        makeRecord({ white: mine }),
        makeRecord({ black: mine }),
        makeRecord({ white: mine, black: mine }),
        makeRecord({ white: mine }),
        makeRecord({ black: mine }),
      ];
      // Created in an order other than their ids'; the fourth is over.
      for (const i of [3, 0, 4, 2, 1]) {
        t.assert.equal(await store.create(records[i]!, { deadline: null, ended: i === 3 }), true);
      }
      await store.create(makeRecord()); // another player's
      const [a, b, c, , e] = records.map(record => record.id);
      const ids = async (after?: string, limit = 10) =>
        (await store.ongoingGames(player, after, limit)).map(record => record.id);
      t.assert.deepEqual(await ids(), [a, b, c, e], 'a game held on both seats is listed once; none over');
      t.assert.deepEqual(await ids(undefined, 2), [a, b]);
      t.assert.deepEqual(await ids(b, 2), [c, e], 'the games after an id');
      t.assert.deepEqual(await ids(e), []);
      t.assert.deepEqual(await store.ongoingGames('nobody', undefined, 10), []);
      t.assert.deepEqual((await store.ongoingGames(player, undefined, 1))[0], records[0], 'each with its record');
      // A change keeps a game in its place; an end takes it out; a resumed game is back in its place.
      t.assert.equal(await store.update({ ...records[0]!, version: 2, moves: ['e2e4'] }, 1), true);
      t.assert.deepEqual(await ids(), [a, b, c, e]);
      t.assert.deepEqual(await ids(undefined, 1), [a]);
      t.assert.equal(
        await store.update({ ...records[1]!, version: 2 }, 1, undefined, { deadline: null, ended: true }),
        true,
      );
      t.assert.deepEqual(await ids(), [a, c, e]);
      t.assert.equal(await store.update({ ...records[1]!, version: 3 }, 2), true);
      t.assert.deepEqual(await ids(), [a, b, c, e]);
    });

    test('ping resolves on an open store', async (t: TestContext) => {
      const store = await open(t);
      t.assert.equal(await store.ping(), undefined);
    });

    test('close resolves', async (t: TestContext) => {
      const store = await makeStore();
      await store.create(makeRecord());
      t.assert.equal(await store.close(), undefined);
    });
  });
}
