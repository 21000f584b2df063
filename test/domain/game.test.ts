/**
 * The game record and its transitions (SPEC "States and transitions", DECISIONS §3-§8), one row per position.
 *
 * Every step that is expected to succeed goes through `applied`, which checks the one gameState event and the
 * version; every step that is expected to fail goes through `rejected`, which checks the code, the field and
 * that the input game is left exactly as it was.
 */
import { suite, test, type TestContext } from 'node:test';
import fc from 'fast-check';
import { DomainError, type Result } from '../../src/domain/errors.ts';
import { gameFromFen, newGame, restoreGame, type Change, type Game } from '../../src/domain/game.ts';
import { drawAction, makeMove, redo, resign, undo } from '../../src/domain/transitions.ts';
import { exportPgn, gameFromPgn } from '../../src/domain/pgn.ts';
import { gameStateOf, legalMovesOf } from '../../src/domain/views.ts';
import { CHECKPOINT_PLIES } from '../../src/domain/line.ts';
import { statusOf, winnerOf } from '../../src/domain/status.ts';
import { INITIAL_FEN, makeFen } from '../../src/domain/notation.ts';
import { longGameSans, pgnOf } from '../helpers/longGame.ts';
import type { GameStatus } from '../../src/contract/vocabulary.ts';
import type { ErrorCode, Color, DrawAction } from '../../src/contract/vocabulary.ts';
import type { GameState } from '../../src/contract/shapes.ts';

const INPUT = { id: 'AbCd1234', createdAt: '2026-01-31T12:00:00.000Z' };
const PGN_OPTIONS = { maxPlies: 10000 };
const DRAW_ACTIONS: readonly string[] = ['offer', 'accept', 'decline', 'claim'];

/** A step of a scenario: a UCI move, or one of undo, redo, resign and the draw actions. */
function attempt(game: Game, step: string): Result<Change> {
  if (step === 'undo') return undo(game);
  if (step === 'redo') return redo(game);
  if (step === 'resign') return resign(game);
  if (DRAW_ACTIONS.includes(step)) return drawAction(game, step as DrawAction);
  return makeMove(game, step);
}

/** Asserts a successful transition: version + 1 and exactly one gameState event carrying the new state. */
function applied(t: TestContext, before: Game, result: Result<Change>, step = ''): Game {
  if (!result.ok) throw new Error(`step '${step}' was refused: ${result.error.code} ${result.error.message}`);
  const change = result.value;
  t.assert.deepStrictEqual(Object.keys(change).sort(), ['event', 'game']);
  t.assert.deepStrictEqual(change.event, { type: 'gameState', state: gameStateOf(change.game) });
  t.assert.equal(change.game.record.version, before.record.version + 1);
  return change.game;
}

function play(t: TestContext, game: Game, steps: readonly string[]): Game {
  for (const step of steps) game = applied(t, game, attempt(game, step), step);
  return game;
}

function fromFen(fen: string): Game {
  const result = gameFromFen(INPUT, fen);
  if (!result.ok) throw new Error(`FEN ${fen} was refused: ${result.error.message}`);
  return result.value;
}

function fromPgn(pgn: string, maxPlies = PGN_OPTIONS.maxPlies): Game {
  const result = gameFromPgn(INPUT, pgn, { maxPlies });
  if (!result.ok) throw new Error(`PGN was refused: ${result.error.message}`);
  return result.value;
}

const start = (fen?: string): Game => (fen === undefined ? newGame(INPUT) : fromFen(fen));

/** A deep copy of a game, to show that a refused transition changed nothing. */
const snapshot = (game: Game): Game => ({
  ...game,
  record: structuredClone(game.record),
  pos: game.pos.clone(),
  sans: [...game.sans],
  positionHashes: [...game.positionHashes],
});

function rejected(t: TestContext, game: Game, step: string, code: ErrorCode, field?: string): DomainError {
  const before = snapshot(game);
  const result = attempt(game, step);
  if (result.ok) throw new Error(`step '${step}' was accepted; expected ${code}`);
  t.assert.ok(result.error instanceof DomainError);
  t.assert.equal(result.error.code, code);
  t.assert.equal(result.error.field, field);
  t.assert.equal(result.error.status, 400);
  t.assert.ok(result.error.message.length > 0);
  t.assert.deepStrictEqual(game, before);
  return result.error;
}

/** restoreGame(record) must rebuild the same game as the live one. */
function assertRestores(t: TestContext, game: Game): void {
  const restored = restoreGame(structuredClone(game.record));
  t.assert.deepStrictEqual(restored.record, game.record);
  t.assert.deepStrictEqual(gameStateOf(restored), gameStateOf(game));
  t.assert.deepStrictEqual(legalMovesOf(restored), legalMovesOf(game));
  t.assert.deepStrictEqual(restored.sans, game.sans);
  t.assert.deepStrictEqual(restored.positionHashes, game.positionHashes);
  t.assert.equal(restored.fen, game.fen);
  t.assert.equal(restored.startPly, game.startPly);
  t.assert.equal(restored.positionEnd, game.positionEnd);
  t.assert.deepStrictEqual(restored.checkpoints.map(makeFen), game.checkpoints.map(makeFen));
}

const ENDED: ReadonlySet<GameStatus> = new Set(['checkmate', 'stalemate', 'resign', 'draw', 'insufficientMaterial']);

const FOOLS_MATE = ['f2f3', 'e7e5', 'g2g4', 'd8h4'];
const KNIGHTS_CYCLE = ['g1f3', 'g8f6', 'f3g1', 'f6g8'];
const repeat = <T>(items: readonly T[], times: number): T[] => Array.from({ length: times }, () => items).flat();

/** A back-rank mate is available with a1a8; the halfmove clock is given. */
const backRank = (clock: number) => `6k1/5ppp/8/8/8/8/8/R5K1 w - - ${clock} 100`;
/** White king on e8 in check from a8; b7b8 blocks, b7a8 captures, both promote. */
const blockByPromotion = (clock: number) => `r3K3/1P6/8/8/8/8/8/k7 w - - ${clock} 100`;
const PROMOTION = '4k3/P7/8/8/8/8/8/4K3 w - - 0 1';
const CASTLING = 'r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1';

const OPERA_PGN = `[Event "Paris"]
[White "Guest A"]
[Black "?"]
[Result "1-0"]

1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7
8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7
14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8# 1-0
`;
const OPERA_UCI = (
  'e2e4 e7e5 g1f3 d7d6 d2d4 c8g4 d4e5 g4f3 d1f3 d6e5 f1c4 g8f6 f3b3 d8e7 b1c3 c7c6 c1g5 ' +
  'b7b5 c3b5 c6b5 c4b5 b8d7 e1c1 a8d8 d1d7 d8d7 h1d1 e7e6 b5d7 f6d7 b3b8 d7b8 d1d8'
).split(' ');
const OPERA_MOVETEXT =
  '1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7 8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 ' +
  '11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7 14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8#';

interface StatusRow {
  name: string;
  fen?: string;
  steps: string[];
  status: GameStatus;
  winner?: Color; // null when absent
  turn?: Color;
}

