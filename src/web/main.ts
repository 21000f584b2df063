/**
 * The board page (`/` and `/game/{gameId}`): a person plays and follows games through the public API only.
 *
 * - The game in the address bar is the game on the board; opening or creating one pushes its address.
 * - The board is chessground; its legal destinations come from the moves endpoint, the position from the
 *   game's NDJSON stream (gameFull, then gameState per change), so every window on a game stays in sync.
 * - An action's own answer is shown at once unless the stream has already delivered something newer; the
 *   stream's order is the truth, and a reconnect's gameFull repairs anything missed.
 * - With a player token, `GET /api/account` names the player (account.ts), and the page offers only what the
 *   service lets that player do in the game (seats.ts, controlsOf); without one it acts for any side.
 * - With a player token, "My games" lists the player's ongoing games, live from their event stream (myGames.ts);
 *   clicking one opens it.
 * - With a player token, "Play someone" challenges a player, lists the player's pending challenges live from the
 *   same event stream with their answers (challenges.ts), and seeks an opponent (seek.ts). When a challenge's game
 *   or the seek's game starts, the page opens it.
 * - A clocked game's clocks count down from the times of its last state, at the service's time as estimated from
 *   the states' `serverTime`; the page redraws them ten times a second while one runs, and never otherwise
 *   (clockTicker.ts). The service ends a game whose flag falls, and the stream brings that end.
 * - The lobby's forms create or import a game and open it (newGame.ts); "Play the computer" starts a game against
 *   the engine and opens it on the person's side. The engine's seat is never the page's (seats.ts): it plays by
 *   itself on the service, and its moves come on the game's stream like any other change.
 * - With a player token on a game the player holds a seat in, a chat panel shows the players' room live and sends
 *   lines to it (chat.ts): from a second stream of the game, lichess's, since the seed's own carries no chat.
 *
 * This module wires events to the state (state.ts and the other pure modules, no DOM) and redraws (render.ts,
 * board.ts) after each change.
 */
import { AccountLoader } from './account.ts';
import { api, asApiError, setToken, type Account, type GameFull, type GameState } from './api.ts';
import { Board } from './board.ts';
import { ChallengesFeed } from './challenges.ts';
import { ChatFeed } from './chat.ts';
import { chatShown, chatTextProblem } from './chatState.ts';
import { challengeBodyOf, challengeRowsOf, seekBodyOf, timeControlOf, type ChallengeColor } from './challengesState.ts';
import { ClockTicker } from './clockTicker.ts';
import { copy, exportGame } from './export.ts';
import { idFromInput, idFromPath } from './forms.ts';
import { myGameRowsOf } from './myGamesState.ts';
import { MyGamesFeed } from './myGames.ts';
import { NewGameForms } from './newGame.ts';
import { toUci } from './notation.ts';
import { PromotionPicker, type PromotionPiece } from './promotion.ts';
import {
  confirmResign,
  render as renderPage,
  renderChat,
  renderConnection,
  renderMyGames,
  renderPlay,
  renderTimeControls,
  renderTimeFields,
  renderToken,
  showError,
  timeFieldsOf,
  ui,
  type ChallengeAnswers,
} from './render.ts';
import { Seeker } from './seek.ts';
import { seekWordsOf } from './seekState.ts';
import { computerSideOf, controlsOf, orientationFor, seatsOf } from './seats.ts';
import {
  answerIsCurrent,
  applyGame,
  applyState,
  isEnded,
  movesFor,
  needsLegal,
  newSession,
  promotionToAsk,
  type Session,
} from './state.ts';
import { GameStream } from './stream.ts';
import type { Color, DrawAction, TakebackAction } from '../contract/vocabulary.ts';
import './style.css';

/** The game on the page, with the stream that follows it. */
let session: (Session & { stream?: GameStream }) | undefined;
let orientedFor: Session | undefined; // the game whose orientation was chosen for the page's seat
let orientation: Color = 'white';
let legalRequest = 0;

