/**
 * The page's DOM: its elements (fixed markup, found by data-testid) and the drawing of the state (state.ts, seats.ts,
 * clocks.ts, myGamesState.ts) into them. No network and no decisions: what to show comes from the state modules.
 *
 * ```ts
 * render(session, account, orientation, board);
 * renderClocks(session.game, serviceNow); // ten times a second while a clock runs
 * renderMyGames(rows, 'live', undefined, id => open(id)); // the player's games; rows undefined: no player
 * renderPlay({ player, rows, notice, seekWords, seeking }, answers); // challenges and the seek
 * renderChat(chat.chat, chat.status, chat.problem); // the players' room; no chat: the panel hides
 * showError(ui.error, apiError);
 * ```
 */
import type { Color } from '../contract/vocabulary.ts';
import { getToken, type Account, type ApiError } from './api.ts';
import type { Board } from './board.ts';
import { clockDisplayOf, TIME_CONTROLS, type ClockDisplay, type ClockFace } from './clocks.ts';
import { DECLINE_CHOICES, type ChallengeRow, type TimeControlFields } from './challengesState.ts';
import type { DeclineReason } from '../contract/vocabulary.ts';
import type { MyGameRow } from './myGamesState.ts';
import type { ChatState } from './chatState.ts';
import { colorName, movetextToSan } from './notation.ts';
import { computerSideOf, controlsOf, ownSeatsOf, seatsOf, seatWordsOf, type Control, type Controls } from './seats.ts';
import { isEnded, offerWordsOf, statusWordsOf, titleOf, type Session } from './state.ts';
import type { ConnectionStatus } from './stream.ts';

/** The element with this data-testid; the page's markup is fixed, so a missing one is a bug. */
function el<T extends HTMLElement = HTMLElement>(testid: string): T {
  const found = document.querySelector<T>(`[data-testid="${testid}"]`);
  if (!found) throw new Error(`the page has no [data-testid="${testid}"]`);
  return found;
}