const STATUSES: StatusRow[] = [
  { name: 'a new game', steps: [], status: 'started', turn: 'white' },
  { name: 'after two quiet moves', steps: ['e2e4', 'e7e5'], status: 'started', turn: 'white' },
  { name: 'a check', steps: ['e2e4', 'f7f6', 'd1h5'], status: 'check', turn: 'black' },
  { name: 'fool’s mate', steps: FOOLS_MATE, status: 'checkmate', winner: 'black', turn: 'white' },
  {
    name: 'scholar’s mate',
    steps: ['e2e4', 'e7e5', 'f1c4', 'b8c6', 'd1h5', 'g8f6', 'h5f7'],
    status: 'checkmate',
    winner: 'white',
    turn: 'black',
  },
  { name: 'back-rank mate', fen: backRank(0), steps: ['a1a8'], status: 'checkmate', winner: 'white' },
  { name: 'imported mate', fen: '7k/6Q1/6K1/8/8/8/8/8 b - - 0 1', steps: [], status: 'checkmate', winner: 'white' },
  { name: 'stalemate by a move', fen: '7k/8/6K1/8/8/8/8/5Q2 w - - 0 1', steps: ['f1f7'], status: 'stalemate' },
  { name: 'imported stalemate', fen: '7k/5Q2/6K1/8/8/8/8/8 b - - 0 1', steps: [], status: 'stalemate' },
  { name: 'white resigns', steps: ['resign'], status: 'resign', winner: 'black' },
  { name: 'black resigns', steps: ['e2e4', 'resign'], status: 'resign', winner: 'white' },
  { name: 'resignation in check', steps: ['e2e4', 'f7f6', 'd1h5', 'resign'], status: 'resign', winner: 'white' },
  {
    name: 'resignation with a promotion pending',
    fen: PROMOTION,
    steps: ['a7a8', 'resign'],
    status: 'resign',
    winner: 'black',
  },
  { name: 'resignation with a draw offered', steps: ['offer', 'resign'], status: 'resign', winner: 'black' },
  { name: 'draw agreed', steps: ['e2e4', 'offer', 'accept'], status: 'draw' },
  { name: 'draw claimed', fen: backRank(100), steps: ['claim'], status: 'draw' },
  { name: 'draw by the 75-move rule', fen: backRank(149), steps: ['g1f1'], status: 'draw' },
  { name: 'draw by fivefold repetition', steps: repeat(KNIGHTS_CYCLE, 4), status: 'draw' },
  { name: 'draw offered by white', steps: ['offer'], status: 'drawOffered', turn: 'white' },
  { name: 'draw offered by black', steps: ['e2e4', 'offer'], status: 'drawOffered', turn: 'black' },
  { name: 'imported clock at 100', fen: backRank(100), steps: [], status: 'fiftyMoveAvailable' },
  { name: 'clock reaches 100 by a move', fen: backRank(99), steps: ['g1f1'], status: 'fiftyMoveAvailable' },
  {
    name: 'a pawn move resets the clock',
    fen: '6k1/5ppp/8/8/8/8/7P/R5K1 w - - 120 100',
    steps: ['h2h3'],
    status: 'started',
  },
  { name: 'promotion pending (white)', fen: PROMOTION, steps: ['a7a8'], status: 'promotionPending', turn: 'white' },
  {
    name: 'promotion pending (black)',
    fen: '4k3/8/8/8/8/8/p7/4K3 b - - 0 1',
    steps: ['a2a1'],
    status: 'promotionPending',
    turn: 'black',
  },
  {
    name: 'bare kings after a capture',
    fen: '8/8/4k3/8/8/3K4/4r3/8 w - - 0 1',
    steps: ['d3e2'],
    status: 'insufficientMaterial',
  },
  {
    name: 'king and knight against king after a capture',
    fen: '8/8/4k3/8/8/3K4/4r3/5N2 b - - 0 1',
    steps: ['e2e3', 'f1e3'],
    status: 'insufficientMaterial',
  },
  { name: 'imported bare kings', fen: '8/8/4k3/8/8/3K4/8/8 w - - 0 1', steps: [], status: 'insufficientMaterial' },
  { name: 'a knight each is not insufficient', fen: '8/8/4kn2/8/8/3KN3/8/8 w - - 0 1', steps: [], status: 'started' },
];

suite('status of each position', () => {
  for (const row of STATUSES) {
    test(row.name, (t: TestContext) => {
      const game = play(t, start(row.fen), row.steps);
      const state = gameStateOf(game);
      t.assert.equal(state.status, row.status);
      t.assert.equal(statusOf(game), row.status);
      t.assert.equal(state.winner, row.winner ?? null);
      t.assert.equal(winnerOf(game), row.winner ?? null);
      if (row.turn) t.assert.equal(state.turn, row.turn);
      const ended = ENDED.has(row.status);
      t.assert.equal(legalMovesOf(game).length === 0, ended);
      assertRestores(t, game);
    });
  }
});

suite('a game that has ended refuses every change with GAME_OVER', () => {
  for (const row of STATUSES.filter(r => ENDED.has(r.status))) {
    test(row.name, (t: TestContext) => {
      const game = play(t, start(row.fen), row.steps);
      // GAME_OVER comes before legality and before the draw actions' own rules
      for (const step of ['e2e4', 'a1a8', 'a2a2', 'e1g1', 'resign', 'offer', 'accept', 'decline', 'claim']) {
        rejected(t, game, step, 'GAME_OVER');
      }
      t.assert.deepStrictEqual(legalMovesOf(game), []);
      t.assert.deepStrictEqual(legalMovesOf(game, 'e2'), []);
      t.assert.equal(gameStateOf(game).redoAvailable, false);
    });
  }
});

interface FinalRow {
  name: string;
  fen?: string;
  steps: string[]; // end with the final action
  status: GameStatus;
}

/** Resignation, agreed and claimed draws are final: no undo, no redo (DECISIONS §5). */
const FINAL_ENDS: FinalRow[] = [
  { name: 'resignation after moves and an undo', steps: ['e2e4', 'e7e5', 'g1f3', 'undo', 'resign'], status: 'resign' },
  { name: 'resignation before any move', steps: ['resign'], status: 'resign' },
  { name: 'agreed draw after moves and an undo', steps: ['e2e4', 'e7e5', 'undo', 'offer', 'accept'], status: 'draw' },
  {
    name: 'claimed draw after moves and an undo',
    fen: backRank(99),
    steps: ['g1f1', 'g8h8', 'undo', 'claim'],
    status: 'draw',
  },
];

suite('final ends cannot be undone', () => {
  for (const row of FINAL_ENDS) {
    test(row.name, (t: TestContext) => {
      const game = play(t, start(row.fen), row.steps);
      const state = gameStateOf(game);
      t.assert.equal(state.status, row.status);
      t.assert.equal(state.undoAvailable, false);
      t.assert.equal(state.redoAvailable, false);
      rejected(t, game, 'undo', 'GAME_OVER');
      rejected(t, game, 'redo', 'GAME_OVER');
      assertRestores(t, game);
    });
  }
});

interface PositionEndRow {
  name: string;
  fen?: string;
  steps: string[]; // the last one reaches the end
  status: GameStatus;
  winner?: Color;
  resumed: GameStatus; // the status after undoing the last move
}

/** Ends reached by the position itself can be undone, and redo reaches them again (DECISIONS §3, §5). */
const POSITION_ENDS: PositionEndRow[] = [
  { name: 'checkmate', steps: FOOLS_MATE, status: 'checkmate', winner: 'black', resumed: 'started' },
  {
    name: 'stalemate',
    fen: '7k/8/6K1/8/8/8/8/5Q2 w - - 0 1',
    steps: ['f1f7'],
    status: 'stalemate',
    resumed: 'started',
  },
  {
    name: 'insufficient material',
    fen: '8/8/4k3/8/8/3K4/4r3/8 w - - 0 1',
    steps: ['d3e2'],
    status: 'insufficientMaterial',
    resumed: 'started',
  },
  { name: '75-move rule', fen: backRank(149), steps: ['g1f1'], status: 'draw', resumed: 'fiftyMoveAvailable' },
  { name: 'fivefold repetition', steps: repeat(KNIGHTS_CYCLE, 4), status: 'draw', resumed: 'started' },
  {
    name: 'checkmate at clock 150',
    fen: backRank(149),
    steps: ['a1a8'],
    status: 'checkmate',
    winner: 'white',
    resumed: 'fiftyMoveAvailable',
  },
];

suite('position ends can be undone and redone', () => {
  for (const row of POSITION_ENDS) {
    test(row.name, (t: TestContext) => {
      const ended = play(t, start(row.fen), row.steps);
      const endedState = gameStateOf(ended);
      t.assert.equal(endedState.status, row.status);
      t.assert.equal(endedState.winner, row.winner ?? null);
      t.assert.equal(endedState.undoAvailable, true);
      t.assert.equal(endedState.redoAvailable, false);

      const resumed = applied(t, ended, undo(ended));
      const resumedState = gameStateOf(resumed);
      t.assert.equal(resumedState.status, row.resumed);
      t.assert.equal(resumedState.winner, null);
      t.assert.equal(resumedState.redoAvailable, true);
      t.assert.deepStrictEqual(resumedState.moves, endedState.moves.slice(0, -1));
      t.assert.ok(legalMovesOf(resumed).some(move => move.uci === row.steps.at(-1)));
      assertRestores(t, resumed);
      // the resumed game is playable
      const other = legalMovesOf(resumed).find(move => move.uci !== row.steps.at(-1))!;
      applied(t, resumed, makeMove(resumed, other.uci));

      const again = applied(t, resumed, redo(resumed));
      t.assert.deepStrictEqual(gameStateOf(again), endedState);
      assertRestores(t, again);
    });
  }
});

interface PrecedenceRow {
  name: string;
  fen?: string;
  steps: string[];
  status: GameStatus;
  winner?: Color;
}