const board = new Board(ui.board, onBoardMove);
const picker = new PromotionPicker(ui.promotion);
const myGames = new MyGamesFeed(() => renderGames());
/** The player's challenges and seek, which hear the event stream of "My games" (the page's only one). */
const challenges = new ChallengesFeed(() => renderGames(), showStartedGame);
const seeker = new Seeker(
  () => renderGames(),
  showStartedGame,
  () => myGames.list.games.map(game => game.gameId),
  error => showError(ui.seekError, error),
);
myGames.listen(challenges);
myGames.listen(seeker);
/** Who the page acts as (`who.account`): undefined while the service has not said. */
const who = new AccountLoader(showAccount);
const clocks = new ClockTicker(() => session?.game);
const newGame = new NewGameForms(
  () => who.account,
  game => openGame(game.gameId, 'push', game),
  (id, color) => {
    orientation = color; // the person's side at the bottom, as soon as the board shows the game
    return openGame(id, 'push');
  },
);

/** The players' room of the game on the board, for a page whose player holds a seat in it. */
const chat = new ChatFeed(() => renderChat(chat.chat, chat.status, chat.problem));

const seats = (): Color[] => seatsOf(session?.game, who.account);
const render = (): void => {
  renderPage(session, who.account, orientation, board);
  clocks.tick();
  renderGames();
  chat.follow(session?.game && chatShown(seats(), Boolean(who.account?.player)) ? session.id : undefined);
};

/**
 * The player's panels: their games (the one on the board with the state its own stream brought), their challenges
 * and their seek.
 */
function renderGames(): void {
  const player = myGames.player;
  const rows = player ? myGameRowsOf(myGames.list.games, player, session?.game) : undefined;
  renderMyGames(rows, myGames.status, myGames.problem, showStartedGame);
  const seeking = seeker.seek.phase !== 'idle';
  renderPlay(
    {
      player: who.account?.player,
      rows: challenges.player ? challengeRowsOf(challenges.state) : [],
      notice: challenges.state.notice,
      seekWords: seekWordsOf(seeker.seek),
      seeking,
    },
    challengeAnswers,
  );
}

/** Opens a game of the player's (from their list, a challenge or a seek) unless it is on the board. */
function showStartedGame(id: string): void {
  if (id !== session?.id) void openGame(id, 'push');
}

const renderBoard = (): void =>
  board.show(
    session?.game?.state,
    session?.legal ?? [],
    orientation,
    controlsOf(session?.game?.state, seats(), session?.game?.clock, computerSideOf(session?.game)).move === 'enabled',
  );

// ---------------------------------------------------------------------------------------------- account

/** Once the service has said who the page acts as (who.account): their games, their side, their controls. */
function showAccount(answer: Account): void {
  myGames.follow(answer.player);
  challenges.follow(answer.player);
  seeker.follow(answer.player);
  orient();
  render();
  if (session) promptPendingPromotion(session);
}

/** Once per game, turns the board so that a player's own side is at the bottom. */
function orient(): void {
  if (!session?.game || !who.account || orientedFor === session) return;
  orientedFor = session;
  orientation = orientationFor(seats()) ?? orientation;
}

// ---------------------------------------------------------------------------------------------- state

function showGame(target: Session, game: GameFull): void {
  clocks.note(game.state);
  if (session !== target) return;
  afterStateChange(target, applyGame(target, game));
}

function showState(target: Session, state: GameState): void {
  clocks.note(state);
  if (session !== target || !target.game) return;
  afterStateChange(target, applyState(target, state));
}

function afterStateChange(target: Session, previous: GameState | undefined): void {
  const state = target.game!.state;
  if (picker.isOpen && (state.fen !== previous?.fen || isEnded(state))) picker.close();
  orient();
  render();
  void refreshLegal(target);
  promptPendingPromotion(target);
}