export const ui = {
  board: el('board'),
  promotion: el('promotion'),
  playerTop: el('player-top'),
  playerBottom: el('player-bottom'),
  gameId: el('game-id'),
  connection: el('connection'),
  seat: el('seat'),
  status: el('status'),
  turn: el('turn'),
  offers: el('offers'),
  result: el('result'),
  error: el('error'),
  undo: el<HTMLButtonElement>('undo'),
  redo: el<HTMLButtonElement>('redo'),
  flip: el<HTMLButtonElement>('flip'),
  resign: el<HTMLButtonElement>('resign'),
  drawOffer: el<HTMLButtonElement>('draw-offer'),
  drawAccept: el<HTMLButtonElement>('draw-accept'),
  drawDecline: el<HTMLButtonElement>('draw-decline'),
  drawClaim: el<HTMLButtonElement>('draw-claim'),
  takebackOffer: el<HTMLButtonElement>('takeback-offer'),
  takebackAccept: el<HTMLButtonElement>('takeback-accept'),
  takebackDecline: el<HTMLButtonElement>('takeback-decline'),
  abort: el<HTMLButtonElement>('abort'),
  moveForm: el<HTMLFormElement>('move-form'),
  moveInput: el<HTMLInputElement>('move-input'),
  moveSubmit: el<HTMLButtonElement>('move-submit'),
  moveHelp: el('move-help'),
  moves: el('moves'),
  fen: el('fen'),
  copyFen: el<HTMLButtonElement>('copy-fen'),
  downloadFen: el<HTMLButtonElement>('download-fen'),
  copyPgn: el<HTMLButtonElement>('copy-pgn'),
  downloadPgn: el<HTMLButtonElement>('download-pgn'),
  copyLink: el<HTMLButtonElement>('copy-link'),
  exportNotice: el('export-notice'),
  createForm: el<HTMLFormElement>('create-form'),
  createError: el('create-error'),
  names: el('names'),
  whiteName: el<HTMLInputElement>('white-name'),
  blackName: el<HTMLInputElement>('black-name'),
  playingAs: el('playing-as'),
  timeControl: el<HTMLSelectElement>('time-control'),
  importTimeControl: el<HTMLSelectElement>('import-time-control'),
  openForm: el<HTMLFormElement>('open-form'),
  openId: el<HTMLInputElement>('open-game-id'),
  fenForm: el<HTMLFormElement>('import-fen-form'),
  fenInput: el<HTMLInputElement>('import-fen-input'),
  fenError: el('import-fen-error'),
  pgnForm: el<HTMLFormElement>('import-pgn-form'),
  pgnInput: el<HTMLTextAreaElement>('import-pgn-input'),
  pgnError: el('import-pgn-error'),
  settings: el<HTMLDetailsElement>('settings'),
  tokenForm: el<HTMLFormElement>('token-form'),
  tokenInput: el<HTMLInputElement>('token-input'),
  tokenClear: el<HTMLButtonElement>('token-clear'),
  tokenState: el('token-state'),
  myGames: el('my-games'),
  myGamesConnection: el('my-games-connection'),
  myGamesProblem: el('my-games-problem'),
  myGamesEmpty: el('my-games-empty'),
  myGamesList: el('my-games-list'),
  play: el('play'),
  playNeedsPlayer: el('play-needs-player'),
  playBody: el('play-body'),
  challengeNotice: el('challenge-notice'),
  challengesError: el('challenges-error'),
  challengesIn: el('challenges-in'),
  challengesInEmpty: el('challenges-in-empty'),
  challengesOut: el('challenges-out'),
  challengesOutEmpty: el('challenges-out-empty'),
  challengeForm: el<HTMLFormElement>('challenge-form'),
  challengePlayer: el<HTMLInputElement>('challenge-player'),
  challengeColor: el<HTMLSelectElement>('challenge-color'),
  challengeError: el('challenge-error'),
  seekForm: el<HTMLFormElement>('seek-form'),
  seekSubmit: el<HTMLButtonElement>('seek-submit'),
  seekStatus: el('seek-status'),
  seekCancel: el<HTMLButtonElement>('seek-cancel'),
  seekError: el('seek-error'),
  computerForm: el<HTMLFormElement>('computer-form'),
  computerColor: el<HTMLSelectElement>('computer-color'),
  computerSubmit: el<HTMLButtonElement>('computer-submit'),
  computerError: el('computer-error'),
  chat: el('chat'),
  chatConnection: el('chat-connection'),
  chatProblem: el('chat-problem'),
  chatLines: el('chat-lines'),
  chatEmpty: el('chat-empty'),
  chatForm: el<HTMLFormElement>('chat-form'),
  chatInput: el<HTMLInputElement>('chat-input'),
  chatSend: el<HTMLButtonElement>('chat-send'),
  chatError: el('chat-error'),
};

/**
 * Draws the whole page for `session` (the lobby without one), for the page's `account` (GET /api/account;
 * undefined while not known).
 */
export function render(
  session: Session | undefined,
  account: Account | undefined,
  orientation: Color,
  board: Board,
): void {
  const game = session?.game;
  const seats = seatsOf(game, account);
  const computer = computerSideOf(game);
  const controls = controlsOf(game?.state, seats, game?.clock, computer);
  document.body.classList.toggle('no-game', !session);
  ui.gameId.textContent = session ? `Game ${session.id}` : '';
  board.show(game?.state, session?.legal ?? [], orientation, controls.move === 'enabled');
  const words = statusWordsOf(session);
  ui.status.dataset.status = words.code;
  ui.status.textContent = words.status;
  ui.turn.textContent = words.turn;
  showText(ui.seat, seatWordsOf(game, account));
  showText(ui.offers, offerWordsOf(game?.state));
  showText(ui.result, words.result);
  renderPlayers(session, ownSeatsOf(seats, account), computer, orientation);
  renderControls(controls);
  renderCreateForm(account);
  renderMoves(session);
  ui.fen.textContent = game ? game.state.fen : '';
  document.title = titleOf(game);
}

/** Sets an element's text, hidden while there is none. */
function showText(element: HTMLElement, text: string): void {
  element.textContent = text;
  element.hidden = text === '';
}