/** DECISIONS §3: ended, promotionPending, drawOffered, fiftyMoveAvailable, check, started. */
const PRECEDENCE: PrecedenceRow[] = [
  { name: 'check', fen: blockByPromotion(50), steps: [], status: 'check' },
  { name: 'fiftyMoveAvailable beats check', fen: blockByPromotion(120), steps: [], status: 'fiftyMoveAvailable' },
  { name: 'drawOffered beats check', fen: blockByPromotion(50), steps: ['offer'], status: 'drawOffered' },
  { name: 'drawOffered beats fiftyMoveAvailable', fen: blockByPromotion(120), steps: ['offer'], status: 'drawOffered' },
  { name: 'promotionPending beats check', fen: blockByPromotion(50), steps: ['b7b8'], status: 'promotionPending' },
  {
    name: 'promotionPending beats drawOffered',
    fen: blockByPromotion(120),
    steps: ['offer', 'b7b8'],
    status: 'promotionPending',
  },
  {
    name: 'an offer while promotion is pending',
    fen: blockByPromotion(120),
    steps: ['b7a8', 'offer'],
    status: 'promotionPending',
  },
  {
    name: 'decline with promotion pending',
    fen: blockByPromotion(120),
    steps: ['offer', 'b7b8', 'decline'],
    status: 'promotionPending',
  },
  {
    name: 'decline re-derives fiftyMoveAvailable',
    fen: blockByPromotion(120),
    steps: ['offer', 'decline'],
    status: 'fiftyMoveAvailable',
  },
  { name: 'decline re-derives check', fen: blockByPromotion(50), steps: ['offer', 'decline'], status: 'check' },
  { name: 'blocking promotion applied', fen: blockByPromotion(120), steps: ['b7b8', 'b7b8q'], status: 'started' },
  { name: 'capturing promotion gives check', fen: blockByPromotion(120), steps: ['b7a8', 'b7a8q'], status: 'check' },
  {
    name: 'checkmate on the move that reaches 150',
    fen: backRank(149),
    steps: ['a1a8'],
    status: 'checkmate',
    winner: 'white',
  },
  {
    name: 'stalemate on the move that reaches 150',
    fen: '7k/8/6K1/8/8/8/8/5Q2 w - - 149 100',
    steps: ['f1f7'],
    status: 'stalemate',
  },
  { name: 'a quiet move that reaches 150 draws', fen: backRank(149), steps: ['g1f1'], status: 'draw' },
  { name: 'a quiet move that reaches 149 does not', fen: backRank(148), steps: ['g1f1'], status: 'fiftyMoveAvailable' },
  { name: 'a move clears an offer at 148', fen: backRank(147), steps: ['offer', 'g1f1'], status: 'fiftyMoveAvailable' },
  {
    name: 'a check at 121 is fiftyMoveAvailable',
    fen: '6k1/8/8/8/8/8/8/R5K1 w - - 120 100',
    steps: ['a1a8'],
    status: 'fiftyMoveAvailable',
  },
  { name: 'black reaches 150', fen: '6k1/5ppp/8/8/8/8/8/R5K1 b - - 149 100', steps: ['g8h8'], status: 'draw' },
  {
    name: 'a pawn move at 149 resets',
    fen: '6k1/5ppp/8/8/8/8/8/R5K1 b - - 149 100',
    steps: ['h7h6'],
    status: 'started',
  },
  {
    name: 'a capture at 149 resets',
    fen: '6k1/5ppp/8/8/8/8/r7/R5K1 w - - 149 100',
    steps: ['a1a2'],
    status: 'started',
  },
];

suite('status precedence', () => {
  for (const row of PRECEDENCE) {
    test(row.name, (t: TestContext) => {
      const game = play(t, start(row.fen), row.steps);
      t.assert.equal(gameStateOf(game).status, row.status);
      t.assert.equal(gameStateOf(game).winner, row.winner ?? null);
      assertRestores(t, game);
    });
  }
});

suite('repetition', () => {
  test('fivefold repetition draws at the fifth occurrence, not at the third or fourth', (t: TestContext) => {
    let game = newGame(INPUT);
    for (let cycle = 1; cycle <= 4; cycle++) {
      game = play(t, game, KNIGHTS_CYCLE);
      // the initial position has now occurred cycle + 1 times
      t.assert.equal(gameStateOf(game).status, cycle + 1 < 5 ? 'started' : 'draw');
      if (cycle === 2) rejected(t, game, 'claim', 'CLAIM_NOT_AVAILABLE'); // threefold is not claimable
    }
    t.assert.equal(game.record.moves.length, 16);
    rejected(t, game, 'g1f3', 'GAME_OVER');
  });

  test('the occurrences may come by different routes', (t: TestContext) => {
    const routes = [
      ['g1f3', 'g8f6', 'f3g1', 'f6g8'],
      ['b1c3', 'b8c6', 'c3b1', 'c6b8'],
      ['g1h3', 'g8h6', 'h3g1', 'h6g8'],
      ['b1a3', 'b8a6', 'a3b1', 'a6b8'],
    ];
    let game = newGame(INPUT);
    for (const [i, route] of routes.entries()) {
      game = play(t, game, route);
      t.assert.equal(gameStateOf(game).status, i < 3 ? 'started' : 'draw');
    }
  });

  test('a position with other castling rights is another position', (t: TestContext) => {
    // the start has all castling rights; after the kings step out and back, the same board has none
    const cycle = ['e1f1', 'e8f8', 'f1e1', 'f8e8'];
    let game = play(t, fromFen(CASTLING), repeat(cycle, 4));
    t.assert.equal(gameStateOf(game).status, 'started');
    game = play(t, game, ['e1f1']);
    t.assert.equal(gameStateOf(game).status, 'started');
    // the board after e1f1 e8f8 occurred after plies 2, 6, 10, 14 and now 18
    game = play(t, game, ['e8f8']);
    t.assert.equal(gameStateOf(game).status, 'draw');
  });

  test('a position with an en-passant capture is another position', (t: TestContext) => {
    // after d7d5, e5xd6 is legal; the same board after each cycle has no such capture
    const cycle = ['g1f3', 'b8c6', 'f3g1', 'c6b8'];
    let game = play(t, fromFen('1n2k3/3p4/8/4P3/8/8/8/4K1N1 b - - 0 1'), ['d7d5', ...repeat(cycle, 4)]);
    // that board stood after plies 1, 5, 9, 13 and 17, but only four times without the capture
    t.assert.equal(gameStateOf(game).status, 'started');
    // the board after g1f3 stood after plies 2, 6, 10, 14 and now 18
    game = play(t, game, ['g1f3']);
    t.assert.equal(gameStateOf(game).status, 'draw');
    assertRestores(t, game);
  });

  test('an en-passant square that no legal move can use does not make another position', (t: TestContext) => {
    // after c7c5, b5xc6 would expose the white king on a5 to the rook on h5
    const cycle = ['a5a4', 'h1g1', 'a4a5', 'g1h1'];
    let game = play(t, fromFen('8/2p5/8/KP5r/8/8/8/7k b - - 0 1'), ['c7c5', ...repeat(cycle, 3), ...cycle.slice(0, 3)]);
    t.assert.equal(gameStateOf(game).status, 'started');
    // the board after c7c5 stood after plies 1, 5, 9, 13 and now 17: five times the same position
    game = play(t, game, ['g1h1']);
    t.assert.equal(gameStateOf(game).status, 'draw');
    assertRestores(t, game);
  });

  test('undo and redo across a fivefold repetition', (t: TestContext) => {
    const drawn = play(t, newGame(INPUT), repeat(KNIGHTS_CYCLE, 4));
    t.assert.equal(gameStateOf(drawn).status, 'draw');
    const undone = play(t, drawn, ['undo']);
    t.assert.equal(gameStateOf(undone).status, 'started');
    t.assert.equal(gameStateOf(undone).fen, 'rnbqkb1r/pppppppp/5n2/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 15 8');
    t.assert.equal(gameStateOf(play(t, undone, ['redo'])).status, 'draw');
    assertRestores(t, undone);
  });

  test('a repetition imported from PGN ends the game there', (t: TestContext) => {
    const game = fromPgn('1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 7. Nf3 Nf6 8. Ng1 Ng8');
    t.assert.equal(gameStateOf(game).status, 'draw');
    const four = fromPgn('1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 7. Nf3 Nf6');
    t.assert.equal(gameStateOf(four).status, 'started');
    const after = gameFromPgn(
      INPUT,
      '1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 7. Nf3 Nf6 8. Ng1 Ng8 9. e4',
      PGN_OPTIONS,
    );
    t.assert.equal(after.ok, false);
    t.assert.equal(after.ok ? '' : after.error.code, 'INVALID_PGN');
  });
});

