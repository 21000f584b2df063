/**
 * A refusal or a problem shown where it belongs: under the form that sent the request, or in the panel it concerns.
 * The service's code stays on the element (`data-code`) for tests and styles; a 401 also opens the "API token"
 * panel (tokenPanel.ts), which says what to enter.
 *
 * ```ts
 * showError(ui.chatError, 'The message is empty.'); // a problem the page found itself
 * showError(ui.error, asApiError(error));          // the service's answer
 * showError(ui.error, undefined);                  // hidden again
 * ```
 */
import type { ApiError } from './api.ts';
import { askForToken } from './tokenPanel.ts';

export function showError(target: HTMLElement, error: ApiError | string | undefined): void {
  if (error === undefined) {
    target.hidden = true;
    target.textContent = '';
    delete target.dataset.code;
    return;
  }
  target.hidden = false;
  target.textContent = typeof error === 'string' ? error : error.message;
  if (typeof error === 'string') delete target.dataset.code;
  else target.dataset.code = error.code;
  if (typeof error !== 'string' && error.status === 401) askForToken(); // the service wants a token
}
