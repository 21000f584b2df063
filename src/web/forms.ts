/**
 * What the page's address and its forms say, as plain data: the game id of a page address or of what was pasted
 * in the "open" field, and the players a new game's request names (DECISIONS §13). Pure, like state.ts;
 * newGame.ts sends the requests. Tested under Node (test/web/forms.test.ts).
 *
 * ```ts
 * idFromPath('/game/AbCd1234');                 // 'AbCd1234'
 * newGamePlayersOf(fields, account);            // { black: { id: 'bob', displayName: 'Bob' } }, or { error }
 * ```
 */
import type { Account, PlayerInfo } from '../contract/shapes.ts';
import type { Color } from '../contract/vocabulary.ts';
import { otherColor } from './notation.ts';

/** The game id of a page address (`/game/{gameId}`), or undefined for the lobby. */
export function idFromPath(pathname: string): string | undefined {
  const match = /^\/game\/([^/]+)\/?$/.exec(pathname);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return match[1];
  }
}

/** The game id typed or pasted in the "open" field: an id, or an address that holds one. */
export const idFromInput = (text: string): string => {
  const trimmed = text.trim();
  return /\/game\/([^/?#]+)/.exec(trimmed)?.[1] ?? trimmed;
};

/** The players of a new game from the two name fields; an empty field leaves the side to the service. */
export function playersOf(whiteName: string, blackName: string): { white?: PlayerInfo; black?: PlayerInfo } {
  const body: { white?: PlayerInfo; black?: PlayerInfo } = {};
  const white = whiteName.trim();
  const black = blackName.trim();
  if (white) body.white = { id: 'p1', displayName: white };
  if (black) body.black = { id: 'p2', displayName: black };
  return body;
}

/** The create form's fields: names without a player token; with one, the player's side and their opponent. */
export interface NewGameFields {
  whiteName: string;
  blackName: string;
  ownSide: Color;
  opponentId: string; // the opponent's player id, as their token holds it
  opponentName: string; // their display name; the id when empty
}

/**
 * The players of a new game from the create form (DECISIONS §13). For a player (`account.player`) the request
 * names only the opponent, on the side the player does not take: the service seats the player from the token;
 * no opponent is a practice board. Without a player, the names (playersOf).
 */
export function newGamePlayersOf(
  fields: NewGameFields,
  account: Account | undefined,
): { white?: PlayerInfo; black?: PlayerInfo } | { error: string } {
  if (!account?.player) return playersOf(fields.whiteName, fields.blackName);
  const id = fields.opponentId.trim();
  const name = fields.opponentName.trim();
  if (!id) return name ? { error: "Give the opponent's player id: a name alone does not say who they are." } : {};
  const known = id === account.player.id ? account.player.displayName : id;
  const opponent = { id, displayName: name || known };
  return otherColor(fields.ownSide) === 'white' ? { white: opponent } : { black: opponent };
}
