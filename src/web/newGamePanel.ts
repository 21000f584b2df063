/**
 * The lobby's forms that start a game: "Play chess" (create, with its players and time control, and open a game by
 * its id), "Play the computer" (a level, a time control and a colour) and "Import FEN or PGN" (a FEN with the create
 * form's players, a PGN with its own; each with a time control). The fields are read as requests by forms.ts,
 * clocks.ts and challengesState.ts (with a player token, the create form and the FEN import make practice boards);
 * a request the service refuses shows its message under its form; a game made is handed to `open`, and a game
 * against the computer to `openAs` with the person's colour.
 *
 * ```ts
 * const newGame = new NewGamePanel({
 *   account: () => who.account,
 *   open: game => openGame(game.gameId, 'push', game),
 *   openId: id => openGame(id, 'push'),
 *   openAs: (id, color) => ((orientation = color), openGame(id, 'push')),
 * });
 * newGame.render(account); // what the create form makes for this account
 * ```
 */
import { ENGINE_LEVELS, type Color } from '../contract/vocabulary.ts';
import { api, asApiError, type Account, type GameFull, type PlayerInfo } from './api.ts';
import { computerBodyOf, timeControlOf } from './challengesState.ts';
import { clockRequestOf, TIME_CONTROLS } from './clocks.ts';
import { elements, h, onSubmit } from './dom.ts';
import { showError } from './errors.ts';
import { idFromInput, newGamePlayersOf } from './forms.ts';
import { addTimeFields, colorOf, timeFieldsOf } from './timeFields.ts';

const ui = {
  ...elements('create-error names playing-as computer-error import-fen-error import-pgn-error'),
  ...elements('create-form open-form computer-form import-fen-form import-pgn-form', HTMLFormElement),
  ...elements('white-name black-name open-game-id import-fen-input', HTMLInputElement),
  ...elements('import-pgn-input', HTMLTextAreaElement),
  ...elements('time-control import-time-control', HTMLSelectElement),
  ...elements('computer-submit', HTMLButtonElement),
};

/** The computer's level a form starts with. */
const DEFAULT_LEVEL = 3;

type Players = { white?: PlayerInfo; black?: PlayerInfo };

/** What the forms need of the page. */
export interface NewGamePage {
  /** Who the page acts as now (a player makes practice boards). */
  account(): Account | undefined;
  /** Shows a game just made. */
  open(game: GameFull): Promise<void>;
  /** Shows the game of this id. */
  openId(id: string): Promise<void>;
  /** Shows a game by its id with `color`'s side at the bottom. */
  openAs(id: string, color: Color): Promise<void>;
}

export class NewGamePanel {
  /** Fills the forms' menus and fields and handles their submissions. */
  constructor(private readonly page: NewGamePage) {
    for (const select of [ui.timeControl, ui.importTimeControl]) {
      select.replaceChildren(...TIME_CONTROLS.map(choice => new Option(choice.label, choice.value)));
    }
    ui.computerForm
      .querySelector('.level-choices')
      ?.replaceChildren(...ENGINE_LEVELS.map(level => levelChoice(level, level === DEFAULT_LEVEL)));
    addTimeFields(ui.computerForm, {
      testid: 'computer',
      minutes: 10,
      increment: 5,
      kinds: ['realtime', 'correspondence', 'unlimited'],
      color: true,
    });
    onSubmit(ui.createForm, () => this.create());
    onSubmit(ui.openForm, () => {
      const id = idFromInput(ui.openGameId.value); // a pasted address works too
      if (id) void page.openId(id);
    });
    onSubmit(ui.importFenForm, () => this.importFen());
    onSubmit(ui.computerForm, () => this.playComputer());
    onSubmit(ui.importPgnForm, () => this.importPgn());
  }

  /**
   * The create form: names without a player token; with one, what it makes: a practice board (a player token
   * creates only games in which it holds both sides, DECISIONS §13a).
   */
  render(account: Account | undefined): void {
    const player = account?.player;
    ui.names.hidden = !!player;
    ui.playingAs.hidden = !player;
    ui.playingAs.textContent = player
      ? `You play as ${player.displayName}: a game started here is a practice board, where you play both sides. ` +
        'To play someone else, challenge them.'
      : '';
  }

  /** The create form: a new game between the form's players, with the time control chosen. */
  create(): Promise<void> {
    const clock = clockRequestOf(ui.timeControl.value);
    return this.start(ui.createError, () => api.create({ ...this.players(), ...(clock ? { clock } : {}) }));
  }

  /** The FEN import form: a game from the position, with the create form's players and the import's time control. */
  importFen(): Promise<void> {
    const clock = clockRequestOf(ui.importTimeControl.value);
    const fen = ui.importFenInput.value.trim();
    return this.start(ui.importFenError, () => api.importFen({ fen, ...this.players(), ...(clock ? { clock } : {}) }));
  }

  /** The PGN import form: a game from the PGN, its players its own, with the import's time control. */
  importPgn(): Promise<void> {
    const clock = clockRequestOf(ui.importTimeControl.value);
    return this.start(ui.importPgnError, () =>
      api.importPgn({ pgn: ui.importPgnInput.value, ...(clock ? { clock } : {}) }),
    );
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
    const body = 'error' in control ? control : computerBodyOf(level, control, colorOf(form));
    if ('error' in body) {
      showError(ui.computerError, body.error);
      return;
    }
    ui.computerSubmit.disabled = true; // one game per click
    try {
      const game = await api.challengeAi(body);
      await this.page.openAs(game.id, game.player);
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
      await this.page.open(game);
    } catch (error) {
      showError(errorTarget, asApiError(error));
    }
  }

  /** The players a new game's request names, from the create form (none for a player: a practice board). */
  private players(): Players {
    return newGamePlayersOf({ whiteName: ui.whiteName.value, blackName: ui.blackName.value }, this.page.account());
  }
}

/** A level's radio button in the computer form, its number shown as a button. */
function levelChoice(level: number, checked: boolean): HTMLLabelElement {
  const input = h('input', { testid: `computer-level-${level}` });
  Object.assign(input, { type: 'radio', name: 'level', value: String(level), defaultChecked: checked });
  return h('label', {}, input, h('span', { text: String(level) }));
}
