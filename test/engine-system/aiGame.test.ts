/**
 * Games against the computer opponent (DECISIONS §18) through a real server process with the default engine (the
 * npm package `stockfish`, WebAssembly: what `npm start` runs with nothing installed), played by scripts through
 * the service's own API and followed on the game's stream.
 *
 * 1. A game to the end at level 1: a scripted player (captures first, else a seeded random move) plays until the
 *    game ends or, after 100 of its moves, resigns. Every engine move arrives on the stream, and every move of the
 *    game is legal (replayed with chessops).
 * 2. The clock: a 15-second game without increment, the engine at level 8 (its longest move time) against a player
 *    who answers at once (a second engine at level 5, Debian's `stockfish` when present): over 30 of the engine's
 *    moves its clock stays positive and no game ends on time.
 *
 * About 15 s on two cores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { normalizeMove, type Chess } from 'chessops/chess';
import { INITIAL_FEN } from 'chessops/fen';
import { parseUci } from 'chessops/util';
import { createEnginePool } from '../../src/engine/index.ts';
import { findExecutable } from '../helpers/external.ts';
import { startServer, type ServerProcess } from '../helpers/server.ts';
import { openStream, type StreamClient } from '../stream/helpers.ts';
import { clientOf } from '../helpers/client.ts';
import {
  ended,
  gameOf,
  illegalMove,
  legalUcis,
  play,
  playComputer,
  positionAfter,
  seeded,
} from '../helpers/aiGames.ts';

let dir: string;
let server: ServerProcess;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ai-game-'));
  server = await startServer({ DATABASE_URL: join(dir, 'chess.sqlite') });
});

after(async () => {
  await server.stop('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

interface State {
  moves: string[];
  status: string;
  winner: string | null;
  wtime?: number;
  btime?: number;
}

/** The states a game's stream has shown so far, its gameFull's first. */
const statesOf = (stream: StreamClient): State[] =>
  stream.events.map(event => (event.type === 'gameFull' ? event.game.state : event.state) as State);

/** Waits until the stream shows a state with more than `plies` moves, or the game's end; that state. */
async function nextState(stream: StreamClient, plies: number, ms: number): Promise<State> {
  const found = () => statesOf(stream).find(state => state.moves.length > plies || ended(state.status));
  await stream.waitFor(() => found() !== undefined, `a state after ply ${plies}`, ms);
  return found()!;
}

const VALUE: Record<string, number> = { pawn: 1, knight: 3, bishop: 3, rook: 5, queen: 9, king: 0 };

/** The script's move: a mate in one, else the most valuable capture, else a seeded random legal move. */
function scriptedMove(pos: Chess, random: () => number): string {
  const moves = legalUcis(pos);
  const mate = moves.find(uci => {
    const after = pos.clone();
    after.play(normalizeMove(after, parseUci(uci)!));
    return after.isCheckmate();
  });
  if (mate) return mate;
  const captured = (uci: string) => {
    const piece = pos.board.get(positionSquare(uci.slice(2, 4)));
    return piece && piece.color !== pos.turn ? VALUE[piece.role]! : 0;
  };
  const best = Math.max(...moves.map(captured));
  const choices = best > 0 ? moves.filter(uci => captured(uci) === best) : moves;
  return choices[Math.floor(random() * choices.length)]!;
}

const positionSquare = (name: string): number => name.charCodeAt(0) - 97 + 8 * (Number(name[1]) - 1);

