/**
 * The board page (`/` and `/game/{gameId}`): a person plays and follows games through the public API only. This
 * module makes the page's parts and connects them; each panel draws and wires itself in its own file.
 *
 * - The game on the board (gameSession.ts, drawn by gamePanel.ts): its address in the address bar, its position from
 *   its NDJSON stream, the actions its buttons, board and move box take.
 * - With a player token, `GET /api/account` names the player (account.ts), and the page offers only what the
 *   service lets that player do in the game (seats.ts, controlsOf); without one it acts for any side.
 * - With a player token, "My games" lists the player's ongoing games, live from their event stream (myGames.ts,
 *   myGamesPanel.ts); clicking one opens it.
 * - With a player token, "Play someone" challenges a player, lists the player's pending challenges live from the
 *   same event stream with their answers (challenges.ts), and seeks an opponent (seek.ts): playPanel.ts. When a
 *   challenge's game or the seek's game starts, the page opens it.
 * - A clocked game's clocks count down from the times of its last state, at the service's time as estimated from
 *   the states' `serverTime`; the page redraws them ten times a second while one runs, and never otherwise
 *   (clockTicker.ts). The service ends a game whose flag falls, and the stream brings that end.
 * - The lobby's forms create or import a game and open it (newGamePanel.ts); "Play the computer" starts a game
 *   against the engine and opens it on the person's side. The engine's seat is never the page's (seats.ts): it plays
 *   by itself on the service, and its moves come on the game's stream like any other change.
 * - With a player token on a game the player holds a seat in, a chat panel shows the players' room live and sends
 *   lines to it (chat.ts, chatPanel.ts): from a second stream of the game, lichess's, since the seed's own carries no
 *   chat.
 * - The "Position and game" panel copies and downloads the game (exportPanel.ts); the "API token" panel keeps the
 *   token (tokenPanel.ts).
 *
 * Every change redraws the page from the state (state.ts and the other pure modules, no DOM): `render`.
 */
import { AccountLoader } from './account.ts';
import { renderSignedIn } from './signedIn.ts';
import type { Account } from './api.ts';
import { ChallengesFeed } from './challenges.ts';
import { ChatFeed } from './chat.ts';
import { ChatPanel } from './chatPanel.ts';
import { chatShown } from './chatState.ts';
import { showError } from './errors.ts';
import { renderExport, wireExport } from './exportPanel.ts';
import { renderGame, ui } from './gamePanel.ts';
import { GameSession } from './gameSession.ts';
import { MyGamesFeed } from './myGames.ts';
import { renderMyGames, wireMyGamesDownload } from './myGamesPanel.ts';
import { NewGamePanel } from './newGamePanel.ts';
import { PlayPanel, showSeekError } from './playPanel.ts';
import { PlayerCard } from './playerPanel.ts';
import { Seeker } from './seek.ts';
import { renderToken, wireToken } from './tokenPanel.ts';
import './style.css';

/** Who the page acts as (`who.account`): undefined while the service has not said. */
const who = new AccountLoader(showAccount, error => showError(ui.error, error));
const game = new GameSession({ account: () => who.account, render: () => render() });
const newGame = new NewGamePanel({
  account: () => who.account,
  open: opened => game.open(opened.gameId, 'push', opened),
  openId: id => game.open(id, 'push'),
  openAs: (id, color) => {
    game.orientation = color; // the person's side at the bottom, as soon as the board shows the game
    return game.open(id, 'push');
  },
});

const myGames = new MyGamesFeed(() => renderPlayer());
/** The player's challenges and seek, which hear the event stream of "My games" (the page's only one). */
const challenges = new ChallengesFeed(() => renderPlayer(), showStartedGame);
const seeker = new Seeker(
  () => renderPlayer(),
  showStartedGame,
  () => myGames.list.games.map(ongoing => ongoing.gameId),
  showSeekError,
);
myGames.listen(challenges);
myGames.listen(seeker);
const play = new PlayPanel(challenges, seeker);
/** A player's ratings, their history and recent games: the page's player's, or one looked up. */
const playerCard = new PlayerCard(showStartedGame);

/** The players' room of the game on the board, for a page whose player holds a seat in it. */
const chat = new ChatFeed(() => chatPanel.render());
const chatPanel = new ChatPanel(chat);

function render(): void {
  const session = game.session;
  const controls = renderGame(session, who.account, game.orientation, game.board);
  renderExport(session?.game, controls.export);
  newGame.render(who.account);
  game.clocks.tick();
  renderPlayer();
  chat.follow(session?.game && chatShown(game.seats(), Boolean(who.account?.player)) ? session.id : undefined);
}

/**
 * The player's panels: their games (the one on the board with the state its own stream brought), their challenges
 * and their seek.
 */
function renderPlayer(): void {
  renderMyGames(myGames, game.session?.game, showStartedGame);
  play.render(who.account?.player);
}

/** Opens a game of the player's (from their list, a challenge or a seek) unless it is on the board. */
function showStartedGame(id: string): void {
  if (id !== game.session?.id) void game.open(id, 'push');
}

/** Once the service has said who the page acts as (who.account): their games, their side, their controls. */
function showAccount(answer: Account): void {
  renderSignedIn(who.signedIn ? answer.player : null);
  myGames.follow(answer.player);
  challenges.follow(answer.player);
  seeker.follow(answer.player);
  playerCard.follow(answer.player?.id);
  game.accountKnown();
}

/** No player's panels until the service says whose the new token is. */
function followNobody(): void {
  myGames.follow(null);
  challenges.follow(null);
  seeker.follow(null);
  chat.follow(undefined); // its stream was opened with the token given up
}

wireExport(() => game.session?.id);
wireMyGamesDownload(() => myGames.player?.id);
wireToken({
  saved: () => {
    followNobody(); // until the service says whose the token is
    void who.load();
    if (game.session) void game.open(game.session.id, 'none'); // try again with the token
  },
  forgotten: () => {
    followNobody();
    void who.load();
  },
});
window.addEventListener('popstate', () => game.route('none'));
window.addEventListener('online', () => {
  game.reconnectNow();
  myGames.reconnectNow();
  chat.reconnectNow();
});

renderToken();
void who.load();
game.route('none');