/** A refused step: [name, start FEN ('' for the initial position), steps before it (space-separated), the step]. */
type ErrorCase = [name: string, fen: string, steps: string, step: string];

const FOOLS = FOOLS_MATE.join(' ');

/** One group per code, with the field DECISIONS §1 gives it. */
const ERRORS: Array<{ code: ErrorCode; field?: string; cases: ErrorCase[] }> = [
  {
    code: 'INVALID_MOVE',
    field: 'uci',
    cases: [
      ['a pawn three squares', '', '', 'e2e5'],
      ['a piece of the side not to move', '', '', 'e7e5'],
      ['an empty origin square', '', '', 'e3e4'],
      ['origin and target the same', '', '', 'e2e2'],
      ['a capture of one’s own piece', '', '', 'd1d2'],
      ['a knight moving like a bishop', '', '', 'g1e3'],
      ['a promotion piece on a pawn move', '', '', 'e2e4q'],
      ['a promotion piece on a knight move', '', '', 'g1f3n'],
      ['a promotion piece on a king move to the back rank', PROMOTION, '', 'e1d1q'],
      ['the king into check', '4k3/8/8/8/8/8/3r4/4K3 w - - 0 1', '', 'e1e2'],
      ['a pinned piece', '4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1', '', 'e2d3'],
      ['a move that ignores check', '', 'e2e4 f7f6 d1h5', 'a7a6'],
      ['castling as king takes rook (kingside)', CASTLING, '', 'e1h1'],
      ['castling as king takes rook (queenside)', CASTLING, '', 'e1a1'],
      ['black castling as king takes rook', CASTLING, 'a1a2', 'e8h8'],
      ['castling through check', 'r3kr2/8/8/8/8/8/8/R3K2R w KQq - 0 1', '', 'e1g1'],
      ['castling into check', '4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1', '', 'e1g1'],
      ['castling out of check', '4k3/8/8/8/8/8/8/r3K2R w K - 0 1', '', 'e1g1'],
      ['castling without the right', '4k3/8/8/8/8/8/8/R3K2R w Q - 0 1', '', 'e1g1'],
      ['castling through pieces', '', '', 'e1g1'],
      ['castling after the king went and came back', CASTLING, 'e1f1 e8f8 f1e1 f8e8', 'e1g1'],
      ['castling after the rook was taken', 'r3k2r/8/8/8/8/5B2/8/4K3 w kq - 0 1', 'f3a8', 'e8c8'],
      ['en passant one move too late', '', 'e2e4 a7a6 e4e5 d7d5 h2h3 h7h6', 'e5d6'],
      ['en passant that exposes the king', '7k/2p5/8/KP5r/8/8/8/8 b - - 0 1', 'c7c5', 'b5c6'],
      ['a pawn to the last rank diagonally without a capture', PROMOTION, '', 'a7b8'],
      ['the same with a piece', PROMOTION, '', 'a7b8q'],
      ['a pawn to an occupied last-rank square', 'n3k3/P7/8/8/8/8/8/4K3 w - - 0 1', '', 'a7a8'],
      ['a pinned pawn to the last rank', 'k7/r5PK/8/8/8/8/8/8 w - - 0 1', '', 'g7g8'],
      ['a promotion that ignores check', '4k3/P7/8/8/8/8/8/r3K3 w - - 0 1', '', 'a7a8'],
      ['an illegal move while a promotion is pending', PROMOTION, 'a7a8', 'e1e3'],
      ['a king as promotion piece', PROMOTION, '', 'a7a8k'],
    ],
  },
  {
    code: 'GAME_OVER',
    cases: [
      ['a move after checkmate', '', FOOLS, 'e1f2'],
      ['an illegal move after checkmate', '', FOOLS, 'e2e5'],
      ['redo after resignation with nothing to redo', '', 'resign', 'redo'],
      ['undo after resignation with nothing to undo', '', 'resign', 'undo'],
      ['accept after a claimed draw', backRank(100), 'claim', 'accept'],
      ['claim after the 75-move rule', backRank(149), 'g1f1', 'claim'],
    ],
  },
  {
    code: 'NO_UNDO',
    cases: [
      ['undo of a new game', '', '', 'undo'],
      ['undo of a FEN import', backRank(0), '', 'undo'],
      ['undo of an imported mate', '7k/6Q1/6K1/8/8/8/8/8 b - - 0 1', '', 'undo'],
      ['undo once too often', '', 'e2e4 e7e5 undo undo', 'undo'],
      ['undo of a pending promotion without history', PROMOTION, 'a7a8', 'undo'],
    ],
  },
  {
    code: 'NO_REDO',
    cases: [
      ['redo of a new game', '', '', 'redo'],
      ['redo after a new move', '', 'e2e4 e7e5 undo d7d5', 'redo'],
      ['redo once too often', '', 'e2e4 undo redo', 'redo'],
    ],
  },
  {
    code: 'NO_DRAW_OFFER',
    cases: [
      ['accept without an offer', '', '', 'accept'],
      ['decline without an offer', '', 'e2e4', 'decline'],
      ['accept after a decline', '', 'offer decline', 'accept'],
      ['accept after a move cleared the offer', '', 'offer e2e4', 'accept'],
      ['accept after an undo cleared the offer', '', 'e2e4 offer undo', 'accept'],
      ['accept after a redo cleared the offer', '', 'e2e4 undo offer redo', 'accept'],
    ],
  },
  {
    code: 'DRAW_ALREADY_OFFERED',
    cases: [
      ['a second offer', '', 'offer', 'offer'],
      ['a second offer while a promotion is pending', PROMOTION, 'offer a7a8', 'offer'],
    ],
  },
  {
    code: 'CLAIM_NOT_AVAILABLE',
    cases: [
      ['claim at the start', '', '', 'claim'],
      ['claim at clock 99', backRank(99), '', 'claim'],
      ['claim after a pawn move reset the clock', '6k1/5ppp/8/8/8/8/7P/R5K1 w - - 120 100', 'h2h3', 'claim'],
      ['claim with an offer pending below 100', '', 'offer', 'claim'],
    ],
  },
];

suite('refused transitions: code, field, and nothing changed', () => {
  for (const { code, field, cases } of ERRORS) {
    for (const [name, fen, steps, step] of cases) {
      test(`${code}: ${name}`, (t: TestContext) => {
        const game = play(t, start(fen === '' ? undefined : fen), steps === '' ? [] : steps.split(' '));
        rejected(t, game, step, code, field);
      });
    }
  }

  test('INVALID_FEN names the field fen', (t: TestContext) => {
    const result = gameFromFen(INPUT, '8/8/8/8/8/8/8/8 w - - 0 1');
    if (result.ok) throw new Error('accepted');
    t.assert.equal(result.error.code, 'INVALID_FEN');
    t.assert.equal(result.error.field, 'fen');
  });

  test('INVALID_PGN names the field pgn', (t: TestContext) => {
    const result = gameFromPgn(INPUT, '1. e4 e5 2. Ke3', PGN_OPTIONS);
    if (result.ok) throw new Error('accepted');
    t.assert.equal(result.error.code, 'INVALID_PGN');
    t.assert.equal(result.error.field, 'pgn');
  });
});

suite('draw offers', () => {
  test('offer, second offer, decline, accept', (t: TestContext) => {
    const game = newGame(INPUT);
    const offered = applied(t, game, drawAction(game, 'offer'));
    t.assert.equal(gameStateOf(offered).status, 'drawOffered');
    t.assert.equal(offered.record.drawOffer, 'white');
    rejected(t, offered, 'offer', 'DRAW_ALREADY_OFFERED');

    const declined = applied(t, offered, drawAction(offered, 'decline'));
    t.assert.equal(gameStateOf(declined).status, 'started');
    t.assert.equal(declined.record.drawOffer, null);
    t.assert.deepStrictEqual(gameStateOf(declined), gameStateOf(game));

    const again = applied(t, declined, drawAction(declined, 'offer'));
    const accepted = applied(t, again, drawAction(again, 'accept'));
    const state = gameStateOf(accepted);
    t.assert.equal(state.status, 'draw');
    t.assert.equal(state.winner, null);
    t.assert.equal(state.undoAvailable, false);
    t.assert.equal(state.redoAvailable, false);
    t.assert.deepStrictEqual(legalMovesOf(accepted), []);
    assertRestores(t, accepted);
  });

  test('the side to move makes the offer', (t: TestContext) => {
    const game = play(t, newGame(INPUT), ['e2e4', 'offer']);
    t.assert.equal(game.record.drawOffer, 'black');
  });

  test('an offer survives a pending promotion, and accepting it ends the game', (t: TestContext) => {
    const game = play(t, fromFen(PROMOTION), ['offer', 'a7a8']);
    t.assert.equal(game.record.drawOffer, 'white');
    t.assert.equal(gameStateOf(game).status, 'promotionPending');
    const accepted = play(t, game, ['accept']);
    t.assert.equal(gameStateOf(accepted).status, 'draw');
    t.assert.equal(accepted.record.pendingPromotion, null);
  });

  test('a claim is valid at clock 100 whatever else is pending', (t: TestContext) => {
    for (const steps of [['claim'], ['offer', 'claim'], ['b7b8', 'claim'], ['offer', 'b7b8', 'claim']]) {
      const game = play(t, fromFen(blockByPromotion(100)), steps);
      t.assert.equal(gameStateOf(game).status, 'draw');
      t.assert.equal(gameStateOf(game).winner, null);
      t.assert.equal(game.record.drawOffer, null);
      t.assert.equal(game.record.pendingPromotion, null);
    }
  });
});

