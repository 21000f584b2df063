/**
 * Players over HTTP (DECISIONS §13): player tokens issued, listed and revoked with a service token; the seats a
 * player's creations get; every change judged against the side it acts for; takebacks by consent; and 50 parallel
 * requests from both players on one game, which must end in exactly a serial order of the acknowledged ones. The
 * same suite runs on SQLite and on PostgreSQL.
 */
import { suite, test, type TestContext } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { restoreGame } from '../../src/domain/game.ts';
import { playerActor } from '../../src/domain/seats.ts';
import { gameStateOf } from '../../src/domain/views.ts';
import { PlayerTokens, tokenHash } from '../../src/service/tokens.ts';
import { PostgresGameStore } from '../../src/store/postgres.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import type { GameStore } from '../../src/store/store.ts';
import type { TokenStore } from '../../src/store/tokens.ts';
import type { GameState, PlayerInfo } from '../../src/contract/shapes.ts';
import type { ErrorCode } from '../../src/contract/vocabulary.ts';
import { assertError, json, makeTestApp, requestsAs, type RequestAs } from '../helpers/app.ts';
import { databaseOfFile } from '../helpers/postgres.ts';
import { findSerialOrder, labelOf, random, shuffled, urlOf, type Op } from '../helpers/serialOrder.ts';

const SERVICE_TOKEN = 'service-token-for-players-0001';
const BASE = '/api/board/game';

type Store = GameStore & TokenStore;

interface PlayersApp {
  app: FastifyInstance;
  store: Store;
  /** A request as `token` (none: no Authorization), its answer checked against the OpenAPI document. */
  as: RequestAs;
  /** Issues a token for a new player with this name (ids are unique per call). */
  player: (name: string) => Promise<{ info: PlayerInfo; token: string; id: string }>;
}

let unique = 0;

