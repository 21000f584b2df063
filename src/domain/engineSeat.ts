/**
 * The computer's seat (DECISIONS §18, §16a): the engine plays as the player `stockfish`, named `Stockfish level N`,
 * and its level is read back from that name (the game's record keeps only its seats). Nobody else is ever given the
 * id, nor one that looks like it (`isEngineLookalike`): no token is issued for it, and no request seats it.
 *
 * ```ts
 * engineSeat(3); // { id: 'stockfish', displayName: 'Stockfish level 3' }
 * engineLevelOf(game.record.black); // 3, or undefined for a person
 * isEngineLookalike('ѕtockfish'); // true: a Cyrillic dze
 * ```
 */
import unhomoglyph from 'unhomoglyph';
import type { PlayerInfo } from '../contract/shapes.ts';
import { ENGINE_ID, ENGINE_LEVELS, type EngineLevel } from '../contract/vocabulary.ts';
import { DomainError } from './errors.ts';

export { ENGINE_ID };

export const engineSeat = (level: EngineLevel): PlayerInfo => ({
  id: ENGINE_ID,
  displayName: `Stockfish level ${level}`,
});

/** The level of the engine in this seat, or undefined when the seat is not the engine's. */
export function engineLevelOf(player: PlayerInfo): EngineLevel | undefined {
  if (player.id !== ENGINE_ID) return undefined;
  const level = Number(/^Stockfish level ([1-8])$/.exec(player.displayName)?.[1]);
  return (ENGINE_LEVELS as readonly number[]).includes(level) ? (level as EngineLevel) : undefined;
}

/** What cannot be seen in an id: spaces and separators, zero-width and other invisible or format characters. */
const INVISIBLE = /[\p{White_Space}\p{Z}\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * Latin small capitals of the letters of `stockfish`, which Unicode's confusables do not map to the letters they
 * show (its table is for the same case; these read as the id in capitals).
 */
const SMALL_CAPITALS: Readonly<Record<string, string>> = {
  ꜱ: 's',
  ᴛ: 't',
  ᴏ: 'o',
  ᴄ: 'c',
  ᴋ: 'k',
  ꜰ: 'f',
  ɪ: 'i',
  ʜ: 'h',
};
const SMALL_CAPITAL = new RegExp(`[${Object.keys(SMALL_CAPITALS).join('')}]`, 'gu');

/**
 * An id's look as Unicode's confusables (UTS #39's skeleton, through the npm `unhomoglyph`, built from Unicode's
 * confusables.txt) see it, in lower case: two ids with the same look are told apart by no reader.
 */
const lookOf = (text: string): string =>
  unhomoglyph(text.replace(SMALL_CAPITAL, letter => SMALL_CAPITALS[letter]!)).toLowerCase();

/** The looks of the engine's id in lower and in upper case (a capital I looks like a small l). */
const ENGINE_LOOKS = new Set([lookOf(ENGINE_ID), lookOf(ENGINE_ID.toUpperCase())]);

/**
 * Whether a player id is the computer's or looks like it: in any letter case, with spaces or invisible characters
 * anywhere, with compatibility forms (full-width letters, ligatures: NFKC), or with letters of other scripts that
 * look like its own (Cyrillic ѕ, Greek ο, ...). Such an id is never given to anyone (DECISIONS §16a).
 */
export function isEngineLookalike(id: string): boolean {
  const visible = id.normalize('NFKC').replace(INVISIBLE, '');
  return [visible, visible.toLowerCase(), visible.toUpperCase()].some(form => ENGINE_LOOKS.has(lookOf(form)));
}

/**
 * Why a request may not seat these players (INVALID_BODY, naming the seat), if it may not: the computer's seat, or
 * one that looks like it. The computer is played through `POST /api/challenge/ai` only (DECISIONS §16a).
 */
export function engineSeatRefusal(seats: {
  white?: PlayerInfo | undefined;
  black?: PlayerInfo | undefined;
}): DomainError | undefined {
  for (const side of ['white', 'black'] as const) {
    const id = seats[side]?.id;
    if (id !== undefined && isEngineLookalike(id)) {
      return new DomainError(
        'INVALID_BODY',
        `'${id}' is, or looks like, the computer's id (${ENGINE_ID}): play the computer with POST /api/challenge/ai`,
        `${side}.id`,
      );
    }
  }
  return undefined;
}
