/**
 * A browser for `app.inject()`: it keeps cookies, reads each form's CSRF token from the page it loads and sends forms
 * as a browser does (urlencoded, with the service's Origin), so that the account pages can be driven without Chromium.
 *
 * ```ts
 * const browser = new Browser(app);
 * await browser.submit('/signup', { username: 'Ann', password: 'correct horse battery' });
 * await browser.api('GET', '/api/account'); // with the session, same-origin
 * ```
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/** The origin `app.inject()` requests are sent to. */
export const ORIGIN = 'http://localhost:80';

export class Browser {
  readonly cookies = new Map<string, string>();
  private csrf = '';

  constructor(
    private readonly app: FastifyInstance,
    private readonly origin = ORIGIN,
  ) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private keep(res: LightMyRequestResponse): LightMyRequestResponse {
    for (const cookie of res.cookies as Array<{ name: string; value: string; expires?: Date; maxAge?: number }>) {
      const expired = cookie.value === '' || (cookie.expires !== undefined && cookie.expires.getTime() < Date.now());
      if (expired) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
    if (token) this.csrf = token;
    return res;
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.keep(
      await this.app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader(), 'sec-fetch-site': 'none' } }),
    );
  }

  /** Sends a form, as the page's own (its CSRF token, this origin) unless told otherwise; loads a page first if none. */
  async submit(
    url: string,
    fields: Record<string, string | string[]>,
    { csrf = true, origin = this.origin }: { csrf?: boolean; origin?: string } = {},
  ): Promise<LightMyRequestResponse> {
    if (csrf && this.csrf === '') await this.get(url === '/login' || url === '/signup' ? url : '/account');
    const body = new URLSearchParams();
    if (csrf) body.append('_csrf', this.csrf);
    for (const [name, value] of Object.entries(fields)) for (const one of [value].flat()) body.append(name, one);
    return this.keep(
      await this.app.inject({
        method: 'POST',
        url,
        headers: { cookie: this.cookieHeader(), origin, 'content-type': 'application/x-www-form-urlencoded' },
        payload: body.toString(),
      }),
    );
  }

  /** An API request from the service's own page: the session cookie, Sec-Fetch-Site: same-origin. */
  api(method: 'GET' | 'POST', url: string, payload?: unknown): Promise<LightMyRequestResponse> {
    return this.app.inject({
      method,
      url,
      headers: {
        cookie: this.cookieHeader(),
        'sec-fetch-site': 'same-origin',
        ...(payload ? { 'content-type': 'application/json' } : {}),
      },
      ...(payload ? { payload: JSON.stringify(payload) } : {}),
    });
  }
}

/** The hidden fields of a page's form but its CSRF token (the consent page's request, to send back). */
export const hiddenFields = (body: string): Record<string, string> =>
  Object.fromEntries(
    [...body.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)"/g)]
      .filter(([, name]) => name !== '_csrf')
      .map(([, name, value]) => [name!, value!.replaceAll('&amp;', '&')]),
  );

/** `POST /api/token` with these form fields (an authorization code's exchange), `grant_type` filled in. */
export const exchangeCode = (app: FastifyInstance, fields: Record<string, string>): Promise<LightMyRequestResponse> =>
  app.inject({
    method: 'POST',
    url: '/api/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ grant_type: 'authorization_code', ...fields }).toString(),
  });
