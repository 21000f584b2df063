/**
 * The game on the page: opening it (its address in the address bar), following its NDJSON stream, and the actions of
 * the board and of the game card's buttons and move box. Drawn by gamePanel.ts; the page's other panels open games
 * through `open`.
 *
 * - The game in the address bar is the game on the board; opening or creating one pushes its address.
 * - The board is chessground; its legal destinations come from the moves endpoint, the position from the game's
 *   NDJSON stream (gameFull, then gameState per change), so every window on a game stays in sync.
 * - An action's own answer is shown at once unless the stream has already delivered something newer; the stream's
 *   order is the truth, and a reconnect's gameFull repairs anything missed.
 * - The page offers only what the service lets its player do in the game (seats.ts, controlsOf); without a player
 *   it acts for any side. The engine's seat is never the page's: its moves come on the stream like any other change.
 *
 * ```ts
 * const game = new GameSession({ account: () => who.account, render: () => render() });
 * game.route('none');                 // the game of the page's address, or the lobby
 * await game.open(id, 'push');        // a game chosen on the page
 * ```
 */
import type { Color, DrawAction, TakebackAction } from '../contract/vocabulary.ts';
import { api, asApiError, type Account, type GameFull, type GameState } from './api.ts';
import { Board } from './board.ts';
import { ClockTicker } from './clockTicker.ts';
import { on } from './dom.ts';
import { showError } from './errors.ts';
import { idFromPath } from './forms.ts';
import { buttons, confirmResign, renderConnection, ui } from './gamePanel.ts';
import { toUci } from './notation.ts';
import { PromotionPicker, type PromotionPiece } from './promotion.ts';
import { computerSideOf, controlsOf, orientationFor, seatsOf } from './seats.ts';
import {
  answerIsCurrent,
  applyGame,
  applyState,
  awaitsRatingChange,
  isEnded,
  movesFor,
  needsLegal,
  newSession,
  promotionToAsk,
  type Session,
} from './state.ts';
import { GameStream } from './stream.ts';

/** How opening a game changes the address bar: a new entry, the same entry, or not at all (the address said it). */
export type AddressMode = 'push' | 'replace' | 'none';

/** What the game needs of the page. */
export interface GamePage {
  /** Who the page acts as: undefined while the service has not said. */
  account(): Account | undefined;
  /** Redraws the page. */
  render(): void;
}

export class GameSession {
  /** The game on the page, with the stream that follows it. */
  session: (Session & { stream?: GameStream }) | undefined;
  orientation: Color = 'white';
  readonly board = new Board(ui.board, (orig, dest) => this.onBoardMove(orig, dest));
  readonly clocks = new ClockTicker(() => this.session?.game);
  private readonly picker = new PromotionPicker(ui.promotion);
  private orientedFor: Session | undefined; // the game whose orientation was chosen for the page's seat
  private legalRequest = 0;

  constructor(private readonly page: GamePage) {
    this.wire();
  }

  /** The sides the page's account holds in the game on the page. */
  seats(): Color[] {
    return seatsOf(this.session?.game, this.page.account());
  }

  /** Once the service has said who the page acts as: their side at the bottom, their pending promotion. */
  accountKnown(): void {
    this.orient();
    this.page.render();
    if (this.session) this.promptPendingPromotion(this.session);
  }

  /** Shows the game of the page's address, or the lobby. */
  route(mode: 'replace' | 'none'): void {
    const id = idFromPath(location.pathname);
    if (id) void this.open(id, mode);
    else {
      this.close();
      this.page.render();
    }
  }

