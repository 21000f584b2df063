/**
 * Rated games over HTTP (DECISIONS §21), on SQLite and on PostgreSQL: rated challenges and seeks and their refusals;
 * each way a rated game ends (mate, resign, flag, draw by agreement, stalemate, claim-victory) rating both players
 * once, exactly as the domain's Glicko-2 rates the result; an abort and a game ended before both sides moved not
 * rated; undo and redo refused in a rated game; seeks' rating ranges honoured both ways, rated and casual apart.
 */
import { suite, test, type TestContext } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { ChallengeJson } from '../../src/contract/challenges.ts';
import type { GameFull } from '../../src/contract/shapes.ts';
import { newPerf, ratedGame, type Perf } from '../../src/domain/glicko.ts';
import { utcDay, type PerfType, type RatedEnd } from '../../src/domain/ratings.ts';
import type { RatingStore } from '../../src/store/ratings.ts';
import { PostgresGameStore } from '../../src/store/postgres.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import type { GameStore } from '../../src/store/store.ts';
import { assertError, json, makeTestApp, requestsAs, type TestApp } from '../helpers/app.ts';
import { assertLichess } from '../helpers/lichess.ts';
import { databaseOfFile } from '../helpers/postgres.ts';
import { makeRecord } from '../store/gameStore.contract.ts';

const SERVICE_TOKEN = 'service-token-for-ratings-0001';
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
let players = 0;

interface Player {
  id: string;
  name: string;
  token: string;
}

interface RatedApp extends TestApp {
  as: (token: string | undefined, request: InjectOptions | string) => Promise<LightMyRequestResponse>;
  player: (name: string) => Promise<Player>;
  ratings: GameStore & RatingStore;
  clock: { now: number };
}

async function start(t: TestContext, store: GameStore, sharedStore = false): Promise<RatedApp> {
  const clock = { now: T0 };
  const testApp = await makeTestApp({ tokens: [SERVICE_TOKEN], store, sharedStore, now: () => clock.now });
  // Hooks run in the order they were added: the app, then its store (its connections, on PostgreSQL).
  t.after(() => testApp.app.close());
  t.after(() => store.close());
  const as = await requestsAs(testApp.app);
  const player = async (name: string): Promise<Player> => {
    const id = `${name.toLowerCase()}-${++players}-${process.pid}`;
    const issued = await testApp.playerTokens.issue({ id, displayName: name });
    return { id, name, token: issued.token };
  };
  return { ...testApp, as, player, ratings: store as GameStore & RatingStore, clock };
}

const post = (app: RatedApp, token: string, url: string, payload?: object) =>
  app.as(token, { method: 'POST', url, ...(payload === undefined ? {} : { payload }) });

async function ok(res: LightMyRequestResponse | Promise<LightMyRequestResponse>): Promise<LightMyRequestResponse> {
  const answer = await res;
  if (answer.statusCode !== 200 && answer.statusCode !== 201) throw new Error(`${answer.statusCode} ${answer.body}`);
  return answer;
}

/** A challenge from `white` to `black` (white plays white), accepted: the game's id. */
async function challengeGame(app: RatedApp, white: Player, black: Player, body: object = RATED_BLITZ) {
  const made = json<ChallengeJson>(await ok(post(app, white.token, `/api/challenge/${black.id}`, body)));
  await ok(post(app, black.token, `/api/challenge/${made.id}/accept`));
  return made.id;
}

const RATED_BLITZ = { 'clock.limit': 300, 'clock.increment': 3, color: 'white', rated: true };

/** Plays UCI moves, white's by `white`, black's by `black`, from the start. */
async function play(app: RatedApp, gameId: string, white: Player, black: Player, moves: readonly string[]) {
  for (const [i, uci] of moves.entries()) {
    await ok(post(app, (i % 2 === 0 ? white : black).token, `/api/board/game/${gameId}/move/${uci}`));
  }
}

const gameOf = async (app: RatedApp, gameId: string) =>
  json<GameFull>(await ok(app.as(SERVICE_TOKEN, `/api/board/game/${gameId}`)));

/** The perf a player has in `perfType` (a new player's when none is stored). */
async function perfOf(app: RatedApp, player: Player, perfType: PerfType = 'blitz'): Promise<Perf> {
  const stored = await app.ratings.perfsOf([player.id]);
  return stored.find(p => p.perfType === perfType)?.perf ?? newPerf();
}

