/**
 * Crash safety (DECISIONS §11: a 2xx survives kill -9 at any moment). A real server process on the embedded
 * store takes creates, moves, undos, redos and draw offers from several concurrent clients and is killed with
 * SIGKILL at random moments (CRASH_KILLS, default 20). After each restart on the same file:
 *
 * - every acknowledged (2xx) change is there: each game reads exactly as its acknowledged history says, or as
 *   that history plus the one request that was in flight on it at the kill (never anything in between: the
 *   stored version must match too);
 * - a game nobody was told about can only come from a create in flight at the kill, and is a whole new game;
 * - every stored game replays from its start to its stored position: the domain replays the stored record to
 *   the FEN the API shows, and the exported PGN re-imports to the same moves and FEN.
 *
 * Each client keeps a model of its games made with the domain transitions, so it knows what every answer must
 * be, and which requests must be refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import Database from 'better-sqlite3';
import type { Result } from '../../src/domain/errors.ts';
import { newGame, restoreGame, type Change, type Game, type GameRecord } from '../../src/domain/game.ts';
import { gameStateOf, legalMovesOf } from '../../src/domain/views.ts';
import { isOver } from '../../src/domain/status.ts';
import { storedRecords } from '../../src/store/sqlite/moves.ts';
import { apply, random, type Op } from '../helpers/serialOrder.ts';
import { startServer, type ServerProcess } from '../helpers/server.ts';

const KILLS = Math.max(1, Number(process.env.CRASH_KILLS ?? 20));
const CLIENTS = 4;
const BASE = '/api/board/game';

/** What a client had sent without an answer when the server died. */
type InFlight = { kind: 'create' } | { kind: 'op'; id: string; op: Op };

interface Client {
  games: Map<string, Game>; // the model: each game as its acknowledged history leaves it
  inFlight: InFlight | undefined;
  touched: Set<string>; // games this client created or sent a change to since the last restart
}

class Killed extends Error {}

/** Sends one request; a failure to get a whole answer means the server is gone. */
async function request(url: string, method: 'GET' | 'POST'): Promise<{ status: number; body: any }> {
  try {
    const res = await fetch(url, { method });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
  } catch (error) {
    throw new Killed(String(error));
  }
}

/** The next request a client sends: mostly legal moves, undos and creates, some redos, offers and refusals. */
function nextOp(game: Game, next: () => number): Op {
  const roll = next();
  const legal = legalMovesOf(game);
  if (roll < 0.55 && legal.length > 0) {
    const move = legal[Math.floor(next() * legal.length)]!;
    // Now and then a promotion without its piece: held as pending, a change of its own.
    const uci = move.promotion && next() < 0.3 ? move.uci.slice(0, 4) : move.uci;
    return { kind: 'move', uci };
  }
  if (roll < 0.6) return { kind: 'move', uci: next() < 0.5 ? 'a1a8' : 'e2e5' }; // usually illegal
  if (roll < 0.8) return { kind: 'undo' };
  if (roll < 0.9) return { kind: 'redo' };
  return next() < 0.5 ? { kind: 'offer' } : { kind: 'draw', action: 'decline' };
}

const urlOf = (base: string, id: string, op: Op) => {
  switch (op.kind) {
    case 'move':
      return `${base}${BASE}/${id}/move/${op.uci}`;
    case 'offer':
      return `${base}${BASE}/${id}/draw/offer`;
    case 'draw':
      return `${base}${BASE}/${id}/draw/${op.action}`;
    default:
      return `${base}${BASE}/${id}/${op.kind}`;
  }
};