suite('pending promotion', () => {
  test('a pawn to the last rank without a piece is held, not played', (t: TestContext) => {
    const game = fromFen(PROMOTION);
    const pending = applied(t, game, makeMove(game, 'a7a8'));
    const state = gameStateOf(pending);
    t.assert.equal(state.status, 'promotionPending');
    t.assert.equal(pending.record.pendingPromotion, 'a7a8');
    t.assert.equal(pending.record.version, 2);
    t.assert.deepStrictEqual(state, { ...gameStateOf(game), status: 'promotionPending' });
    t.assert.deepStrictEqual(legalMovesOf(pending), legalMovesOf(game));
    assertRestores(t, pending);
  });

  /** [the step that resolves the pending a7a8, FEN after it, movetext, status] */
  const RESOLUTIONS: Array<[string, string, string, GameStatus]> = [
    ['a7a8q', 'Q3k3/8/8/8/8/8/8/4K3 b - - 0 1', '1. a8=Q+', 'check'],
    ['a7a8r', 'R3k3/8/8/8/8/8/8/4K3 b - - 0 1', '1. a8=R+', 'check'],
    ['a7a8b', 'B3k3/8/8/8/8/8/8/4K3 b - - 0 1', '1. a8=B', 'insufficientMaterial'],
    ['a7a8n', 'N3k3/8/8/8/8/8/8/4K3 b - - 0 1', '1. a8=N', 'insufficientMaterial'],
    // any legal move is accepted while a promotion is pending
    ['e1d2', '4k3/P7/8/8/8/8/3K4/8 b - - 1 1', '1. Kd2', 'started'],
  ];
  for (const [step, fen, pgn, status] of RESOLUTIONS) {
    test(`resolved by ${step}`, (t: TestContext) => {
      const pending = play(t, fromFen(PROMOTION), ['a7a8']);
      const done = applied(t, pending, makeMove(pending, step));
      const state = gameStateOf(done);
      t.assert.equal(done.record.pendingPromotion, null);
      t.assert.deepStrictEqual(state.moves, [step]);
      t.assert.equal(state.fen, fen);
      t.assert.equal(state.pgn, pgn);
      t.assert.equal(state.status, status);
      assertRestores(t, done);
    });
  }

  test('a second pending promotion replaces the first', (t: TestContext) => {
    const game = play(t, fromFen('1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1'), ['a7a8', 'a7b8']);
    t.assert.equal(game.record.pendingPromotion, 'a7b8');
    const done = play(t, game, ['a7b8r']);
    t.assert.equal(gameStateOf(done).pgn, '1. axb8=R+');
    t.assert.deepStrictEqual(gameStateOf(done).moves, ['a7b8r']);
  });

  test('a refused move leaves the promotion pending', (t: TestContext) => {
    const pending = play(t, fromFen(PROMOTION), ['a7a8']);
    rejected(t, pending, 'a7b8q', 'INVALID_MOVE', 'uci');
    t.assert.equal(gameStateOf(pending).status, 'promotionPending');
  });

  test('undo and redo clear it; holding it keeps the redo stack', (t: TestContext) => {
    const history = play(t, fromFen(PROMOTION), ['e1d1', 'e8d8', 'd1e1', 'undo']);
    const pending = play(t, history, ['a7a8']);
    t.assert.equal(gameStateOf(pending).redoAvailable, true);
    t.assert.deepStrictEqual(pending.record.redo, ['d1e1']);

    const redone = play(t, pending, ['redo']);
    t.assert.equal(redone.record.pendingPromotion, null);
    t.assert.deepStrictEqual(gameStateOf(redone).moves, ['e1d1', 'e8d8', 'd1e1']);
    t.assert.equal(gameStateOf(redone).status, 'started');

    const undone = play(t, pending, ['undo']);
    t.assert.equal(undone.record.pendingPromotion, null);
    t.assert.deepStrictEqual(gameStateOf(undone).moves, ['e1d1']);
    t.assert.equal(gameStateOf(undone).status, 'started');
    assertRestores(t, undone);
  });

  test('undo of a promotion puts the pawn back, redo promotes again', (t: TestContext) => {
    const game = fromFen(PROMOTION);
    const promoted = play(t, game, ['a7a8', 'a7a8n']);
    const undone = play(t, promoted, ['undo']);
    t.assert.deepStrictEqual(gameStateOf(undone), { ...gameStateOf(game), redoAvailable: true });
    const redone = play(t, undone, ['redo']);
    t.assert.deepStrictEqual(gameStateOf(redone), gameStateOf(promoted));
  });
});

interface CastlingRow {
  name: string;
  fen: string;
  uci: string;
  after: string;
  san: string;
}

const CASTLES: CastlingRow[] = [
  { name: 'white kingside', fen: CASTLING, uci: 'e1g1', after: 'r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1', san: '1. O-O' },
  { name: 'white queenside', fen: CASTLING, uci: 'e1c1', after: 'r3k2r/8/8/8/8/8/8/2KR3R b kq - 1 1', san: '1. O-O-O' },
  {
    name: 'black kingside',
    fen: 'r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1',
    uci: 'e8g8',
    after: 'r4rk1/8/8/8/8/8/8/R3K2R w KQ - 1 2',
    san: '1... O-O',
  },
  {
    name: 'black queenside',
    fen: 'r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1',
    uci: 'e8c8',
    after: '2kr3r/8/8/8/8/8/8/R3K2R w KQ - 1 2',
    san: '1... O-O-O',
  },
  {
    name: 'queenside while b1 is attacked',
    fen: '1r2k2r/8/8/8/8/8/8/R3K2R w KQk - 0 1',
    uci: 'e1c1',
    after: '1r2k2r/8/8/8/8/8/8/2KR3R b k - 1 1',
    san: '1. O-O-O',
  },
  {
    name: 'giving check',
    fen: '5k2/8/8/8/8/8/8/4K2R w K - 0 1',
    uci: 'e1g1',
    after: '5k2/8/8/8/8/8/8/5RK1 b - - 1 1',
    san: '1. O-O+',
  },
];

suite('castling is the king’s two-square move', () => {
  for (const row of CASTLES) {
    test(row.name, (t: TestContext) => {
      const game = fromFen(row.fen);
      const listed = legalMovesOf(game).find(move => move.uci === row.uci);
      t.assert.deepStrictEqual(listed, {
        from: row.uci.slice(0, 2),
        to: row.uci.slice(2, 4),
        uci: row.uci,
        moveType: row.uci[2] === 'g' ? 'castleKingside' : 'castleQueenside',
        promotion: null,
      });
      const castled = applied(t, game, makeMove(game, row.uci));
      const state = gameStateOf(castled);
      t.assert.equal(state.fen, row.after);
      t.assert.equal(state.pgn, row.san);
      t.assert.deepStrictEqual(state.moves, [row.uci]);
      assertRestores(t, castled);
      const undone = applied(t, castled, undo(castled));
      t.assert.equal(gameStateOf(undone).fen, row.fen);
    });
  }

  test('castling rights go when the king or a rook moves or a rook is taken', (t: TestContext) => {
    const rows: Array<[string, string, string]> = [
      [CASTLING, 'e1f1', 'r3k2r/8/8/8/8/8/8/R4K1R b kq - 1 1'],
      [CASTLING, 'a1b1', 'r3k2r/8/8/8/8/8/8/1R2K2R b Kkq - 1 1'],
      [CASTLING, 'h1h8', 'r3k2R/8/8/8/8/8/8/R3K3 b Qq - 0 1'],
      ['r3k2r/8/8/8/8/5B2/8/4K3 w kq - 0 1', 'f3a8', 'B3k2r/8/8/8/8/8/8/4K3 b k - 0 1'],
    ];
    for (const [fen, uci, after] of rows) {
      const game = play(t, fromFen(fen), [uci]);
      t.assert.equal(gameStateOf(game).fen, after);
    }
  });
});

