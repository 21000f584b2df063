/**
 * The lobby's forms that start a game: create (its players and time control), import a FEN (with players and a
 * time control too) and import a PGN (its own players, a time control). The fields are read as requests by
 * forms.ts and clocks.ts; a form that is incomplete, or a request the service refuses, shows its message under its
 * form; a game made is handed to `open`.
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
  /** `account`: who the page acts as now (the create form names an opponent for a player); `open`: shows a game. */
  constructor(
    private readonly account: () => Account | undefined,
    private readonly open: (game: GameFull) => Promise<void>,
  ) {}

  /** The create form: a new game between the form's players, with the time control chosen. */
  create(): Promise<void> {
    const clock = clockRequestOf(ui.timeControl.value);
    return this.startWithPlayers(ui.createError, named => api.create({ ...named, ...(clock ? { clock } : {}) }));
  }

  /** The FEN import form: a game from the position, with the create form's players and the import's time control. */
  importFen(): Promise<void> {
    const clock = clockRequestOf(ui.importTimeControl.value);
    const fen = ui.fenInput.value.trim();
    return this.startWithPlayers(ui.fenError, named => api.importFen({ fen, ...named, ...(clock ? { clock } : {}) }));
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

  /** Starts a game whose request names the form's players, unless the form is incomplete. */
  private startWithPlayers(errorTarget: HTMLElement, create: (named: Players) => Promise<GameFull>): Promise<void> {
    const named = this.players();
    if ('error' in named) {
      showError(errorTarget, named.error);
      return Promise.resolve();
    }
    return this.start(errorTarget, () => create(named));
  }

  /** The players a new game's request names, from the create form; a message when the form is incomplete. */
  private players(): Players | { error: string } {
    return newGamePlayersOf(
      {
        whiteName: ui.whiteName.value,
        blackName: ui.blackName.value,
        ownSide: ui.ownSide.value === 'black' ? 'black' : 'white',
        opponentId: ui.opponentId.value,
        opponentName: ui.opponentName.value,
      },
      this.account(),
    );
  }
}
