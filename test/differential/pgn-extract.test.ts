/**
 * Differential test of PGN import against pgn-extract, an independent PGN reader (DECISIONS §8: a game that
 * pgn-extract reads as standard chess imports to the same final position). Each game goes alone to pgn-extract
 * (`--json -Wuci --fencomments`) and through `POST /api/board/game/import/pgn`; every game pgn-extract reads as
 * one standard game must import (201) to its final position.
 *
 * The corpus is messy on purpose, in the ways real files are: a hand-written set (comments of every kind, NAGs,
 * nested variations, `%` escape lines, a byte-order mark, CRLF line ends, clock and eval comments, puzzle FEN
 * tags with a fullmove number of 0, four-field FEN tags, castling rights a study forgot to drop), and seeded
 * random legal games written out with random mess of the same kinds.
 *
 * What is compared: the final FEN, field by field, except the en-passant field (pgn-extract's `--nofauxep` and
 * ours differ on when a square is worth writing). pgn-extract keeps a FEN tag's castling rights whose king or rook
 * is not on its square (and writes them in a Chess960 form, `Ahh`, once a rook moves), where DECISIONS §8 drops
 * them: it is given the game with those rights dropped from the tag, so that both read the same start. A
 * fullmove number of 0 that it gives back as written, for a game without moves, counts as 1 as DECISIONS says.
 */
import { spawnSync } from 'node:child_process';
import { test, type TestContext } from 'node:test';
import { Chess } from 'chessops/chess';
import { makeFen, parseBoardFen } from 'chessops/fen';
import { parseSquare } from 'chessops/util';
import { makeSanAndPlay } from 'chessops/san';
import type { NormalMove, SquareName } from 'chessops/types';
import { makeTestApp, json } from '../helpers/app.ts';
import { findExecutable, skipReason } from '../helpers/external.ts';

const pgnExtract = findExecutable('pgn-extract');
const skip = skipReason('pgn-extract', pgnExtract);

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

const HAND: Array<[string, string]> = [
  [
    'lichess export with clocks and evals',
    '[Event "Rated blitz game"]\n[Site "https://lichess.org/abcdefgh"]\n[Date "2024.01.02"]\n[White "a"]\n[Black "b"]\n[Result "1-0"]\n[TimeControl "180+2"]\n\n1. e4 { [%eval 0.3] [%clk 0:03:00] } 1... e5 { [%clk 0:03:00] } 2. Nf3 { [%clk 0:02:58] } 2... Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 1-0\n',
  ],
  [
    'study with nested variations and NAGs',
    '[Event "Study: Italian"]\n[Result "*"]\n\n1. e4 e5 2. Nf3 (2. f4 exf4 (2... d5!? 3. exd5) 3. Nf3) 2... Nc6 $1 3. Bc4 $5 Bc5 (3... Nf6 4. Ng5 d5 (4... Bc5!?) 5. exd5) 4. c3 *\n',
  ],
  [
    'puzzle with fullmove 0',
    '[Event "Puzzle 00sHx"]\n[Site "https://lichess.org/training/00sHx"]\n[FEN "q3k1nr/1pp1nQpp/3p4/1P2p3/4P3/B1PP1b2/B5PP/5K2 b k - 0 0"]\n[SetUp "1"]\n\n1... Kd7 2. Qxe6+ Kxe6 *\n',
  ],
  [
    'castling rights the study forgot',
    '[Event "Study chapter"]\n[SetUp "1"]\n[FEN "r3k2r/pppq1ppp/2n5/3p4/3P4/2N5/PPPQ1PPP/2KR3R b KQkq - 5 10"]\n\n10... O-O-O 11. Kb1 Kb8 12. Rhe1 *\n',
  ],
  [
    'four-field FEN',
    '[Event "Drill"]\n[SetUp "1"]\n[FEN "8/8/8/4k3/8/8/4PK2/8 w - -"]\n\n1. Ke3 Ke5 2. e4 Kd6 3. Kd4 *\n',
  ],
  [
    'byte-order mark and CRLF',
    '\ufeff[Event "Club game"]\r\n[White "Ann"]\r\n[Black "Bob"]\r\n[Result "0-1"]\r\n\r\n1. f3 e5 2. g4 Qh4# 0-1\r\n',
  ],
  [
    '% escape lines and a comment across lines',
    '% exported by an old program\n[Event "?"]\n\n% a note to skip\n1. d4 d5 2. c4 {the Queen\'s\nGambit} e6 3. Nc3 Nf6 4. Bg5 *\n',
  ],
  ['no result, no tags, zeros for castling', '1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. 0-0 Nf6 5. d3 0-0 6. Bg5 h6'],
  [
    'move numbers glued and spaced, annotation glyphs on moves',
    '[Event "?"]\n\n1.e4 c5 2.Nf3 d6 3 . d4 cxd4 4.Nxd4! Nf6 5.Nc3 a6?! 6.Be3 e5!? 7.Nb3 Be6 8.f3 *\n',
  ],
  [
    'promotion and under-promotion, with and without =',
    '[Event "?"]\n[SetUp "1"]\n[FEN "8/1P4k1/8/8/8/8/6Kp/8 w - - 0 60"]\n\n60. b8=Q h1N+ 61. Kg1 Nf2 62. Qb2 *\n',
  ],
  ['en passant on the board', '[Event "?"]\n\n1. e4 Nf6 2. e5 d5 3. exd6 exd6 4. d4 *\n'],
  [
    'empty comment and a comment before the first move',
    '[Event "?"]\n\n{Opening notes} 1. c4 {} e5 2. Nc3 Nf6 3. g3 d5 4. cxd5 Nxd5 5. Bg2 *\n',
  ],
];