suite('en passant', () => {
  test('white takes en passant right after the double step', (t: TestContext) => {
    const game = play(t, newGame(INPUT), ['e2e4', 'a7a6', 'e4e5', 'd7d5']);
    t.assert.deepStrictEqual(legalMovesOf(game, 'e5'), [
      { from: 'e5', to: 'd6', uci: 'e5d6', moveType: 'enPassant', promotion: null },
      { from: 'e5', to: 'e6', uci: 'e5e6', moveType: 'normal', promotion: null },
    ]);
    const taken = play(t, game, ['e5d6']);
    const state = gameStateOf(taken);
    t.assert.equal(state.fen, 'rnbqkbnr/1pp1pppp/p2P4/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3');
    t.assert.equal(state.pgn, '1. e4 a6 2. e5 d5 3. exd6');
    assertRestores(t, taken);
    t.assert.equal(gameStateOf(play(t, taken, ['undo'])).fen, gameStateOf(game).fen);
  });

  test('black takes en passant', (t: TestContext) => {
    const game = play(t, newGame(INPUT), ['a2a3', 'e7e5', 'a3a4', 'e5e4', 'd2d4', 'e4d3']);
    t.assert.equal(gameStateOf(game).fen, 'rnbqkbnr/pppp1ppp/8/8/P7/3p4/1PP1PPPP/RNBQKBNR w KQkq - 0 4');
    t.assert.equal(gameStateOf(game).pgn, '1. a3 e5 2. a4 e4 3. d4 exd3');
  });
});

interface ListingRow {
  name: string;
  fen?: string;
  steps: string[];
  square?: string;
  /** In order: `uci` or `uci:moveType`; a bare four-character UCI is 'normal', a bare five-character one 'promotion'. */
  expected: string;
}

const LISTINGS: ListingRow[] = [
  {
    name: 'the initial position',
    steps: [],
    expected: 'a2a3 a2a4 b1a3 b1c3 b2b3 b2b4 c2c3 c2c4 d2d3 d2d4 e2e3 e2e4 f2f3 f2f4 g1f3 g1h3 g2g3 g2g4 h2h3 h2h4',
  },
  { name: 'one square', steps: [], square: 'g1', expected: 'g1f3 g1h3' },
  { name: 'an empty square', steps: [], square: 'e4', expected: '' },
  { name: 'a square of the side not to move', steps: [], square: 'e7', expected: '' },
  { name: 'a piece that cannot move', steps: [], square: 'a1', expected: '' },
  {
    name: 'an empty square filter means all',
    steps: ['e2e4'],
    square: '',
    expected: 'a7a5 a7a6 b7b5 b7b6 b8a6 b8c6 c7c5 c7c6 d7d5 d7d6 e7e5 e7e6 f7f5 f7f6 g7g5 g7g6 g8f6 g8h6 h7h5 h7h6',
  },
  { name: 'a capture', steps: ['e2e4', 'd7d5'], square: 'e4', expected: 'e4d5:capture e4e5' },
  {
    name: 'castling next to king moves',
    fen: CASTLING,
    steps: [],
    square: 'e1',
    expected: 'e1c1:castleQueenside e1d1 e1d2 e1e2 e1f1 e1f2 e1g1:castleKingside',
  },
  {
    name: 'castling rook moves are plain moves',
    fen: CASTLING,
    steps: [],
    square: 'h1',
    expected: 'h1f1 h1g1 h1h2 h1h3 h1h4 h1h5 h1h6 h1h7 h1h8:capture',
  },
  {
    name: 'promotions, capturing and not',
    fen: '1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1',
    steps: [],
    square: 'a7',
    expected: 'a7a8b a7a8n a7a8q a7a8r a7b8b a7b8n a7b8q a7b8r',
  },
  {
    name: 'black promotions',
    fen: '4k3/8/8/8/8/8/6p1/4K2R b K - 0 1',
    steps: [],
    square: 'g2',
    expected: 'g2g1b g2g1n g2g1q g2g1r g2h1b g2h1n g2h1q g2h1r',
  },
  {
    name: 'en passant',
    fen: '4k3/8/8/3pPp2/8/8/8/4K3 w - f6 0 2',
    steps: [],
    expected: 'e1d1 e1d2 e1e2 e1f1 e1f2 e5e6 e5f6:enPassant',
  },
  { name: 'only the moves that answer check', steps: ['e2e4', 'f7f6', 'd1h5'], expected: 'g7g6' },
  { name: 'a checkmated side', steps: FOOLS_MATE, expected: '' },
  { name: 'a checkmated side, one square', steps: FOOLS_MATE, square: 'e1', expected: '' },
  { name: 'a resigned game', steps: ['resign'], expected: '' },
  { name: 'an agreed draw', steps: ['offer', 'accept'], expected: '' },
  {
    name: 'a promotion pending lists as usual',
    fen: PROMOTION,
    steps: ['a7a8'],
    square: 'a7',
    expected: 'a7a8b a7a8n a7a8q a7a8r',
  },
];

const PROMOTION_NAMES: Record<string, string> = { q: 'queen', r: 'rook', b: 'bishop', n: 'knight' };

function expectedListing(expected: string) {
  return expected
    .split(' ')
    .filter(token => token !== '')
    .map(token => {
      const [uci, moveType] = token.split(':') as [string, string | undefined];
      return {
        from: uci.slice(0, 2),
        to: uci.slice(2, 4),
        uci,
        moveType: moveType ?? (uci.length === 5 ? 'promotion' : 'normal'),
        promotion: uci.length === 5 ? PROMOTION_NAMES[uci[4]!] : null,
      };
    });
}

suite('legal-move listing', () => {
  for (const row of LISTINGS) {
    test(row.name, (t: TestContext) => {
      const game = play(t, start(row.fen), row.steps);
      t.assert.deepStrictEqual(legalMovesOf(game, row.square), expectedListing(row.expected));
    });
  }

  /** Listing and move check agree: every listed move is accepted, nothing else is (DECISIONS §4). */
  const POSITIONS = [
    INITIAL_FEN,
    CASTLING,
    'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1',
    'r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1',
    'r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1',
    '8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1',
    'rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3',
    '7k/8/8/KPp4r/8/8/8/8 w - - 0 2',
    'r3K3/1P6/8/8/8/8/8/k7 w - - 0 1',
  ];
  for (const fen of POSITIONS) {
    test(`every listed move and only those is accepted: ${fen}`, (t: TestContext) => {
      const game = fromFen(fen);
      const listed = legalMovesOf(game);
      const ucis = listed.map(move => move.uci);
      t.assert.deepStrictEqual(ucis, [...ucis].sort());
      t.assert.equal(new Set(ucis).size, ucis.length);
      for (const move of listed) {
        t.assert.equal(move.uci.slice(0, 4), move.from + move.to);
        t.assert.equal(move.promotion === null, move.moveType !== 'promotion');
      }
      const legal = new Set(ucis);
      for (const from of SQUARES) {
        const fromList = legalMovesOf(game, from);
        t.assert.deepStrictEqual(
          fromList,
          listed.filter(move => move.from === from),
        );
        for (const to of SQUARES) {
          for (const piece of ['', 'q', 'r', 'b', 'n']) {
            const uci = from + to + piece;
            const result = makeMove(game, uci);
            if (legal.has(uci)) {
              if (!result.ok) throw new Error(`${uci} is listed but refused: ${result.error.message}`);
              t.assert.deepStrictEqual(result.value.game.record.moves, [uci]);
            } else if (piece === '' && legal.has(`${uci}q`)) {
              if (!result.ok) throw new Error(`${uci} should be held as a pending promotion`);
              t.assert.equal(result.value.game.record.pendingPromotion, uci);
              t.assert.deepStrictEqual(result.value.game.record.moves, []);
            } else if (result.ok) {
              throw new Error(`${uci} is not listed but was accepted`);
            } else {
              t.assert.equal(result.error.code, 'INVALID_MOVE');
            }
          }
        }
      }
    });
  }
});

