/**
 * The "Play someone" panel (DECISIONS §16): with a player token, the player's pending challenges (received with
 * Accept, a reason and Decline; made with Cancel), the forms to challenge a player and to seek an opponent, and the
 * seek's state; without one, why not. Its traffic is challenges.ts's and seek.ts's; what it shows comes from
 * challengesState.ts and seekState.ts.
 *
 * ```ts
 * const play = new PlayPanel(challenges, seeker);
 * play.render(who.account?.player); // after every change
 * ```
 */
import type { DeclineReason } from '../contract/vocabulary.ts';
import { asApiError, type Account, type ApiError } from './api.ts';
import type { ChallengesFeed } from './challenges.ts';
import {
  challengeBodyOf,
  challengeRowsOf,
  DECLINE_CHOICES,
  seekBodyOf,
  timeControlOf,
  withRated,
  type ChallengeRow,
} from './challengesState.ts';
import { elements, h, on, onSubmit, showText } from './dom.ts';
import { showError } from './errors.ts';
import type { Seeker } from './seek.ts';
import { seekWordsOf } from './seekState.ts';
import { addTimeFields, colorOf, ratedOf, timeFieldsOf } from './timeFields.ts';

const ui = {
  ...elements(
    'play play-needs-player play-body challenge-notice challenges-error challenge-error seek-status seek-error',
  ),
  ...elements('challenges-in challenges-in-empty challenges-out challenges-out-empty seek-cancel'),
  ...elements('challenge-form seek-form', HTMLFormElement),
  ...elements('challenge-player', HTMLInputElement),
  ...elements('seek-submit', HTMLButtonElement),
};

/** Shows why a seek failed under the seek form (undefined clears it): the Seeker's `failed`. */
export const showSeekError = (error: ApiError | undefined): void => showError(ui.seekError, error);

export class PlayPanel {
  /** What the challenge rows show now, to redraw them only when that changes (keeps a reason being chosen). */
  private challengesDrawn: string | undefined;

  /** Fills the forms' time control fields and handles the forms and the seek's Cancel. */
  constructor(
    private readonly challenges: ChallengesFeed,
    private readonly seeker: Seeker,
  ) {
    addTimeFields(ui.challengeForm, {
      testid: 'challenge',
      minutes: 5,
      increment: 3,
      kinds: ['realtime', 'correspondence', 'unlimited'],
      color: true,
      rated: true,
    });
    addTimeFields(ui.seekForm, {
      testid: 'seek',
      minutes: 5,
      increment: 0,
      kinds: ['realtime', 'correspondence'],
      rated: true,
    });
    onSubmit(ui.challengeForm, () => this.challenge());
    onSubmit(ui.seekForm, () => this.seek());
    on(ui.seekCancel, 'click', () => seeker.cancel());
  }

  /** Draws the panel for `player` (undefined: not known yet; null: no player token). */
  render(player: Account['player'] | undefined): void {
    const seeking = this.seeker.seek.phase !== 'idle'; // searching or just paired: the form waits, Cancel is offered
    const seekWords = seekWordsOf(this.seeker.seek);
    ui.play.hidden = player === undefined;
    ui.playNeedsPlayer.hidden = player !== null;
    ui.playBody.hidden = !player;
    showText(ui.challengeNotice, this.challenges.state.notice ?? ''); // a challenge that ended elsewhere
    ui.challengeNotice.hidden = false; // a live region is announced only while it is shown
    if (ui.seekStatus.textContent !== seekWords) ui.seekStatus.textContent = seekWords;
    ui.seekCancel.hidden = !seeking;
    ui.seekSubmit.disabled = seeking;
    const rows = this.challenges.player ? challengeRowsOf(this.challenges.state) : [];
    const drawn = JSON.stringify(rows);
    if (drawn === this.challengesDrawn) return;
    this.challengesDrawn = drawn;
    const incoming = rows.filter(row => row.direction === 'in');
    const outgoing = rows.filter(row => row.direction === 'out');
    ui.challengesIn.replaceChildren(...incoming.map(row => this.challengeItem(row)));
    ui.challengesOut.replaceChildren(...outgoing.map(row => this.challengeItem(row)));
    ui.challengesInEmpty.hidden = incoming.length > 0;
    ui.challengesOutEmpty.hidden = outgoing.length > 0;
  }

  private challengeItem(row: ChallengeRow): HTMLElement {
    const item = h('li', { className: 'challenge', testid: 'challenge' });
    item.dataset.challengeId = row.id;
    item.dataset.direction = row.direction;
    const buttons = h('span', { className: 'buttons' });
    const button = (text: string, testid: string, onClick: () => Promise<void>, className = '') => {
      const element = h('button', { testid, text });
      element.type = 'button';
      if (className) element.className = className;
      element.setAttribute('aria-label', `${text}: ${row.title}`);
      element.addEventListener('click', () => {
        element.disabled = true; // one answer at a time; the row goes once it is answered
        void onClick().finally(() => (element.disabled = false));
      });
      return element;
    };
    if (row.direction === 'in') {
      const reason = h('select', { testid: 'challenge-decline-reason' });
      reason.setAttribute('aria-label', `Reason to decline: ${row.title}`);
      reason.append(...DECLINE_CHOICES.map(choice => new Option(choice.label, choice.key)));
      buttons.append(
        button('Accept', 'challenge-accept', () => this.answer(() => this.challenges.accept(row.id)), 'primary'),
        reason,
        button('Decline', 'challenge-decline', () =>
          this.answer(() => this.challenges.decline(row.id, reason.value as DeclineReason)),
        ),
      );
    } else {
      buttons.append(button('Cancel', 'challenge-cancel', () => this.answer(() => this.challenges.cancel(row.id))));
    }
    item.append(
      h('span', { className: 'title', testid: 'challenge-title', text: row.title }),
      h('span', { className: 'side-name', text: `${row.timeControl} · ${row.side}` }),
      buttons,
    );
    return item;
  }

  /** A challenge's answer from its row; a refusal shows above the lists. */
  private async answer(run: () => Promise<void>): Promise<void> {
    showError(ui.challengesError, undefined);
    try {
      await run();
    } catch (error) {
      showError(ui.challengesError, asApiError(error));
    }
  }

  private async challenge(): Promise<void> {
    showError(ui.challengeError, undefined);
    const control = timeControlOf(timeFieldsOf(ui.challengeForm));
    if ('error' in control) {
      showError(ui.challengeError, control.error);
      return;
    }
    try {
      const body = withRated(challengeBodyOf(control, colorOf(ui.challengeForm)), ratedOf(ui.challengeForm));
      await this.challenges.create(ui.challengePlayer.value.trim(), body);
      ui.challengePlayer.value = '';
    } catch (error) {
      showError(ui.challengeError, asApiError(error));
    }
  }

  private seek(): Promise<void> | undefined {
    showError(ui.seekError, undefined);
    const control = timeControlOf(timeFieldsOf(ui.seekForm));
    const body = 'error' in control ? control : seekBodyOf(control);
    if ('error' in body) {
      showError(ui.seekError, body.error);
      return undefined;
    }
    return this.seeker.start(withRated(body, ratedOf(ui.seekForm)));
  }
}
