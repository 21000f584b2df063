/**
 * The header's account links (DECISIONS §20): who is signed in, with their account page and sign-out; else the
 * sign-in and sign-up links the page is served with. Sign-out is a form on its own page (`/logout`), which carries
 * the CSRF token the board page, a static file, has not.
 *
 * ```ts
 * renderSignedIn({ id: 'ann', displayName: 'Ann' }); // "Signed in as Ann · Sign out"
 * renderSignedIn(null);                               // "Sign in · Sign up"
 * ```
 */
import type { PlayerInfo } from './api.ts';

export function renderSignedIn(player: PlayerInfo | null): void {
  const links = document.querySelector<HTMLElement>('[data-testid="account-links"]');
  if (!links) return;
  const link = (href: string, text: string, testId: string) => {
    const a = document.createElement('a');
    a.href = href;
    a.textContent = text;
    a.dataset.testid = testId;
    return a;
  };
  if (player) {
    const who = document.createElement('span');
    who.dataset.testid = 'signed-in';
    who.append('Signed in as ', link('/account', player.displayName, 'account-link'));
    links.replaceChildren(who, ' ', link('/logout', 'Sign out', 'sign-out-link'));
  } else {
    links.replaceChildren(link('/login', 'Sign in', 'sign-in-link'), ' ', link('/signup', 'Sign up', 'sign-up-link'));
  }
}
