/**
 * The board page (`/` and `/game/{gameId}`): a person plays and follows games through the public API only.
 *
 * - The game in the address bar is the game on the board; opening or creating one pushes its address.
 * - The board is chessground; its legal destinations come from the moves endpoint, the position from the
 *   game's NDJSON stream (gameFull, then gameState per change), so every window on a game stays in sync.
 * - An action's own answer is shown at once unless the stream has already delivered something newer; the
 *   stream's order is the truth, and a reconnect's gameFull repairs anything missed.
 */
import { Chessground } from '@lichess-org/chessground';
import type { Api as Board } from '@lichess-org/chessground/api';
import type { Key } from '@lichess-org/chessground/types';
import {
  ENDED_STATUSES,
  api,
  asApiError,
  getToken,
  setToken,
  type ApiError,
  type Color,
  type DrawAction,
  type GameFull,
  type GameState,
  type LegalMove,
  type NewGame,
} from './api.ts';
import { colorName, describe, halfmoveClock, isCheck, movetextToSan, toUci } from './notation.ts';
import { PromotionPicker, type PromotionPiece } from './promotion.ts';
import { GameStream, type ConnectionStatus } from './stream.ts';
import './style.css';

const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

/** The element with this data-testid; the page's markup is fixed, so a missing one is a bug. */
function el<T extends HTMLElement = HTMLElement>(testid: string): T {
  const found = document.querySelector<T>(`[data-testid="${testid}"]`);
  if (!found) throw new Error(`the page has no [data-testid="${testid}"]`);
  return found;
}

const ui = {
  board: el('board'),
  promotion: el('promotion'),
  playerTop: el('player-top'),
  playerBottom: el('player-bottom'),
  gameId: el('game-id'),
  connection: el('connection'),
  status: el('status'),
  turn: el('turn'),
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
  moveForm: el<HTMLFormElement>('move-form'),
  moveInput: el<HTMLInputElement>('move-input'),
  moveSubmit: el<HTMLButtonElement>('move-submit'),
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
  whiteName: el<HTMLInputElement>('white-name'),
  blackName: el<HTMLInputElement>('black-name'),
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
};

/** The game on the page. Replaced as a whole when another game is opened, so late answers can tell. */
interface Session {
  id: string;
  game: GameFull | undefined;
  loadError: ApiError | undefined;
  legal: LegalMove[];
  legalKey: string | undefined; // fen|status the legal moves were asked for
  stream: GameStream | undefined;
  epoch: number; // stream events applied so far
  pending: { fen: string; uci: string } | undefined; // a promotion this page sent without a piece
  dismissedPendingFen: string | undefined; // the pending promotion whose picker was cancelled
  notice: string | undefined; // the last error line of the stream
}

let session: Session | undefined;
let orientation: Color = 'white';
let legalRequest = 0;

const board: Board = Chessground(ui.board, {
  fen: START_FEN,
  orientation,
  coordinates: true,
  autoCastle: true,
  highlight: { lastMove: true, check: true },
  animation: { enabled: true, duration: 180 },
  movable: { free: false, color: undefined, showDests: true, events: { after: onBoardMove } },
  premovable: { enabled: false },
  draggable: { enabled: true, showGhost: true },
  selectable: { enabled: true },
  drawable: { enabled: true },
});
const picker = new PromotionPicker(ui.promotion);

// ---------------------------------------------------------------------------------------------- rendering

function render(): void {
  const game = session?.game;
  document.body.classList.toggle('no-game', !session);
  ui.gameId.textContent = session ? `Game ${session.id}` : '';
  renderBoard();
  renderStatus();
  renderPlayers();
  renderControls();
  renderMoves();
  ui.fen.textContent = game ? game.state.fen : '';
  const words = game ? describe(game.state) : undefined;
  document.title = game
    ? `${game.white.displayName} vs ${game.black.displayName} · ${words?.result || words?.status} · Chess`
    : 'Chess';
}

function renderBoard(): void {
  const state = session?.game?.state;
  if (!state) {
    board.set({
      fen: START_FEN,
      orientation,
      turnColor: 'white',
      lastMove: undefined,
      check: false,
      movable: { color: undefined, dests: new Map() },
    });
    ui.board.dataset.movable = '';
    return;
  }
  const ended = ENDED_STATUSES.has(state.status);
  const last = state.moves.at(-1);
  const dests = ended ? new Map<Key, Key[]>() : destinations(session?.legal ?? []);
  board.set({
    fen: state.fen,
    orientation,
    turnColor: state.turn,
    lastMove: last ? [last.slice(0, 2) as Key, last.slice(2, 4) as Key] : undefined,
    check: isCheck(state.fen) ? state.turn : false,
    movable: { color: ended ? undefined : state.turn, dests },
  });
  // For people and tests alike: whose pieces can be moved now ('' while the legal moves are loading).
  ui.board.dataset.movable = dests.size > 0 ? state.turn : '';
}

