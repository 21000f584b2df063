/**
 * The "API token" panel (DECISIONS §13): the token the page sends, kept in this browser (api.ts), saved or forgotten
 * here, and what the panel says about it. A request the service refused for want of a token (401) opens the panel
 * and says why (errors.ts, askForToken). Who the token acts as is account.ts's business: `changed` tells the page.
 *
 * ```ts
 * renderToken(); // at start: whether a token is set
 * wireToken({ saved: () => reload(), forgotten: () => reload() });
 * ```
 */
import { getToken, setToken } from './api.ts';
import { elements, on, onSubmit } from './dom.ts';

const ui = {
  ...elements('settings', HTMLDetailsElement),
  ...elements('token-form', HTMLFormElement),
  ...elements('token-input', HTMLInputElement),
  ...elements('token-clear token-state'),
};

/** What the page does once the token changed: saved (a game on the board is tried again with it) or forgotten. */
export interface TokenChanges {
  saved(): void;
  forgotten(): void;
}

export function renderToken(): void {
  ui.tokenState.textContent = getToken() ? 'A token is set.' : 'No token is set.';
}

/** The service wants a token (it answered 401): the panel opens and says what to enter. */
export function askForToken(): void {
  ui.settings.open = true;
  ui.tokenState.textContent = getToken()
    ? 'The service refused the saved token: enter another one.'
    : 'The service needs a token: enter it here.';
}

/** Saves the token typed, or forgets the one kept; the field is emptied either way. */
export function wireToken(changes: TokenChanges): void {
  const use = (token: string) => {
    setToken(token);
    ui.tokenInput.value = '';
    renderToken();
  };
  onSubmit(ui.tokenForm, () => {
    use(ui.tokenInput.value.trim());
    changes.saved();
  });
  on(ui.tokenClear, 'click', () => {
    use('');
    changes.forgotten();
  });
}
