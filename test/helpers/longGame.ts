/**
 * A long legal game that never ends by itself: seeded random moves that keep the halfmove clock under 120 (a pawn
 * move once it gets there), never reach a position a third time, and never end the game. Long games are what the
 * memory bound and the undo checkpoints are about; seed 1 reaches 10,000 plies.
 *
 * ```ts
 * const sans = longGameSans(10_000); // ['Nf3', 'Nc6', ...]
 * const pgn = pgnOf(sans);
 * ```
 */
import { Chess, type Position } from 'chessops/chess';
import { makeFen } from 'chessops/fen';
import { makeSanAndPlay } from 'chessops/san';
import type { NormalMove } from 'chessops/types';

/** mulberry32: a small seeded PRNG. */
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

const positionKey = (pos: Position): string => makeFen(pos.toSetup()).split(' ').slice(0, 4).join(' ');

/** The SAN of the first `plies` moves of the seeded game; throws when the seed's game is shorter. */
export function longGameSans(plies: number, seed = 1): string[] {
  const random = makeRandom(seed);
  const pos = Chess.default();
  const seen = new Map<string, number>([[positionKey(pos), 1]]);
  const sans: string[] = [];
  while (sans.length < plies) {
    const moves: NormalMove[] = [];
    for (const [from, dests] of pos.allDests()) {
      for (const to of dests) {
        const promotes = pos.board.get(from)?.role === 'pawn' && (to >> 3 === 7 || to >> 3 === 0);
        moves.push(promotes ? { from, to, promotion: 'queen' } : { from, to });
      }
    }
    const isPawn = (m: NormalMove) => pos.board.get(m.from)?.role === 'pawn';
    const isCapture = (m: NormalMove) => pos.board[pos.turn === 'white' ? 'black' : 'white'].has(m.to);
    const pools = [
      pos.halfmoves < 120 ? moves.filter(m => !isPawn(m) && !isCapture(m)) : [],
      moves.filter(m => isPawn(m) && !isCapture(m)),
      moves.filter(isPawn),
      moves.filter(isCapture),
      moves,
    ];
    const pool = pools.find(candidates => candidates.length > 0) ?? [];
    let chosen: NormalMove | undefined;
    for (let tries = 0; tries < 30 && pool.length > 0 && !chosen; tries++) {
      const move = pool[Math.floor(random() * pool.length)]!;
      const after = pos.clone();
      after.play(move);
      if ((seen.get(positionKey(after)) ?? 0) < 2 && !after.isEnd() && !after.isInsufficientMaterial()) chosen = move;
    }
    if (!chosen) throw new Error(`the game of seed ${seed} stops after ${sans.length} plies`);
    sans.push(makeSanAndPlay(pos, chosen));
    const key = positionKey(pos);
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return sans;
}

/** A PGN of the moves from the standard start, unfinished (`*`). */
export function pgnOf(sans: readonly string[]): string {
  const movetext = sans.map((san, i) => (i % 2 === 0 ? `${i / 2 + 1}. ${san}` : san)).join(' ');
  return `[Event "Long game"]\n[Result "*"]\n\n${movetext} *\n`;
}