  /** Shows a game: the given snapshot (from create or import) or a fresh GET, then follows its stream. */
  async open(id: string, mode: AddressMode, snapshot?: GameFull): Promise<void> {
    this.close();
    showError(ui.error, undefined);
    setAddress(`/game/${encodeURIComponent(id)}`, mode);
    if (mode === 'push') window.scrollTo(0, 0); // to the board, as a new page: the forms that open games are below it
    const target: Session & { stream?: GameStream } = newSession(id);
    this.session = target;
    this.page.render();
    if (snapshot) {
      this.showGame(target, snapshot);
    } else {
      try {
        this.showGame(target, await api.get(id));
      } catch (error) {
        if (this.session !== target) return;
        const apiError = asApiError(error);
        const final = apiError.status >= 400 && apiError.status < 500 && apiError.status !== 429;
        if (final || !target.game) {
          target.loadError = apiError;
          showError(ui.error, apiError);
          this.page.render();
        }
        if (final) return; // no such game, a malformed id or no access: the stream would say the same
      }
    }
    if (this.session !== target) return;
    target.stream = new GameStream(id, {
      onGame: game => {
        target.epoch += 1;
        target.notice = undefined;
        if (target.loadError) showError(ui.error, undefined);
        this.showGame(target, game);
      },
      onState: state => {
        target.epoch += 1;
        this.showState(target, state);
      },
      onNotice: error => {
        target.notice = error.message;
      },
      onFatal: error => {
        if (this.session !== target) return;
        showError(ui.error, error);
        if (!target.game) {
          target.loadError = error;
          this.page.render();
        }
      },
      onConnection: (status, retryInMs) => {
        if (this.session === target) renderConnection(status, target.notice, retryInMs);
      },
    });
    target.stream.start();
  }

  /** Connects the game's stream again at once (the network came back). */
  reconnectNow(): void {
    this.session?.stream?.reconnectNow();
  }

  private close(): void {
    this.session?.stream?.stop();
    this.session = undefined;
    this.picker.close();
    renderConnection('idle', undefined);
  }

  /** Once per game, turns the board so that a player's own side is at the bottom. */
  private orient(): void {
    if (!this.session?.game || !this.page.account() || this.orientedFor === this.session) return;
    this.orientedFor = this.session;
    this.orientation = orientationFor(this.seats()) ?? this.orientation;
  }

  // -------------------------------------------------------------------------------------------- state

  private showGame(target: Session, game: GameFull): void {
    this.clocks.note(game.state);
    if (this.session !== target) return;
    this.afterStateChange(target, applyGame(target, game));
  }

  private showState(target: Session, state: GameState): void {
    this.clocks.note(state);
    if (this.session !== target || !target.game) return;
    this.afterStateChange(target, applyState(target, state));
  }

  private afterStateChange(target: Session, previous: GameState | undefined): void {
    const state = target.game!.state;
    if (this.picker.isOpen && (state.fen !== previous?.fen || isEnded(state))) this.picker.close();
    this.orient();
    this.page.render();
    void this.refreshLegal(target);
    this.promptPendingPromotion(target);
    if (awaitsRatingChange(target.game!)) void this.refreshRatings(target);
  }

  /**
   * A rated game just over: its rating changes are in its GameFull, which the stream's gameState does not carry, so
   * the game is read once more (DECISIONS §21).
   */
  private async refreshRatings(target: Session): Promise<void> {
    try {
      const game = await api.get(target.id);
      if (this.session === target && !awaitsRatingChange(game)) this.showGame(target, game);
    } catch {
      // The changes show at the next load of the game.
    }
  }

  /** Asks the moves endpoint for the legal moves of the position shown; late answers are dropped. */
  private async refreshLegal(target: Session): Promise<void> {
    if (!needsLegal(target)) return;
    const request = ++this.legalRequest;
    try {
      const moves = await api.legalMoves(target.id);
      if (request !== this.legalRequest || this.session !== target) return;
      target.legal = moves;
      this.renderBoard();
      this.promptPendingPromotion(target);
    } catch (error) {
      if (request !== this.legalRequest || this.session !== target) return;
      target.legalKey = undefined; // ask again on the next change
      showError(ui.error, asApiError(error));
    }
  }

  private renderBoard(): void {
    const game = this.session?.game;
    const controls = controlsOf(game?.state, this.seats(), game?.clock, computerSideOf(game));
    this.board.show(game?.state, this.session?.legal ?? [], this.orientation, controls.move === 'enabled');
  }

  /** A pending promotion (status promotionPending) opens the picker when its move is known. */
  private promptPendingPromotion(target: Session): void {
    if (this.picker.isOpen) return;
    const uci = promotionToAsk(target, this.seats());
    const fen = target.game?.state.fen;
    if (!uci) return;
    this.openPicker(uci.slice(0, 2), uci.slice(2, 4), () => {
      target.dismissedPendingFen = fen;
    });
  }

