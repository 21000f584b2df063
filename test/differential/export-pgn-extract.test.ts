/**
 * Differential test of the game export (DECISIONS §22) against pgn-extract, an independent PGN reader: a player's
 * games exported as one PGN (`GET /api/games/user/{id}` with clocks, ongoing games included) are read by pgn-extract
 * (`--json -Wuci`) to the same moves, game by game (told apart by their GameId tag), as the service holds them, and
 * to the same result and the same tags the export wrote. The games are seeded random legal games, with and without
 * clocks, from the start and from positions, over and not.
 */
import { spawnSync } from 'node:child_process';
import { test, type TestContext } from 'node:test';
import { Chess } from 'chessops/chess';
import { parseFen } from 'chessops/fen';
import { makeUci } from 'chessops/util';
import type { NormalMove } from 'chessops/types';
import { json, makeTestApp } from '../helpers/app.ts';
import { findExecutable, skipReason } from '../helpers/external.ts';

const pgnExtract = findExecutable('pgn-extract');
const skip = skipReason('pgn-extract', pgnExtract);
const SEED = Number(process.env.PGN_SEED ?? 45);

/** mulberry32: a small seeded PRNG, so a failing game can be replayed (PGN_SEED). */
function makeRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random legal line of up to `plies` moves from `fen`, in the API's UCI (castling as the king's two squares). */
function randomLine(random: () => number, fen: string | undefined, plies: number): string[] {
  const pos = fen === undefined ? Chess.default() : Chess.fromSetup(parseSetup(fen)).unwrap();
  const line: string[] = [];
  for (let i = 0; i < plies && !pos.isEnd(); i++) {
    const moves: NormalMove[] = [];
    for (const [from, dests] of pos.allDests()) for (const to of dests) moves.push({ from, to });
    const move: NormalMove = { ...moves[Math.floor(random() * moves.length)]! };
    const piece = pos.board.get(move.from)!;
    if (piece.role === 'pawn' && (move.to >> 3 === 7 || move.to >> 3 === 0)) move.promotion = 'queen';
    // chessops gives castling as the king taking its rook; the API wants the king's two squares.
    const castles = piece.role === 'king' && pos.board[pos.turn].has(move.to);
    const to = castles ? (move.to > move.from ? move.from + 2 : move.from - 2) : move.to;
    line.push(makeUci({ ...move, to }));
    pos.play(move);
  }
  return line;
}

const parseSetup = (fen: string) => parseFen(fen).unwrap();

interface Extracted {
  GameId: string;
  Result: string;
  Variant?: string;
  TimeControl?: string;
  Moves: Array<{ move: string }>;
}

test(
  "a player's exported PGN reads back through pgn-extract to every game's moves",
  { skip },
  async (t: TestContext) => {
    const { app } = await makeTestApp();
    t.after(() => app.close());
    const random = makeRandom(SEED);
    const ann = { id: 'ann-export', displayName: 'Ann "Quotes" \\ Backslash' };
    const bob = { id: 'bob-export', displayName: 'Bob' };
    const FENS = [
      undefined,
      'r3k2r/pppq1ppp/2n5/3p4/3P4/2N5/PPPQ1PPP/R3K2R b KQkq - 5 10',
      '8/P6k/8/8/8/8/6K1/8 w - - 0 60',
    ];
    const made = new Map<string, string[]>();
    for (let i = 0; i < 30; i++) {
      const fen = FENS[i % FENS.length];
      const sides = i % 2 === 0 ? { white: ann, black: bob } : { white: bob, black: ann };
      const clock = i % 3 === 0 ? { initial: 300_000, increment: 3_000 } : undefined;
      const url = fen === undefined ? '/api/board/game' : '/api/board/game/import/fen';
      const created = await app.inject({
        method: 'POST',
        url,
        payload: { ...sides, ...(fen ? { fen } : {}), ...(clock ? { clock } : {}) },
      });
      t.assert.equal(created.statusCode, 201, created.body);
      const id = json(created).gameId as string;
      for (const uci of randomLine(random, fen, 20 + Math.floor(random() * 100))) {
        const moved = await app.inject({ method: 'POST', url: `/api/board/game/${id}/move/${uci}` });
        if (moved.statusCode !== 200) break; // a clocked game's flag, or the game's end: the line stops there
      }
      if (i % 4 === 1) await app.inject({ method: 'POST', url: `/api/board/game/${id}/resign` });
      made.set(id, json(await app.inject(`/api/board/game/${id}`)).state.moves);
    }

    const exported = await app.inject(`/api/games/user/${ann.id}?ongoing=true&clocks=true`);
    t.assert.equal(exported.statusCode, 200);
    const run = spawnSync(pgnExtract!, ['-s', '--json', '-Wuci'], { input: exported.body, encoding: 'utf8' });
    t.assert.equal(run.status, 0, run.stderr);
    const games = JSON.parse(run.stdout) as Extracted[];
    t.assert.equal(games.length, made.size, 'every game, each once');
    for (const game of games) {
      const moves = made.get(game.GameId);
      t.assert.ok(moves, `a game of the export: ${game.GameId}`);
      t.assert.deepEqual(
        game.Moves.map(move => move.move.toLowerCase()), // pgn-extract writes a promotion as a7a8Q
        moves,
        `the moves of ${game.GameId}`,
      );
      t.assert.match(game.Result, /^(1-0|0-1|1\/2-1\/2|\*)$/);
      t.assert.match(game.Variant ?? '', /^(Standard|From Position)$/);
    }
    t.assert.ok(games.some(game => game.TimeControl === '300+3'));
  },
);
