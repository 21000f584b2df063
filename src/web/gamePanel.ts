/**
 * The game on the page, drawn: the top bar (the game's id, its stream's connection), the board area (the board,
 * the two player rows with their clocks) and the game card (seat, status, offers, result, the actions' buttons, the
 * move box, the moves). What to show comes from the state modules (state.ts, seats.ts, clocks.ts); no network and
 * no decisions. gameSession.ts opens games and wires these elements.
 *
 * ```ts
 * const controls = renderGame(session, account, orientation, board); // the controls it drew
 * renderClocks(session.game, serviceNow);   // ten times a second while a clock runs
 * renderConnection('reconnecting', notice, 2000);
 * if (confirmResign()) resign();            // the second click of two
 * ```
 */
import type { Color } from '../contract/vocabulary.ts';
import type { Account } from './api.ts';
import type { Board } from './board.ts';
import { clockDisplayOf, type ClockDisplay, type ClockFace } from './clocks.ts';
import { elements, h, setControl, showText, tag } from './dom.ts';
import { colorName, movetextToSan } from './notation.ts';
import { computerSideOf, controlsOf, ownSeatsOf, seatsOf, seatWordsOf, type Controls } from './seats.ts';
import { isEnded, offerWordsOf, ratingWordsOf, statusWordsOf, titleOf, type Session } from './state.ts';
import type { ConnectionStatus } from './stream.ts';

export const ui = {
  ...elements('board promotion player-top player-bottom game-id connection seat status turn offers result error moves'),
  ...elements('move-form move-help'),
  ...elements('move-input', HTMLInputElement),
  ...elements('move-submit', HTMLButtonElement),
};

/** The buttons of the game's actions, each named as its control in seats.ts (draw-offer: drawOffer). */
const actions = {
  ...elements('undo redo resign abort draw-offer draw-accept draw-decline draw-claim', HTMLButtonElement),
  ...elements('takeback-offer takeback-accept takeback-decline', HTMLButtonElement),
};

/** The game card's buttons: the actions', and "Flip board". */
export const buttons = { ...actions, ...elements('flip', HTMLButtonElement) };

/**
 * Draws the game `session` holds (the lobby without one) for the page's `account` (GET /api/account; undefined
 * while not known); answers the controls it drew.
 */
export function renderGame(
  session: Session | undefined,
  account: Account | undefined,
  orientation: Color,
  board: Board,
): Controls {
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
  renderMoves(session);
  document.title = titleOf(game);
  return controls;
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
    const dot = h('span', { className: `dot ${color}` });
    dot.setAttribute('aria-hidden', 'true');
    const player = game[color];
    const name = h('span', { className: 'name', testid: `player-${color}`, text: player.displayName });
    slot.append(dot, name);
    const rating = ratingWordsOf(player);
    if (rating) slot.append(h('span', { className: 'rating', testid: `rating-${color}`, text: rating }));
    if (player.ratingDiff !== undefined) {
      const diff = player.ratingDiff;
      const className = `rating-diff ${diff > 0 ? 'up' : diff < 0 ? 'down' : 'even'}`;
      slot.append(h('span', { className, testid: `rating-diff-${color}`, text: diff > 0 ? `+${diff}` : String(diff) }));
    }
    slot.append(h('span', { className: 'side-name', text: colorName(color) }));
    const ended = isEnded(state);
    if (own.includes(color)) slot.append(tag('you', 'you'));
    if (computer === color) slot.append(tag('computer', 'computer'));
    if (!ended && state.turn === color) slot.append(tag('to move', 'to-move'));
    if (ended && state.winner === color) slot.append(tag('winner', 'winner'));
    if (game.clock) {
      const clock = h('span', { className: 'clock', testid: `clock-${color}` });
      clock.setAttribute('role', 'timer');
      clock.setAttribute('aria-label', `${colorName(color)}'s clock`);
      slot.append(clock);
    }
  }
}

/**
 * Draws both clocks (in the player rows drawn by renderGame) at `serviceNow`, the service's time as the page
 * estimates it; answers what it drew, so that the caller knows whether a clock runs.
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

function renderControls(controls: Controls): void {
  for (const action of Object.keys(actions) as Array<keyof typeof actions>) {
    setControl(actions[action], controls[action]);
  }
  if (controls.resign !== 'enabled') disarmResign();
  setControl(ui.moveInput, controls.move);
  setControl(ui.moveSubmit, controls.move);
  ui.moveForm.hidden = controls.move === 'hidden';
  ui.moveHelp.hidden = controls.move === 'hidden';
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
      row = h('li', {}, h('span', { className: 'number', text: `${Math.ceil(ply / 2)}.` }));
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

const moveCell = (text: string, className: string): HTMLElement => h('span', { className: `san ${className}`, text });

/** The top bar's indicator of the game's stream; `retryInMs`: when it reconnects. */
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

// Resigning takes two clicks: the first arms the button for a few seconds.
let resignTimer: number | undefined;

export function disarmResign(): void {
  window.clearTimeout(resignTimer);
  resignTimer = undefined;
  delete buttons.resign.dataset.armed;
  buttons.resign.textContent = 'Resign';
}

/** True when the click confirms an armed button; false when it only armed it. */
export function confirmResign(): boolean {
  if (buttons.resign.dataset.armed === undefined) {
    buttons.resign.dataset.armed = 'true';
    buttons.resign.textContent = 'Confirm resign';
    resignTimer = window.setTimeout(disarmResign, 4000);
    return false;
  }
  disarmResign();
  return true;
}
