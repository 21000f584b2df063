/**
 * The UCI lines the engine module reads and writes. The sample lines are Stockfish's (15.1 and 19).
 */
import { test, type TestContext } from 'node:test';
import {
  MATE_CP,
  capsOf,
  lastIteration,
  makeGo,
  makePosition,
  makeSetOption,
  parseBestMove,
  parseInfo,
  parseOption,
} from '../../src/engine/uci.ts';

test('parseOption reads names with spaces and the bounds of spin options', (t: TestContext) => {
  t.assert.deepEqual(parseOption('option name Skill Level type spin default 20 min 0 max 20'), {
    name: 'Skill Level',
    min: 0,
    max: 20,
  });
  t.assert.deepEqual(parseOption('option name Skill Level type spin default 20 min -20 max 20'), {
    name: 'Skill Level',
    min: -20,
    max: 20,
  });
  t.assert.deepEqual(parseOption('option name Clear Hash type button'), {
    name: 'Clear Hash',
    min: undefined,
    max: undefined,
  });
  t.assert.equal(parseOption('id name Stockfish 19 Lite WASM'), undefined);
  t.assert.equal(parseOption('uciok'), undefined);
});

test('capsOf keeps Skill Level and a MultiPV above 1, whatever their letter case', (t: TestContext) => {
  const options = [
    'option name Threads type spin default 1 min 1 max 1',
    'option name multipv type spin default 1 min 1 max 256',
    'option name Skill Level type spin default 20 min 0 max 20',
  ].map(line => parseOption(line)!);
  t.assert.deepEqual(capsOf(options), { skill: { min: 0, max: 20 }, multiPv: { max: 256 } });
  t.assert.deepEqual(capsOf([parseOption('option name MultiPV type spin default 1 min 1 max 1')!]), {});
  t.assert.deepEqual(capsOf([parseOption('option name Skill Level type string default 20')!]), {});
  t.assert.deepEqual(capsOf([]), {});
});

test('parseInfo: depth, line, score for the side to move, first move; bounds and lines without a pv are left out', (t: TestContext) => {
  t.assert.deepEqual(
    parseInfo('info depth 11 seldepth 17 multipv 1 score cp 31 nodes 9888 nps 247200 hashfull 2 time 40 pv e2e4 c7c5'),
    { depth: 11, multipv: 1, score: 31, move: 'e2e4' },
  );
  t.assert.deepEqual(parseInfo('info depth 5 multipv 3 score cp -120 nodes 900 pv g8f6'), {
    depth: 5,
    multipv: 3,
    score: -120,
    move: 'g8f6',
  });
  t.assert.equal(parseInfo('info depth 3 multipv 1 score mate 2 pv d8h4')?.score, MATE_CP - 2);
  t.assert.equal(parseInfo('info depth 3 multipv 2 score mate -1 pv a7a6')?.score, -MATE_CP + 1);
  t.assert.equal(parseInfo('info depth 19 multipv 1 score cp 36 lowerbound nodes 329569 pv e2e4 e7e5'), undefined);
  t.assert.equal(parseInfo('info depth 19 multipv 1 score cp 36 upperbound pv e2e4'), undefined);
  t.assert.equal(parseInfo('info string NNUE evaluation using nn-61e7af4bb97d.nnue'), undefined);
  t.assert.equal(parseInfo('info depth 1 currmove e2e4 currmovenumber 1'), undefined);
  t.assert.equal(parseInfo('bestmove e2e4'), undefined);
});

test('lastIteration: the lines of the deepest iteration its first line finished, in order', (t: TestContext) => {
  const infos = [
    'info depth 4 multipv 1 score cp 40 pv e2e4',
    'info depth 4 multipv 2 score cp 30 pv d2d4',
    'info depth 5 multipv 2 score cp 35 pv d2d4',
    'info depth 5 multipv 1 score cp 38 pv e2e4',
    'info depth 6 multipv 2 score cp 20 pv c2c4', // cut short before its first line
  ].map(line => parseInfo(line)!);
  t.assert.deepEqual(
    lastIteration(infos).map(info => [info.depth, info.multipv, info.move]),
    [
      [5, 1, 'e2e4'],
      [5, 2, 'd2d4'],
    ],
  );
  t.assert.deepEqual(lastIteration([]), []);
});

test('parseBestMove: the move, null when there is none, undefined for other lines', (t: TestContext) => {
  t.assert.equal(parseBestMove('bestmove e2e4 ponder e7e5'), 'e2e4');
  t.assert.equal(parseBestMove('bestmove e7e8q'), 'e7e8q');
  t.assert.equal(parseBestMove('bestmove (none)'), null);
  t.assert.equal(parseBestMove('bestmove 0000'), null);
  t.assert.equal(parseBestMove('bestmove'), null);
  t.assert.equal(parseBestMove('info depth 1 pv e2e4'), undefined);
});

test('the commands written', (t: TestContext) => {
  t.assert.equal(makeSetOption('Skill Level', -9), 'setoption name Skill Level value -9');
  t.assert.equal(makePosition('8/8/8/8/8/8/8/K6k w - - 0 1', []), 'position fen 8/8/8/8/8/8/8/K6k w - - 0 1');
  t.assert.equal(
    makePosition('8/8/8/8/8/8/8/K6k w - - 0 1', ['a1a2', 'h1h2']),
    'position fen 8/8/8/8/8/8/8/K6k w - - 0 1 moves a1a2 h1h2',
  );
  t.assert.equal(makeGo({ moveTimeMs: 150, depth: 5 }), 'go movetime 150 depth 5');
});