/** The two player rows; `own`: the sides of the person's own seats, tagged "you"; `computer`: the engine's side. */
function renderPlayers(
  session: Session | undefined,
  own: readonly Color[],
  computer: Color | undefined,
  orientation: Color,
): void {
  const game = session?.game;
  const top = orientation === 'white' ? 'black' : 'white';
  for (const [slot, color] of [
    [ui.playerTop, top],
    [ui.playerBottom, orientation],
  ] as const) {
    slot.replaceChildren();
    slot.dataset.color = color;
    slot.classList.toggle('clocked', !!game?.clock);
    if (!game) continue;
    const state = game.state;
    const dot = document.createElement('span');
    dot.className = `dot ${color}`;
    dot.setAttribute('aria-hidden', 'true');
    const name = document.createElement('span');
    name.className = 'name';
    name.dataset.testid = `player-${color}`;
    name.textContent = game[color].displayName;
    const side = document.createElement('span');
    side.className = 'side-name';
    side.textContent = colorName(color);
    slot.append(dot, name, side);
    const ended = isEnded(state);
    if (own.includes(color)) slot.append(tag('you', 'you'));
    if (computer === color) slot.append(tag('computer', 'computer'));
    if (!ended && state.turn === color) slot.append(tag('to move', 'to-move'));
    if (ended && state.winner === color) slot.append(tag('winner', 'winner'));
    if (game.clock) {
      const clock = document.createElement('span');
      clock.className = 'clock';
      clock.dataset.testid = `clock-${color}`;
      clock.setAttribute('role', 'timer');
      clock.setAttribute('aria-label', `${colorName(color)}'s clock`);
      slot.append(clock);
    }
  }
}

/**
 * Draws both clocks (in the player rows drawn by render) at `serviceNow`, the service's time as the page estimates
 * it; answers what it drew, so that the caller knows whether a clock runs.
 */
export function renderClocks(game: Session['game'], serviceNow: number): ClockDisplay | undefined {
  const display = clockDisplayOf(game, serviceNow);
  if (!display) return undefined;
  for (const color of ['white', 'black'] as const) {
    const element = document.querySelector<HTMLElement>(`[data-testid="clock-${color}"]`);
    if (element) drawClock(element, display[color]);
  }
  return display;
}

function drawClock(element: HTMLElement, face: ClockFace): void {
  if (element.textContent !== face.text) element.textContent = face.text;
  element.classList.toggle('active', face.active);
  element.classList.toggle('running', face.running);
  element.classList.toggle('low', face.low);
  element.classList.toggle('words', /[a-z]/.test(face.text)); // a correspondence clock's words, in smaller type
  element.dataset.running = String(face.running);
}

/**
 * The create form: names without a player token; with one, what it makes: a practice board (a player token creates
 * only games in which it holds both sides, DECISIONS §13a).
 */
function renderCreateForm(account: Account | undefined): void {
  const player = account?.player;
  ui.names.hidden = !!player;
  ui.playingAs.hidden = !player;
  ui.playingAs.textContent = player
    ? `You play as ${player.displayName}: a game started here is a practice board, where you play both sides. ` +
      'To play someone else, challenge them.'
    : '';
}

/** Fills the time control menus of the forms (once, at start). */
export function renderTimeControls(): void {
  for (const select of [ui.timeControl, ui.importTimeControl]) {
    select.replaceChildren(...TIME_CONTROLS.map(choice => new Option(choice.label, choice.value)));
  }
}

function tag(text: string, className: string): HTMLElement {
  const span = document.createElement('span');
  span.className = `tag ${className}`;
  span.textContent = text;
  return span;
}

/** Shows or hides a control, and disables it unless it can be used now (hidden ones too). */
function setControl(element: HTMLButtonElement | HTMLInputElement, control: Control): void {
  element.hidden = control === 'hidden';
  element.disabled = control !== 'enabled';
}

function renderControls(controls: Controls): void {
  setControl(ui.undo, controls.undo);
  setControl(ui.redo, controls.redo);
  setControl(ui.resign, controls.resign);
  if (controls.resign !== 'enabled') disarmResign();
  setControl(ui.drawOffer, controls.drawOffer);
  setControl(ui.drawAccept, controls.drawAccept);
  setControl(ui.drawDecline, controls.drawDecline);
  setControl(ui.drawClaim, controls.drawClaim);
  setControl(ui.takebackOffer, controls.takebackOffer);
  setControl(ui.takebackAccept, controls.takebackAccept);
  setControl(ui.takebackDecline, controls.takebackDecline);
  setControl(ui.abort, controls.abort);
  setControl(ui.moveInput, controls.move);
  setControl(ui.moveSubmit, controls.move);
  ui.moveForm.hidden = controls.move === 'hidden';
  ui.moveHelp.hidden = controls.move === 'hidden';
  for (const button of [ui.copyFen, ui.downloadFen, ui.copyPgn, ui.downloadPgn, ui.copyLink]) {
    setControl(button, controls.export);
  }
}

