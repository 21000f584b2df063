/**
 * A strict lexical pass over a PGN text, run before chessops parses it. chessops' parser is deliberately
 * lenient (it skips text it cannot read, ends a game at any blank line and reads a result token in the
 * middle of the moves as the end of nothing); an import must instead refuse what it cannot read and name
 * it (DECISIONS §8). This pass checks the structure of exactly one game and lists the main-line move
 * tokens in order, so that an unreadable one can be named with its move number.
 *
 * ```ts
 * scanPgn('1. e4 e5 2. Nf9 *'); // ok({ mainline: ['e4', 'e5', 'Nf9'], unreadable: { index: 2, ... } })
 * ```
 */
import { DomainError, err, ok, type Result } from './errors.ts';

export interface PgnScan {
  /** Main-line move tokens (depth 0) in order, without move numbers and annotation glyphs. */
  mainline: string[];
  /** The first token that is not SAN: its index in `mainline` when it is on the main line. */
  unreadable?: { token: string; mainlineIndex?: number };
  /**
   * The text with blank lines removed, so that a parser that ends a game at a blank line reads one game, and tag
   * values in doubled quotes written in single ones.
   */
  normalized: string;
}

/** The SAN shapes chessops reads (standard chess only: no drops), with optional check/mate suffix. */
const SAN = /^(?:[NBKRQ]?[a-h]?[1-8]?[-x]?[a-h][1-8](?:=?[nbrqkNBRQK])?|[O0o]-[O0o](?:-[O0o])?)[+#]?$/;
const RESULT = /^(?:1-0|0-1|1\/2-1\/2|\*)$/;
/** A move number, or its dots alone when a space separates them from it (`3 . d4`, `12 ... Kf8`). */
const MOVE_NUMBER = /^(?:\d+\.*|\.+)$/;
const NUMBERED_MOVE = /^\d+\.+(.+)$/;
const GLYPH = /^[!?]{1,2}$/;
const TRAILING_GLYPH = /[!?]{1,2}$/;
const TAG_PAIR = /\[\s*[A-Za-z0-9][A-Za-z0-9_+#=:-]*\s+"(?:[^"\\]|\\.)*"\s*\]/y;
/** A tag value in doubled quotes, as some programs write a name (`[White ""Mephisto""]`): it reads as the name. */
const DOUBLED_TAG_PAIR = /\[\s*([A-Za-z0-9][A-Za-z0-9_+#=:-]*)\s+""((?:[^"\\]|\\.)*)""\s*\]/y;
const NAG = /\$\d{1,4}/y;
const WORD = /[^\s{}()[\];$]+/y;

const pgnError = (message: string): Result<never> => err(new DomainError('INVALID_PGN', message, 'pgn'));

/** Dash variants some editors write in results and castling; chessops reads them as ASCII hyphens. */
const asciiDashes = (word: string): string => word.replace(/[–—]/g, '-');

export function scanPgn(input: string): Result<PgnScan> {
  const text = input.startsWith('\ufeff') ? input.slice(1) : input;
  const mainline: string[] = [];
  let unreadable: PgnScan['unreadable'];
  let inMoves = false;
  let depth = 0;
  let result: string | undefined;
  let sawAnything = false;
  const rewritten: Array<{ start: number; end: number; text: string }> = [];
  let i = 0;
  const lineOf = (at: number) => text.slice(0, at).split('\n').length;
  const afterResult = (what: string) =>
    pgnError(`PGN must contain exactly one game; ${what} follows the result ${String(result)} on line ${lineOf(i)}`);

  while (i < text.length) {
    const c = text[i]!;
    const atLineStart = i === 0 || text[i - 1] === '\n';
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '%' && atLineStart) {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end + 1;
      continue;
    }
    if (c === ';') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end + 1;
      continue;
    }
    if (c === '{') {
      const end = text.indexOf('}', i);
      if (end === -1) return pgnError(`PGN has a comment opened on line ${lineOf(i)} that is never closed`);
      i = end + 1;
      continue;
    }
    sawAnything = true;
    if (c === '[') {
      if (inMoves) {
        return pgnError(
          result === undefined
            ? `PGN must contain exactly one game; a tag pair on line ${lineOf(i)} follows moves`
            : `PGN must contain exactly one game; a tag pair on line ${lineOf(i)} follows the result ${result}`,
        );
      }
      TAG_PAIR.lastIndex = i;
      if (TAG_PAIR.test(text)) {
        i = TAG_PAIR.lastIndex;
        continue;
      }
      DOUBLED_TAG_PAIR.lastIndex = i;
      const doubled = DOUBLED_TAG_PAIR.exec(text);
      if (doubled) {
        rewritten.push({ start: i, end: DOUBLED_TAG_PAIR.lastIndex, text: `[${doubled[1]!} "${doubled[2]!}"]` });
        i = DOUBLED_TAG_PAIR.lastIndex;
        continue;
      }
      const shown = text.slice(i, text.indexOf('\n', i) === -1 ? undefined : text.indexOf('\n', i)).slice(0, 40);
      return pgnError(`PGN has a malformed tag pair on line ${lineOf(i)}: ${shown}`);
    }
    inMoves = true;
    if (result !== undefined) return afterResult(`'${text.slice(i).split(/\s/, 1)[0]!.slice(0, 20)}'`);
    if (c === '(') {
      depth++;
      i++;
      continue;
    }
    if (c === ')') {
      if (depth === 0) return pgnError(`PGN has a ')' on line ${lineOf(i)} that closes no variation`);
      depth--;
      i++;
      continue;
    }
    if (c === '$') {
      NAG.lastIndex = i;
      if (!NAG.test(text)) return pgnError(`PGN has a malformed annotation glyph on line ${lineOf(i)}`);
      i = NAG.lastIndex;
      continue;
    }
    if (c === ']' || c === '}') return pgnError(`PGN has a '${c}' on line ${lineOf(i)} that closes nothing`);
    WORD.lastIndex = i;
    WORD.test(text);
    const raw = text.slice(i, WORD.lastIndex);
    i = WORD.lastIndex;
    const word = asciiDashes(raw);
    if (RESULT.test(word)) {
      if (depth > 0) return pgnError(`PGN has the result ${word} inside a variation on line ${lineOf(i)}`);
      result = word;
      continue;
    }
    if (MOVE_NUMBER.test(word) || GLYPH.test(word)) continue;
    const san = (NUMBERED_MOVE.exec(word)?.[1] ?? word).replace(TRAILING_GLYPH, '');
    if (depth === 0) mainline.push(san);
    if (!SAN.test(san) && unreadable === undefined) {
      unreadable = depth === 0 ? { token: san, mainlineIndex: mainline.length - 1 } : { token: san };
    }
  }
  if (!sawAnything) return pgnError('PGN contains no game');
  if (depth > 0) return pgnError('PGN has a variation that is never closed');
  let single = text;
  for (const { start, end, text: replacement } of rewritten.reverse()) {
    single = single.slice(0, start) + replacement + single.slice(end);
  }
  // chessops ends a game at a blank line between moves; one game may have them (after a comment, say).
  const normalized = single.replace(/\n[^\S\n]*(?:\n[^\S\n]*)+/g, '\n');
  return ok(unreadable ? { mainline, unreadable, normalized } : { mainline, normalized });
}
