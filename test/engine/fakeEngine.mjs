// A fake UCI engine for the pool's tests: it speaks enough UCI for src/engine, answers legal moves (the first
// ones in UCI order, castling aside), and crashes, hangs, answers nonsense or starts slowly when told to.
// `fakeEngine.ts` writes a script that calls runFakeEngine with a behaviour; that script is the engine path.
// Every line it reads is appended to STATE/commands.log as `PID LINE`; STATE/searches counts the searches of all
// its processes, so that "the second search" means the same across a restart.
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { createInterface } from 'node:readline';
import { clearTimeout, setTimeout } from 'node:timers';
import { Chess } from 'chessops/chess';
import { parseFen } from 'chessops/fen';
import { makeUci, parseUci } from 'chessops/util';
import { normalizeMove } from 'chessops/chess';

const count = (file, add) => {
  if (add) appendFileSync(file, 'x');
  try {
    return readFileSync(file, 'utf8').length;
  } catch {
    return 0;
  }
};

/** The legal moves after `moves` from `fen`, castling left out (chessops writes it as king takes rook). */
function legalMoves(fen, moves) {
  const pos = Chess.fromSetup(parseFen(fen).unwrap()).unwrap();
  for (const uci of moves) pos.play(normalizeMove(pos, parseUci(uci)));
  const found = [];
  for (const [from, dests] of pos.allDests()) {
    for (const to of dests) {
      if (pos.board[pos.turn].has(to)) continue;
      const promotes = pos.board.get(from).role === 'pawn' && (to >> 3 === 0 || to >> 3 === 7);
      found.push(makeUci({ from, to, promotion: promotes ? 'queen' : undefined }));
    }
  }
  return found.sort();
}

/**
 * behaviour: { state (folder), name, skill: [min, max] | null, multipv: max | null, startDelayMs, startHang,
 * exitAtStart, searchMs (at most the movetime asked), crashOn, hangOn, illegalOn (numbers of searches, from 1), ignoreQuit }
 */
export function runFakeEngine(behaviour) {
  const b = { name: 'Fake', skill: [0, 20], multipv: 500, startDelayMs: 0, searchMs: 20, ...behaviour };
  const log = line => appendFileSync(join(b.state, 'commands.log'), `${process.pid} ${line}\n`);
  const send = line => process.stdout.write(line + '\n');
  let position = { fen: '', moves: [] };
  let multipv = 1;
  let pending; // the search in progress: { answer, timer }

  const answer = number => {
    const moves = legalMoves(position.fen, position.moves);
    for (let depth = 1; depth <= 2; depth++) {
      for (let line = 1; line <= Math.min(multipv, moves.length); line++) {
        send(`info depth ${depth} multipv ${line} score cp ${50 - 40 * (line - 1)} nodes 10 pv ${moves[line - 1]}`);
      }
    }
    send(`bestmove ${b.illegalOn?.includes(number) ? 'a1a1' : (moves[0] ?? '(none)')}`);
  };

  createInterface({ input: process.stdin })
    .on('line', line => {
      log(line);
      const [command, ...words] = line.trim().split(/\s+/);
      if (command === 'uci') {
        if (b.exitAtStart) process.exit(1);
        if (b.startHang) return;
        setTimeout(() => {
          send(`id name ${b.name}`);
          if (b.skill) send(`option name Skill Level type spin default 20 min ${b.skill[0]} max ${b.skill[1]}`);
          if (b.multipv) send(`option name MultiPV type spin default 1 min 1 max ${b.multipv}`);
          send('uciok');
        }, b.startDelayMs);
      } else if (command === 'isready') send('readyok');
      else if (command === 'setoption' && line.includes('name MultiPV value')) multipv = Number(words.at(-1));
      else if (command === 'position') {
        const movesAt = words.indexOf('moves');
        const fenWords = words.slice(1, movesAt < 0 ? undefined : movesAt);
        position = { fen: fenWords.join(' '), moves: movesAt < 0 ? [] : words.slice(movesAt + 1) };
      } else if (command === 'go') {
        const number = count(join(b.state, 'searches'), true);
        if (b.crashOn?.includes(number)) setTimeout(() => process.exit(3), 10);
        else if (b.hangOn?.includes(number)) pending = { answer: () => {}, timer: undefined };
        else {
          const done = () => {
            pending = undefined;
            answer(number);
          };
          const movetime = words.indexOf('movetime') >= 0 ? Number(words[words.indexOf('movetime') + 1]) : Infinity;
          pending = { answer: done, timer: setTimeout(done, Math.min(b.searchMs, movetime)) };
        }
      } else if (command === 'stop' && pending) {
        clearTimeout(pending.timer);
        pending.answer();
      } else if (command === 'quit' && !b.ignoreQuit) process.exit(0);
    })
    .on('close', () => {
      if (!b.ignoreQuit) process.exit(0);
    });
}