/** All legal moves of a position, promotions to a random piece. */
function legalMoves(pos: Chess, random: () => number): NormalMove[] {
  const moves: NormalMove[] = [];
  for (const [from, dests] of pos.allDests()) {
    for (const to of dests) {
      const promotes = pos.board.get(from)?.role === 'pawn' && (to >> 3 === 7 || to >> 3 === 0);
      const roles = ['queen', 'rook', 'bishop', 'knight'] as const;
      moves.push(promotes ? { from, to, promotion: roles[Math.floor(random() * 4)]! } : { from, to });
    }
  }
  return moves;
}

/** A seeded random game written as a messy PGN. */
function messyGame(seed: number): string {
  const random = makeRandom(seed);
  const chance = (p: number) => random() < p;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  let pos = Chess.default();
  const tags: string[] = ['[Event "Generated"]'];
  // Half the games start from a position reached by random play, written as a FEN tag, perhaps messy.
  if (chance(0.5)) {
    for (let i = 0, n = 4 + Math.floor(random() * 30); i < n && !pos.isEnd(); i++)
      pos.play(pick(legalMoves(pos, random)));
    if (pos.isEnd()) pos = Chess.default();
    const fields = makeFen(pos.toSetup()).split(' ');
    if (chance(0.3)) fields[5] = '0';
    if (chance(0.3)) fields[2] = 'KQkq'; // rights a study forgot to drop
    const fen = chance(0.15) ? fields.slice(0, 4).join(' ') : fields.join(' ');
    tags.push('[SetUp "1"]', `[FEN "${fen}"]`);
  }
  if (chance(0.5)) tags.push(`[White "Player ${seed}"]`, '[Black "?"]');
  const plies = Math.floor(random() * 80);
  const tokens: string[] = [];
  for (let i = 0; i < plies && !pos.isEnd(); i++) {
    const moves = legalMoves(pos, random);
    const move = pick(moves);
    const before = pos.clone();
    const ply = (pos.fullmoves - 1) * 2 + (pos.turn === 'white' ? 0 : 1);
    let san = makeSanAndPlay(pos, move);
    if (chance(0.1)) san = san.replace(/[+#]$/, ''); // check marks left out
    if (chance(0.3)) san = san.replace(/^O-O(-O)?/, castle => castle.replace(/O/g, '0'));
    if (ply % 2 === 0 || i === 0) tokens.push(`${Math.floor(ply / 2) + 1}${ply % 2 === 0 ? '.' : '...'}`);
    tokens.push(san + (chance(0.05) ? pick(['!', '?', '!?', '?!', '!!']) : ''));
    if (chance(0.08)) tokens.push(`$${1 + Math.floor(random() * 20)}`);
    if (chance(0.08)) tokens.push(`{ ${pick(['good', '[%clk 0:01:00]', 'only move', '[%eval -1.2]'])} }`);
    if (chance(0.06)) {
      // A variation: another legal move from the position before, and perhaps a reply.
      const other = pick(legalMoves(before, random));
      const line = before.clone();
      const words = [`${Math.floor(ply / 2) + 1}${ply % 2 === 0 ? '.' : '...'}`, makeSanAndPlay(line, other)];
      if (!line.isEnd() && chance(0.5)) words.push(makeSanAndPlay(line, pick(legalMoves(line, random))));
      tokens.push(`(${words.join(' ')})`);
    }
  }
  tokens.push(pick(['*', '1-0', '0-1', '1/2-1/2', '']));
  // Lines of random width, sometimes with CRLF.
  const lines: string[] = [];
  let line = '';
  const width = 40 + Math.floor(random() * 60);
  for (const token of tokens.filter(Boolean)) {
    if (line && line.length + token.length + 1 > width) {
      lines.push(line);
      line = token;
    } else line = line ? `${line} ${token}` : token;
  }
  if (line) lines.push(line);
  const end = chance(0.2) ? '\r\n' : '\n';
  return `${tags.join(end)}${end}${end}${lines.join(end)}${end}`;
}

interface Extracted {
  Variant?: string;
  FEN?: string;
  Moves: Array<{ move: string; FEN?: string }>;
}

/**
 * pgn-extract's reading of one game: its final FEN, or undefined when it does not read one standard game. It
 * drops a game without a result token ("Missing result"), which DECISIONS §8 and lichess accept: such a game is
 * given to it again with `*` after its moves, which changes no move.
 */
function extractFinalFen(text: string): string | undefined {
  const read = (input: string) =>
    spawnSync(pgnExtract!, ['-s', '--json', '-Wuci', '--fencomments', '--nofauxep'], { input, encoding: 'utf8' });
  const input = withPossibleCastling(text);
  let run = read(input);
  if (run.stderr.includes('Missing result')) run = read(`${input.trimEnd()} *\n`);
  let games: Extracted[];
  try {
    games = JSON.parse(run.stdout) as Extracted[];
  } catch {
    return undefined;
  }
  if (games.length !== 1) return undefined;
  const game = games[0]!;
  if (game.Variant !== undefined && !/^(standard|from position)$/i.test(game.Variant)) return undefined;
  return game.Moves.at(-1)?.FEN ?? game.FEN ?? 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
}

/** The FEN fields compared: all but the en-passant square. */
function comparable(theirs: string, ours: string): [string[], string[]] {
  const a = theirs.split(' ');
  const b = ours.split(' ');
  // A game without moves: pgn-extract gives back its FEN tag as written, counters missing or fullmove 0 included;
  // after a move it counts from 1 as well.
  if (a.length === 4) a.push('0', '1');
  if (a[5] === '0') a[5] = '1';
  a[3] = b[3] = '';
  return [a, b];
}

const CASTLING_SQUARES: Record<string, [string, string]> = {
  K: ['e1', 'h1'],
  Q: ['e1', 'a1'],
  k: ['e8', 'h8'],
  q: ['e8', 'a8'],
};

/** The text with the castling rights of its FEN tag whose king or rook is not on its square dropped. */
function withPossibleCastling(text: string): string {
  return text.replace(/\[FEN "([^"]*)"\]/, (tag, fen: string) => {
    const fields = fen.split(' ');
    const board = parseBoardFen(fields[0]!);
    if (board.isErr || fields.length < 3 || fields[2] === '-') return tag;
    const kept = [...fields[2]!].filter(right => {
      const [king, rook] = CASTLING_SQUARES[right] ?? ['', ''];
      const color = right === right.toUpperCase() ? 'white' : 'black';
      const at = (square: string, role: string) => {
        const piece = board.value.get(parseSquare(square as SquareName));
        return piece?.role === role && piece.color === color;
      };
      return at(king, 'king') && at(rook, 'rook');
    });
    fields[2] = kept.length > 0 ? kept.join('') : '-';
    return `[FEN "${fields.join(' ')}"]`;
  });
}