/** chessground's destinations: every legal target, and the rook's square for castling (as on lichess). */
function destinations(moves: LegalMove[]): Map<Key, Key[]> {
  const dests = new Map<Key, Key[]>();
  const add = (from: string, to: string) => {
    const list = dests.get(from as Key) ?? [];
    if (!list.includes(to as Key)) list.push(to as Key);
    dests.set(from as Key, list);
  };
  for (const move of moves) {
    add(move.from, move.to);
    const rook = rookSquare(move);
    if (rook) add(move.from, rook);
  }
  return dests;
}

function rookSquare(move: LegalMove): string | undefined {
  if (move.moveType === 'castleKingside') return `h${move.from[1]}`;
  if (move.moveType === 'castleQueenside') return `a${move.from[1]}`;
  return undefined;
}

function renderStatus(): void {
  if (!session) {
    setStatus('', 'No game yet', 'Start a new game or open one.', '');
  } else if (session.loadError) {
    setStatus('error', 'Game not available', 'Check the address, or start a new game.', '');
  } else if (!session.game) {
    setStatus('loading', 'Loading…', '', '');
  } else {
    const words = describe(session.game.state);
    setStatus(session.game.state.status, words.status, words.turn, words.result);
  }
}

function setStatus(code: string, status: string, turn: string, result: string): void {
  ui.status.dataset.status = code;
  ui.status.textContent = status;
  ui.turn.textContent = turn;
  ui.result.textContent = result;
  ui.result.hidden = result === '';
}

function renderPlayers(): void {
  const game = session?.game;
  const top = orientation === 'white' ? 'black' : 'white';
  for (const [slot, color] of [
    [ui.playerTop, top],
    [ui.playerBottom, orientation],
  ] as const) {
    slot.replaceChildren();
    slot.dataset.color = color;
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
    const ended = ENDED_STATUSES.has(state.status);
    if (!ended && state.turn === color) slot.append(tag('to move', 'to-move'));
    if (ended && state.winner === color) slot.append(tag('winner', 'winner'));
  }
}

function tag(text: string, className: string): HTMLElement {
  const span = document.createElement('span');
  span.className = `tag ${className}`;
  span.textContent = text;
  return span;
}

function renderControls(): void {
  const state = session?.game?.state;
  const playing = !!state && !ENDED_STATUSES.has(state.status);
  ui.undo.disabled = !state?.undoAvailable;
  ui.redo.disabled = !state?.redoAvailable;
  ui.resign.disabled = !playing;
  if (!playing) disarmResign();
  ui.drawOffer.disabled = !playing || state.status === 'drawOffered';
  ui.drawAccept.disabled = state?.status !== 'drawOffered';
  ui.drawDecline.disabled = state?.status !== 'drawOffered';
  ui.drawClaim.disabled = !playing || halfmoveClock(state.fen) < 100;
  ui.moveInput.disabled = !playing;
  ui.moveSubmit.disabled = !playing;
  for (const button of [ui.copyFen, ui.downloadFen, ui.copyPgn, ui.downloadPgn, ui.copyLink]) button.disabled = !state;
}

