/**
 * What the page's address and its forms say, as plain data: the game id of a page address or of what was pasted
 * in the "open" field, and the players a new game's request names (DECISIONS §13). Pure, like state.ts;
 * newGame.ts sends the requests. Tested under Node (test/web/forms.test.ts).
 *
 * ```ts
 * idFromPath('/game/AbCd1234');                 // 'AbCd1234'
 * newGamePlayersOf(fields, account);            // {} for a player: a practice board
 * ```
 */
import type { Account, PlayerInfo } from '../contract/shapes.ts';

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

/** The create form's fields: the two names, which only a request without a player token uses. */
export interface NewGameFields {
  whiteName: string;
  blackName: string;
}

/**
 * The players of a new game from the create form (DECISIONS §13a). A player (`account.player`) creates only practice
 * boards: the request names nobody and the service seats the player on both sides (to play someone else, they
 * challenge them). Without a player, the names (playersOf).
 */
export function newGamePlayersOf(
  fields: NewGameFields,
  account: Account | undefined,
): { white?: PlayerInfo; black?: PlayerInfo } {
  return account?.player ? {} : playersOf(fields.whiteName, fields.blackName);
}
