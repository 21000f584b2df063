/**
 * A player's archive of finished games, for the export's guard test and benchmark (DECISIONS §22): game `i` is a
 * 40-ply blitz game with clocks, created a minute after game `i - 1`, the player white in even games and black in
 * odd ones against one of 50 opponents, resigned.
 *
 * ```ts
 * await store.create(archiveRecord(0, 'archivist'), { deadline: null, ended: true });
 * ```
 */
import type { GameRecord } from '../../src/domain/game.ts';
import { INITIAL_FEN } from '../../src/domain/notation.ts';

/** 40 plies of a real game (a Ruy Lopez), as UCI. */
const LINE = (
  'e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7 f1e1 b7b5 a4b3 d7d6 c2c3 e8g8 h2h3 c6b8 d2d4 b8d7 ' +
  'b1d2 c8b7 b3c2 f8e8 d2f1 e7f8 f1g3 g7g6 c1g5 h7h6 g5d2 f8g7 a2a4 c7c5 d4d5 c5c4 b2b4 d7b6 a4a5 b6d7'
).split(' ');

export function archiveRecord(i: number, player: string): GameRecord {
  const at = Date.UTC(2020, 0, 1) + i * 60_000;
  const me = { id: player, displayName: player };
  const other = { id: `opp${i % 50}`, displayName: `Opponent ${i % 50}` };
  return {
    id: `Ex${String(i).padStart(6, '0')}`,
    version: 1,
    createdAt: new Date(at).toISOString(),
    white: i % 2 === 0 ? me : other,
    black: i % 2 === 0 ? other : me,
    startFen: INITIAL_FEN,
    moves: LINE,
    redo: [],
    pendingPromotion: null,
    drawOffer: null,
    takebackOffer: null,
    result: { kind: 'resign', winner: i % 3 === 0 ? 'white' : 'black' },
    clock: {
      control: { initial: 300_000, increment: 3_000 },
      white: 250_000,
      black: 250_000,
      since: at,
      phase: 2,
      timedFrom: 2,
    },
    moveClocks: LINE.map((_, ply) => 300_000 - ply * 2_000),
  };
}