/** Asserts that both players were rated once by this result, as the domain rates it from new perfs at `at`. */
async function assertRated(
  t: TestContext,
  app: RatedApp,
  gameId: string,
  [white, black]: [Player, Player],
  winner: 'white' | 'black' | undefined,
  at = app.clock.now,
) {
  const expected = ratedGame({ white: newPerf(), black: newPerf() }, winner, at);
  t.assert.deepEqual(await perfOf(app, white), expected.white);
  t.assert.deepEqual(await perfOf(app, black), expected.black);
  const game = await gameOf(app, gameId);
  t.assert.equal(game.rated, true);
  t.assert.deepEqual(
    [game.white.ratingDiff, game.black.ratingDiff],
    [Math.trunc(expected.white.glicko.rating) - 1500, Math.trunc(expected.black.glicko.rating) - 1500],
  );
  t.assert.deepEqual([game.white.rating, game.white.provisional], [1500, true]);
}

async function assertUnrated(t: TestContext, app: RatedApp, gameId: string, [white, black]: [Player, Player]) {
  t.assert.equal((await perfOf(app, white)).games, 0);
  t.assert.equal((await perfOf(app, black)).games, 0);
  const game = await gameOf(app, gameId);
  t.assert.equal(game.white.ratingDiff, undefined);
  t.assert.notEqual(game.state.status, 'started');
}

/** A stored perf for `player`, written as the end of a game against a new player (the store's only way). */
async function givePerf(app: RatedApp, player: Player, perfType: PerfType, rating: number) {
  const opponent = { id: `${player.id}-opponent`, displayName: 'Opponent' };
  const record = makeRecord({ white: { id: player.id, displayName: player.name }, black: opponent });
  await app.ratings.create(record);
  const after: Perf = { glicko: { rating, deviation: 60, volatility: 0.06 }, games: 40, recent: [], latest: T0 };
  const end: RatedEnd = {
    perfType,
    day: utcDay(T0),
    sides: [
      { player: record.white, before: newPerf(), after },
      { player: record.black, before: newPerf(), after: { ...newPerf(), games: 1, latest: T0 } },
    ],
  };
  const ended = { ...record, version: 2, result: { kind: 'aborted' as const } };
  if (!(await app.ratings.update(ended, 1, undefined, undefined, record, end))) throw new Error('perf not written');
}

const FOOLS_MATE = ['f2f3', 'e7e5', 'g2g4', 'd8h4'];
// Sam Loyd's ten-move stalemate: white to move... black is stalemated after white's 10th.
const STALEMATE = [
  ...['e2e3', 'a7a5', 'd1h5', 'a8a6', 'h5a5', 'h7h5', 'h2h4', 'a6h6', 'a5c7', 'f7f6'],
  ...['c7d7', 'e8f7', 'd7b7', 'd8d3', 'b7b8', 'd3h7', 'b8c8', 'f7g6', 'c8e6'],
];