function playerSuite(name: string, open: () => Promise<{ store: Store; shared: boolean }>, skip: string | false) {
  suite(`players on ${name}`, { skip }, () => {
    const start = async (t: TestContext, tokens: string[] = [SERVICE_TOKEN]): Promise<PlayersApp> => {
      const { store, shared } = await open();
      const { app } = await makeTestApp({ store, tokens, sharedStore: shared });
      t.after(async () => {
        await app.close();
        await store.close();
      });
      const as = await requestsAs(app);
      const player: PlayersApp['player'] = async displayName => {
        const info = { id: `${displayName.toLowerCase()}-${++unique}-${name.length}`, displayName };
        const res = await as(SERVICE_TOKEN, { method: 'POST', url: '/api/tokens', payload: { player: info } });
        if (res.statusCode !== 201) throw new Error(`issue: ${res.statusCode} ${res.body}`);
        const { token, id } = json(res);
        return { info, token, id };
      };
      return { app, store, as, player };
    };

    test('tokens: issued with a service token, shown once, kept as a hash, listed without secrets, revoked', async (t: TestContext) => {
      const { as, store, player } = await start(t);
      const ann = await player('Ann');
      t.assert.match(ann.token, /^cpt_[A-Za-z0-9_-]{43}$/);
      t.assert.ok(await store.tokenByHash(tokenHash(ann.token)), 'the store finds the token by its hash');
      const unknown = tokenHash('cpt_never-issued');
      t.assert.deepEqual(await store.validTokenHashes([unknown, tokenHash(ann.token)]), [tokenHash(ann.token)]);
      const listed = json(await as(SERVICE_TOKEN, `/api/tokens?player=${ann.info.id}`));
      t.assert.equal(listed.tokens.length, 1);
      t.assert.deepEqual(Object.keys(listed.tokens[0]).sort(), ['createdAt', 'id', 'player']);
      t.assert.deepEqual(listed.tokens[0].player, ann.info);
      const everything = JSON.stringify([await store.listTokens(), json(await as(SERVICE_TOKEN, '/api/tokens'))]);
      t.assert.ok(!everything.includes(ann.token), 'no list holds the secret');

      // The seed's `player`, and lichess's fields beside it (DECISIONS §17), with the player's perfs (§21): a new
      // player's in every perf.
      const newPerf = { games: 0, rating: 1500, rd: 500, prog: 0, prov: true };
      const perfs = ['ultraBullet', 'bullet', 'blitz', 'rapid', 'classical', 'correspondence'];
      t.assert.deepEqual(json(await as(ann.token, '/api/account')), {
        player: ann.info,
        id: ann.info.id,
        username: ann.info.displayName,
        url: `http://localhost:80/api/board/game?player=${ann.info.id}`,
        perfs: Object.fromEntries(perfs.map(perf => [perf, newPerf])),
      });
      t.assert.deepEqual(json(await as(SERVICE_TOKEN, '/api/account')), { player: null });

      const revoked = await as(SERVICE_TOKEN, { method: 'DELETE', url: `/api/tokens/${ann.id}` });
      t.assert.deepEqual([revoked.statusCode, json(revoked)], [200, { ok: true }]);
      assertError(await as(ann.token, '/api/account'), 'UNAUTHORIZED');
      t.assert.deepEqual(await store.validTokenHashes([tokenHash(ann.token)]), [], 'a revoked token is not valid');
      t.assert.deepEqual(json(await as(SERVICE_TOKEN, `/api/tokens?player=${ann.info.id}`)), { tokens: [] });
      assertError(await as(SERVICE_TOKEN, { method: 'DELETE', url: `/api/tokens/${ann.id}` }), 'NOT_FOUND');
      assertError(await as(SERVICE_TOKEN, { method: 'DELETE', url: '/api/tokens/nope' }), 'NOT_FOUND');
    });

    test('tokens: a bad player is INVALID_BODY, a bad query INVALID_QUERY', async (t: TestContext) => {
      const { as } = await start(t);
      const issue = (payload: unknown) =>
        as(SERVICE_TOKEN, { method: 'POST', url: '/api/tokens', payload: payload as object });
      assertError(await issue({}), 'INVALID_BODY', 'player');
      assertError(await issue({ player: { id: '', displayName: 'A' } }), 'INVALID_BODY', 'player.id');
      assertError(await issue({ player: { id: 'a', displayName: 'A\u0085' } }), 'INVALID_BODY', 'player.displayName');
      assertError(await as(SERVICE_TOKEN, `/api/tokens?player=${'x'.repeat(65)}`), 'INVALID_QUERY', 'player');
    });

    test('tokens: the endpoints need a service token (403 FORBIDDEN), also when none is configured', async (t: TestContext) => {
      const { as, player } = await start(t);
      const ann = await player('Ann');
      for (const request of [
        { method: 'POST', url: '/api/tokens', payload: { player: ann.info } },
        { method: 'GET', url: '/api/tokens' },
        { method: 'DELETE', url: `/api/tokens/${ann.id}` },
      ] as const) {
        assertError(await as(ann.token, request), 'FORBIDDEN');
        assertError(await as(undefined, request), 'UNAUTHORIZED');
      }
      // No service token configured: without any token (authentication off), or with a player token (on a shared
      // store that already holds Ann's), the endpoints are refused; the command line issues instead.
      const open = await start(t, []);
      const token = (await open.store.tokensIssued()) ? ann.token : undefined;
      for (const request of [
        { method: 'POST', url: '/api/tokens', payload: { player: ann.info } },
        { method: 'GET', url: '/api/tokens' },
      ] as const) {
        const refused = assertError(await open.as(token, request), 'FORBIDDEN');
        t.assert.match(refused.message, /no service token is configured/);
      }
    });

    test('authentication is on as soon as a player token exists, also one issued by another process', async (t: TestContext) => {
      const { store, shared } = await open();
      let now = 1_000_000;
      const playerTokens = new PlayerTokens({ store, now: () => now });
      const { app } = await makeTestApp({ store, playerTokens, sharedStore: shared });
      t.after(async () => {
        await app.close();
        await store.close();
      });
      // A store that already holds tokens (of other tests, on PostgreSQL) is on from the start.
      const issuedBefore = (await store.listTokens()).length > 0 || shared;
      if (!issuedBefore) {
        t.assert.equal((await app.inject({ method: 'POST', url: BASE })).statusCode, 201, 'open while no token exists');
      }
      // Another process (the command line) issues a token on the same store.
      const cli = new PlayerTokens({ store, now: Date.now });
      const issued = await cli.issue({ id: `cli-${++unique}`, displayName: 'Cli' });
      now += 500; // the store is asked again within half a second
      assertError(await app.inject({ method: 'POST', url: BASE }), 'UNAUTHORIZED');
      const res = await app.inject({ method: 'POST', url: BASE, headers: { authorization: `Bearer ${issued.token}` } });
      t.assert.equal(res.statusCode, 201);
      t.assert.deepEqual([json(res).white, json(res).black], [issued.player, issued.player]);
      // Revoking every token does not open the service again.
      await cli.revoke(issued.id);
      now += 500;
      assertError(await app.inject({ method: 'POST', url: BASE }), 'UNAUTHORIZED');
      assertError(
        await app.inject({ method: 'POST', url: BASE, headers: { authorization: `Bearer ${issued.token}` } }),
        'UNAUTHORIZED',
      );
    });

    test('creating as a player: only practice boards; naming another player is NOT_A_PLAYER (challenge them)', async (t: TestContext) => {
      const { as, player } = await start(t);
      const ann = await player('Ann');
      const bob = await player('Bob');
      const eve = await player('Eve');
      const fen = '7k/8/8/8/8/8/8/K5R1 w - - 0 1';
      const mated = 'rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3'; // white is mated
      const pgn = '[White "Kasparov"]\n[Black "Topalov"]\n\n1. e4 e5 *';
      const create = (token: string, payload?: object) =>
        as(token, { method: 'POST', url: BASE, ...(payload ? { payload } : {}) });
      const importFen = (token: string, payload: object) =>
        as(token, { method: 'POST', url: `${BASE}/import/fen`, payload: { fen, ...payload } });
      const importPgn = (token: string, payload: object = {}) =>
        as(token, { method: 'POST', url: `${BASE}/import/pgn`, payload: { pgn, ...payload } });
      const seats = (res: LightMyRequestResponse) => {
        t.assert.equal(res.statusCode, 201, res.body);
        return [json(res).white, json(res).black];
      };
      const renamed = { id: ann.info.id, displayName: 'Ann at home' };

      // Naming nobody, or only oneself: a practice board, both seats the player's.
      t.assert.deepEqual(seats(await create(ann.token)), [ann.info, ann.info], 'a practice board');
      t.assert.deepEqual(seats(await create(ann.token, { black: renamed })), [ann.info, renamed]);
      t.assert.deepEqual(seats(await create(ann.token, { white: ann.info, black: ann.info })), [ann.info, ann.info]);
      t.assert.deepEqual(seats(await importFen(ann.token, {})), [ann.info, ann.info]);
      t.assert.deepEqual(seats(await importFen(ann.token, { white: ann.info })), [ann.info, ann.info]);
      t.assert.deepEqual(seats(await importPgn(ann.token)), [ann.info, ann.info], 'the tags are not used');
      // A PGN import has no seat fields: one named in its body is ignored like any unknown field, and seats nobody.
      t.assert.deepEqual(seats(await importPgn(ann.token, { black: bob.info })), [ann.info, ann.info]);

      // Naming anyone else as a side, alone or beside oneself: 403 NOT_A_PLAYER, saying to challenge them.
      const refusals: Array<[string, LightMyRequestResponse, string]> = [
        ['create, black named', await create(ann.token, { black: bob.info }), bob.info.id],
        ['create, white named', await create(ann.token, { white: bob.info }), bob.info.id],
        ['create, both named', await create(ann.token, { white: bob.info, black: ann.info }), bob.info.id],
        ['create, two others', await create(ann.token, { white: bob.info, black: eve.info }), bob.info.id],
        ['import FEN, white named', await importFen(ann.token, { white: bob.info }), bob.info.id],
        ['import FEN, mated', await importFen(eve.token, { fen: mated, white: ann.info }), ann.info.id],
        ['import FEN, both named', await importFen(ann.token, { white: ann.info, black: eve.info }), eve.info.id],
      ];
      for (const [what, res, other] of refusals) {
        const refused = assertError(res, 'NOT_A_PLAYER');
        t.assert.match(refused.message, new RegExp(`to play ${other}, challenge them`), what);
      }
      assertError(await create(ann.token, { white: { id: 'x' } }), 'INVALID_BODY', 'white.displayName'); // the body first
      // None of the refused games exists: Ann's and Bob's lists hold only Ann's practice boards.
      const listed = async (who: typeof ann) =>
        json(await as(SERVICE_TOKEN, `${BASE}?player=${who.info.id}`)).games.map((g: any) => [g.white.id, g.black.id]);
      t.assert.equal((await listed(ann)).length, 7);
      t.assert.ok((await listed(ann)).every(([w, b]: string[]) => w === ann.info.id && b === ann.info.id));
      t.assert.deepEqual(await listed(bob), []);

      // A service token creates any game: an operator's own pairing.
      t.assert.deepEqual(seats(await create(SERVICE_TOKEN, { white: bob.info, black: eve.info })), [
        bob.info,
        eve.info,
      ]);
      t.assert.deepEqual(seats(await importFen(SERVICE_TOKEN, { fen: mated, white: ann.info, black: bob.info })), [
        ann.info,
        bob.info,
      ]);
      const byService = json(await importPgn(SERVICE_TOKEN));
      t.assert.deepEqual(
        [byService.white.displayName, byService.black.displayName],
        ['Kasparov', 'Topalov'],
        'the service keeps the tags',
      );
    });

    test("events: a player token follows only its own stream (403 FORBIDDEN for another's); a service token names one", async (t: TestContext) => {
      const { app, as, player } = await start(t);
      const [ann, eve] = [await player('Ann'), await player('Eve')];
      const game = json(await as(ann.token, { method: 'POST', url: BASE })).gameId;
      /** The event stream's status and, for a 200, its first line (the opening gameStart lines). */
      const follow = async (token: string, query: string) => {
        const res = await app.inject({
          url: `/api/stream/event${query}`,
          headers: { authorization: `Bearer ${token}` },
          payloadAsStream: true,
        });
        const stream = res.stream();
        if (res.statusCode !== 200) {
          let body = '';
          for await (const chunk of stream) body += String(chunk);
          return { status: res.statusCode, body: JSON.parse(body) };
        }
        let text = '';
        for await (const chunk of stream) {
          text += String(chunk);
          if (text.includes('\n')) break; // leaving the loop destroys the stream: the client goes
        }
        return { status: 200, first: JSON.parse(text.slice(0, text.indexOf('\n'))) };
      };
      const forbidden = await follow(eve.token, `?player=${ann.info.id}`);
      t.assert.equal(forbidden.status, 403);
      t.assert.equal(forbidden.body.code, 'FORBIDDEN');
      t.assert.match(forbidden.body.message, /only its own events/);
      for (const [who, token, query] of [
        ['Ann, naming herself', ann.token, `?player=${ann.info.id}`],
        ['Ann, naming nobody', ann.token, ''],
        ['a service token, naming Ann', SERVICE_TOKEN, `?player=${ann.info.id}`],
      ]) {
        const { status, first } = await follow(token!, query!);
        t.assert.equal(status, 200, who);
        t.assert.deepEqual([first.type, first.game.gameId], ['gameStart', game], who);
      }
      await as(eve.token, { method: 'POST', url: BASE }); // a game of Eve's, for her stream's first line
      t.assert.equal((await follow(eve.token, `?player=${eve.info.id}`)).status, 200, 'Eve, naming herself');
    });

    test('revoking a token ends the streams opened with it: an UNAUTHORIZED line, then the end; others go on', async (t: TestContext) => {
      const { app, as, store, player } = await start(t);
      const ann = await player('Ann');
      const again = json(
        await as(SERVICE_TOKEN, { method: 'POST', url: '/api/tokens', payload: { player: ann.info } }),
      );
      const game = json(await as(ann.token, { method: 'POST', url: BASE })).gameId;
      /** A stream opened through app.inject: its text so far, and when its response ended. */
      const open = async (token: string, url: string) => {
        const res = await app.inject({ url, headers: { authorization: `Bearer ${token}` }, payloadAsStream: true });
        t.assert.equal(res.statusCode, 200);
        const stream = res.stream();
        const read = { text: '', ended: undefined as number | undefined };
        stream.on('data', (chunk: Buffer) => (read.text += String(chunk)));
        stream.once('end', () => (read.ended = performance.now()));
        stream.once('error', () => (read.ended ??= -1)); // a cut, not an end: fails the checks below
        t.after(() => stream.destroy());
        return read;
      };
      const lines = (read: { text: string }) => read.text.split('\n').filter(line => line !== '');
      const waitUntil = async (condition: () => boolean, what: string) => {
        const deadline = performance.now() + 5000;
        while (!condition()) {
          if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
          await new Promise(resolve => setTimeout(resolve, 5));
        }
      };
      const streams = {
        game: await open(ann.token, `${BASE}/${game}/stream`),
        events: await open(ann.token, '/api/stream/event'),
        otherToken: await open(again.token, '/api/stream/event'),
      };
      for (const [name, read] of Object.entries(streams)) await waitUntil(() => lines(read).length > 0, name);

      const endsWithUnauthorized = (read: { text: string; ended: number | undefined }, since: number, what: string) => {
        t.assert.ok(read.ended !== undefined && read.ended > 0, `${what}: the response ended`);
        t.assert.ok(read.ended - since < 1000, `${what}: ended after ${(read.ended - since).toFixed(0)} ms`);
        const last = JSON.parse(lines(read).at(-1)!);
        t.assert.deepEqual([last.type, last.error.code], ['error', 'UNAUTHORIZED'], what);
      };
      // Through the API: this instance ends them at once.
      let since = performance.now();
      t.assert.equal((await as(SERVICE_TOKEN, { method: 'DELETE', url: `/api/tokens/${ann.id}` })).statusCode, 200);
      await waitUntil(() => streams.game.ended !== undefined && streams.events.ended !== undefined, 'the ends');
      endsWithUnauthorized(streams.game, since, 'the game stream');
      endsWithUnauthorized(streams.events, since, 'the event stream');
      t.assert.equal(streams.otherToken.ended, undefined, 'the stream of another token of the same player goes on');

      // By another process on the same store (the command line), which announces nothing here: the store is asked.
      const elsewhere = new PlayerTokens({ store, now: Date.now });
      since = performance.now();
      t.assert.ok(await elsewhere.revoke(again.id));
      await waitUntil(() => streams.otherToken.ended !== undefined, 'the end of the other stream');
      endsWithUnauthorized(streams.otherToken, since, "the other token's stream");
    });

    test('two players: each acts only for their side; strangers read but change nothing; takebacks by consent', async (t: TestContext) => {
      const { as, store, player } = await start(t);
      const [ann, bob, eve] = [await player('Ann'), await player('Bob'), await player('Eve')];
      const id = json(
        await as(SERVICE_TOKEN, { method: 'POST', url: BASE, payload: { white: ann.info, black: bob.info } }),
      ).gameId;
      const post = (token: string, path: string) => as(token, { method: 'POST', url: `${BASE}/${id}/${path}` });
      const state = async () => json(await as(eve.token, `${BASE}/${id}`)).state as GameState;

      t.assert.equal((await post(ann.token, 'move/e2e4')).statusCode, 200);
      assertError(await post(ann.token, 'move/e7e5'), 'NOT_YOUR_TURN');
      assertError(await post(eve.token, 'move/e7e5'), 'NOT_A_PLAYER');
      t.assert.equal((await post(bob.token, 'move/e7e5')).statusCode, 200);
      for (const path of ['moves', 'export/fen', 'export/pgn']) {
        t.assert.equal((await as(eve.token, `${BASE}/${id}/${path}`)).statusCode, 200, `a stranger reads ${path}`);
      }
      for (const path of ['resign', 'draw/offer', 'takeback/offer', 'undo', 'redo']) {
        assertError(await post(eve.token, path), 'NOT_A_PLAYER');
      }
      // Undo between two players is a takeback; Ann offers one for her e4 (and Bob's reply).
      assertError(await post(ann.token, 'undo'), 'TAKEBACK_NEEDS_CONSENT');
      assertError(await post(bob.token, 'redo'), 'TAKEBACK_NEEDS_CONSENT');
      t.assert.deepEqual(json(await post(ann.token, 'takeback/offer')), { ok: true });
      t.assert.equal((await state()).takebackOfferedBy, 'white');
      assertError(await post(ann.token, 'takeback/offer'), 'TAKEBACK_ALREADY_OFFERED');
      assertError(await post(ann.token, 'takeback/accept'), 'NOT_YOUR_TURN');
      t.assert.deepEqual(json(await post(bob.token, 'takeback/accept')), { ok: true });
      let now = await state();
      t.assert.deepEqual([now.moves, now.turn, now.takebackOfferedBy, now.redoAvailable], [[], 'white', null, false]);
      assertError(await post(bob.token, 'takeback/accept'), 'NO_TAKEBACK_OFFER');

      // Draws: offered for one's own side, on either turn; answered by the other side only.
      await post(ann.token, 'move/d2d4');
      t.assert.deepEqual(json(await post(ann.token, 'draw/offer')), { ok: true });
      now = await state();
      t.assert.deepEqual([now.status, now.drawOfferedBy, now.turn], ['drawOffered', 'white', 'black']);
      assertError(await post(ann.token, 'draw/accept'), 'NOT_YOUR_TURN');
      t.assert.deepEqual(json(await post(bob.token, 'draw/decline')), { ok: true });
      assertError(await post(bob.token, 'draw/claim'), 'CLAIM_NOT_AVAILABLE'); // Bob's turn: the seat passes
      assertError(await post(ann.token, 'draw/claim'), 'NOT_YOUR_TURN');

      // Ann resigns on Bob's turn: her side, white, loses.
      t.assert.deepEqual(json(await post(ann.token, 'resign')), { ok: true });
      now = await state();
      t.assert.deepEqual([now.status, now.winner], ['resign', 'black']);
      assertError(await post(eve.token, 'move/e7e5'), 'GAME_OVER'); // GAME_OVER comes before the seat

      // Every change reached the change log with its state, offers included.
      const logged = await store.changesSince(id, 0);
      const offered = logged.map(change => change.event.state.takebackOfferedBy);
      t.assert.ok(offered.includes('white'), 'the takeback offer was an event');
      t.assert.deepEqual(logged.at(-1)!.event.state, now);
    });

    test('order of checks: a malformed move or action first, then GAME_OVER, then the seat, then the rest', async (t: TestContext) => {
      const { as, player } = await start(t);
      const [ann, bob, eve] = [await player('Ann'), await player('Bob'), await player('Eve')];
      const id = json(
        await as(SERVICE_TOKEN, { method: 'POST', url: BASE, payload: { white: ann.info, black: bob.info } }),
      ).gameId;
      const post = (token: string, path: string) => as(token, { method: 'POST', url: `${BASE}/${id}/${path}` });
      assertError(await post(eve.token, 'move/e2e9'), 'INVALID_UCI', 'uci');
      assertError(await post(eve.token, 'takeback/claim'), 'INVALID_ACTION', 'action');
      t.assert.match(json(await post(eve.token, 'takeback/claim')).message, /takeback action/);
      assertError(await post(bob.token, 'move/e2e5'), 'NOT_YOUR_TURN'); // illegal, but not Bob's to make
      assertError(await post(ann.token, 'move/e2e5'), 'INVALID_MOVE', 'uci');
      assertError(await post(ann.token, 'takeback/offer'), 'NO_MOVE_TO_TAKE_BACK');
      assertError(
        await as(eve.token, { method: 'POST', url: `${BASE}/AbCd12/move/e2e4` }),
        'INVALID_GAME_ID',
        'gameId',
      );
      assertError(await as(eve.token, { method: 'POST', url: `${BASE}/AbCd1234/move/e2e4` }), 'GAME_NOT_FOUND');
    });

    test('50 parallel requests from both players on one game end in exactly a serial order of the acknowledged ones', async (t: TestContext) => {
      const { as, store, player } = await start(t);
      const [ann, bob] = [await player('Ann'), await player('Bob')];
      const by = (who: typeof ann) => ({ by: playerActor(who.info), token: who.token });
      const REFUSALS: ErrorCode[] = [
        'NOT_YOUR_TURN',
        'TAKEBACK_NEEDS_CONSENT',
        'INVALID_MOVE',
        'GAME_OVER',
        'DRAW_ALREADY_OFFERED',
        'NO_DRAW_OFFER',
        'CLAIM_NOT_AVAILABLE',
        'TAKEBACK_ALREADY_OFFERED',
        'NO_TAKEBACK_OFFER',
        'NO_MOVE_TO_TAKE_BACK',
      ];
      const ops = (who: typeof ann, ucis: string[]): Op[] => [
        ...ucis.map(uci => ({ kind: 'move' as const, uci, ...by(who) })),
        { kind: 'undo', ...by(who) },
        { kind: 'offer', ...by(who) },
        { kind: 'offer', ...by(who) },
        { kind: 'draw', action: 'decline', ...by(who) },
        { kind: 'draw', action: 'decline', ...by(who) },
        { kind: 'takeback', action: 'offer', ...by(who) },
        { kind: 'takeback', action: 'offer', ...by(who) },
        { kind: 'takeback', action: 'accept', ...by(who) },
        { kind: 'takeback', action: 'decline', ...by(who) },
        { kind: 'draw', action: 'claim', ...by(who) },
      ];
      const all: Op[] = [
        ...ops(ann, [
          'g1f3',
          'g1f3',
          'b1c3',
          'd2d4',
          'd2d4',
          'e2e4',
          'f1c4',
          'f3g5',
          'c3d5',
          'd1h5',
          'a2a3',
          'h2h3',
          'c2c3',
          'b2b3',
        ]),
        ...ops(bob, [
          'g8f6',
          'g8f6',
          'b8c6',
          'd7d5',
          'd7d5',
          'e7e5',
          'f8c5',
          'f6g4',
          'c6d4',
          'd8h4',
          'a7a6',
          'h7h6',
          'c7c6',
          'b7b6',
        ]),
        { kind: 'resign', ...by(ann) },
        { kind: 'draw', action: 'accept', ...by(bob) },
      ];
      t.assert.equal(all.length, 50);
      let acknowledgedTotal = 0;
      for (let seed = 1; seed <= 4; seed++) {
        const id = json(
          await as(SERVICE_TOKEN, { method: 'POST', url: BASE, payload: { white: ann.info, black: bob.info } }),
        ).gameId;
        await as(ann.token, { method: 'POST', url: `${BASE}/${id}/move/e2e3` });
        await as(bob.token, { method: 'POST', url: `${BASE}/${id}/move/e7e6` });
        const start = (await store.get(id))!;
        const burst = shuffled(all, random(seed + name.length * 100));
        const answers = await Promise.all(burst.map(op => as(op.token, { method: 'POST', url: urlOf(id, op) })));
        const acknowledged: Op[] = [];
        const observed: Array<GameState | undefined> = [];
        answers.forEach((res, i) => {
          if (res.statusCode === 200) {
            acknowledged.push(burst[i]!);
            const body = json(res);
            observed.push('fen' in body ? body : undefined);
          } else {
            t.assert.ok(REFUSALS.includes(json(res).code), `${labelOf(burst[i]!)}: ${res.statusCode} ${res.body}`);
          }
        });
        const final = (await store.get(id))!;
        t.assert.equal(final.version, start.version + acknowledged.length, 'one version per acknowledged request');
        const order = findSerialOrder(restoreGame(start), acknowledged, final, observed);
        t.assert.ok(order, `no serial order explains [${acknowledged.map(labelOf).join(' ')}]`);
        t.assert.deepEqual(json(await as(ann.token, `${BASE}/${id}`)).state, gameStateOf(restoreGame(final)));
        acknowledgedTotal += acknowledged.length;
      }
      t.diagnostic(`4 bursts of 50 from two players, ${acknowledgedTotal} acknowledged`);
    });
  });
}

playerSuite('SQLite', async () => ({ store: SqliteGameStore.open(':memory:'), shared: false }), false);

const postgres = await databaseOfFile();
playerSuite(
  'PostgreSQL',
  async () => ({ store: await PostgresGameStore.open(postgres.url()), shared: true }),
  postgres.skip,
);
