/**
 * Who the page acts as (DECISIONS §13, §20): `GET /api/account` names the token's player, or without a token the
 * signed-in person's (the session cookie, which the service takes from its own pages). Without either, and on a
 * service without player tokens (it answers 404), the page has no player and acts for any side. A refused token
 * (401) waits for another one; without a token, 401 is nobody signed in. Other failures are retried, backing off up
 * to 30 s. An answer for a token since replaced is dropped.
 *
 * ```ts
 * const who = new AccountLoader(account => myGames.follow(account.player), error => showError(ui.error, error));
 * void who.load();                 // at start, and after the token changes
 * seatsOf(session.game, who.account); // none while the service has not said
 * ```
 */
import { api, asApiError, getToken, type Account, type ApiError } from './api.ts';

export class AccountLoader {
  /** Who the page acts as: no player (any side) without a token; undefined while the service has not said. */
  account: Account | undefined = undefined;
  /** Whether the player is the signed-in person's (no token: the session), for the header's sign-out. */
  signedIn = false;
  private request = 0;

  /** `shown`: called once the account is known, after `account` is set; `refused`: the token was refused (401). */
  constructor(
    private readonly shown: (account: Account) => void,
    private readonly refused: (error: ApiError) => void,
  ) {}

  /**
   * Asks the service who the token acts as. A service without player tokens answers 404: any side. A refused
   * token waits for another one; other failures are retried.
   */
  async load(retryMs = 1000): Promise<void> {
    const request = ++this.request;
    const token = getToken();
    this.account = undefined;
    try {
      const answer = await api.account();
      if (request !== this.request) return;
      this.signedIn = !token && answer.player !== null;
      this.show(answer);
    } catch (error) {
      if (request !== this.request) return;
      const apiError = asApiError(error);
      this.signedIn = false;
      if (apiError.status === 404 || (apiError.status === 401 && !token)) this.show({ player: null });
      else if (apiError.status === 401) this.refused(apiError);
      else {
        window.setTimeout(() => {
          if (request === this.request) void this.load(Math.min(retryMs * 2, 30_000));
        }, retryMs);
      }
    }
  }

  private show(answer: Account): void {
    this.account = answer;
    this.shown(answer);
  }
}