function renderMoves(session: Session | undefined): void {
  const state = session?.game?.state;
  ui.moves.replaceChildren();
  if (!state) return;
  const { firstPly, sans } = movetextToSan(state.pgn);
  let row: HTMLElement | undefined;
  sans.forEach((san, index) => {
    const ply = firstPly + index;
    const white = ply % 2 === 1;
    if (white || !row) {
      row = document.createElement('li');
      const number = document.createElement('span');
      number.className = 'number';
      number.textContent = `${Math.ceil(ply / 2)}.`;
      row.append(number);
      if (!white) row.append(moveCell('…', 'white empty'));
      ui.moves.append(row);
    }
    const cell = moveCell(san, white ? 'white' : 'black');
    cell.dataset.ply = String(ply);
    if (index === sans.length - 1) cell.classList.add('current');
    row.append(cell);
  });
  ui.moves.scrollTop = ui.moves.scrollHeight;
}

function moveCell(text: string, className: string): HTMLElement {
  const span = document.createElement('span');
  span.className = `san ${className}`;
  span.textContent = text;
  return span;
}

export function renderConnection(
  status: ConnectionStatus | 'idle',
  notice: string | undefined,
  retryInMs?: number,
): void {
  ui.connection.dataset.state = status;
  const why = notice ? ` (${notice})` : '';
  const words: Record<typeof status, string> = {
    idle: '',
    connecting: 'Connecting…',
    live: 'Live',
    reconnecting:
      retryInMs === undefined ? `Reconnecting…${why}` : `Reconnecting in ${Math.ceil(retryInMs / 1000)} s…${why}`,
    stopped: '',
  };
  ui.connection.textContent = words[status];
}

export function showError(target: HTMLElement, error: ApiError | string | undefined): void {
  if (error === undefined) {
    target.hidden = true;
    target.textContent = '';
    delete target.dataset.code;
    return;
  }
  target.hidden = false;
  target.textContent = typeof error === 'string' ? error : error.message;
  if (typeof error === 'string') delete target.dataset.code;
  else target.dataset.code = error.code;
  if (typeof error !== 'string' && error.status === 401) {
    // The service wants a token: show where to enter it.
    ui.settings.open = true;
    ui.tokenState.textContent = getToken()
      ? 'The service refused the saved token: enter another one.'
      : 'The service needs a token: enter it here.';
  }
}

export function renderToken(): void {
  ui.tokenState.textContent = getToken() ? 'A token is set.' : 'No token is set.';
}

// Resigning takes two clicks: the first arms the button for a few seconds.
let resignTimer: number | undefined;

export function disarmResign(): void {
  window.clearTimeout(resignTimer);
  resignTimer = undefined;
  delete ui.resign.dataset.armed;
  ui.resign.textContent = 'Resign';
}

/** True when the click confirms an armed button; false when it only armed it. */
export function confirmResign(): boolean {
  if (ui.resign.dataset.armed === undefined) {
    ui.resign.dataset.armed = 'true';
    ui.resign.textContent = 'Confirm resign';
    resignTimer = window.setTimeout(disarmResign, 4000);
    return false;
  }
  disarmResign();
  return true;
}

/** What the "My games" panel shows now, to redraw it only when that changes. */
let myGamesDrawn: string | undefined;

/**
 * The "My games" panel: hidden without a player (`rows` undefined); else a button per ongoing game
 * (myGamesState.ts, myGameRowsOf) that calls `open` with its id, the event stream's status and its problem, if any.
 */
