/**
 * The time control fields of the forms that start a game with someone or something: "Play the computer"
 * (newGamePanel.ts), "Challenge a player" and "Find an opponent" (playPanel.ts): the kind of time control, the
 * clock's minutes and increment, the days per move, and the person's colour. The kind chosen shows its own fields
 * (renderTimeFields); what is typed is read as challengesState.ts's TimeControlFields.
 *
 * ```ts
 * wireTimeFields(form); // the fields of the kind chosen, now and on each change
 * const control = timeControlOf(timeFieldsOf(form)); // challengesState.ts: checked, or what is wrong
 * colorOf(form); // 'random', 'white' or 'black'
 * ```
 */
import type { ChallengeColor, TimeControlFields } from './challengesState.ts';
import { on } from './dom.ts';

/** Shows a form's time control fields for the kind chosen, now and whenever it changes. */
export function wireTimeFields(form: HTMLFormElement): void {
  on(form, 'change', event => {
    if ((event.target as HTMLElement).getAttribute('name') === 'kind') renderTimeFields(form);
  });
  renderTimeFields(form);
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

/** The colour a form's person chose. */
export const colorOf = (form: HTMLFormElement): ChallengeColor =>
  (form.elements.namedItem('color') as HTMLSelectElement).value as ChallengeColor;
