/**
 * Fifty parallel conflicting requests on one game, on one instance: moves (some legal only in some orders,
 * some sent several times), undo, redo, resign and every draw action. Whatever arrives first, the game must
 * end in a state that some serial order of exactly the acknowledged requests reaches (the search of
 * test/helpers/serialOrder.ts), with one version per acknowledged request, and every refusal must be one the
 * request can get. Sent through app.inject and through real sockets to a listening app on a SQLite file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { restoreGame } from '../../src/domain/game.ts';
import { gameStateOf } from '../../src/domain/views.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import type { GameStore } from '../../src/store/store.ts';
import { assertApiError, json, makeTestApp } from '../helpers/app.ts';
import { findSerialOrder, labelOf, random, shuffled, urlOf, type Op } from '../helpers/serialOrder.ts';
import type { ErrorCode } from '../../src/contract/vocabulary.ts';
import type { GameState } from '../../src/contract/shapes.ts';

const BURSTS = Number(process.env.BURSTS ?? 8); // per start position and transport

/** The refusals each kind of request may get in a burst. */
const REFUSALS: Record<string, ErrorCode[]> = {
  move: ['INVALID_MOVE', 'GAME_OVER'],
  undo: ['NO_UNDO', 'GAME_OVER'],
  redo: ['NO_REDO', 'GAME_OVER'],
  offer: ['DRAW_ALREADY_OFFERED', 'GAME_OVER'],
  accept: ['NO_DRAW_OFFER', 'GAME_OVER'],
  decline: ['NO_DRAW_OFFER', 'GAME_OVER'],
  claim: ['CLAIM_NOT_AVAILABLE', 'GAME_OVER'],
  resign: ['GAME_OVER'],
};
const kindOf = (op: Op) => (op.kind === 'draw' ? op.action : op.kind);

const moves = (...ucis: string[]): Op[] => ucis.map(uci => ({ kind: 'move', uci }));
const times = (n: number, op: Op): Op[] => Array.from({ length: n }, () => op);

/** Start positions, each with a burst of 50 requests that conflict in it. */
const SCENARIOS: Array<{ name: string; fen?: string; setup: string[]; burst: Op[] }> = [
  {
    name: 'an opening with moves to redo',
    setup: ['move/e2e4', 'move/e7e5', 'move/g1f3', 'move/b8c6', 'undo', 'undo'],
    burst: [
      ...moves('g1f3', 'g1f3', 'g1f3', 'b8c6', 'b8c6', 'f1c4', 'f1c4', 'g8f6', 'd2d4', 'd2d4'),
      ...moves('d7d6', 'b1c3', 'f8c5', 'a2a3', 'h7h6', 'e1g1', 'd1h5', 'e5d4', 'f3e5', 'c6d4'),
      ...times(8, { kind: 'undo' }),
      ...times(6, { kind: 'redo' }),
      ...times(5, { kind: 'offer' }),
      ...times(2, { kind: 'draw', action: 'accept' }),
      ...times(4, { kind: 'draw', action: 'decline' }),
      ...times(2, { kind: 'draw', action: 'claim' }),
      ...times(1, { kind: 'resign' }),
      ...moves('e5e4', 'a7a6'),
    ],
  },
  {
    name: 'an opening where nothing ends the game',
    setup: ['move/e2e4', 'move/e7e5', 'move/g1f3', 'move/b8c6', 'undo', 'undo'],
    burst: [
      ...moves('g1f3', 'g1f3', 'g1f3', 'b8c6', 'b8c6', 'f1c4', 'f1c4', 'g8f6', 'd2d4', 'd2d4'),
      ...moves('d7d6', 'b1c3', 'f8c5', 'a2a3', 'h7h6', 'e1g1', 'd1h5', 'e5d4', 'f3e5', 'c6d4'),
      ...times(9, { kind: 'undo' }),
      ...times(7, { kind: 'redo' }),
      ...times(6, { kind: 'offer' }),
      ...times(6, { kind: 'draw', action: 'decline' }),
      ...times(2, { kind: 'draw', action: 'claim' }),
    ],
  },
  {
    name: 'a rook ending two quiet moves before the fifty-move claim',
    fen: '7k/8/8/8/8/8/8/K5R1 w - - 98 80',
    setup: [],
    burst: [
      ...moves('g1g2', 'g1g2', 'g1g7', 'h8h7', 'h8h7', 'h7h6', 'h7h8', 'a1b1', 'a1b2', 'b1a1'),
      ...moves('g2g3', 'g2g1', 'g7g1', 'h6h5', 'g1h1', 'h8g8', 'g8f8', 'a1a2', 'a2a1', 'b2b3'),
      ...times(7, { kind: 'undo' }),
      ...times(5, { kind: 'redo' }),
      ...times(4, { kind: 'offer' }),
      ...times(2, { kind: 'draw', action: 'accept' }),
      ...times(4, { kind: 'draw', action: 'decline' }),
      ...times(5, { kind: 'draw', action: 'claim' }),
      ...times(3, { kind: 'resign' }),
    ],
  },
];