/** Asks the moves endpoint for the legal moves of the position shown; late answers are dropped. */
async function refreshLegal(target: Session): Promise<void> {
  if (!needsLegal(target)) return;
  const request = ++legalRequest;
  try {
    const moves = await api.legalMoves(target.id);
    if (request !== legalRequest || session !== target) return;
    target.legal = moves;
    renderBoard();
    promptPendingPromotion(target);
  } catch (error) {
    if (request !== legalRequest || session !== target) return;
    target.legalKey = undefined; // ask again on the next change
    showError(ui.error, asApiError(error));
  }
}

/** A pending promotion (status promotionPending) opens the picker when its move is known. */
function promptPendingPromotion(target: Session): void {
  if (picker.isOpen) return;
  const uci = promotionToAsk(target, seats());
  const fen = target.game?.state.fen;
  if (!uci) return;
  openPicker(uci.slice(0, 2), uci.slice(2, 4), () => {
    target.dismissedPendingFen = fen;
  });
}

function openPicker(from: string, to: string, onCancel: () => void = () => undefined): void {
  const state = session?.game?.state;
  if (!state) return;
  picker.open(
    { to, color: state.turn, orientation },
    (piece: PromotionPiece) => void play(`${from}${to}${piece}`),
    () => {
      onCancel();
      renderBoard();
    },
  );
}

// ---------------------------------------------------------------------------------------------- games

function setAddress(path: string, mode: 'push' | 'replace' | 'none'): void {
  if (mode === 'none' || location.pathname === path) return;
  if (mode === 'push') history.pushState(null, '', path);
  else history.replaceState(null, '', path);
}

function closeGame(): void {
  session?.stream?.stop();
  session = undefined;
  picker.close();
  renderConnection('idle', undefined);
}

/** Shows a game: the given snapshot (from create or import) or a fresh GET, then follows its stream. */
async function openGame(id: string, mode: 'push' | 'replace' | 'none', snapshot?: GameFull): Promise<void> {
  closeGame();
  showError(ui.error, undefined);
  setAddress(`/game/${encodeURIComponent(id)}`, mode);
  if (mode === 'push') window.scrollTo(0, 0); // to the board, as a new page: the forms that open games are below it
  const target: Session & { stream?: GameStream } = newSession(id);
  session = target;
  render();
  if (snapshot) {
    showGame(target, snapshot);
  } else {
    try {
      showGame(target, await api.get(id));
    } catch (error) {
      if (session !== target) return;
      const apiError = asApiError(error);
      const final = apiError.status >= 400 && apiError.status < 500 && apiError.status !== 429;
      if (final || !target.game) {
        target.loadError = apiError;
        showError(ui.error, apiError);
        render();
      }
      if (final) return; // no such game, a malformed id or no access: the stream would say the same
    }
  }
  if (session !== target) return;
  target.stream = new GameStream(id, {
    onGame: game => {
      target.epoch += 1;
      target.notice = undefined;
      if (target.loadError) showError(ui.error, undefined);
      showGame(target, game);
    },
    onState: state => {
      target.epoch += 1;
      showState(target, state);
    },
    onNotice: error => {
      target.notice = error.message;
    },
    onFatal: error => {
      if (session !== target) return;
      showError(ui.error, error);
      if (!target.game) {
        target.loadError = error;
        render();
      }
    },
    onConnection: (status, retryInMs) => {
      if (session === target) renderConnection(status, target.notice, retryInMs);
    },
  });
  target.stream.start();
}

function route(mode: 'replace' | 'none'): void {
  const id = idFromPath(location.pathname);
  if (id) void openGame(id, mode);
  else {
    closeGame();
    render();
  }
}

// ---------------------------------------------------------------------------------------------- actions