function renderMoves(): void {
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

function renderConnection(status: ConnectionStatus | 'idle', retryInMs?: number): void {
  ui.connection.dataset.state = status;
  const notice = session?.notice ? ` (${session.notice})` : '';
  const words: Record<typeof status, string> = {
    idle: '',
    connecting: 'Connecting…',
    live: 'Live',
    reconnecting:
      retryInMs === undefined ? `Reconnecting…${notice}` : `Reconnecting in ${Math.ceil(retryInMs / 1000)} s…${notice}`,
    stopped: '',
  };
  ui.connection.textContent = words[status];
}

function showError(target: HTMLElement, error: ApiError | string | undefined): void {
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

// ---------------------------------------------------------------------------------------------- state

function applyGame(target: Session, game: GameFull): void {
  if (session !== target) return;
  const previous = target.game?.state;
  target.game = game;
  target.loadError = undefined;
  afterStateChange(target, previous);
}

function applyState(target: Session, state: GameState): void {
  if (session !== target || !target.game) return;
  const previous = target.game.state;
  target.game = { ...target.game, state };
  afterStateChange(target, previous);
}

function afterStateChange(target: Session, previous: GameState | undefined): void {
  const state = target.game!.state;
  if (picker.isOpen && (state.fen !== previous?.fen || ENDED_STATUSES.has(state.status))) picker.close();
  render();
  void refreshLegal(target);
  promptPendingPromotion(target);
}

/** Asks the moves endpoint for the legal moves of the position shown; late answers are dropped. */
async function refreshLegal(target: Session): Promise<void> {
  const state = target.game?.state;
  if (!state) return;
  const key = `${state.fen}|${state.status}`;
  if (target.legalKey === key) return;
  target.legalKey = key;
  target.legal = [];
  if (ENDED_STATUSES.has(state.status)) return;
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
  const state = target.game?.state;
  if (!state || state.status !== 'promotionPending' || picker.isOpen) return;
  if (target.dismissedPendingFen === state.fen) return;
  let uci = target.pending?.fen === state.fen ? target.pending.uci : undefined;
  if (!uci) {
    const pairs = new Set(target.legal.filter(move => move.promotion).map(move => `${move.from}${move.to}`));
    if (pairs.size === 1) uci = [...pairs][0];
  }
  if (!uci) return;
  const fen = state.fen;
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

function idFromLocation(): string | undefined {
  const match = /^\/game\/([^/]+)\/?$/.exec(location.pathname);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return match[1];
  }
}

function setAddress(path: string, mode: 'push' | 'replace' | 'none'): void {
  if (mode === 'none' || location.pathname === path) return;
  if (mode === 'push') history.pushState(null, '', path);
  else history.replaceState(null, '', path);
}

function closeGame(): void {
  session?.stream?.stop();
  session = undefined;
  picker.close();
  renderConnection('idle');
}

/** Shows a game: the given snapshot (from create or import) or a fresh GET, then follows its stream. */
async function openGame(id: string, mode: 'push' | 'replace' | 'none', snapshot?: GameFull): Promise<void> {
  closeGame();
  showError(ui.error, undefined);
  setAddress(`/game/${encodeURIComponent(id)}`, mode);
  const target: Session = {
    id,
    game: undefined,
    loadError: undefined,
    legal: [],
    legalKey: undefined,
    stream: undefined,
    epoch: 0,
    pending: undefined,
    dismissedPendingFen: undefined,
    notice: undefined,
  };
  session = target;
  render();
  if (snapshot) {
    applyGame(target, snapshot);
  } else {
    try {
      applyGame(target, await api.get(id));
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
      applyGame(target, game);
    },
    onState: state => {
      target.epoch += 1;
      applyState(target, state);
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
      if (session === target) renderConnection(status, retryInMs);
    },
  });
  target.stream.start();
}

function showLobby(): void {
  closeGame();
  render();
}

function route(mode: 'replace' | 'none'): void {
  const id = idFromLocation();
  if (id) void openGame(id, mode);
  else showLobby();
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
      if (target.epoch === epoch) applyState(target, answer);
      return answer;
    }
    if (target.epoch === epoch) {
      const game = await api.get(target.id); // {ok:true} carries no state; the stream may not be live
      if (target.epoch === epoch) applyGame(target, game);
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
  const fen = target?.game?.state.fen;
  if (!target || fen === undefined) return false;
  board.set({ movable: { dests: new Map() } }); // one move at a time
  ui.board.dataset.movable = '';
  const state = await act(id => api.move(id, uci));
  if (!state) return false;
  if (state.status === 'promotionPending' && uci.length === 4) {
    target.pending = { fen: state.fen, uci };
    target.dismissedPendingFen = undefined;
    promptPendingPromotion(target);
  }
  return true;
}

function onBoardMove(orig: Key, dest: Key): void {
  const legal = session?.legal ?? [];
  const candidates = legal.filter(move => move.from === orig && (move.to === dest || rookSquare(move) === dest));
  const first = candidates[0];
  if (!first) {
    renderBoard();
    return;
  }
  if (candidates.some(move => move.promotion)) openPicker(first.from, first.to);
  else void play(first.uci);
}

let resignTimer: number | undefined;

function disarmResign(): void {
  window.clearTimeout(resignTimer);
  resignTimer = undefined;
  delete ui.resign.dataset.armed;
  ui.resign.textContent = 'Resign';
}

function onResign(): void {
  if (ui.resign.dataset.armed === undefined) {
    ui.resign.dataset.armed = 'true';
    ui.resign.textContent = 'Confirm resign';
    resignTimer = window.setTimeout(disarmResign, 4000);
    return;
  }
  disarmResign();
  void act(id => api.resign(id));
}

function draw(action: DrawAction): void {
  void act(id => api.draw(id, action));
}

async function onMoveSubmit(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const state = session?.game?.state;
  if (!state) return;
  const typed = ui.moveInput.value;
  const parsed = toUci(typed, state.fen);
  if ('error' in parsed) {
    showError(ui.error, parsed.error);
    ui.moveInput.select();
    return;
  }
  if (await play(parsed.uci)) ui.moveInput.value = '';
  else ui.moveInput.select();
}

function players(): NewGame {
  const body: NewGame = {};
  const white = ui.whiteName.value.trim();
  const black = ui.blackName.value.trim();
  if (white) body.white = { id: 'p1', displayName: white };
  if (black) body.black = { id: 'p2', displayName: black };
  return body;
}

/** Runs a request that makes a new game, shows the API's message under its form on failure, opens the game. */
async function newGame(errorTarget: HTMLElement, create: () => Promise<GameFull>): Promise<void> {
  showError(errorTarget, undefined);
  try {
    const game = await create();
    await openGame(game.gameId, 'push', game);
  } catch (error) {
    showError(errorTarget, asApiError(error));
  }
}

// ---------------------------------------------------------------------------------------------- export

async function copy(text: string, what: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // no clipboard API (a page served over plain http to another machine): select and copy
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'offscreen';
    document.body.append(area);
    area.select();
    const copied = document.execCommand('copy');
    area.remove();
    if (!copied) {
      ui.exportNotice.textContent = `${what} could not be copied`;
      return;
    }
  }
  ui.exportNotice.textContent = `${what} copied`;
}

