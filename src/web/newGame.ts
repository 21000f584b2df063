/**
 * The lobby's forms that start a game: create (its players and time control), import a FEN (with players and a
 * time control too) and import a PGN (its own players, a time control). The fields are read as requests by
 * forms.ts and clocks.ts (with a player token, the create form and the FEN import make practice boards); a request
 * the service refuses shows its message under its form; a game made is handed to `open`.
 *
 * ```ts
 * const newGame = new NewGameForms(() => who.account, game => openGame(game.gameId, 'push', game));
 * onSubmit(ui.createForm, () => newGame.create());
 * ```
 */
import { api, asApiError, type Account, type GameFull, type PlayerInfo } from './api.ts';
import { clockRequestOf } from './clocks.ts';
import { newGamePlayersOf } from './forms.ts';
import { showError, ui } from './render.ts';

type Players = { white?: PlayerInfo; black?: PlayerInfo };

export class NewGameForms {
  /** `account`: who the page acts as now (a player makes practice boards); `open`: shows a game. */
  constructor(
    private readonly account: () => Account | undefined,
    private readonly open: (game: GameFull) => Promise<void>,
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