/** Runs an action on the current game; shows its answer unless the stream has already shown something newer. */
async function act(run: (id: string) => Promise<GameState | { ok: true }>): Promise<GameState | undefined> {
  const target = session;
  if (!target?.game) return undefined;
  showError(ui.error, undefined);
  const epoch = target.epoch;
  try {
    const answer = await run(target.id);
    if (session !== target) return undefined;
    if ('fen' in answer) {
      if (answerIsCurrent(target, epoch)) showState(target, answer);
      return answer;
    }
    if (answerIsCurrent(target, epoch)) {
      const game = await api.get(target.id); // {ok:true} carries no state; the stream may not be live
      if (answerIsCurrent(target, epoch)) showGame(target, game);
    }
    return target.game.state;
  } catch (error) {
    if (session === target) {
      showError(ui.error, asApiError(error));
      renderBoard(); // a piece moved on the board goes back
    }
    return undefined;
  }
}

async function play(uci: string): Promise<boolean> {
  const target = session;
  if (target?.game === undefined) return false;
  board.freeze(); // one move at a time
  const state = await act(id => api.move(id, uci));
  if (!state) return false;
  if (state.status === 'promotionPending' && uci.length === 4) {
    target.pending = { fen: state.fen, uci };
    target.dismissedPendingFen = undefined;
    promptPendingPromotion(target);
  }
  return true;
}

function onBoardMove(orig: string, dest: string): void {
  const candidates = movesFor(session?.legal ?? [], orig, dest);
  const first = candidates[0];
  if (!first) {
    renderBoard();
    return;
  }
  if (candidates.some(move => move.promotion)) openPicker(first.from, first.to);
  else void play(first.uci);
}

async function onMoveSubmit(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const state = session?.game?.state;
  if (!state) return;
  const parsed = toUci(ui.moveInput.value, state.fen);
  if ('error' in parsed) {
    showError(ui.error, parsed.error);
    ui.moveInput.select();
    return;
  }
  if (await play(parsed.uci)) ui.moveInput.value = '';
  else ui.moveInput.select();
}

// ---------------------------------------------------------------------------------------------- wiring

function on(element: HTMLElement, type: string, handler: (event: Event) => unknown): void {
  element.addEventListener(type, event => void handler(event));
}

/** A form's submission, handled by the page instead of the browser. */
function onSubmit(form: HTMLFormElement, handler: () => unknown): void {
  on(form, 'submit', event => {
    event.preventDefault();
    return handler();
  });
}

// ---------------------------------------------------------------------------------------------- play someone

/** A challenge's answer from its row; a refusal shows above the lists. */
async function answerChallenge(run: () => Promise<void>): Promise<void> {
  showError(ui.challengesError, undefined);
  try {
    await run();
  } catch (error) {
    showError(ui.challengesError, asApiError(error));
  }
}

const challengeAnswers: ChallengeAnswers = {
  accept: id => answerChallenge(() => challenges.accept(id)),
  decline: (id, reason) => answerChallenge(() => challenges.decline(id, reason)),
  cancel: id => answerChallenge(() => challenges.cancel(id)),
};

async function onChallengeSubmit(): Promise<void> {
  showError(ui.challengeError, undefined);
  const control = timeControlOf(timeFieldsOf(ui.challengeForm));
  if ('error' in control) {
    showError(ui.challengeError, control.error);
    return;
  }
  const color = ui.challengeColor.value as ChallengeColor;
  try {
    await challenges.create(ui.challengePlayer.value.trim(), challengeBodyOf(control, color));
    ui.challengePlayer.value = '';
  } catch (error) {
    showError(ui.challengeError, asApiError(error));
  }
}

function onSeekSubmit(): Promise<void> | undefined {
  showError(ui.seekError, undefined);
  const control = timeControlOf(timeFieldsOf(ui.seekForm));
  const body = 'error' in control ? control : seekBodyOf(control);
  if ('error' in body) {
    showError(ui.seekError, body.error);
    return undefined;
  }
  return seeker.start(body);
}

// ---------------------------------------------------------------------------------------------- chat

async function onChatSubmit(): Promise<void> {
  const text = ui.chatInput.value;
  const problem = chatTextProblem(text);
  showError(ui.chatError, problem);
  if (problem) return;
  ui.chatSend.disabled = true;
  try {
    await chat.send(text);
    ui.chatInput.value = ''; // the line comes back on the stream, like the opponent's
  } catch (error) {
    showError(ui.chatError, asApiError(error));
  } finally {
    ui.chatSend.disabled = false;
    ui.chatInput.focus();
  }
}