export function renderMyGames(
  rows: readonly MyGameRow[] | undefined,
  status: ConnectionStatus | 'idle',
  problem: string | undefined,
  open: (gameId: string) => void,
): void {
  const drawn = JSON.stringify([rows, status, problem]);
  if (drawn === myGamesDrawn) return; // redrawn with every change of the page: keep a button being clicked
  myGamesDrawn = drawn;
  ui.myGames.hidden = rows === undefined;
  ui.myGamesConnection.dataset.state = status;
  ui.myGamesConnection.textContent = status === 'live' ? 'Live' : status === 'reconnecting' ? 'Reconnecting…' : '';
  showText(ui.myGamesProblem, problem ?? '');
  ui.myGamesEmpty.hidden = !rows || rows.length > 0 || status !== 'live';
  ui.myGamesList.replaceChildren(
    ...(rows ?? []).map(row => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'my-game';
      button.dataset.testid = 'my-game';
      button.dataset.gameId = row.gameId;
      button.dataset.yourTurn = String(row.yourTurn);
      if (row.open) button.setAttribute('aria-current', 'true');
      const title = document.createElement('span');
      title.className = 'title';
      title.textContent = row.title;
      const side = document.createElement('span');
      side.className = 'side-name';
      side.textContent = row.side;
      const turn = tag(row.turn, row.yourTurn ? 'turn to-move' : 'turn');
      turn.dataset.testid = 'my-game-turn';
      button.append(title, side, turn);
      button.addEventListener('click', () => open(row.gameId));
      const item = document.createElement('li');
      item.append(button);
      return item;
    }),
  );
}

// ---------------------------------------------------------------------------------------------- chat

/** What the chat's list shows: the chat and generation drawn, and the lines appended since. */
let chatDrawn: { chat: ChatState | undefined; generation: number; added: number } = {
  chat: undefined,
  generation: -1,
  added: 0,
};

/**
 * The chat panel: hidden without a chat; its lines drawn anew when they were replaced (a history came) and only
 * appended to otherwise, so that a screen reader's live region announces each new line once.
 */
export function renderChat(chat: ChatState | undefined, status: ConnectionStatus | 'idle', problem?: string): void {
  ui.chat.hidden = chat === undefined;
  ui.chatConnection.dataset.state = status;
  ui.chatConnection.textContent = status === 'live' ? 'Live' : status === 'reconnecting' ? 'Reconnecting…' : '';
  showText(ui.chatProblem, problem ?? '');
  if (!chat) {
    if (chatDrawn.chat) ui.chatLines.replaceChildren();
    chatDrawn = { chat: undefined, generation: -1, added: 0 };
    return;
  }
  const list = ui.chatLines;
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 24;
  if (chatDrawn.chat !== chat || chatDrawn.generation !== chat.generation) {
    list.replaceChildren(...chat.lines.map(chatLineItem));
  } else {
    const fresh = chat.added - chatDrawn.added;
    list.append(...chat.lines.slice(Math.max(0, chat.lines.length - fresh)).map(chatLineItem));
    while (list.children.length > chat.lines.length) list.firstElementChild!.remove();
  }
  chatDrawn = { chat, generation: chat.generation, added: chat.added };
  ui.chatEmpty.hidden = chat.lines.length > 0 || chat.loading;
  if (atBottom) list.scrollTop = list.scrollHeight; // follow the latest line, unless the reader scrolled up
}

function chatLineItem(line: { user: string; text: string }): HTMLLIElement {
  const item = document.createElement('li');
  item.className = 'chat-line';
  item.dataset.testid = 'chat-line';
  const user = document.createElement('span');
  user.className = 'chat-user';
  user.textContent = line.user;
  const text = document.createElement('span');
  text.className = 'chat-text';
  text.textContent = line.text;
  item.append(user, text);
  return item;
}

// ---------------------------------------------------------------------------------------------- play someone

/** What the "Play someone" panel shows (challengesState.ts, seekState.ts). */
export interface PlayView {
  player: Account['player'] | undefined; // undefined: not known yet; null: no player token
  rows: readonly ChallengeRow[];
  notice: string | undefined; // a challenge that ended elsewhere
  seekWords: string; // '' when not seeking
  seeking: boolean; // searching or just paired: the seek form waits, Cancel is offered
}

/** The buttons of a challenge's row. */
export interface ChallengeAnswers {
  accept(id: string): Promise<void>;
  decline(id: string, reason: DeclineReason): Promise<void>;
  cancel(id: string): Promise<void>;
}

/** What the challenge rows show now, to redraw them only when that changes (keeps a reason being chosen). */
let challengesDrawn: string | undefined;

