/**
 * What a stream sends (DECISIONS §9): a gameFull first, then exactly one gameState per successful change, in
 * commit order, equal to what the change's own answer said; nothing for a rejected request; the same
 * sequence for every subscriber, including one that joins while changes are being committed; and the stream
 * stays open after the game ends.
 */
import { test, type TestContext } from 'node:test';
import type { Change } from '../../src/domain/game.ts';
import { listenApp, scriptedChanges, waitUntil, type ListeningApp, type StreamClient } from './helpers.ts';
import { clientOf, gameAction, type GameAction } from '../helpers/client.ts';

type Step = [path: GameAction, rejection?: string];

/**
 * Three games that together make 50 changes of every kind, with rejected requests in between.
 * Game A: promotion (pending, then with a piece) for both sides, undo, redo, offer/decline/offer, accept.
 * Game B: the fifty-move claim (halfmove clock 99, one quiet move reaches 100), with an offer pending.
 * Game C: an opening with captures, castling, undo/redo, then resignation.
 */
const GAMES: { fen?: string; steps: Step[] }[] = [
  {
    fen: '4k3/P7/8/8/8/8/7p/4K3 w - - 0 1',
    steps: [
      ['move/a7a8'],
      ['move/a7a8k', 'INVALID_UCI'],
      ['move/a7a8q'],
      ['undo'],
      ['redo'],
      ['redo', 'NO_REDO'],
      ['move/e8e7'],
      ['move/e1f2'],
      ['draw/accept', 'NO_DRAW_OFFER'],
      ['draw/offer'],
      ['draw/offer', 'DRAW_ALREADY_OFFERED'],
      ['draw/decline'],
      ['draw/offer'],
      ['move/e7e6'],
      ['move/f2g1', 'INVALID_MOVE'],
      ['move/f2g2'],
      ['move/h2h1'],
      ['move/h2h1q'],
      ['move/g2h1'],
      ['undo'],
      ['undo'],
      ['redo'],
      ['redo'],
      ['draw/claim', 'CLAIM_NOT_AVAILABLE'],
      ['draw/offer'],
      ['draw/accept'],
      ['undo', 'GAME_OVER'],
      ['move/h1g2', 'GAME_OVER'],
      ['resign', 'GAME_OVER'],
    ],
  },
  {
    fen: '4k3/8/8/8/8/8/8/R3K3 w - - 99 80',
    steps: [
      ['draw/claim', 'CLAIM_NOT_AVAILABLE'],
      ['undo', 'NO_UNDO'],
      ['move/a1a2'],
      ['undo'],
      ['redo'],
      ['draw/offer'],
      ['draw/claim'],
      ['draw/claim', 'GAME_OVER'],
    ],
  },
  {
    steps: [
      ['move/e2e4'],
      ['move/e7e5'],
      ['move/g1f3'],
      ['move/b8c6'],
      ['undo'],
      ['undo'],
      ['redo'],
      ['move/e2e4', 'INVALID_MOVE'],
      ['move/f8c5'],
      ['move/d2d3'],
      ['move/g8f6'],
      ['move/c1g5'],
      ['move/h7h6'],
      ['undo'],
      ['redo'],
      ['move/g5f6'],
      ['move/d8f6'],
      ['undo'],
      ['undo'],
      ['redo'],
      ['redo'],
      ['move/b1c3'],
      ['move/e8g8'],
      ['move/f1e2'],
      ['move/b8c6'],
      ['resign'],
      ['resign', 'GAME_OVER'],
      ['undo', 'GAME_OVER'],
    ],
  },
];

async function createGame(server: ListeningApp, fen?: string): Promise<string> {
  const { api } = clientOf(server.url);
  const res = fen
    ? await api.POST('/api/board/game/import/fen', { body: { fen } })
    : await api.POST('/api/board/game', { body: {} });
  if (res.response.status !== 201)
    throw new Error(`create failed: ${res.response.status} ${JSON.stringify(res.error)}`);
  return res.data!.gameId;
}

/** The game's full view, through the client. */
async function gameOf(server: ListeningApp, gameId: string) {
  const client = clientOf(server.url);
  return client.unwrap(client.api.GET('/api/board/game/{gameId}', { params: { path: { gameId } } }));
}