suite('undo and redo', () => {
  test('undo twice, redo twice', (t: TestContext) => {
    const game = play(t, newGame(INPUT), ['e2e4', 'e7e5', 'g1f3']);
    const once = play(t, game, ['undo']);
    t.assert.deepStrictEqual(gameStateOf(once).moves, ['e2e4', 'e7e5']);
    t.assert.deepStrictEqual(once.record.redo, ['g1f3']);
    const twice = play(t, once, ['undo']);
    t.assert.deepStrictEqual(gameStateOf(twice).moves, ['e2e4']);
    t.assert.deepStrictEqual(twice.record.redo, ['g1f3', 'e7e5']);
    t.assert.equal(gameStateOf(twice).turn, 'black');
    const back = play(t, twice, ['redo', 'redo']);
    t.assert.deepStrictEqual(gameStateOf(back), gameStateOf(game));
    t.assert.equal(back.record.version, game.record.version + 4);
  });

  test('a PGN import can be undone move by move to its start', (t: TestContext) => {
    let game = fromPgn(OPERA_PGN);
    t.assert.equal(game.record.version, 1);
    const states: GameState[] = [gameStateOf(game)];
    for (let i = OPERA_UCI.length - 1; i >= 0; i--) {
      t.assert.equal(gameStateOf(game).undoAvailable, true);
      game = play(t, game, ['undo']);
      t.assert.deepStrictEqual(gameStateOf(game).moves, OPERA_UCI.slice(0, i));
      states.push(gameStateOf(game));
    }
    t.assert.equal(gameStateOf(game).fen, INITIAL_FEN);
    t.assert.equal(gameStateOf(game).undoAvailable, false);
    rejected(t, game, 'undo', 'NO_UNDO');
    assertRestores(t, game);
    for (let i = states.length - 2; i >= 0; i--) {
      game = play(t, game, ['redo']);
      t.assert.deepStrictEqual(gameStateOf(game), states[i]);
    }
    t.assert.equal(gameStateOf(game).status, 'checkmate');
  });

  test('undo after each move restores the game before it, redo the game after it', (t: TestContext) => {
    let game = newGame(INPUT);
    for (const uci of OPERA_UCI) {
      const before = gameStateOf(game);
      const moved = play(t, game, [uci]);
      const undone = play(t, moved, ['undo']);
      assertRestores(t, undone);
      t.assert.deepStrictEqual(gameStateOf(undone), { ...before, redoAvailable: true });
      t.assert.deepStrictEqual(legalMovesOf(undone), legalMovesOf(game));
      const redone = play(t, undone, ['redo']);
      t.assert.deepStrictEqual(gameStateOf(redone), gameStateOf(moved));
      game = moved;
    }
  });
});

suite('PGN import', () => {
  test('a whole game: moves, players, status, undo', (t: TestContext) => {
    const game = fromPgn(OPERA_PGN);
    const state = gameStateOf(game);
    t.assert.deepStrictEqual(state.moves, OPERA_UCI);
    t.assert.equal(state.pgn, OPERA_MOVETEXT);
    t.assert.equal(state.status, 'checkmate');
    t.assert.equal(state.winner, 'white');
    t.assert.equal(state.undoAvailable, true);
    t.assert.equal(state.redoAvailable, false);
    t.assert.equal(game.record.version, 1);
    t.assert.deepStrictEqual(game.record.white, { id: 'p1', displayName: 'Guest A' });
    t.assert.deepStrictEqual(game.record.black, { id: 'p2', displayName: 'Player 2' });
    t.assert.equal(game.record.startFen, INITIAL_FEN);
    assertRestores(t, game);
  });

  interface PgnRow {
    name: string;
    pgn: string;
    moves: string[];
    status: GameStatus;
    movetext?: string;
  }
  const ACCEPTED: PgnRow[] = [
    { name: 'no tags, no result', pgn: '1. e4 e5', moves: ['e2e4', 'e7e5'], status: 'started' },
    { name: 'tags only', pgn: '[Event "x"]\n\n*', moves: [], status: 'started', movetext: '' },
    {
      name: 'blank lines between moves, escape lines and move numbers without spaces',
      pgn: '[Event "x"]\n\n1.e4 e5\n\n% an escaped line\n\n2.Nf3 {a comment\n\nover lines} 2...Nc6 *\n',
      moves: ['e2e4', 'e7e5', 'g1f3', 'b8c6'],
      status: 'started',
    },
    {
      name: 'the Result tag does not end the game',
      pgn: '[Result "1-0"]\n\n1. e4 e5 1-0',
      moves: ['e2e4', 'e7e5'],
      status: 'started',
    },
    {
      name: 'comments, NAGs, marks and variations are skipped',
      pgn: '1. e4 {best by test} e5 $1 2. Nf3!? (2. f4 exf4 3. Nf3) 2... Nc6?! ; a line comment\n3. Bb5+ *',
      moves: ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1b5'],
      status: 'started',
      movetext: '1. e4 e5 2. Nf3 Nc6 3. Bb5',
    },
    {
      name: 'castling written with zeros',
      pgn: '1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. 0-0 Nf6 5. d3 0-0',
      moves: ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4', 'f8c5', 'e1g1', 'g8f6', 'd2d3', 'e8g8'],
      status: 'started',
    },
    {
      name: 'a start from a FEN tag with black to move',
      pgn: '[SetUp "1"]\n[FEN "4k3/8/8/8/8/8/8/R3K3 b Q - 11 12"]\n\n12... Kf8 13. Rd1 *',
      moves: ['e8f8', 'a1d1'],
      status: 'started',
      movetext: '12... Kf8 13. Rd1',
    },
    {
      name: 'promotion',
      pgn: '[FEN "4k3/P7/8/8/8/8/8/4K3 w - - 0 1"]\n\n1. a8=Q+ Kd7',
      moves: ['a7a8q', 'e8d7'],
      status: 'started',
    },
  ];
  for (const row of ACCEPTED) {
    test(`accepted: ${row.name}`, (t: TestContext) => {
      const game = fromPgn(row.pgn);
      const state = gameStateOf(game);
      t.assert.deepStrictEqual(state.moves, row.moves);
      t.assert.equal(state.status, row.status);
      t.assert.equal(state.undoAvailable, row.moves.length > 0);
      if (row.movetext !== undefined) t.assert.equal(state.pgn, row.movetext);
      assertRestores(t, game);
    });
  }

  const REFUSED: Array<{ name: string; pgn: string; maxPlies?: number; message: RegExp }> = [
    { name: 'empty text', pgn: '', message: /no game/ },
    { name: 'text that is not PGN', pgn: 'hello world', message: /./ },
    { name: 'two games', pgn: '1. e4 e5 *\n\n1. d4 d5 *', message: /exactly one game/ },
    { name: 'an illegal white move', pgn: '1. e4 e5 2. Ke3', message: /2\. Ke3/ },
    { name: 'an illegal black move', pgn: '1. e4 Ke7', message: /1\.\.\. Ke7/ },
    { name: 'an ambiguous move', pgn: '1. a4 a5 2. h4 h5 3. Ra3 b6 4. Rhh3 c6 5. Re3', message: /5\. Re3/ },
    { name: 'a move that is no SAN', pgn: '1. e4 e5 2. Nf9 Nc6', message: /2\. Nf9/ },
    { name: 'unknown text between moves', pgn: '1. e4 e5 2. Nf3 banana Nc6', message: /./ },
    { name: 'a move after mate', pgn: '1. f3 e5 2. g4 Qh4# 3. a3', message: /3\. a3/ },
    { name: 'an invalid FEN tag', pgn: '[SetUp "1"]\n[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n\n*', message: /FEN.*king/ },
    { name: 'more plies than allowed', pgn: '1. e4 e5 2. Nf3 Nc6', maxPlies: 3, message: /more than 3/ },
    { name: 'a comment never closed', pgn: '1. e4 { good e5 2. Nf3', message: /comment.*never closed/ },
    { name: 'a variation never closed', pgn: '1. e4 e5 (1... c5 2. Nf3', message: /variation.*never closed/ },
    { name: 'a parenthesis closing nothing', pgn: '1. e4 e5 ) 2. Nf3', message: /closes no variation/ },
    { name: 'moves after the result', pgn: '1. e4 e5 1-0 2. Nf3', message: /exactly one game.*follows the result 1-0/ },
    { name: 'a tag pair after moves', pgn: '1. e4 e5\n[Event "x"]\n1. d4', message: /exactly one game.*tag pair/ },
    { name: 'a malformed tag pair', pgn: '[Event x]\n\n1. e4', message: /malformed tag pair/ },
    { name: 'a result inside a variation', pgn: '1. e4 (1. d4 1-0) e5', message: /inside a variation/ },
    { name: 'a token that is no SAN in a variation', pgn: '1. e4 (1. d4 xx) e5', message: /'xx' in a variation/ },
  ];
  for (const row of REFUSED) {
    test(`refused: ${row.name}`, (t: TestContext) => {
      const result = gameFromPgn(INPUT, row.pgn, { maxPlies: row.maxPlies ?? PGN_OPTIONS.maxPlies });
      if (result.ok) throw new Error(`accepted with moves ${gameStateOf(result.value).moves.join(' ')}`);
      t.assert.equal(result.error.code, 'INVALID_PGN');
      t.assert.equal(result.error.field, 'pgn');
      t.assert.match(result.error.message, row.message);
    });
  }

  test('exactly the ply limit is accepted', (t: TestContext) => {
    t.assert.deepStrictEqual(gameStateOf(fromPgn('1. e4 e5 2. Nf3', 3)).moves, ['e2e4', 'e7e5', 'g1f3']);
  });
});

