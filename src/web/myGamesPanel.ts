/**
 * The "My games" panel: hidden without a player; else a button per ongoing game of the player (myGamesState.ts,
 * myGameRowsOf), the one on the board with the state its own stream brought, that opens it; the event stream's
 * status and its problem, if any. Its traffic is myGames.ts's.
 *
 * ```ts
 * renderMyGames(myGames, session?.game, id => openGame(id, 'push')); // after every change
 * wireMyGamesDownload(() => myGames.player?.id); // "Download my games": every game of the player, as one PGN
 * ```
 */
import { api, asApiError, type GameFull } from './api.ts';
import { el, elements, h, on, showConnection, showText, tag } from './dom.ts';
import { download } from './exportPanel.ts';
import type { MyGamesFeed } from './myGames.ts';
import { myGameRowsOf, type MyGameRow } from './myGamesState.ts';

const ui = elements('my-games my-games-connection my-games-problem my-games-empty my-games-list');

/** What the panel shows now, to redraw it only when that changes. */
let drawn: string | undefined;

/** Draws the panel from `feed`, with `onBoard` (the game on the page, if any) as shown there; `open` opens a game. */
export function renderMyGames(feed: MyGamesFeed, onBoard: GameFull | undefined, open: (gameId: string) => void): void {
  const { player, status, problem } = feed;
  const rows = player ? myGameRowsOf(feed.list.games, player, onBoard) : undefined;
  const now = JSON.stringify([rows, status, problem]);
  if (now === drawn) return; // redrawn with every change of the page: keep a button being clicked
  drawn = now;
  ui.myGames.hidden = rows === undefined;
  showConnection(ui.myGamesConnection, status);
  showText(ui.myGamesProblem, problem ?? '');
  ui.myGamesEmpty.hidden = !rows || rows.length > 0 || status !== 'live';
  ui.myGamesList.replaceChildren(...(rows ?? []).map(row => h('li', {}, gameButton(row, open))));
}

function gameButton(row: MyGameRow, open: (gameId: string) => void): HTMLButtonElement {
  const turn = tag(row.turn, row.yourTurn ? 'turn to-move' : 'turn');
  turn.dataset.testid = 'my-game-turn';
  const button = h(
    'button',
    { className: 'my-game', testid: 'my-game' },
    h('span', { className: 'title', text: row.title }),
    h('span', { className: 'side-name', text: row.side }),
    turn,
  );
  button.type = 'button';
  button.dataset.gameId = row.gameId;
  button.dataset.yourTurn = String(row.yourTurn);
  if (row.open) button.setAttribute('aria-current', 'true');
  button.addEventListener('click', () => open(row.gameId));
  return button;
}

/** The "Download my games" button: every game of the player `player()` names when clicked, as one PGN file. */
export function wireMyGamesDownload(player: () => string | undefined): void {
  const notice = el('download-my-games-notice');
  on(el<HTMLButtonElement>('download-my-games'), 'click', async () => {
    const id = player();
    if (!id) return;
    notice.textContent = 'Downloading…';
    try {
      download(`games-${id}.pgn`, await api.playerGamesPgn(id), 'application/x-chess-pgn', notice);
    } catch (error) {
      notice.textContent = asApiError(error).message;
    }
  });
}
