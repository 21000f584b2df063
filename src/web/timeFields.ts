/**
 * The time control fields of the forms that start a game with someone or something: "Play the computer"
 * (newGamePanel.ts), "Challenge a player" and "Find an opponent" (playPanel.ts). They are the same fields with
 * other defaults, so they are built here from one table into each form's empty `.time-fields` box (index.html):
 * the kind of time control, the clock's minutes and increment, the days per move, and, where the form asks for it,
 * the person's colour after them. The kind chosen shows its own fields (renderTimeFields); what is typed is read as
 * challengesState.ts's TimeControlFields.
 *
 * ```ts
 * addTimeFields(form, { testid: 'seek', minutes: 5, increment: 0, kinds: ['realtime', 'correspondence'] });
 * const control = timeControlOf(timeFieldsOf(form)); // challengesState.ts: checked, or what is wrong
 * colorOf(form); // 'random', 'white' or 'black'
 * ```
 */
import {
  CHALLENGE_COLORS,
  CORRESPONDENCE_DAYS,
  type ChallengeColor,
  type TimeControlFields,
} from './challengesState.ts';
import { h, on } from './dom.ts';

/** The kinds of time control the forms offer, in their order. */
const KINDS = { realtime: 'Real time', correspondence: 'Correspondence', unlimited: 'Unlimited' } as const;
export type TimeControlKind = keyof typeof KINDS;

const COLOR_WORDS: Record<ChallengeColor, string> = { random: 'Random', white: 'White', black: 'Black' };

/** The days per move a form starts with. */
const DEFAULT_DAYS = 3;

/** What a form's time control fields are called and start with. */
export interface TimeFieldsOptions {
  /** The start of each field's data-testid: `${testid}-kind`, `-minutes`, `-increment`, `-days`, `-color`. */
  testid: string;
  /** The clock's minutes and increment (seconds) a real-time game starts with. */
  minutes: number;
  increment: number;
  /** The kinds offered (a seek has no unlimited one). */
  kinds: readonly TimeControlKind[];
  /** Whether the form asks for the person's colour (a select after the time control). */
  color?: boolean;
  /** Whether the form offers a rated game (a checkbox, `${testid}-rated`, off by default; DECISIONS §21). */
  rated?: boolean;
}

/** Builds a form's time control fields (and colour) into its `.time-fields` box, shown for the kind chosen. */
export function addTimeFields(form: HTMLFormElement, options: TimeFieldsOptions): void {
  const { testid } = options;
  const box = form.querySelector<HTMLElement>('.time-fields');
  if (!box) throw new Error(`the form ${form.id} has no .time-fields box`);
  const kinds = options.kinds.map(kind => new Option(KINDS[kind], kind));
  const days = CORRESPONDENCE_DAYS.map(count => {
    const chosen = count === DEFAULT_DAYS;
    return new Option(`${count} ${count === 1 ? 'day' : 'days'}`, String(count), chosen, chosen);
  });
  box.replaceChildren(
    field(undefined, 'Time control', select('kind', `${testid}-kind`, kinds)),
    field('clock', 'Minutes', numberInput('minutes', `${testid}-minutes`, '0.25', '0.25', options.minutes)),
    field('clock', 'Increment (seconds)', numberInput('increment', `${testid}-increment`, '0', '1', options.increment)),
    field('days', 'Days per move', select('days', `${testid}-days`, days)),
  );
  if (options.color) {
    const colors = CHALLENGE_COLORS.map(color => new Option(COLOR_WORDS[color], color));
    const label = field(undefined, 'Your colour', select('color', `${testid}-color`, colors));
    label.className = 'field';
    box.after(label);
  }
  if (options.rated) {
    const input = h('input', { testid: `${testid}-rated` });
    Object.assign(input, { name: 'rated', type: 'checkbox' });
    const label = h('label', { className: 'field rated' }, input, ' Rated');
    label.title = 'A rated game needs a clock or days per move';
    (form.querySelector('label.field:not(.rated)') ?? box).after(label);
  }
  on(form, 'change', event => {
    if ((event.target as HTMLElement).getAttribute('name') === 'kind') renderTimeFields(form);
  });
  renderTimeFields(form);
}

/** A label around its words and its input; `kind`: the time control whose field it is (data-field), none: all. */
function field(kind: 'clock' | 'days' | undefined, words: string, input: HTMLElement): HTMLLabelElement {
  const label = h('label', {}, `${words} `, input);
  if (kind) label.dataset.field = kind;
  return label;
}

function select(name: string, testid: string, options: readonly HTMLOptionElement[]): HTMLSelectElement {
  const element = h('select', { testid }, ...options);
  element.name = name;
  return element;
}

/** A number field from `min` to 180 in steps of `step`, starting at `value`. */
function numberInput(name: string, testid: string, min: string, step: string, value: number): HTMLInputElement {
  const input = h('input', { testid });
  Object.assign(input, { name, type: 'number', min, max: '180', step, defaultValue: String(value), required: true });
  return input;
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

/** Whether a form asks for a rated game (its Rated box ticked); false for a form without one. */
export const ratedOf = (form: HTMLFormElement): boolean =>
  (form.elements.namedItem('rated') as HTMLInputElement | null)?.checked ?? false;

/** The colour a form's person chose. */
export const colorOf = (form: HTMLFormElement): ChallengeColor =>
  (form.elements.namedItem('color') as HTMLSelectElement).value as ChallengeColor;
