/**
 * OAuth's consent page (DECISIONS §20; RFC 6749 4.1.1-4.1.2): `GET /oauth?response_type=code&client_id&redirect_uri&
 * code_challenge_method=S256&code_challenge&scope&state` asks the signed-in person (sign in first, then back),
 * naming the app, where it sends them back and the scopes; Allow sends them back with a code and the state, Deny with
 * `error=access_denied`. A request the domain refuses (domain/oauth.ts) is shown on the page when its client_id or
 * redirect_uri is at fault, else sent back with its error. Consent is asked every time.
 *
 * ```
 * GET /oauth?...     -> 200 the consent page | 303 /login?next=... | 302 redirect_uri?error=... | 400 page
 * POST /oauth        -> 302 redirect_uri?code=...&state=... (Allow) | ?error=access_denied (Deny)
 * ```
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { SCOPES } from '../../domain/accounts.ts';
import { judgeAuthorization, type AuthorizationRequest } from '../../domain/oauth.ts';
import type { Session } from '../../service/accounts.ts';
import type { OAuth } from '../../service/oauth.ts';
import type { Pages } from '../pages/context.ts';
import { errorLine, form, html } from '../pages/html.ts';

export interface OAuthPagesOptions {
  pages: Pages;
  oauth: OAuth;
  signedIn: (request: FastifyRequest, reply: FastifyReply, next?: string) => Promise<Session | undefined>;
}

/** The redirect_uri with these parameters added to its query. */
export function redirectTo(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}

/** The origin an app's redirect goes to, for the page and the form's CSP: a custom scheme is the scheme itself. */
const targetOf = (uri: string): string => {
  const url = new URL(uri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
};

const hide = { schema: { hide: true } };
const PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'code_challenge_method',
  'code_challenge',
  'scope',
  'state',
];

export const oauthPages: FastifyPluginAsync<OAuthPagesOptions> = async (app, { pages, oauth, signedIn }) => {
  /** What the judgement says to do when the request may not be asked for: a page, or the redirect with its error. */
  const refuse = (reply: FastifyReply, judged: ReturnType<typeof judgeAuthorization>, session?: Session) => {
    if (judged.kind === 'show') {
      return pages.send(
        reply,
        { title: 'This app asked wrongly', session, body: () => errorLine(judged.message) },
        400,
      );
    }
    if (judged.kind !== 'redirect') return undefined;
    const { redirectUri, error, description, state } = judged;
    return reply.redirect(redirectTo(redirectUri, { error, error_description: description, state }), 302);
  };

  const consentPage = (
    reply: FastifyReply,
    session: Session,
    request: AuthorizationRequest,
    query: Record<string, unknown>,
  ) =>
    pages.send(reply, {
      title: 'Authorize an app',
      session,
      formTargets: `'self' ${targetOf(request.redirectUri)}`,
      body: csrf =>
        form(
          '/oauth',
          csrf,
          html`<p>
              <strong data-testid="oauth-client">${request.clientId}</strong> asks to act for
              <strong>${session.account.displayName}</strong>, and will get you back to
              <code data-testid="oauth-origin">${targetOf(request.redirectUri)}</code>.
            </p>
            ${
              request.scopes.length === 0
                ? html`<p>It asks only to read who you are.</p>`
                : html`<p>It asks to:</p>
                    <ul data-testid="oauth-scopes">
                      ${request.scopes.map(scope => html`<li><code>${scope}</code>: ${SCOPES[scope]}</li>`)}
                    </ul>`
            }
            ${PARAMS.map(name =>
              typeof query[name] === 'string'
                ? html`<input type="hidden" name="${name}" value="${query[name]}" />`
                : '',
            )}
            <div class="row">
              <button type="submit" name="decision" value="allow" class="primary" data-testid="oauth-allow">
                Allow
              </button>
              <button type="submit" name="decision" value="deny" data-testid="oauth-deny">Deny</button>
            </div>`,
          'oauth-form',
        ),
    });

  app.get('/oauth', hide, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const judged = judgeAuthorization(query);
    if (judged.kind !== 'consent') return refuse(reply, judged);
    const session = await signedIn(request, reply, request.url);
    return session ? consentPage(reply, session, judged.request, query) : reply;
  });

  app.post('/oauth', { ...hide, preHandler: pages.guardForm }, async (request, reply) => {
    const body = { ...(request.body as Record<string, unknown>) };
    const decision = body.decision;
    delete body.decision;
    delete body._csrf;
    const judged = judgeAuthorization(body);
    if (judged.kind !== 'consent') return refuse(reply, judged);
    const { redirectUri, state } = judged.request;
    const session = await signedIn(request, reply, '/');
    if (!session) return reply;
    if (decision !== 'allow') {
      const denied = { error: 'access_denied', error_description: 'the person did not allow it', state };
      return reply.redirect(redirectTo(redirectUri, denied), 302);
    }
    const code = await oauth.grant(
      { id: session.account.id, displayName: session.account.displayName },
      judged.request,
    );
    return reply.redirect(redirectTo(redirectUri, { code, state }), 302);
  });
};