  private openPicker(from: string, to: string, onCancel: () => void = () => undefined): void {
    const state = this.session?.game?.state;
    if (!state) return;
    this.picker.open(
      { to, color: state.turn, orientation: this.orientation },
      (piece: PromotionPiece) => void this.play(`${from}${to}${piece}`),
      () => {
        onCancel();
        this.renderBoard();
      },
    );
  }

  // -------------------------------------------------------------------------------------------- actions

  /** Runs an action on the current game; shows its answer unless the stream has already shown something newer. */
  private async act(run: (id: string) => Promise<GameState | { ok: true }>): Promise<GameState | undefined> {
    const target = this.session;
    if (!target?.game) return undefined;
    showError(ui.error, undefined);
    const epoch = target.epoch;
    try {
      const answer = await run(target.id);
      if (this.session !== target) return undefined;
      if ('fen' in answer) {
        if (answerIsCurrent(target, epoch)) this.showState(target, answer);
        return answer;
      }
      if (answerIsCurrent(target, epoch)) {
        const game = await api.get(target.id); // {ok:true} carries no state; the stream may not be live
        if (answerIsCurrent(target, epoch)) this.showGame(target, game);
      }
      return target.game.state;
    } catch (error) {
      if (this.session === target) {
        showError(ui.error, asApiError(error));
        this.renderBoard(); // a piece moved on the board goes back
      }
      return undefined;
    }
  }

  private async play(uci: string): Promise<boolean> {
    const target = this.session;
    if (target?.game === undefined) return false;
    this.board.freeze(); // one move at a time
    const state = await this.act(id => api.move(id, uci));
    if (!state) return false;
    if (state.status === 'promotionPending' && uci.length === 4) {
      target.pending = { fen: state.fen, uci };
      target.dismissedPendingFen = undefined;
      this.promptPendingPromotion(target);
    }
    return true;
  }

  private onBoardMove(orig: string, dest: string): void {
    const candidates = movesFor(this.session?.legal ?? [], orig, dest);
    const first = candidates[0];
    if (!first) {
      this.renderBoard();
      return;
    }
    if (candidates.some(move => move.promotion)) this.openPicker(first.from, first.to);
    else void this.play(first.uci);
  }

  private async onMoveSubmit(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const state = this.session?.game?.state;
    if (!state) return;
    const parsed = toUci(ui.moveInput.value, state.fen);
    if ('error' in parsed) {
      showError(ui.error, parsed.error);
      ui.moveInput.select();
      return;
    }
    if (await this.play(parsed.uci)) ui.moveInput.value = '';
    else ui.moveInput.select();
  }

  /** The game card's buttons and move box. */
  private wire(): void {
    const act = (run: (id: string) => Promise<GameState | { ok: true }>) => () => this.act(run);
    const draw = (action: DrawAction) => act(id => api.draw(id, action));
    const takeback = (action: TakebackAction) => act(id => api.takeback(id, action));
    on(
      buttons.undo,
      'click',
      act(id => api.undo(id)),
    );
    on(
      buttons.redo,
      'click',
      act(id => api.redo(id)),
    );
    on(buttons.flip, 'click', () => {
      this.orientation = this.orientation === 'white' ? 'black' : 'white';
      const request = this.picker.request;
      this.picker.close();
      this.page.render();
      if (request) this.promptPendingPromotion(this.session!);
    });
    on(buttons.resign, 'click', () => (confirmResign() ? this.act(id => api.resign(id)) : undefined));
    on(buttons.drawOffer, 'click', draw('offer'));
    on(buttons.drawAccept, 'click', draw('accept'));
    on(buttons.drawDecline, 'click', draw('decline'));
    on(buttons.drawClaim, 'click', draw('claim'));
    on(buttons.takebackOffer, 'click', takeback('offer'));
    on(buttons.takebackAccept, 'click', takeback('accept'));
    on(buttons.takebackDecline, 'click', takeback('decline'));
    on(
      buttons.abort,
      'click',
      act(id => api.abort(id)),
    );
    on(ui.moveForm, 'submit', event => this.onMoveSubmit(event as SubmitEvent));
  }
}

function setAddress(path: string, mode: AddressMode): void {
  if (mode === 'none' || location.pathname === path) return;
  if (mode === 'push') history.pushState(null, '', path);
  else history.replaceState(null, '', path);
}