function download(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.className = 'offscreen';
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 30_000);
  ui.exportNotice.textContent = `${name} downloaded`;
}

async function exported(kind: 'fen' | 'pgn'): Promise<string | undefined> {
  const id = session?.id;
  if (!id) return undefined;
  try {
    return kind === 'fen' ? await api.exportFen(id) : await api.exportPgn(id);
  } catch (error) {
    ui.exportNotice.textContent = asApiError(error).message;
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------- wiring

function on(element: HTMLElement, type: string, handler: (event: Event) => unknown): void {
  element.addEventListener(type, event => void handler(event));
}

on(ui.undo, 'click', () => act(id => api.undo(id)));
on(ui.redo, 'click', () => act(id => api.redo(id)));
on(ui.flip, 'click', () => {
  orientation = orientation === 'white' ? 'black' : 'white';
  const request = picker.request;
  picker.close();
  render();
  if (request) promptPendingPromotion(session!);
});
on(ui.resign, 'click', onResign);
on(ui.drawOffer, 'click', () => draw('offer'));
on(ui.drawAccept, 'click', () => draw('accept'));
on(ui.drawDecline, 'click', () => draw('decline'));
on(ui.drawClaim, 'click', () => draw('claim'));
on(ui.moveForm, 'submit', event => onMoveSubmit(event as SubmitEvent));

on(ui.createForm, 'submit', event => {
  event.preventDefault();
  return newGame(ui.createError, () => api.create(players()));
});
on(ui.openForm, 'submit', event => {
  event.preventDefault();
  // A pasted address works too.
  const text = ui.openId.value.trim();
  const id = /\/game\/([^/?#]+)/.exec(text)?.[1] ?? text;
  if (id) void openGame(id, 'push');
});
on(ui.fenForm, 'submit', event => {
  event.preventDefault();
  return newGame(ui.fenError, () => api.importFen({ fen: ui.fenInput.value.trim(), ...players() }));
});
on(ui.pgnForm, 'submit', event => {
  event.preventDefault();
  return newGame(ui.pgnError, () => api.importPgn(ui.pgnInput.value));
});

on(ui.copyFen, 'click', async () => {
  const fen = await exported('fen');
  if (fen !== undefined) await copy(fen, 'FEN');
});
on(ui.downloadFen, 'click', async () => {
  const fen = await exported('fen');
  if (fen !== undefined) download(`game-${session?.id ?? 'position'}.fen`, `${fen}\n`, 'text/plain');
});
on(ui.copyPgn, 'click', async () => {
  const pgn = await exported('pgn');
  if (pgn !== undefined) await copy(pgn, 'PGN');
});
on(ui.downloadPgn, 'click', async () => {
  const pgn = await exported('pgn');
  if (pgn !== undefined) download(`game-${session?.id ?? 'game'}.pgn`, pgn, 'application/x-chess-pgn');
});
on(ui.copyLink, 'click', () => copy(location.href, 'Link'));

function renderToken(): void {
  ui.tokenState.textContent = getToken() ? 'A token is set.' : 'No token is set.';
}
on(ui.tokenForm, 'submit', event => {
  event.preventDefault();
  setToken(ui.tokenInput.value.trim());
  ui.tokenInput.value = '';
  renderToken();
  if (session) void openGame(session.id, 'none'); // try again with the token
});
on(ui.tokenClear, 'click', () => {
  setToken('');
  ui.tokenInput.value = '';
  renderToken();
});

window.addEventListener('popstate', () => route('none'));
window.addEventListener('online', () => session?.stream?.reconnectNow());

renderToken();
route('none');