/** Sends one request and answers its status and body. */
type Send = (method: 'GET' | 'POST', url: string) => Promise<{ status: number; body: any }>;

async function prepare(send: Send, scenario: (typeof SCENARIOS)[number]): Promise<string> {
  const created = scenario.fen
    ? await send('POST', `/api/board/game/import/fen?fen=${encodeURIComponent(scenario.fen)}`)
    : await send('POST', '/api/board/game');
  if (created.status !== 201) throw new Error(`setup: ${JSON.stringify(created.body)}`);
  const id = created.body.gameId as string;
  for (const step of scenario.setup) {
    const res = await send('POST', `/api/board/game/${id}/${step}`);
    if (res.status !== 200) throw new Error(`setup ${step}: ${JSON.stringify(res.body)}`);
  }
  return id;
}

async function burst(t: TestContext, send: Send, store: GameStore, id: string, ops: Op[]): Promise<number> {
  t.assert.equal(ops.length, 50);
  const start = (await store.get(id))!;
  const answers = await Promise.all(ops.map(op => send('POST', urlOf(id, op))));
  const acknowledged: Op[] = [];
  const observed: Array<GameState | undefined> = [];
  answers.forEach((answer, i) => {
    const op = ops[i]!;
    if (answer.status === 200) {
      acknowledged.push(op);
      // Moves, undo and redo answer the GameState they made; draw actions and resign answer {ok: true}.
      observed.push('fen' in answer.body ? (answer.body as GameState) : undefined);
      return;
    }
    const allowed = REFUSALS[kindOf(op)]!;
    t.assert.ok(allowed.includes(answer.body?.code), `${labelOf(op)}: ${answer.status} ${JSON.stringify(answer.body)}`);
  });
  const final = (await store.get(id))!;
  const what = `[${acknowledged.map(labelOf).join(' ')}] -> ${JSON.stringify(final)}`;
  t.assert.equal(final.version, start.version + acknowledged.length, `one version per acknowledged request: ${what}`);
  // Some serial order of the acknowledged requests gives each its answer and ends in the stored state.
  const order = findSerialOrder(restoreGame(start), acknowledged, final, observed);
  t.assert.ok(order, `no serial order of the acknowledged requests explains the answers and the end: ${what}`);
  // The API shows what is stored, and the stored game replays.
  const shown = await send('GET', `/api/board/game/${id}`);
  t.assert.deepEqual(shown.body.state, gameStateOf(restoreGame(final)));
  return acknowledged.length;
}

async function runBursts(t: TestContext, send: Send, store: GameStore, seedBase: number): Promise<void> {
  let acknowledged = 0;
  const ended = new Set<string>();
  for (const scenario of SCENARIOS) {
    for (let seed = 1; seed <= BURSTS; seed++) {
      const id = await prepare(send, scenario);
      acknowledged += await burst(t, send, store, id, shuffled(scenario.burst, random(seedBase + seed)));
      const status = (await send('GET', `/api/board/game/${id}`)).body.state.status as string;
      ended.add(status);
    }
  }
  t.diagnostic(
    `${SCENARIOS.length * BURSTS} bursts of 50, ${acknowledged} acknowledged; end states: ${[...ended].join(', ')}`,
  );
  // The bursts must conflict: some end the game, so that later requests are refused for it.
  t.assert.ok(ended.has('draw') || ended.has('resign'), `bursts never ended a game: ${[...ended].join(', ')}`);
}

test('50 parallel conflicting requests through app.inject end in a serial order of the acknowledged ones', async (t: TestContext) => {
  const { app, store } = await makeTestApp();
  t.after(() => app.close());
  const send: Send = async (method, url) => {
    const [path, query] = url.split('?fen=');
    const res = await app.inject(
      query === undefined ? { method, url } : { method, url: path!, payload: { fen: decodeURIComponent(query) } },
    );
    if (res.statusCode >= 400) assertApiError(res);
    return { status: res.statusCode, body: res.body === '' ? undefined : json(res) };
  };
  await runBursts(t, send, store, 100);
});

test('50 parallel conflicting requests over sockets to a SQLite file end in a serial order of the acknowledged ones', async (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'chess-burst-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = SqliteGameStore.open(join(dir, 'chess.sqlite'));
  const { app }: { app: FastifyInstance } = await makeTestApp({ store });
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.after(async () => {
    await app.close();
    await store.close();
  });
  const { port } = app.server.address() as { port: number };
  const send: Send = async (method, url) => {
    const [path, query] = url.split('?fen=');
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      ...(query === undefined
        ? {}
        : {
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ fen: decodeURIComponent(query) }),
          }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
  };
  await runBursts(t, send, store, 200);
});
