/**
 * The SAN of domain/san.ts against chessops's makeSanAndPlay, which it replaces for less work: the same text, and
 * the same position after, for every move of many random games (promotions to each piece, several pieces of a kind
 * that can reach one square, checks, mates and stalemates come up among them) and of positions made for them.
 */
import { test, type TestContext } from 'node:test';
import { Chess } from 'chessops/chess';
import { makeFen, parseFen } from 'chessops/fen';
import { makeSanAndPlay } from 'chessops/san';
import type { NormalMove, Role } from 'chessops/types';
import { sanAndPlay } from '../../src/domain/san.ts';

/** A small seeded generator, so that a failure repeats. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every legal move of a position, each promotion once per piece. */
function legalMoves(pos: Chess): NormalMove[] {
  const moves: NormalMove[] = [];
  for (const [from, dests] of pos.allDests()) {
    const pawn = pos.board.getRole(from) === 'pawn';
    for (const to of dests) {
      const last = to >> 3 === 0 || to >> 3 === 7;
      if (pawn && last) {
        for (const promotion of ['queen', 'rook', 'bishop', 'knight'] as Role[]) moves.push({ from, to, promotion });
      } else moves.push({ from, to });
    }
  }
  return moves;
}

/** Plays random games from `start`, checking each move's SAN against chessops's; the number of moves checked. */
function compareGames(t: TestContext, start: Chess, games: number, plies: number, seed: number): number {
  const next = random(seed);
  let checked = 0;
  for (let g = 0; g < games; g++) {
    const ours = start.clone();
    const theirs = start.clone();
    for (let ply = 0; ply < plies; ply++) {
      const moves = legalMoves(ours);
      if (moves.length === 0) break;
      const move = moves[Math.floor(next() * moves.length)]!;
      const expected = makeSanAndPlay(theirs, move);
      const actual = sanAndPlay(ours, move);
      if (actual !== expected)
        t.assert.equal(actual, expected, `${makeFen(theirs.toSetup())} after ${JSON.stringify(move)}`);
      checked++;
    }
    t.assert.equal(makeFen(ours.toSetup()), makeFen(theirs.toSetup()));
  }
  return checked;
}

test('the SAN of every move of random games is chessops own', (t: TestContext) => {
  const checked = compareGames(t, Chess.default(), 300, 250, 1);
  t.assert.ok(checked > 30_000, `${checked} moves`);
});

test('positions of many pieces of a kind, promotions, checks and mates: the same SAN', (t: TestContext) => {
  for (const [i, fen] of [
    'k7/8/8/2Q1Q3/8/2Q1Q3/8/K7 w - - 0 1', // four queens that reach one square
    'k7/2P1P3/8/8/8/8/2p1p3/K7 w - - 0 1', // promotions on both sides
    'r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1', // castling both ways, rooks on one rank and file
    '7k/5Q2/6K1/8/8/8/8/8 w - - 0 1', // mate and stalemate in one
    'N6k/8/1N6/8/N1N5/8/8/K7 w - - 0 1', // knights by file and by rank
  ].entries()) {
    const start = Chess.fromSetup(parseFen(fen).unwrap()).unwrap();
    compareGames(t, start, 200, 40, 100 + i);
  }
});