/** Plays until the server dies; every answer is checked against the model as it arrives. */
async function runClient(t: TestContext, server: ServerProcess, client: Client, next: () => number): Promise<void> {
  try {
    for (;;) {
      const open = [...client.games.entries()].filter(([, game]) => !isOver(game) || game.record.moves.length > 0);
      if (open.length === 0 || next() < 0.08) {
        client.inFlight = { kind: 'create' };
        const res = await request(`${server.url}${BASE}`, 'POST');
        t.assert.equal(res.status, 201, JSON.stringify(res.body));
        const id = res.body.gameId as string;
        client.games.set(id, newGame({ id, createdAt: new Date().toISOString() }));
        client.touched.add(id);
        client.inFlight = undefined;
        continue;
      }
      // Mostly the newest games, so that games grow long.
      const [id, game] = open[Math.max(0, open.length - 1 - Math.floor(next() * Math.min(3, open.length)))]!;
      const op = nextOp(game, next);
      const expected: Result<Change> = apply(game, op);
      client.inFlight = { kind: 'op', id, op };
      client.touched.add(id);
      const res = await request(urlOf(server.url, id, op), 'POST');
      const what = `${id} ${JSON.stringify(op)} -> ${res.status} ${JSON.stringify(res.body)}`;
      if (expected.ok) {
        t.assert.equal(res.status, 200, what);
        if (res.body.fen !== undefined) t.assert.deepEqual(res.body, gameStateOf(expected.value.game), what);
        client.games.set(id, expected.value.game);
      } else {
        t.assert.equal(res.status, expected.error.status, what);
        t.assert.equal(res.body.code, expected.error.code, what);
      }
      client.inFlight = undefined;
    }
  } catch (error) {
    if (!(error instanceof Killed)) throw error;
  }
}

/** Every stored record, read from the file beside the running server. */
function storedRecordsOf(path: string): Map<string, GameRecord> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return storedRecords(db);
  } finally {
    db.close();
  }
}

const sameRecord = (a: GameRecord, b: GameRecord) =>
  JSON.stringify([a.version, a.moves, a.redo, a.pendingPromotion, a.drawOffer, a.result, a.startFen]) ===
  JSON.stringify([b.version, b.moves, b.redo, b.pendingPromotion, b.drawOffer, b.result, b.startFen]);