test('two subscribers get the same 50 changes of every kind, each once, in order, as answered', async (t: TestContext) => {
  const server = await listenApp(t, { heartbeatMs: 100 });
  let successes = 0;
  for (const { fen, steps } of GAMES) {
    const id = await createGame(server, fen);
    const client = clientOf(server.url);
    const initial = await gameOf(server, id);
    const subscribers = [await server.open(id), await server.open(id)];
    for (const subscriber of subscribers) t.assert.equal(subscriber.status, 200);

    const expected: unknown[] = [{ type: 'gameFull', game: initial }];
    for (const [path, rejection] of steps) {
      const res = await gameAction(client, id, path);
      if (rejection) {
        t.assert.equal(res.status, 400, `${path}: ${JSON.stringify(res.data)}`);
        t.assert.equal(res.error?.code, rejection, `${path}`);
        continue;
      }
      t.assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.error)}`);
      successes++;
      // move, undo and redo answer the GameState; resign and draw actions answer {ok:true}.
      const body = res.data!;
      const state = 'fen' in body ? body : (await gameOf(server, id)).state;
      if (!('fen' in body)) t.assert.deepEqual(body, { ok: true });
      expected.push({ type: 'gameState', state });
    }
    const lastAnswer = performance.now();
    for (const subscriber of subscribers) {
      await subscriber.waitForEvents(expected.length);
      // The game ended with rejected requests: two heartbeats after the last answer mean the stream is idle.
      await subscriber.waitFor(
        () => subscriber.lines.filter((line, i) => line === '' && subscriber.times[i]! > lastAnswer).length >= 2,
        'two heartbeats after the last request',
      );
      t.assert.deepEqual(subscriber.events, expected);
      t.assert.equal(subscriber.done, false, 'the stream stays open after the game ends');
    }
    t.assert.deepEqual(subscribers[0]!.events, subscribers[1]!.events);
  }
  t.assert.equal(successes, 50);
  t.assert.ok(
    GAMES.flatMap(g => g.steps).some(([path]) => path === 'move/a7a8'),
    'the burst includes a pending promotion',
  );
});

test('a rejected request sends nothing: the next line is the next successful change', async (t: TestContext) => {
  const server = await listenApp(t);
  const id = await createGame(server);
  const client = clientOf(server.url);
  const stream = await server.open(id);
  await stream.waitForEvents(1);
  const rejected: [GameAction, string][] = [
    ['move/e2e5', 'INVALID_MOVE'],
    ['move/e7e5', 'INVALID_MOVE'],
    ['move/e2e4x', 'INVALID_UCI'],
    ['undo', 'NO_UNDO'],
    ['redo', 'NO_REDO'],
    ['draw/accept', 'NO_DRAW_OFFER'],
    ['draw/decline', 'NO_DRAW_OFFER'],
    ['draw/claim', 'CLAIM_NOT_AVAILABLE'],
    ['draw/surrender' as GameAction, 'INVALID_ACTION'], // outside the document's vocabulary on purpose
  ];
  for (const [path, code] of rejected) {
    const res = await gameAction(client, id, path);
    t.assert.equal(res.error?.code, code, path);
  }
  const sentinel = await gameAction(client, id, 'move/d2d4');
  t.assert.equal(sentinel.status, 200);
  await stream.waitForEvents(2);
  t.assert.deepEqual(stream.events[1], { type: 'gameState', state: sentinel.data });
  // Wait a little longer for anything that might trail: nothing may come.
  const two = await gameAction(client, id, 'undo');
  await stream.waitForEvents(3);
  t.assert.equal(stream.events.length, 3);
  t.assert.deepEqual(stream.events[2], { type: 'gameState', state: two.data });
});

test('subscribers that join during a burst get a consistent snapshot and then every later change once', async (t: TestContext) => {
  const server = await listenApp(t);
  const created = await server.games.create({});
  const id = created.record.id;
  const initial = { type: 'gameFull', game: await gameOf(server, id) };
  const first = await server.open(id);
  await first.waitForEvents(1);

  // 1. Fire changes without awaiting them, 1 to 4 per turn of the event loop, until `stopAt`.
  const script = scriptedChanges(600);
  const answers: Promise<Change>[] = [];
  let next = 0;
  let stopAt = script.length;
  const pump = async () => {
    for (let turn = 0; next < Math.min(stopAt, script.length); turn++) {
      for (let i = 0; i <= turn % 4 && next < stopAt; i++) answers.push(server.games.change(id, script[next++]!));
      await new Promise(resolve => setImmediate(resolve));
    }
  };
  const pumping = pump();

  // 2. Late subscribers connect one after another while the pump runs; each is waited for until its gameFull.
  //    The pump goes on for 40 more changes after the last one joined.
  const late: StreamClient[] = [];
  for (let i = 0; i < 8; i++) {
    const stream = await server.open(id);
    await stream.waitForEvents(1);
    late.push(stream);
  }
  stopAt = next + 40;
  await pumping;
  t.assert.ok(next === stopAt, `the burst was still running when the last subscriber joined (${next})`);
  const states = (await Promise.all(answers)).map(change => ({ type: 'gameState', state: change.event.state }));

  // 3. The first subscriber gets every change exactly, in commit order.
  await first.waitForEvents(1 + states.length);
  t.assert.deepEqual(first.events, [initial, ...states]);

  // 4. Each late subscriber: its snapshot is the state after some change k, then exactly changes k+1..end.
  const last = first.events.at(-1);
  let joinedMidway = 0;
  for (const stream of late) {
    await stream.waitFor(
      () => JSON.stringify(stream.events.at(-1)) === JSON.stringify(last),
      'the late subscriber to reach the last change',
    );
    const k = indexOfSnapshot(stream, first);
    t.assert.ok(k >= 0, `the snapshot is a state the first subscriber saw: ${JSON.stringify(stream.events[0])}`);
    t.assert.deepEqual(stream.events.slice(1), first.events.slice(k + 1), 'no gap and no repeat after the snapshot');
    if (k > 0 && k < states.length) joinedMidway++;
  }
  t.assert.ok(joinedMidway >= 1, 'at least one subscriber joined between two changes of the burst');
});

/** The index in `reference.events` of the state `stream`'s gameFull shows; -1 when none. */
function indexOfSnapshot(stream: StreamClient, reference: StreamClient): number {
  const snapshot = stream.events[0];
  if (snapshot?.type !== 'gameFull') return -1;
  const text = JSON.stringify(snapshot.game.state);
  const matches = reference.events
    .map((event, i) => (JSON.stringify(i === 0 ? event.game.state : event.state) === text ? i : -1))
    .filter(i => i >= 0);
  if (matches.length > 1) throw new Error(`the snapshot matches ${matches.length} points of the sequence`);
  return matches[0] ?? -1;
}

test('the stream stays open after a mate and delivers its undo and redo', async (t: TestContext) => {
  const server = await listenApp(t, { heartbeatMs: 50 });
  const id = await createGame(server);
  const client = clientOf(server.url);
  const move = (uci: string) =>
    client.unwrap(client.api.POST('/api/board/game/{gameId}/move/{uci}', { params: { path: { gameId: id, uci } } }));
  const stream = await server.open(id);
  const answers = [];
  for (const uci of ['f2f3', 'e7e5', 'g2g4', 'd8h4']) answers.push(await move(uci));
  t.assert.equal(answers[3]!.status, 'checkmate');
  t.assert.equal(answers[3]!.winner, 'black');
  await stream.waitForEvents(5);
  const mateSeen = stream.lines.length;
  await stream.waitFor(() => stream.lines.slice(mateSeen).filter(l => l === '').length >= 2, 'heartbeats after mate');
  t.assert.equal(stream.done, false);

  const undone = await client.api.POST('/api/board/game/{gameId}/undo', { params: { path: { gameId: id } } });
  t.assert.equal(undone.response.status, 200);
  t.assert.equal(undone.data?.status, 'started');
  const redone = await client.api.POST('/api/board/game/{gameId}/redo', { params: { path: { gameId: id } } });
  t.assert.equal(redone.data?.status, 'checkmate');
  await stream.waitForEvents(7);
  t.assert.deepEqual(
    stream.events.slice(1),
    [...answers, undone.data, redone.data].map(state => ({ type: 'gameState', state })),
  );

  // After a final end (resignation) the stream stays open too.
  const other = await createGame(server);
  const resigned = await server.open(other);
  t.assert.equal((await gameAction(client, other, 'resign')).status, 200);
  await resigned.waitForEvents(2);
  t.assert.equal(resigned.events[1].state.status, 'resign');
  const seen = resigned.lines.length;
  await waitUntil(
    () => resigned.lines.slice(seen).filter(l => l === '').length >= 2,
    () => 'heartbeats after resignation',
  );
  t.assert.equal(resigned.done, false);
});