onSubmit(ui.chatForm, onChatSubmit);
onSubmit(ui.challengeForm, onChallengeSubmit);
onSubmit(ui.seekForm, onSeekSubmit);
on(ui.seekCancel, 'click', () => seeker.cancel());
for (const form of [ui.challengeForm, ui.seekForm, ui.computerForm]) {
  on(form, 'change', event => {
    if ((event.target as HTMLElement).getAttribute('name') === 'kind') renderTimeFields(form);
  });
  renderTimeFields(form);
}

// ---------------------------------------------------------------------------------------------- wiring (game)

const draw = (action: DrawAction) => act(id => api.draw(id, action));
const takeback = (action: TakebackAction) => act(id => api.takeback(id, action));

on(ui.undo, 'click', () => act(id => api.undo(id)));
on(ui.redo, 'click', () => act(id => api.redo(id)));
on(ui.flip, 'click', () => {
  orientation = orientation === 'white' ? 'black' : 'white';
  const request = picker.request;
  picker.close();
  render();
  if (request) promptPendingPromotion(session!);
});
on(ui.resign, 'click', () => (confirmResign() ? act(id => api.resign(id)) : undefined));
on(ui.drawOffer, 'click', () => draw('offer'));
on(ui.drawAccept, 'click', () => draw('accept'));
on(ui.drawDecline, 'click', () => draw('decline'));
on(ui.drawClaim, 'click', () => draw('claim'));
on(ui.takebackOffer, 'click', () => takeback('offer'));
on(ui.takebackAccept, 'click', () => takeback('accept'));
on(ui.takebackDecline, 'click', () => takeback('decline'));
on(ui.abort, 'click', () => act(id => api.abort(id)));
on(ui.moveForm, 'submit', event => onMoveSubmit(event as SubmitEvent));

onSubmit(ui.createForm, () => newGame.create());
onSubmit(ui.openForm, () => {
  const id = idFromInput(ui.openId.value); // a pasted address works too
  if (id) void openGame(id, 'push');
});
onSubmit(ui.fenForm, () => newGame.importFen());
onSubmit(ui.computerForm, () => newGame.playComputer());
onSubmit(ui.pgnForm, () => newGame.importPgn());

on(ui.copyFen, 'click', () => exportGame(() => session?.id, 'fen', 'copy', ui.exportNotice));
on(ui.downloadFen, 'click', () => exportGame(() => session?.id, 'fen', 'download', ui.exportNotice));
on(ui.copyPgn, 'click', () => exportGame(() => session?.id, 'pgn', 'copy', ui.exportNotice));
on(ui.downloadPgn, 'click', () => exportGame(() => session?.id, 'pgn', 'download', ui.exportNotice));
on(ui.copyLink, 'click', () => copy(location.href, 'Link', ui.exportNotice));

onSubmit(ui.tokenForm, () => {
  setToken(ui.tokenInput.value.trim());
  ui.tokenInput.value = '';
  renderToken();
  followNobody(); // until the service says whose the token is
  void who.load();
  if (session) void openGame(session.id, 'none'); // try again with the token
});
on(ui.tokenClear, 'click', () => {
  setToken('');
  ui.tokenInput.value = '';
  renderToken();
  followNobody();
  void who.load();
});

/** No player's panels until the service says whose the new token is. */
function followNobody(): void {
  myGames.follow(null);
  challenges.follow(null);
  seeker.follow(null);
  chat.follow(undefined); // its stream was opened with the token given up
}

window.addEventListener('popstate', () => route('none'));
window.addEventListener('online', () => {
  session?.stream?.reconnectNow();
  myGames.reconnectNow();
  chat.reconnectNow();
});

renderTimeControls();
renderToken();
void who.load();
route('none');
