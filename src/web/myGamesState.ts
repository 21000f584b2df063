/**
 * The "My games" panel's list, as plain data (DECISIONS §13): the ongoing games of the page's player, kept from
 * their event stream's lines and the list answers, and the panel's rows in words. Pure, like state.ts; myGames.ts
 * brings the traffic, myGamesPanel.ts draws the rows. Tested under Node (test/web/myGamesState.test.ts).
 *
 * ```ts
 * const list = newMyGames();
 * openMyGames(list);                          // the event stream connected
 * applyPlayerLine(list, line);                // a gameStart or gameFinish
 * applyGameList(list, page, epochAtSend);     // GET /api/board/game?status=ongoing
 * myGameRowsOf(list.games, player, openGame);
 * ```
 */
import type { GameFull, PlayerInfo } from '../contract/shapes.ts';
import { colorName, otherColor } from './notation.ts';
import { BOTH_SIDES } from './seats.ts';
import { isEnded } from './state.ts';

/** A line of a player's event stream (GET /api/stream/event) that says one of their games started or ended. */
export interface PlayerGameLine {
  type: 'gameStart' | 'gameFinish';
  game: GameFull; // and lichess's GameEventInfo fields, which the page does not read
}

/**
 * The "My games" panel: the ongoing games of the page's player, the most recently changed first (DECISIONS §13).
 * The event stream adds and drops games; a list answer (GET /api/board/game?status=ongoing) brings their order and
 * whose turn it is, since a move sends no event.
 */
export interface MyGames {
  games: GameFull[];
  /**
   * Whether a list answer has come since the stream's connection opened. Until then a game not listed goes last:
   * a connection first sends the ongoing games, most recent first, with no line to say when they end. After, a
   * game that starts is the most recent and goes first.
   */
  settled: boolean;
  epoch: number; // connections and lines applied so far: a list answer asked for before the last one is stale
}

export const newMyGames = (): MyGames => ({ games: [], settled: false, epoch: 0 });

/** A new connection of the event stream: what it sends first is the whole list again. */
export function openMyGames(list: MyGames): void {
  list.games = [];
  list.settled = false;
  list.epoch += 1;
}

/**
 * A gameStart adds its game unless it is listed (a list answer made after the start is as new), a gameFinish
 * drops it.
 */
export function applyPlayerLine(list: MyGames, line: PlayerGameLine): void {
  list.epoch += 1;
  const id = line.game.gameId;
  if (line.type === 'gameFinish' || isEnded(line.game.state)) {
    list.games = list.games.filter(game => game.gameId !== id);
  } else if (!list.games.some(game => game.gameId === id)) {
    list.games = list.settled ? [line.game, ...list.games] : [...list.games, line.game];
  }
}

/**
 * A list answer, asked for at `epochAtSend` (list.epoch then), replaces the list unless a connection or a line came
 * since (its epoch then is stale; that line asks for the list again). An answer with more pages keeps the listed
 * games it does not hold, after its own. Answers whether it was applied.
 */
export function applyGameList(
  list: MyGames,
  page: { games: readonly GameFull[]; nextCursor: string | null },
  epochAtSend: number,
): boolean {
  if (list.epoch !== epochAtSend) return false;
  const ongoing = page.games.filter(game => !isEnded(game.state));
  const answered = new Set(page.games.map(game => game.gameId));
  const rest = page.nextCursor === null ? [] : list.games.filter(game => !answered.has(game.gameId));
  list.games = [...ongoing, ...rest];
  list.settled = true;
  return true;
}

/** A game of the panel, in words. */
export interface MyGameRow {
  gameId: string;
  title: string; // 'vs Bob': the other player's name; 'Practice board' for a game against oneself
  side: string; // 'White', 'Black' or 'Both sides': the seats the player holds
  turn: string; // 'Your turn' or "Bob's turn"
  yourTurn: boolean;
  open: boolean; // the game on the board
}

/**
 * The panel's rows for `player`. The game on the board (`open`, followed by its own stream) shows its latest state;
 * an ended one is left out.
 */
export function myGameRowsOf(games: readonly GameFull[], player: PlayerInfo, open: GameFull | undefined): MyGameRow[] {
  const rows: MyGameRow[] = [];
  for (const listed of games) {
    const isOpen = open?.gameId === listed.gameId;
    const state = isOpen ? open.state : listed.state;
    if (isEnded(state)) continue;
    const seats = BOTH_SIDES.filter(color => listed[color].id === player.id);
    const [seat] = seats;
    const title =
      seats.length === 2
        ? 'Practice board'
        : seat
          ? `vs ${listed[otherColor(seat)].displayName}`
          : `${listed.white.displayName} vs ${listed.black.displayName}`;
    const yourTurn = seats.includes(state.turn);
    rows.push({
      gameId: listed.gameId,
      title,
      side: seats.length === 2 ? 'Both sides' : seat ? colorName(seat) : 'Watching',
      turn: yourTurn ? 'Your turn' : `${listed[state.turn].displayName}'s turn`,
      yourTurn,
      open: isOpen,
    });
  }
  return rows;
}