/**
 * The "Play someone" panel: with a player, their pending challenges (received with Accept, a reason and Decline;
 * made with Cancel), the forms to challenge and to seek, and the seek's state; without one, why not.
 */
export function renderPlay(view: PlayView, answers: ChallengeAnswers): void {
  ui.play.hidden = view.player === undefined;
  ui.playNeedsPlayer.hidden = view.player !== null;
  ui.playBody.hidden = !view.player;
  showText(ui.challengeNotice, view.notice ?? '');
  ui.challengeNotice.hidden = false; // a live region is announced only while it is shown
  if (ui.seekStatus.textContent !== view.seekWords) ui.seekStatus.textContent = view.seekWords;
  ui.seekCancel.hidden = !view.seeking;
  ui.seekSubmit.disabled = view.seeking;
  const drawn = JSON.stringify(view.rows);
  if (drawn === challengesDrawn) return;
  challengesDrawn = drawn;
  const incoming = view.rows.filter(row => row.direction === 'in');
  const outgoing = view.rows.filter(row => row.direction === 'out');
  ui.challengesIn.replaceChildren(...incoming.map(row => challengeItem(row, answers)));
  ui.challengesOut.replaceChildren(...outgoing.map(row => challengeItem(row, answers)));
  ui.challengesInEmpty.hidden = incoming.length > 0;
  ui.challengesOutEmpty.hidden = outgoing.length > 0;
}

function challengeItem(row: ChallengeRow, answers: ChallengeAnswers): HTMLElement {
  const item = document.createElement('li');
  item.className = 'challenge';
  item.dataset.testid = 'challenge';
  item.dataset.challengeId = row.id;
  item.dataset.direction = row.direction;
  const title = document.createElement('span');
  title.className = 'title';
  title.dataset.testid = 'challenge-title';
  title.textContent = row.title;
  const details = document.createElement('span');
  details.className = 'side-name';
  details.textContent = `${row.timeControl} · ${row.side}`;
  const buttons = document.createElement('span');
  buttons.className = 'buttons';
  const button = (text: string, testid: string, onClick: () => Promise<void>, className = '') => {
    const element = document.createElement('button');
    element.type = 'button';
    element.textContent = text;
    element.dataset.testid = testid;
    if (className) element.className = className;
    element.setAttribute('aria-label', `${text}: ${row.title}`);
    element.addEventListener('click', () => {
      element.disabled = true; // one answer at a time; the row goes once it is answered
      void onClick().finally(() => (element.disabled = false));
    });
    return element;
  };
  if (row.direction === 'in') {
    const reason = document.createElement('select');
    reason.dataset.testid = 'challenge-decline-reason';
    reason.setAttribute('aria-label', `Reason to decline: ${row.title}`);
    reason.append(...DECLINE_CHOICES.map(choice => new Option(choice.label, choice.key)));
    buttons.append(
      button('Accept', 'challenge-accept', () => answers.accept(row.id), 'primary'),
      reason,
      button('Decline', 'challenge-decline', () => answers.decline(row.id, reason.value as DeclineReason)),
    );
  } else {
    buttons.append(button('Cancel', 'challenge-cancel', () => answers.cancel(row.id)));
  }
  item.append(title, details, buttons);
  return item;
}

/** Shows a time control's fields for its kind: minutes and increment for a clock, days for correspondence. */
export function renderTimeFields(form: HTMLFormElement): void {
  const kind = (form.elements.namedItem('kind') as HTMLSelectElement).value;
  for (const label of form.querySelectorAll<HTMLElement>('[data-field]')) {
    const shown =
      (label.dataset.field === 'clock' && kind === 'realtime') ||
      (label.dataset.field === 'days' && kind === 'correspondence');
    label.hidden = !shown;
    for (const input of label.querySelectorAll<HTMLInputElement | HTMLSelectElement>('input, select')) {
      input.disabled = !shown; // a hidden field is neither checked nor sent
    }
  }
}

/** A form's time control fields, as typed. */
export function timeFieldsOf(form: HTMLFormElement): TimeControlFields {
  const value = (name: string) => (form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement).value;
  return { kind: value('kind'), minutes: value('minutes'), increment: value('increment'), days: value('days') };
}