test(
  'every game pgn-extract reads as standard chess imports to its final position',
  { skip },
  async (t: TestContext) => {
    const { app } = await makeTestApp();
    t.after(() => app.close());
    const seed = Number(process.env.PGN_SEED ?? 20261124);
    const generated = Number(process.env.PGN_GAMES ?? 250);
    const corpus: Array<[string, string]> = [
      ...HAND,
      ...Array.from({ length: generated }, (_, i): [string, string] => [
        `generated game ${seed + i}`,
        messyGame(seed + i),
      ]),
    ];
    let compared = 0;
    for (const [name, text] of corpus) {
      const theirs = extractFinalFen(text);
      if (theirs === undefined) continue;
      const res = await app.inject({ method: 'POST', url: '/api/board/game/import/pgn', payload: { pgn: text } });
      t.assert.equal(res.statusCode, 201, `${name}: ${res.body}\n${text}`);
      const ours = json<{ state: { fen: string } }>(res).state.fen;
      const [a, b] = comparable(theirs, ours);
      t.assert.deepStrictEqual(b, a, `${name}: ours ${ours}, pgn-extract's ${theirs}\n${text}`);
      compared++;
    }
    t.diagnostic(`${compared} of ${corpus.length} games compared (pgn-extract read them as standard chess)`);
    t.assert.ok(compared >= corpus.length * 0.9, `pgn-extract read only ${compared} of ${corpus.length} games`);
  },
);
