/**
 * Move generation checked against published perft counts, through the domain's own listing and move check.
 *
 * Positions, node counts and the breakdown of the leaf moves (captures, en passant, castles, promotions):
 * Chess Programming Wiki, "Perft Results", https://www.chessprogramming.org/Perft_Results (initial position
 * and positions 2-6; the page gives no breakdown for positions 5 and 6).
 *
 * The listing gives four entries per promotion and castling as the king's two-square move; each listed entry
 * is one node, which is how the published counts are made. Every listed move is played through `checkMove`,
 * so a listed move that the move check refuses fails the test.
 */
import { suite, test, type TestContext } from 'node:test';
import type { Chess } from 'chessops/chess';
import { checkMove, listLegalMoves } from '../../src/domain/moves.ts';
import { makeFen, parseStrictFen } from '../../src/domain/notation.ts';
import type { LegalMove } from '../../src/contract/shapes.ts';

/** The published breakdown of the leaf moves; captures include en-passant and promotion captures. */
interface Breakdown {
  captures: number;
  enPassant: number;
  castles: number;
  promotions: number;
}

interface PerftRow {
  name: string;
  fen: string;
  nodes: number[]; // nodes[d - 1] is the node count at depth d
  leaves?: Breakdown; // at the deepest depth
}

const ROWS: PerftRow[] = [
  {
    name: 'initial position',
    fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
    nodes: [20, 400, 8902, 197281, 4865609],
    leaves: { captures: 82719, enPassant: 258, castles: 0, promotions: 0 },
  },
  {
    name: 'position 2 (Kiwipete)',
    fen: 'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1',
    nodes: [48, 2039, 97862, 4085603],
    leaves: { captures: 757163, enPassant: 1929, castles: 128013, promotions: 15172 },
  },
  {
    name: 'position 3',
    fen: '8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1',
    nodes: [14, 191, 2812, 43238, 674624],
    leaves: { captures: 52051, enPassant: 1165, castles: 0, promotions: 0 },
  },
  {
    name: 'position 4',
    fen: 'r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1',
    nodes: [6, 264, 9467, 422333],
    leaves: { captures: 131393, enPassant: 0, castles: 7795, promotions: 60032 },
  },
  {
    name: 'position 4, mirrored',
    fen: 'r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1',
    nodes: [6, 264, 9467, 422333],
    leaves: { captures: 131393, enPassant: 0, castles: 7795, promotions: 60032 },
  },
  {
    name: 'position 5',
    fen: 'rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8',
    nodes: [44, 1486, 62379, 2103487],
  },
  {
    name: 'position 6',
    fen: 'r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10',
    nodes: [46, 2079, 89890, 3894594],
  },
];

function tallyLeaves(moves: readonly LegalMove[], into: Breakdown): void {
  for (const move of moves) {
    switch (move.moveType) {
      case 'capture':
        into.captures++;
        break;
      case 'enPassant':
        into.captures++;
        into.enPassant++;
        break;
      case 'castleKingside':
      case 'castleQueenside':
        into.castles++;
        break;
      case 'promotion':
        into.promotions++;
        if (move.from[0] !== move.to[0]) into.captures++;
        break;
      case 'normal':
        break;
    }
  }
}

/** Leaf nodes at `depth`; the leaf moves are tallied into `leaves`. */
function perft(pos: Chess, depth: number, leaves: Breakdown): number {
  const moves = listLegalMoves(pos);
  if (depth === 1) {
    tallyLeaves(moves, leaves);
    return moves.length;
  }
  let nodes = 0;
  for (const listed of moves) {
    const check = checkMove(pos, listed.uci);
    if (check.kind !== 'legal') {
      throw new Error(`listed move ${listed.uci} is refused (${check.kind}) in ${makeFen(pos)}`);
    }
    const child = pos.clone();
    child.play(check.move);
    nodes += perft(child, depth - 1, leaves);
  }
  return nodes;
}

const emptyBreakdown = (): Breakdown => ({ captures: 0, enPassant: 0, castles: 0, promotions: 0 });

suite('perft through listLegalMoves and checkMove', () => {
  for (const row of ROWS) {
    test(`${row.name} to depth ${row.nodes.length}`, (t: TestContext) => {
      const parsed = parseStrictFen(row.fen);
      if (!parsed.ok) throw parsed.error;
      const pos = parsed.value;
      t.assert.equal(makeFen(pos), row.fen);
      const leaves = emptyBreakdown();
      const nodes = row.nodes.map((_, i) => {
        const depth = i + 1;
        return perft(pos, depth, depth === row.nodes.length ? leaves : emptyBreakdown());
      });
      t.assert.deepStrictEqual(nodes, row.nodes);
      if (row.leaves) t.assert.deepStrictEqual(leaves, row.leaves);
      // perft plays on clones: the position it started from is untouched
      t.assert.equal(makeFen(pos), row.fen);
    });
  }
});
