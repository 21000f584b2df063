/**
 * Playing the computer opponent through a real server process (DECISIONS §18): start a game against the engine,
 * read it, wait for the engine's move, play a move, read the engine pool's metrics, find the server's engine
 * processes, and judge a game's moves with chessops.
 *
 * ```ts
 * const { data } = await playComputer(server.url, { level: 8, color: 'white' });
 * const id = data!.id;
 * await play(server.url, id, 'e2e4');
 * const game = await waitForPlies(server.url, id, 2); // the engine answered
 * t.assert.equal(illegalMove(game.state.moves), undefined);
 * ```
 */
import { readFileSync, readdirSync } from 'node:fs';
import { Chess, normalizeMove } from 'chessops/chess';
import { INITIAL_FEN, parseFen } from 'chessops/fen';
import { makeUci, parseUci } from 'chessops/util';
import type { operations } from 'chess-game-service-client';
import { ENDED_STATUSES, type GameStatus } from '../../src/contract/vocabulary.ts';
import { metricValue, parseMetrics } from '../stream/helpers.ts';
import { clientOf } from './client.ts';

/** Whether a status ends the game. */
export const ended = (status: string): boolean => ENDED_STATUSES.has(status as GameStatus);

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/** What `POST /api/challenge/ai` takes: a level, and a challenge's time control, colour and position. */
export type ComputerRequest = NonNullable<operations['challengeAi']['requestBody']>['content']['application/json'];

/** `POST /api/challenge/ai`: its status, and its data (the game) or its error. */
export async function playComputer(base: string, body: ComputerRequest) {
  const { data, error, response } = await clientOf(base).api.POST('/api/challenge/ai', { body });
  return { status: response.status, data, error };
}

/** The game's full view (`GET /api/board/game/{id}`). */
export async function gameOf(base: string, id: string) {
  const client = clientOf(base);
  return client.unwrap(client.api.GET('/api/board/game/{gameId}', { params: { path: { gameId: id } } }));
}

/** Plays `uci` as the side to move; throws unless the server accepts it. */
export async function play(base: string, id: string, uci: string) {
  const client = clientOf(base);
  return client.unwrap(
    client.api.POST('/api/board/game/{gameId}/move/{uci}', { params: { path: { gameId: id, uci } } }),
  );
}

/** Polls the game until it has `plies` moves or is over; fails after `ms`. */
export async function waitForPlies(base: string, id: string, plies: number, ms: number) {
  const deadline = performance.now() + ms;
  for (;;) {
    const game = await gameOf(base, id);
    if (game.state.moves.length >= plies || ended(game.state.status)) return game;
    if (performance.now() > deadline) {
      throw new Error(`game ${id}: ${game.state.moves.length} plies after ${ms} ms, waiting for ${plies}`);
    }
    await sleep(25);
  }
}

/** One value of the server's metrics (`GET /metrics`), 0 when it has no sample. */
export async function metric(base: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const res = await fetch(`${base}/metrics`); // Prometheus text, not an operation of the API's document
  return metricValue(parseMetrics(await res.text()), name, labels);
}

/** Polls a metric until `accept` holds for it; fails after `ms`. */
export async function waitForMetric(
  base: string,
  name: string,
  accept: (value: number) => boolean,
  ms: number,
): Promise<number> {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await metric(base, name);
    if (accept(value)) return value;
    if (performance.now() > deadline) throw new Error(`${name} is ${value} after ${ms} ms`);
    await sleep(10);
  }
}

/** The process ids of a process's children (Linux: /proc), e.g. a server's engine processes. */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
    if (text) children.push(...text.split(/\s+/).map(Number));
  }
  return children;
}

/** Whether a process runs (and is not a zombie). */
export function isRunning(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** The position after `moves` from `fen`; throws at an illegal move. */
export function positionAfter(moves: readonly string[], fen = INITIAL_FEN): Chess {
  const pos = Chess.fromSetup(parseFen(fen).unwrap()).unwrap();
  for (const [ply, uci] of moves.entries()) {
    const move = parseUci(uci);
    if (!move || !pos.isLegal(normalizeMove(pos, move))) throw new Error(`ply ${ply + 1}, ${uci}, is not legal`);
    pos.play(normalizeMove(pos, move));
  }
  return pos;
}

/** The first illegal move of a game from `fen`, as `ply N: uci`, or undefined when every move is legal. */
export function illegalMove(moves: readonly string[], fen = INITIAL_FEN): string | undefined {
  try {
    positionAfter(moves, fen);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Every legal move of a position, in UCI. */
export function legalUcis(pos: Chess): string[] {
  const ucis: string[] = [];
  for (const [from, dests] of pos.allDests()) {
    for (const to of dests) {
      const promotes = pos.board.pawn.has(from) && (to >> 3 === 0 || to >> 3 === 7);
      // chessops gives castling as the king taking its own rook; UCI moves the king two files.
      const castles = pos.board.king.has(from) && pos.board[pos.turn].has(to);
      const dest = castles ? (from & ~7) + ((to & 7) > (from & 7) ? 6 : 2) : to;
      ucis.push(makeUci(promotes ? { from, to: dest, promotion: 'queen' } : { from, to: dest }));
    }
  }
  return ucis;
}

/** A seeded generator of numbers in [0, 1) (mulberry32), so that a scripted player's game can be replayed. */
export function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