test('a game to the end at level 1 against a scripted player: every engine move arrives and is legal', async (t: TestContext) => {
  const { status, data, error } = await playComputer(server.url, { level: 1, color: 'white' });
  t.assert.equal(status, 201, JSON.stringify(error));
  const id = data!.id;
  const stream = await openStream(`${server.url}/api/board/game/${id}/stream`);
  t.after(() => stream.close());
  const random = seeded(30);
  let moves: string[] = [];
  let final: State | undefined;
  for (let turn = 0; turn < 100; turn++) {
    // 1. The script's move, then the engine's answer on the stream (or the game's end).
    await play(server.url, id, scriptedMove(positionAfter(moves), random));
    const state = await nextState(stream, moves.length + 1, 15_000);
    moves = state.moves;
    if (ended(state.status)) {
      final = state;
      break;
    }
  }
  if (!final) {
    // 2. The move cap: the script resigns.
    const resigned = await clientOf(server.url).api.POST('/api/board/game/{gameId}/resign', {
      params: { path: { gameId: id } },
    });
    t.assert.equal(resigned.response.status, 200, JSON.stringify(resigned.error));
    await stream.waitFor(() => statesOf(stream).some(state => ended(state.status)), 'the resignation');
    final = statesOf(stream).find(state => ended(state.status))!;
  }
  // 3. Every move legal; every engine move (the even plies) came on the stream as its own state.
  const game = await gameOf(server.url, id);
  t.assert.deepEqual(game.state.moves, final.moves);
  t.assert.equal(illegalMove(game.state.moves), undefined);
  const seen = new Set(statesOf(stream).map(state => state.moves.length));
  for (let ply = 2; ply <= game.state.moves.length; ply += 2) t.assert.ok(seen.has(ply), `ply ${ply} on the stream`);
  // 4. The end the service gives is the position's (chessops), or the resignation.
  const pos = positionAfter(game.state.moves);
  const expected = pos.isCheckmate()
    ? 'checkmate'
    : pos.isStalemate()
      ? 'stalemate'
      : pos.isInsufficientMaterial()
        ? 'insufficientMaterial'
        : undefined;
  if (expected) t.assert.equal(game.state.status, expected);
  else t.assert.ok(['resign', 'draw'].includes(game.state.status), game.state.status);
  t.diagnostic(`${game.state.moves.length} plies, ${game.state.status}, winner ${game.state.winner}`);
});

test('a 15-second game: the engine at level 8 never loses on time against a player who answers at once', async (t: TestContext) => {
  // The player's moves come from an engine of its own, at a level that answers in milliseconds but keeps the game
  // going for 30 moves of the computer's.
  const stockfish = findExecutable('stockfish');
  const player = createEnginePool(stockfish ? { enginePath: stockfish } : {});
  t.after(() => player.close());
  const engineMoves: number[] = []; // the engine's clock after each of its moves, ms
  let games = 0;
  while (engineMoves.length < 30) {
    games++;
    const { status, data, error } = await playComputer(server.url, {
      level: 8,
      'clock.limit': 15,
      'clock.increment': 0,
      color: 'white',
    });
    t.assert.equal(status, 201, JSON.stringify(error));
    const id = data!.id;
    const stream = await openStream(`${server.url}/api/board/game/${id}/stream`);
    t.after(() => stream.close());
    let moves: string[] = [];
    for (;;) {
      const { uci } = await player.search({ fen: INITIAL_FEN, moves, level: 5 });
      await play(server.url, id, uci);
      // Level 8 thinks a second at most: 10 s is for a loaded machine, the clock itself is the measure.
      const state = await nextState(stream, moves.length + 1, 10_000);
      t.assert.notEqual(state.status, 'outOfTime', `game ${games}: ${JSON.stringify(state)}`);
      moves = state.moves;
      if (moves.length % 2 === 0) {
        t.assert.ok(state.btime! > 0, `the engine's clock after its move ${moves.length / 2}: ${state.btime}`);
        engineMoves.push(state.btime!);
      }
      if (ended(state.status) || engineMoves.length >= 30) break;
    }
    stream.close();
    t.assert.equal(illegalMove(moves), undefined);
  }
  t.diagnostic(
    `${games} game(s); the engine's clock after its moves: ${engineMoves
      .filter((_, i) => i % 5 === 4)
      .map(ms => (ms / 1000).toFixed(1))
      .join(', ')} s (every fifth); lowest ${Math.min(...engineMoves)} ms`,
  );
});
