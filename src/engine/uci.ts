/**
 * The lines of the UCI protocol this service writes and reads, as pure functions over strings (the process that
 * carries them is `uciProcess.ts`).
 *
 * ```ts
 * parseOption('option name Skill Level type spin default 20 min 0 max 20'); // { name: 'Skill Level', min: 0, max: 20 }
 * parseInfo('info depth 5 multipv 2 score cp -31 nodes 950 pv d2d4 d7d5'); // { depth: 5, multipv: 2, score: -31, move: 'd2d4' }
 * parseBestMove('bestmove e2e4 ponder e7e5'); // 'e2e4'
 * makeGo({ moveTimeMs: 150, depth: 5 }); // 'go movetime 150 depth 5'
 * ```
 */
import type { EngineCaps } from './levels.ts';

export interface UciOption {
  readonly name: string;
  readonly min: number | undefined;
  readonly max: number | undefined;
}

/** An `option name ... type ...` line of the `uci` answer, or undefined for any other line. */
export function parseOption(line: string): UciOption | undefined {
  const match = /^option\s+name\s+(.+?)\s+type\s+(\S+)(.*)$/.exec(line.trim());
  if (!match) return undefined;
  const rest = match[3]!;
  const number = (key: string) => {
    const found = new RegExp(`\\s${key}\\s+(-?\\d+)`).exec(rest);
    return found ? Number(found[1]) : undefined;
  };
  return { name: match[1]!, min: number('min'), max: number('max') };
}

/** What a search may ask of an engine, from its options (names compared without case, as UCI says). */
export function capsOf(options: readonly UciOption[]): EngineCaps {
  const spin = (name: string) => {
    const option = options.find(o => o.name.toLowerCase() === name.toLowerCase());
    return option?.min !== undefined && option.max !== undefined ? { min: option.min, max: option.max } : undefined;
  };
  const skill = spin('Skill Level');
  const multiPv = spin('MultiPV');
  return { ...(skill && { skill }), ...(multiPv && multiPv.max > 1 && { multiPv: { max: multiPv.max } }) };
}

export interface InfoLine {
  readonly depth: number;
  readonly multipv: number;
  readonly score: number; // centipawns for the side to move; a mate is ±(MATE_CP - moves)
  readonly move: string; // the line's first move
}

/** A mate in n scores MATE_CP - n; being mated in n, -(MATE_CP - n). */
export const MATE_CP = 100_000;

/**
 * A complete `info` line of a search (depth, score and a principal variation), or undefined. Bounds
 * (`lowerbound`, `upperbound`) are not a line's score, so they are left out too.
 */
export function parseInfo(line: string): InfoLine | undefined {
  const words = line.trim().split(/\s+/);
  if (words[0] !== 'info') return undefined;
  let depth: number | undefined;
  let multipv = 1;
  let score: number | undefined;
  let move: string | undefined;
  for (let i = 1; i < words.length; i++) {
    const word = words[i];
    const next = words[i + 1];
    if (word === 'depth') depth = Number(next);
    else if (word === 'multipv') multipv = Number(next);
    else if (word === 'score' && next === 'cp') score = Number(words[i + 2]);
    else if (word === 'score' && next === 'mate') {
      const moves = Number(words[i + 2]);
      score = moves > 0 ? MATE_CP - moves : -MATE_CP - moves;
    } else if (word === 'lowerbound' || word === 'upperbound') return undefined;
    else if (word === 'pv') {
      move = next;
      break;
    }
  }
  if (depth === undefined || score === undefined || move === undefined) return undefined;
  if (!Number.isInteger(depth) || !Number.isInteger(multipv) || !Number.isFinite(score)) return undefined;
  return { depth, multipv, score, move };
}

/**
 * The lines of the deepest iteration that reported its first line, sorted by multipv: the candidates a
 * multi-line search ends with (an iteration cut short by the time limit may lack its last lines).
 */
export function lastIteration(infos: readonly InfoLine[]): InfoLine[] {
  const depth = Math.max(-1, ...infos.filter(info => info.multipv === 1).map(info => info.depth));
  const byLine = new Map<number, InfoLine>();
  for (const info of infos) if (info.depth === depth) byLine.set(info.multipv, info);
  return [...byLine.values()].sort((a, b) => a.multipv - b.multipv);
}

/**
 * The move of a `bestmove` line; null for `bestmove (none)` (no legal move), undefined for any other line.
 */
export function parseBestMove(line: string): string | null | undefined {
  const words = line.trim().split(/\s+/);
  if (words[0] !== 'bestmove') return undefined;
  const move = words[1];
  return move === undefined || move === '(none)' || move === '0000' ? null : move;
}

export const makeSetOption = (name: string, value: number | string): string => `setoption name ${name} value ${value}`;

export const makePosition = (fen: string, moves: readonly string[]): string =>
  moves.length === 0 ? `position fen ${fen}` : `position fen ${fen} moves ${moves.join(' ')}`;

export const makeGo = (limits: { moveTimeMs: number; depth: number }): string =>
  `go movetime ${limits.moveTimeMs} depth ${limits.depth}`;
