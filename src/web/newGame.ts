/**
 * The lobby's forms that start a game: create (its players and time control), import a FEN (with players and a
 * time control too), import a PGN (its own players, a time control) and play the computer (a level, a time control
 * and a colour). The fields are read as requests by forms.ts, clocks.ts and challengesState.ts (with a player token,
 * the create form and the FEN import make practice boards); a request the service refuses shows its message under
 * its form; a game made is handed to `open`, and a game against the computer to `openAs` with the person's colour.
 *
 * ```ts
 * const newGame = new NewGameForms(
 *   () => who.account,
 *   game => openGame(game.gameId, 'push', game),
 *   (id, color) => ((orientation = color), openGame(id, 'push')),
 * );
 * onSubmit(ui.createForm, () => newGame.create());
 * onSubmit(ui.computerForm, () => newGame.playComputer());
 * ```
 */
import type { Color } from '../contract/vocabulary.ts';
import { api, asApiError, type Account, type GameFull, type PlayerInfo } from './api.ts';
import { computerBodyOf, timeControlOf, type ChallengeColor } from './challengesState.ts';
import { clockRequestOf } from './clocks.ts';
import { newGamePlayersOf } from './forms.ts';
import { showError, timeFieldsOf, ui } from './render.ts';

type Players = { white?: PlayerInfo; black?: PlayerInfo };

export class NewGameForms {
  /**
   * `account`: who the page acts as now (a player makes practice boards); `open`: shows a game; `openAs`: shows a
   * game by its id with `color`'s side at the bottom.
   */
  constructor(
    private readonly account: () => Account | undefined,
    private readonly open: (game: GameFull) => Promise<void>,
    private readonly openAs: (id: string, color: Color) => Promise<void>,
  ) {}

  /** The create form: a new game between the form's players, with the time control chosen. */
  create(): Promise<void> {
    const clock = clockRequestOf(ui.timeControl.value);
    return this.start(ui.createError, () => api.create({ ...this.players(), ...(clock ? { clock } : {}) }));
  }

  /** The FEN import form: a game from the position, with the create form's players and the import's time control. */
  importFen(): Promise<void> {
    const clock = clockRequestOf(ui.importTimeControl.value);
    const fen = ui.fenInput.value.trim();
    return this.start(ui.fenError, () => api.importFen({ fen, ...this.players(), ...(clock ? { clock } : {}) }));
  }

  /** The PGN import form: a game from the PGN, its players its own, with the import's time control. */
  importPgn(): Promise<void> {
    const clock = clockRequestOf(ui.importTimeControl.value);
    return this.start(ui.pgnError, () => api.importPgn({ pgn: ui.pgnInput.value, ...(clock ? { clock } : {}) }));
  }

  /**
   * The computer form (DECISIONS §18): a game against the engine at the level chosen, opened with the person's side
   * at the bottom; the engine plays its side by itself, first when it is white.
   */
  async playComputer(): Promise<void> {
    showError(ui.computerError, undefined);
    const form = ui.computerForm;
    const level = (form.elements.namedItem('level') as RadioNodeList).value;
    const control = timeControlOf(timeFieldsOf(form));
    const body =
      'error' in control ? control : computerBodyOf(level, control, ui.computerColor.value as ChallengeColor);
    if ('error' in body) {
      showError(ui.computerError, body.error);
      return;
    }
    ui.computerSubmit.disabled = true; // one game per click
    try {
      const game = await api.challengeAi(body);
      await this.openAs(game.id, game.player);
    } catch (error) {
      showError(ui.computerError, asApiError(error));
    } finally {
      ui.computerSubmit.disabled = false;
    }
  }

  /** Runs a request that makes a new game, shows the API's message under its form on failure, opens the game. */
  private async start(errorTarget: HTMLElement, create: () => Promise<GameFull>): Promise<void> {
    showError(errorTarget, undefined);
    try {
      const game = await create();
      await this.open(game);
    } catch (error) {
      showError(errorTarget, asApiError(error));
    }
  }

  /** The players a new game's request names, from the create form (none for a player: a practice board). */
  private players(): Players {
    return newGamePlayersOf({ whiteName: ui.whiteName.value, blackName: ui.blackName.value }, this.account());
  }
}