test(`SIGKILL at ${KILLS} random moments loses no acknowledged change and half-applies none`, async (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'chess-crash-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'chess.sqlite');
  const env = { DATABASE_URL: path, RATE_LIMIT_MAX: '0' };
  const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
  t.diagnostic(`CRASH_SEED=${seed} (the kill moments also depend on timing)`);
  const next = random(seed);
  const clients: Client[] = Array.from({ length: CLIENTS }, () => ({
    games: new Map(),
    inFlight: undefined,
    touched: new Set(),
  }));
  const extra = new Set<string>(); // games created by creates in flight at a kill, or by the replay check
  const stats = { kills: 0, inFlightApplied: 0, inFlightLost: 0, orphanCreates: 0 };
  let server: ServerProcess | undefined;
  t.after(() => server?.stop('SIGKILL'));

  /** After a restart: the file holds exactly the acknowledged history, plus at most the in-flight requests. */
  async function verify(touched: Set<string>, all: boolean): Promise<void> {
    const live = server!;
    const stored = storedRecordsOf(path);
    const inFlightCreates = clients.filter(client => client.inFlight?.kind === 'create').length;
    const known = new Set<string>([...extra]);
    for (const client of clients) {
      const inFlight = client.inFlight;
      client.inFlight = undefined;
      for (const [id, model] of client.games) {
        known.add(id);
        const record = stored.get(id);
        t.assert.ok(record, `acknowledged game ${id} is missing after the restart`);
        let expected = model;
        if (!sameRecord(record, model.record)) {
          // Only the request in flight on this game may have been applied, and then wholly.
          t.assert.ok(inFlight?.kind === 'op' && inFlight.id === id, `game ${id} differs with nothing in flight`);
          const applied = apply(model, inFlight.op);
          t.assert.ok(
            applied.ok,
            `game ${id} changed by a request that must be refused: ${JSON.stringify(inFlight.op)}`,
          );
          t.assert.ok(
            sameRecord(record, applied.value.game.record),
            `game ${id} is neither its acknowledged state nor that plus ${JSON.stringify(inFlight.op)}:\n` +
              `stored ${JSON.stringify(record)}\nacknowledged ${JSON.stringify(model.record)}`,
          );
          expected = applied.value.game;
          client.games.set(id, expected);
          stats.inFlightApplied++;
        } else if (inFlight?.kind === 'op' && inFlight.id === id && apply(model, inFlight.op).ok) {
          stats.inFlightLost++;
        }
        if (all || touched.has(id)) {
          const shown = await request(`${live.url}${BASE}/${id}`, 'GET');
          t.assert.equal(shown.status, 200);
          t.assert.deepEqual(shown.body.state, gameStateOf(expected), `game ${id} as the restarted server shows it`);
        }
      }
    }
    // Games nobody was told about: only from creates in flight, and whole new games.
    const unknown = [...stored.keys()].filter(id => !known.has(id));
    t.assert.ok(
      unknown.length <= inFlightCreates,
      `${unknown.length} unacknowledged games, ${inFlightCreates} creates in flight`,
    );
    for (const id of unknown) {
      const record = stored.get(id)!;
      t.assert.deepEqual([record.version, record.moves.length, record.result], [1, 0, null], `orphan game ${id}`);
      extra.add(id);
      stats.orphanCreates++;
    }
    // Every stored game replays from its start: the domain replays the record to the FEN the API shows, and
    // the exported PGN imports to the same moves and FEN.
    for (const [id, record] of stored) {
      if (!all && !touched.has(id) && !unknown.includes(id)) continue;
      const shown = await request(`${live.url}${BASE}/${id}`, 'GET');
      const replayed = restoreGame(record);
      t.assert.equal(shown.body.state.fen, replayed.fen, `replay of ${id}`);
      const pgn = await fetch(`${live.url}${BASE}/${id}/export/pgn`).then(res => res.text());
      const imported = await fetch(`${live.url}${BASE}/import/pgn`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pgn }),
      });
      t.assert.equal(imported.status, 201, `re-import of ${id}:\n${pgn}`);
      const copy = (await imported.json()) as { gameId: string; state: { fen: string; moves: string[] } };
      extra.add(copy.gameId);
      t.assert.deepEqual([copy.state.moves, copy.state.fen], [shown.body.state.moves, shown.body.state.fen]);
    }
  }

  const started = Date.now();
  for (let round = 0; round <= KILLS; round++) {
    server = await startServer(env);
    if (round > 0) await verify(new Set(clients.flatMap(client => [...client.touched])), round === KILLS);
    for (const client of clients) client.touched.clear();
    if (round === KILLS) break;

    // Load from every client; SIGKILL after a random moment (sometimes at once, sometimes mid-burst).
    const running = clients.map(client => runClient(t, server!, client, next));
    const delay = next() < 0.15 ? 0 : 30 + Math.floor(next() * 500);
    await new Promise(resolve => setTimeout(resolve, delay));
    server.proc.kill('SIGKILL');
    t.assert.equal(await server.exited, 'SIGKILL');
    stats.kills++;
    await Promise.all(running);
  }
  t.assert.equal(await server?.stop('SIGTERM'), 0, 'the last server shuts down cleanly');

  const games = clients.reduce((sum, client) => sum + client.games.size, 0);
  const changes = clients.reduce(
    (sum, client) => sum + [...client.games.values()].reduce((n, game) => n + game.record.version, 0),
    0,
  );
  t.diagnostic(
    `${stats.kills} kills in ${Date.now() - started} ms; ${games} games with ${changes} versions; in flight at a ` +
      `kill: ${stats.inFlightApplied} applied, ${stats.inFlightLost} not applied, ${stats.orphanCreates} orphan creates`,
  );
  t.assert.equal(stats.kills, KILLS);
  t.assert.ok(changes > games, 'the clients made changes, not only games');
});
