/**
 * PGN in and out (DECISIONS §8): a new game replaying the main line of an imported PGN, and the full PGN export
 * of a game. Reading the text (tags, movetext, a FEN tag) is `notation.ts`'s; this module turns it into a game.
 *
 * ```ts
 * const imported = gameFromPgn({ id, createdAt }, text, { maxPlies: 10_000 });
 * const text = exportPgn(game, { site: '?' });
 * ```
 */
import { makeUci } from 'chessops/util';
import { parseSan } from 'chessops/san';
import type { Chess } from 'chessops/chess';
import type { NormalMove } from 'chessops/types';
import type { PlayerInfo } from '../contract/shapes.ts';
import { DomainError, err, ok, type Result } from './errors.ts';
import { makeComment } from 'chessops/pgn';
import { isCorrespondence } from './clock.ts';
import { clockOf, derive, gameFromPosition, type Game, type NewGameInput } from './game.ts';
import { describeEnd, findPositionEnd, growingCopy, playOn } from './line.ts';
import { INITIAL_FEN, describePly, makePgnText, parsePgnGame } from './notation.ts';
import { ratingTags } from './ratings.ts';
import { resultToken } from './status.ts';
import { DEFAULT_BLACK, DEFAULT_WHITE } from './types.ts';

export interface PgnImportOptions {
  maxPlies: number; // e.g. 10000
}

/**
 * A new game replaying the main line of a PGN. Players not given in `input` come from the White/Black tags
 * (unless absent or '?').
 * The game is the same as if its moves had been played one by one (the domain tests compare the two).
 */
export function gameFromPgn(input: NewGameInput, text: string, options: PgnImportOptions): Result<Game> {
  const parsed = parsePgnGame(text, options.maxPlies);
  if (!parsed.ok) return parsed;
  const { headers, start, sans } = parsed.value;
  const player = (tag: string, defaults: PlayerInfo): PlayerInfo => {
    // A display name has 1-100 characters, no control characters and no unpaired surrogates (DECISIONS §2 and
    // §15), whatever the tag holds: controls become a space, an unpaired surrogate the replacement character.
    const tagValue = (headers.get(tag) ?? '').replace(/\p{Cc}+/gu, ' ').replace(/[\uD800-\uDFFF]/gu, '\uFFFD');
    const name = [...tagValue.trim()].slice(0, 100).join('');
    return name === '' || name === '?' ? defaults : { id: defaults.id, displayName: name };
  };
  const initial = gameFromPosition(
    {
      ...input,
      white: input.white ?? player('White', DEFAULT_WHITE),
      black: input.black ?? player('Black', DEFAULT_BLACK),
    },
    start,
  );
  // The replay plays on one position and extends one line, as a played move does, and checks the automatic ends
  // after each move, as `derive` does.
  const pos = initial.pos.clone();
  const line = growingCopy({ ...initial, moves: initial.record.moves });
  let end = initial.positionEnd;
  for (let i = 0; i < sans.length; i++) {
    const san = sans[i]!;
    const ply = initial.startPly + i;
    if (end) {
      const why = describeEnd(end);
      return err(
        new DomainError('INVALID_PGN', `PGN move ${describePly(ply, san)} comes after the game ended (${why})`, 'pgn'),
      );
    }
    const move = parseSan(pos, san) as NormalMove | undefined;
    if (!move) {
      const message = `PGN move ${describePly(ply, san)} is illegal or ambiguous in its position`;
      return err(new DomainError('INVALID_PGN', message, 'pgn'));
    }
    playOn(line, pos, move, uciOfChessopsMove(pos, move));
    end = findPositionEnd(pos, line);
  }
  // The import is one creation (version 1): the replay does not count as changes. Its moves count toward the
  // clock's phase and took no time (DECISIONS §14).
  const clock = clockOf(input, sans.length);
  const moveClocks = clock ? sans.map((_, i) => ((initial.startPly + i) % 2 === 0 ? clock.white : clock.black)) : [];
  return ok(derive({ ...initial.record, clock, moveClocks }, pos, initial.startPly, line));
}

/** The API's UCI of a chessops move: castling as the king's two-square move. */
function uciOfChessopsMove(pos: Chess, move: NormalMove): string {
  const piece = pos.board.get(move.from);
  if (piece?.role === 'king' && pos.board[pos.turn].has(move.to)) {
    const to = move.to > move.from ? move.from + 2 : move.from - 2;
    return makeUci({ from: move.from, to });
  }
  return makeUci(move);
}

export interface PgnExportOptions {
  site: string; // '?' or the game's public address
}

/**
 * The full PGN of DECISIONS §8: seven tags, SetUp/FEN for a non-standard start, wrapped movetext, result; a
 * clocked game also has a TimeControl tag (`300+2` in seconds, `-` for correspondence) and, in real time, the
 * mover's time left after each move, in whole seconds rounded down (`{[%clk 0:04:58]}`, DECISIONS §14).
 */
export function exportPgn(game: Game, options: PgnExportOptions): string {
  const { record } = game;
  const result = resultToken(game);
  const rated = ratingTags(record);
  const tags: Array<[string, string]> = [
    ['Event', rated?.event ?? 'Casual game'],
    ['Site', options.site],
    ['Date', record.createdAt.slice(0, 10).replace(/-/g, '.')],
    ['Round', '-'],
    ['White', record.white.displayName],
    ['Black', record.black.displayName],
    ['Result', result],
    ...(rated?.tags ?? []),
  ];
  const control = record.clock?.control;
  let comments: string[] | undefined;
  if (control) {
    const realTime = !isCorrespondence(control);
    tags.push(['TimeControl', realTime ? `${control.initial / 1000}+${control.increment / 1000}` : '-']);
    if (realTime) comments = record.moveClocks.map(ms => makeComment({ clock: Math.floor(ms / 1000) }));
  }
  if (record.startFen !== INITIAL_FEN) tags.push(['SetUp', '1'], ['FEN', record.startFen]);
  return makePgnText({ tags, startPly: game.startPly, sans: game.sans, result, comments });
}