suite('PGN export', () => {
  test('tags, wrapped movetext, result, and back again', (t: TestContext) => {
    const game = fromPgn(OPERA_PGN);
    const text = exportPgn(game, { site: '?' });
    const [head, body] = text.split('\n\n');
    t.assert.equal(
      head,
      [
        '[Event "Casual game"]',
        '[Site "?"]',
        '[Date "2026.01.31"]',
        '[Round "-"]',
        '[White "Guest A"]',
        '[Black "Player 2"]',
        '[Result "1-0"]',
      ].join('\n'),
    );
    t.assert.ok(text.endsWith(' 1-0\n'));
    for (const line of body!.trimEnd().split('\n')) t.assert.ok(line.length <= 80, line);
    t.assert.equal(body!.trimEnd().replace(/\n/g, ' '), `${OPERA_MOVETEXT} 1-0`);
    const back = fromPgn(text);
    t.assert.deepStrictEqual(gameStateOf(back).moves, OPERA_UCI);
    t.assert.equal(gameStateOf(back).fen, gameStateOf(game).fen);
  });

  const RESULTS: Array<{ name: string; fen?: string; steps: string[]; result: string }> = [
    { name: 'in progress', steps: ['e2e4'], result: '*' },
    { name: 'promotion pending', fen: PROMOTION, steps: ['a7a8'], result: '*' },
    { name: 'black mated white', steps: FOOLS_MATE, result: '0-1' },
    { name: 'white resigned', steps: ['resign'], result: '0-1' },
    { name: 'black resigned', steps: ['e2e4', 'resign'], result: '1-0' },
    { name: 'agreed draw', steps: ['offer', 'accept'], result: '1/2-1/2' },
    { name: 'stalemate', fen: '7k/8/6K1/8/8/8/8/5Q2 w - - 0 1', steps: ['f1f7'], result: '1/2-1/2' },
    { name: 'fivefold repetition', steps: repeat(KNIGHTS_CYCLE, 4), result: '1/2-1/2' },
  ];
  for (const row of RESULTS) {
    test(`result token: ${row.name}`, (t: TestContext) => {
      const game = play(t, start(row.fen), row.steps);
      const text = exportPgn(game, { site: 'https://chess.example/game/AbCd1234' });
      t.assert.match(text, new RegExp(`\\[Result "${row.result.replace(/\*/g, '\\*')}"\\]`));
      t.assert.ok(text.endsWith(`${row.result}\n`));
      t.assert.match(text, /\[Site "https:\/\/chess\.example\/game\/AbCd1234"\]/);
      t.assert.equal(text.includes('[SetUp "1"]'), row.fen !== undefined);
      if (row.fen !== undefined) t.assert.ok(text.includes(`[FEN "${row.fen}"]`));
      const back = fromPgn(text);
      t.assert.deepStrictEqual(gameStateOf(back).moves, gameStateOf(game).moves);
      t.assert.equal(gameStateOf(back).fen, gameStateOf(game).fen);
    });
  }
});

const FILES = 'abcdefgh';
const SQUARES = [...FILES].flatMap(file => [1, 2, 3, 4, 5, 6, 7, 8].map(rank => `${file}${rank}`));
const RANDOM_STARTS = [
  INITIAL_FEN,
  CASTLING,
  PROMOTION,
  blockByPromotion(98),
  backRank(140),
  'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1',
  '8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1',
];

/** Picks a step from a random number: mostly listed moves, sometimes anything else. */
function pickStep(game: Game, n: number): string {
  const legal = legalMovesOf(game).map(move => move.uci);
  const kind = n % 16;
  const k = Math.floor(n / 16);
  if (kind < 9 && legal.length > 0) return legal[k % legal.length]!;
  if (kind === 9) return 'undo';
  if (kind === 10) return 'redo';
  if (kind === 11) {
    const promotions = legal.filter(uci => uci.endsWith('q'));
    return promotions.length > 0 ? promotions[k % promotions.length]!.slice(0, 4) : 'offer';
  }
  if (kind === 12) return ['offer', 'decline', 'accept'][k % 3]!;
  if (kind === 13) return k % 8 === 0 ? 'resign' : 'claim';
  return SQUARES[k % 64]! + SQUARES[Math.floor(k / 64) % 64]!;
}

suite('random play', () => {
  test('every step either changes the game with its event or is refused and changes nothing', (t: TestContext) => {
    fc.assert(
      fc.property(
        fc.constantFrom(...RANDOM_STARTS),
        fc.array(fc.nat(), { minLength: 1, maxLength: 120, size: 'max' }),
        (fen, numbers) => {
          let game = fromFen(fen);
          for (const n of numbers) {
            const step = pickStep(game, n);
            const state = gameStateOf(game);
            const before = snapshot(game);
            const result = attempt(game, step);
            if (step === 'undo') t.assert.equal(result.ok, state.undoAvailable);
            if (step === 'redo') t.assert.equal(result.ok, state.redoAvailable);
            if (legalMovesOf(game).some(move => move.uci === step)) t.assert.ok(result.ok);
            if (result.ok) {
              game = applied(t, game, result, step);
              if (/^[a-h][1-8][a-h][1-8][qrbn]?$/.test(step) && game.record.pendingPromotion === null) {
                // a move was played: undo gives back the game before it, without its offer or pending promotion
                const undone = undo(game);
                if (!undone.ok) throw undone.error;
                const cleared = restoreGame({ ...before.record, pendingPromotion: null, drawOffer: null });
                t.assert.deepStrictEqual(gameStateOf(undone.value.game), {
                  ...gameStateOf(cleared),
                  redoAvailable: true,
                });
              }
            } else {
              t.assert.ok(result.error instanceof DomainError);
              t.assert.deepStrictEqual(game, before);
            }
            assertRestores(t, game);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

suite('long games', () => {
  const long = (plies: number): Game => {
    const imported = gameFromPgn(INPUT, pgnOf(longGameSans(plies)), PGN_OPTIONS);
    if (!imported.ok) throw imported.error;
    return imported.value;
  };

  test('a game keeps the position every CHECKPOINT_PLIES plies, across undo and redo', (t: TestContext) => {
    let game = long(2 * CHECKPOINT_PLIES + 2);
    t.assert.equal(game.checkpoints.length, 3);
    for (let i = 0; i < CHECKPOINT_PLIES + 4; i++) {
      game = applied(t, game, undo(game), 'undo');
      t.assert.equal(game.checkpoints.length, Math.floor(game.record.moves.length / CHECKPOINT_PLIES) + 1);
      assertRestores(t, game);
    }
    for (let i = 0; i < CHECKPOINT_PLIES + 4; i++) {
      game = applied(t, game, redo(game), 'redo');
      assertRestores(t, game);
    }
    t.assert.equal(game.checkpoints.length, 3);
  });

  test('undo in a 10,000-ply game replays from the last checkpoint, never from the start', (t: TestContext) => {
    const game = long(10_000);
    const last = (game.checkpoints.length - 1) * CHECKPOINT_PLIES;
    // Moves before the last checkpoint made unreadable: an undo that replayed them would throw.
    const moves = game.record.moves.map((uci, i) => (i < last ? 'not a move' : uci));
    const undone = undo({ ...game, record: { ...game.record, moves } });
    if (!undone.ok) throw undone.error;
    const expected = undo(game);
    if (!expected.ok) throw expected.error;
    t.assert.equal(undone.value.game.fen, expected.value.game.fen);
    t.assert.equal(undone.value.game.record.moves.length, 9_999);
  });
});
