/**
 * What every account page shares (DECISIONS §20): forms read as `application/x-www-form-urlencoded`
 * (@fastify/formbody), CSRF tokens (@fastify/csrf-protection, its secret in an HttpOnly cookie) and an Origin check
 * on every form that changes something, the session of a request (its cookie, HttpOnly, SameSite=Lax, Secure under
 * an https PUBLIC_URL), and errors answered as a page rather than as the API's JSON.
 *
 * ```ts
 * await registerPageContext(app, { accounts, publicUrl });
 * app.post('/logout', { preHandler: pages.guardForm }, ...);
 * ```
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import csrf from '@fastify/csrf-protection';
import { DomainError } from '../../domain/errors.ts';
import type { Accounts, Session } from '../../service/accounts.ts';
import { crossOriginForm, SESSION_COOKIE } from '../origin.ts';
import { errorLine, html, layout, type Html } from './html.ts';

export interface PageOptions {
  accounts: Accounts;
  publicUrl: string | undefined;
}

/** Where the pages' CSP lets forms go: this origin, and `extra` (the OAuth redirect's origin). */
export const pageSecurityHeaders = (reply: FastifyReply, formTargets = "'self'"): FastifyReply =>
  reply
    .header('cache-control', 'no-store')
    .header(
      'content-security-policy',
      `default-src 'self'; script-src 'none'; style-src 'self'; img-src 'self' data:; form-action ${formTargets}; ` +
        "frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
    )
    .header('referrer-policy', 'same-origin')
    .header('x-frame-options', 'DENY');

export interface Pages {
  /** The session of a request, if signed in. */
  session: (request: FastifyRequest) => Promise<Session | undefined>;
  /** A preHandler for forms that change something: the Origin check, then the CSRF token. */
  guardForm: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** Sends a page, with a CSRF token for its forms. */
  send: (reply: FastifyReply, page: PageContent, status?: number) => FastifyReply;
  /** The cookie of a new session. */
  setSession: (reply: FastifyReply, sessionId: string) => void;
  clearSession: (reply: FastifyReply) => void;
}

export interface PageContent {
  title: string;
  body: (csrf: string) => Html;
  session?: Session | undefined;
  formTargets?: string;
}

export async function registerPageContext(app: FastifyInstance, { accounts, publicUrl }: PageOptions): Promise<Pages> {
  const secure = publicUrl?.startsWith('https:') === true;
  const cookieOptions = { httpOnly: true, sameSite: 'lax' as const, path: '/', secure };
  // Cookies for the pages only (this plugin's context): the API reads its one cookie itself (guards.ts), so that its
  // requests pay for no cookie hooks (an onSend hook on every answer).
  await app.register(cookie);
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  await app.register(csrf, { cookieKey: 'csrf', cookieOpts: { ...cookieOptions, signed: false } });

  const pages: Pages = {
    session: request => accounts.session(request.cookies[SESSION_COOKIE]),
    guardForm: async (request, reply) => {
      if (crossOriginForm(request, publicUrl)) {
        throw new DomainError('FORBIDDEN', 'this form was sent from another site');
      }
      await new Promise<void>((resolve, reject) =>
        app.csrfProtection(request, reply, (error?: Error) => (error ? reject(csrfRefusal()) : resolve())),
      );
    },
    send: (reply, { title, body, session, formTargets }, status = 200) => {
      const token = reply.generateCsrf();
      const user = session && { id: session.account.id, displayName: session.account.displayName };
      return pageSecurityHeaders(reply, formTargets)
        .code(status)
        .type('text/html; charset=utf-8')
        .send(layout({ title, body: body(token), user, csrf: token }));
    },
    setSession: (reply, sessionId) => {
      void reply.setCookie(SESSION_COOKIE, sessionId, cookieOptions);
    },
    clearSession: reply => {
      void reply.clearCookie(SESSION_COOKIE, cookieOptions);
    },
  };

  // Errors on the pages are pages: the message (never a secret: none is put in one), and 429's Retry-After.
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    const known = error instanceof DomainError;
    const status = known ? error.status : error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
    if (status >= 500) request.log.error({ err: error }, 'page failed');
    const message = known || status < 500 ? error.message : 'something went wrong; try again';
    void pages.session(request).then(
      session =>
        pages.send(
          reply,
          {
            title: 'Something is wrong',
            session,
            body: () =>
              html`${errorLine(message)}
                <p><a href="/">Back to the board</a></p>`,
          },
          status,
        ),
      () => pages.send(reply, { title: 'Something is wrong', body: () => errorLine(message) }, status),
    );
  });
  return pages;
}

const csrfRefusal = () =>
  new DomainError('FORBIDDEN', 'this form has expired or was not sent from this site: load the page again');