function ratedSuite(name: string, skip: string | false, makeStore: () => Promise<GameStore>, sharedStore = false) {
  suite(`rated games: ${name}`, { skip }, () => {
    const open = async (t: TestContext) => start(t, await makeStore(), sharedStore);

    test('a rated challenge: rated in lichess shapes, both ratings shown; checkmate rates both once', async (t: TestContext) => {
      const app = await open(t);
      const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
      const made = json<ChallengeJson>(await ok(post(app, ann.token, `/api/challenge/${bob.id}`, RATED_BLITZ)));
      assertLichess('ChallengeJson', made);
      t.assert.equal(made.rated, true);
      t.assert.deepEqual(
        [made.challenger.rating, made.challenger.provisional, made.destUser?.rating],
        [1500, true, 1500],
      );
      await ok(post(app, bob.token, `/api/challenge/${made.id}/accept`));
      const started = await gameOf(app, made.id);
      t.assert.deepEqual(started.white, { id: ann.id, displayName: 'Ann', rating: 1500, provisional: true });
      await play(app, made.id, ann, bob, FOOLS_MATE);
      await assertRated(t, app, made.id, [ann, bob], 'black');
      // Rated once: reading and acting on the ended game changes nothing.
      assertError(await post(app, ann.token, `/api/board/game/${made.id}/resign`), 'GAME_OVER');
      t.assert.equal((await perfOf(app, ann)).games, 1);
      const history = json<Array<{ name: string; points: number[][] }>>(
        await ok(app.as(SERVICE_TOKEN, `/api/user/${bob.id}/rating-history`)),
      );
      const blitz = history.find(h => h.name === 'Blitz')!;
      t.assert.deepEqual(blitz.points, [[2026, 2, 1, Math.trunc((await perfOf(app, bob)).glicko.rating)]]);
      t.assert.equal(history.length, 6, 'every perf listed');
    });

    test('resign, draw by agreement and stalemate each rate the result', async (t: TestContext) => {
      const app = await open(t);
      const resigned = [await app.player('Cat'), await app.player('Dan')] as [Player, Player];
      const resignedId = await challengeGame(app, ...resigned);
      await play(app, resignedId, ...resigned, ['e2e4', 'e7e5']);
      await ok(post(app, resigned[0].token, `/api/board/game/${resignedId}/resign`));
      await assertRated(t, app, resignedId, resigned, 'black');

      const drawn = [await app.player('Eve'), await app.player('Fay')] as [Player, Player];
      const drawnId = await challengeGame(app, ...drawn);
      await play(app, drawnId, ...drawn, ['d2d4', 'd7d5']);
      await ok(post(app, drawn[0].token, `/api/board/game/${drawnId}/draw/offer`));
      await ok(post(app, drawn[1].token, `/api/board/game/${drawnId}/draw/accept`));
      await assertRated(t, app, drawnId, drawn, undefined);

      const stalemated = [await app.player('Gil'), await app.player('Hal')] as [Player, Player];
      const stalemateId = await challengeGame(app, ...stalemated);
      await play(app, stalemateId, ...stalemated, STALEMATE);
      t.assert.equal((await gameOf(app, stalemateId)).state.status, 'stalemate');
      await assertRated(t, app, stalemateId, stalemated, undefined);
    });

    test('a flag rates the game; the next request finds it ended by its clock', async (t: TestContext) => {
      const app = await open(t);
      const sides = [await app.player('Ida'), await app.player('Jon')] as [Player, Player];
      const gameId = await challengeGame(app, ...sides, { ...RATED_BLITZ, 'clock.limit': 60, 'clock.increment': 0 });
      await play(app, gameId, ...sides, ['e2e4', 'e7e5']);
      app.clock.now += 61_000; // white's minute runs out
      assertError(await post(app, sides[0].token, `/api/board/game/${gameId}/move/g1f3`), 'GAME_OVER');
      t.assert.equal((await gameOf(app, gameId)).state.status, 'outOfTime');
      const expected = ratedGame({ white: newPerf(), black: newPerf() }, 'black', app.clock.now);
      t.assert.deepEqual(await perfOf(app, sides[1], 'bullet'), expected.black);
      t.assert.equal((await gameOf(app, gameId)).black.ratingDiff, Math.trunc(expected.black.glicko.rating) - 1500);
    });

    test('claim-victory after the opponent left rates a win', async (t: TestContext) => {
      const app = await open(t);
      const sides = [await app.player('Kim'), await app.player('Lou')] as [Player, Player];
      const gameId = await challengeGame(app, ...sides);
      await play(app, gameId, ...sides, ['e2e4', 'e7e5', 'g1f3']);
      // Nobody is at the game: Lou has been gone since it began; 10 s and 20 s on, Kim may claim the win.
      app.clock.now += 31_000;
      const claimed = await post(app, sides[0].token, `/api/board/game/${gameId}/claim-victory`);
      t.assert.equal(claimed.statusCode, 200, claimed.body);
      const game = await gameOf(app, gameId);
      t.assert.equal(game.state.status, 'timeout');
      const expected = ratedGame({ white: newPerf(), black: newPerf() }, 'white', app.clock.now);
      t.assert.deepEqual(await perfOf(app, sides[0]), expected.white);
      t.assert.deepEqual(await perfOf(app, sides[1]), expected.black);
    });

    test('an abort, and a game ended before both sides moved, are not rated', async (t: TestContext) => {
      const app = await open(t);
      const aborted = [await app.player('Mia'), await app.player('Ned')] as [Player, Player];
      const abortedId = await challengeGame(app, ...aborted);
      await ok(post(app, aborted[0].token, `/api/board/game/${abortedId}/abort`));
      await assertUnrated(t, app, abortedId, aborted);

      const early = [await app.player('Oda'), await app.player('Pia')] as [Player, Player];
      const earlyId = await challengeGame(app, ...early);
      await play(app, earlyId, ...early, ['e2e4']);
      await ok(post(app, early[1].token, `/api/board/game/${earlyId}/resign`));
      await assertUnrated(t, app, earlyId, early);
    });

    test('a casual game between two players shows their ratings as it began, and is not rated at its end', async (t: TestContext) => {
      const app = await open(t);
      const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
      await givePerf(app, ann, 'blitz', 1850);
      const gameId = await challengeGame(app, ann, bob, { ...RATED_BLITZ, rated: false });
      const started = await gameOf(app, gameId);
      t.assert.deepEqual(
        [started.white.rating, started.white.provisional, started.black.rating, started.black.provisional],
        [1850, false, 1500, true],
      );
      await play(app, gameId, ann, bob, FOOLS_MATE);
      const over = await gameOf(app, gameId);
      t.assert.deepEqual([over.white.ratingDiff, over.black.ratingDiff], [undefined, undefined]);
      t.assert.equal((await perfOf(app, ann)).games, 40, 'not rated');
      t.assert.equal((await perfOf(app, bob)).games, 0, 'not rated');
    });

    test('refusals: a rated unlimited or from-position challenge, rated against the computer; undo and redo in a rated game', async (t: TestContext) => {
      const app = await open(t);
      const [ann, bob] = [await app.player('Ann'), await app.player('Bob')];
      const unlimited = await post(app, ann.token, `/api/challenge/${bob.id}`, { rated: true });
      assertError(unlimited, 'INVALID_CHALLENGE', 'rated');
      t.assert.match(json<{ message: string }>(unlimited).message, /clock/);
      const fen = '4k3/8/8/8/8/8/4P3/4K3 w - - 0 1';
      const fromPosition = await post(app, ann.token, `/api/challenge/${bob.id}`, { ...RATED_BLITZ, fen });
      assertError(fromPosition, 'INVALID_CHALLENGE', 'rated');
      assertError(await post(app, ann.token, '/api/challenge/open', { rated: 'true' }), 'INVALID_CHALLENGE', 'rated');
      t.assert.deepEqual(json(await app.as(ann.token, '/api/challenge')).out, [], 'nothing was made');
      // A casual one is still welcome, and not rated.
      const casual = json<ChallengeJson>(
        await ok(post(app, ann.token, `/api/challenge/${bob.id}`, { ...RATED_BLITZ, rated: false })),
      );
      t.assert.equal(casual.rated, false);

      const gameId = await challengeGame(app, ann, bob);
      await play(app, gameId, ann, bob, ['e2e4', 'e7e5']);
      assertError(await post(app, SERVICE_TOKEN, `/api/board/game/${gameId}/undo`), 'NOT_ALLOWED_IN_RATED');
      assertError(await post(app, SERVICE_TOKEN, `/api/board/game/${gameId}/redo`), 'NOT_ALLOWED_IN_RATED');
      assertError(await post(app, bob.token, `/api/board/game/${gameId}/undo`), 'TAKEBACK_NEEDS_CONSENT');
      // Takebacks by consent stay.
      await ok(post(app, bob.token, `/api/board/game/${gameId}/takeback/offer`));
      await ok(post(app, ann.token, `/api/board/game/${gameId}/takeback/accept`));
      t.assert.deepEqual((await gameOf(app, gameId)).state.moves, ['e2e4']);
    });

    test("a player's User, account perfs, history and the leaderboard, in lichess's shapes", async (t: TestContext) => {
      const app = await open(t);
      const [ann, bob, cat] = [await app.player('Ann'), await app.player('Bob'), await app.player('Cat')];
      await givePerf(app, ann, 'rapid', 2950);
      await givePerf(app, bob, 'rapid', 2990);
      const user = json(await ok(app.as(SERVICE_TOKEN, `/api/user/${ann.id}`)));
      assertLichess('User', user);
      t.assert.deepEqual(user.perfs.rapid, { games: 40, rating: 2950, rd: 60, prog: 0 });
      t.assert.deepEqual(user.perfs.blitz, { games: 0, rating: 1500, rd: 500, prog: 0, prov: true });
      const account = json(await ok(app.as(cat.token, '/api/account')));
      t.assert.deepEqual(account.perfs.rapid, { games: 0, rating: 1500, rd: 500, prog: 0, prov: true });
      const history = json(await ok(app.as(SERVICE_TOKEN, `/api/user/${cat.id}/rating-history`)));
      assertLichess('RatingHistory', history);
      t.assert.deepEqual(
        history.map((h: { points: unknown[] }) => h.points),
        [[], [], [], [], [], []],
      );
      assertError(await app.as(SERVICE_TOKEN, '/api/user/nobody-at-all'), 'PLAYER_NOT_FOUND');
      assertError(await app.as(SERVICE_TOKEN, '/api/user/nobody-at-all/rating-history'), 'PLAYER_NOT_FOUND');
      const top = json(await ok(app.as(SERVICE_TOKEN, '/api/player/top/2/rapid')));
      assertLichess('Leaderboard', top);
      t.assert.deepEqual(
        top.users.map((u: { id: string; perfs: { rapid: { rating: number } } }) => [u.id, u.perfs.rapid.rating]),
        [
          [bob.id, 2990],
          [ann.id, 2950],
        ],
      );
      assertError(await app.as(SERVICE_TOKEN, '/api/player/top/0/rapid'), 'INVALID_BODY', 'nb');
      assertError(await app.as(SERVICE_TOKEN, '/api/player/top/201/rapid'), 'INVALID_BODY', 'nb');
      assertError(await app.as(SERVICE_TOKEN, '/api/player/top/10/chess960'), 'INVALID_BODY', 'perfType');
    });

    test("rated seeks: each player's rating within the other's range, both ways; rated and casual never pair", async (t: TestContext) => {
      const app = await open(t);
      const [ann, bob, cat, dan] = (await Promise.all(['Ann', 'Bob', 'Cat', 'Dan'].map(n => app.player(n)))) as [
        Player,
        Player,
        Player,
        Player,
      ];
      await givePerf(app, ann, 'correspondence', 1700);
      await givePerf(app, cat, 'correspondence', 1900);
      const seek = (who: Player, body: object) =>
        ok(post(app, who.token, '/api/board/seek', { days: 3, ...body })).then(res => json<{ id: string }>(res).id);
      // The games seeks made (givePerf's games are not rated).
      const gamesOf = async (who: Player) =>
        json<{ games: GameFull[] }>(await ok(app.as(SERVICE_TOKEN, `/api/board/game?player=${who.id}`))).games.filter(
          game => game.clock !== null,
        );

      // Ann (1700) takes 1600-1800; Bob (1500, new) is out of her range; Cat (1900) is too.
      await seek(ann, { rated: true, ratingRange: '1600-1800' });
      await seek(bob, { rated: true });
      await seek(cat, { rated: true, ratingRange: '1500-2000' });
      t.assert.deepEqual(await gamesOf(ann), [], 'Bob is out of her range; she is in range of Cat, who is out of hers');
      t.assert.equal((await gamesOf(bob)).length, 1, 'Bob (any rating) pairs with Cat, whose range takes him');
      const [bobsGame] = await gamesOf(bob);
      t.assert.equal(bobsGame!.rated, true);
      t.assert.deepEqual(new Set([bobsGame!.white.id, bobsGame!.black.id]), new Set([bob.id, cat.id]));
      // A casual seek never pairs with Ann's rated one; a rated one of a player in her range does.
      await seek(dan, {});
      t.assert.deepEqual(await gamesOf(dan), [], 'a casual seek is not paired with a rated one');
      await givePerf(app, dan, 'correspondence', 1650);
      await seek(dan, { rated: true, ratingRange: '1000-2000' });
      const [dansGame] = await gamesOf(dan);
      t.assert.equal(dansGame?.rated, true);
      t.assert.deepEqual(new Set([dansGame!.white.id, dansGame!.black.id]), new Set([ann.id, dan.id]));
      assertError(
        await post(app, ann.token, '/api/board/seek', { days: 3, ratingRange: '1800-1600' }),
        'INVALID_BODY',
        'ratingRange',
      );
    });
  });
}

ratedSuite('SQLite', false, async () => SqliteGameStore.open(':memory:'));

const postgres = await databaseOfFile();
ratedSuite('PostgreSQL', postgres.skip, () => PostgresGameStore.open(postgres.url()), true);
