/**
 * Where a browser's request comes from (DECISIONS §20): a session acts only for the service's own pages. A request
 * shows it is same-origin by `Sec-Fetch-Site: same-origin`, or by an `Origin` equal to the service's (PUBLIC_URL's
 * origin, else the origin the request was sent to); with neither (curl), the session is not taken. A form that
 * changes something is refused when either header names another origin.
 *
 * ```ts
 * isSameOrigin(request, publicUrl);   // the API takes the session cookie
 * crossOriginForm(request, publicUrl); // true: refuse the form
 * ```
 */
import type { FastifyRequest } from 'fastify';

/** The session cookie's name. */
export const SESSION_COOKIE = 'session';

/** The service's own origin: PUBLIC_URL's, else the one the request was sent to. */
export function serviceOrigin(request: FastifyRequest, publicUrl: string | undefined): string {
  if (publicUrl) return new URL(publicUrl).origin;
  return `${request.protocol}://${request.host}`;
}

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
};

/** Whether the request shows it comes from the service's own pages. */
export function isSameOrigin(request: FastifyRequest, publicUrl: string | undefined): boolean {
  const origin = header(request, 'origin');
  if (origin !== undefined) return origin === serviceOrigin(request, publicUrl);
  return header(request, 'sec-fetch-site') === 'same-origin';
}

/**
 * Whether a form's request shows another origin: an Origin not the service's, or Sec-Fetch-Site other than
 * same-origin or none (a typed address). A request with neither header (not a browser) is judged by its CSRF token.
 */
export function crossOriginForm(request: FastifyRequest, publicUrl: string | undefined): boolean {
  const origin = header(request, 'origin');
  if (origin !== undefined) return origin !== serviceOrigin(request, publicUrl);
  const site = header(request, 'sec-fetch-site');
  return site !== undefined && site !== 'same-origin' && site !== 'none';
}
