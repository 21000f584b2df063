/**
 * The DOM helpers every panel draws and wires with; no panel of its own (each panel's file, `…Panel.ts`, has its
 * elements, its drawing and its wiring). The page's markup is fixed (index.html), its elements found by
 * data-testid; what a panel adds (list rows, tags, generated fields) is built with `h`.
 *
 * ```ts
 * const ui = { ...elements('status turn chat-lines'), ...elements('undo redo', HTMLButtonElement) };
 * ui.chatLines; ui.undo.disabled = true;
 * showText(ui.offers, words);                  // hidden while empty
 * h('span', { className: 'title', testid: 'challenge-title', text: row.title });
 * setControl(ui.undo, controls.undo);          // shown or hidden, enabled or not
 * onSubmit(form, () => send());                // the page handles the form, not the browser
 * ```
 */
import type { Control } from './seats.ts';
import type { ConnectionStatus } from './stream.ts';

/** The element with this data-testid; the page's markup is fixed, so a missing one is a bug. */
export function el<T extends HTMLElement = HTMLElement>(testid: string): T {
  const found = document.querySelector<T>(`[data-testid="${testid}"]`);
  if (!found) throw new Error(`the page has no [data-testid="${testid}"]`);
  return found;
}

/** A data-testid's name in camel case: `chat-lines` is `chatLines`. */
type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;
/** The words of a space-separated list. */
type Words<S extends string> = S extends `${infer Head} ${infer Tail}` ? Words<Head> | Words<Tail> : S;

/**
 * The elements of the data-testids listed (separated by spaces), each by its test id in camel case, and each a
 * `type` (HTMLElement by default; another type is checked): a panel's elements in a line or two.
 */
export function elements<const TestIds extends string, T extends HTMLElement = HTMLElement>(
  testids: TestIds,
  type?: { new (): T; readonly prototype: T },
): { [TestId in Words<TestIds> as CamelCase<TestId>]: T } {
  const found: Record<string, T> = {};
  for (const testid of testids.split(' ')) {
    const element = el(testid);
    if (type && !(element instanceof type)) throw new Error(`[data-testid="${testid}"] is no ${type.name}`);
    found[testid.replace(/-(.)/g, (_, letter: string) => letter.toUpperCase())] = element as T;
  }
  return found as { [TestId in Words<TestIds> as CamelCase<TestId>]: T };
}

/** What `h` sets on an element it builds. */
export interface ElementProps {
  className?: string;
  testid?: string;
  text?: string;
}

/** A new element with its class, data-testid and text, and `children` appended. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tagName: K,
  props: ElementProps = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tagName);
  if (props.className !== undefined) element.className = props.className;
  if (props.testid !== undefined) element.dataset.testid = props.testid;
  if (props.text !== undefined) element.textContent = props.text;
  element.append(...children);
  return element;
}

/** A small label beside a name: "you", "to move", "winner"... */
export const tag = (text: string, className: string): HTMLElement => h('span', { className: `tag ${className}`, text });

/** Sets an element's text, hidden while there is none. */
export function showText(element: HTMLElement, text: string): void {
  element.textContent = text;
  element.hidden = text === '';
}

/** Shows or hides a control, and disables it unless it can be used now (hidden ones too). */
export function setControl(element: HTMLButtonElement | HTMLInputElement, control: Control): void {
  element.hidden = control === 'hidden';
  element.disabled = control !== 'enabled';
}

/** A panel's indicator of the stream it follows ("My games", the chat): Live, Reconnecting… or nothing. */
export function showConnection(element: HTMLElement, status: ConnectionStatus | 'idle'): void {
  element.dataset.state = status;
  element.textContent = status === 'live' ? 'Live' : status === 'reconnecting' ? 'Reconnecting…' : '';
}

/** Listens to `type` on `element`; what `handler` answers (a promise) is left to it. */
export function on(element: HTMLElement, type: string, handler: (event: Event) => unknown): void {
  element.addEventListener(type, event => void handler(event));
}

/** A form's submission, handled by the page instead of the browser. */
export function onSubmit(form: HTMLFormElement, handler: () => unknown): void {
  on(form, 'submit', event => {
    event.preventDefault();
    return handler();
  });
}
