/**
 * The account pages (DECISIONS §20): `GET|POST /signup`, `GET|POST /login`, `POST /logout`, `GET /account` with its
 * forms (personal tokens made and revoked, the password changed, the account closed), and OAuth's consent page
 * (oauthPages.ts). Plain HTML forms, usable without JavaScript; every form that changes something carries a CSRF
 * token and is refused from another origin (pages/context.ts). None is part of the API's OpenAPI document.
 *
 * ```ts
 * await app.register(accountPages, { accounts, oauth, tokens, publicUrl });
 * ```
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { ALL_SCOPES, isScope, SCOPES } from '../../domain/accounts.ts';
import { DomainError } from '../../domain/errors.ts';
import type { Accounts, Session } from '../../service/accounts.ts';
import { SignInLimited } from '../../service/accounts.ts';
import { newAccountSecret } from '../../service/ids.ts';
import type { OAuth } from '../../service/oauth.ts';
import type { PlayerTokens } from '../../service/tokens.ts';
import type { StoredToken } from '../../store/tokens.ts';
import { errorLine, field, form, html, type Html } from '../pages/html.ts';
import { registerPageContext, type Pages } from '../pages/context.ts';
import { oauthPages } from './oauthPages.ts';

export interface AccountPagesOptions {
  accounts: Accounts;
  oauth: OAuth;
  tokens: PlayerTokens;
  publicUrl: string | undefined;
}

type Form = Record<string, string | string[] | undefined>;
const text = (body: unknown, name: string): string => {
  const value = (body as Form | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};
const list = (body: unknown, name: string): string[] => {
  const value = (body as Form | undefined)?.[name];
  return value === undefined ? [] : typeof value === 'string' ? [value] : value;
};

/** A local path to go back to after signing in; anything else is the board. */
export const localPath = (next: string | undefined): string =>
  next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';

const hide = { schema: { hide: true } };

export const accountPages: FastifyPluginAsync<AccountPagesOptions> = async (app, options) => {
  const { accounts, tokens } = options;
  const pages = await registerPageContext(app, options);
  const guarded = { ...hide, preHandler: pages.guardForm };

  const signUpPage = (reply: FastifyReply, problem?: string, username = '', status = 200) =>
    pages.send(
      reply,
      {
        title: 'Sign up',
        body: csrf =>
          accounts.signupOpen
            ? form(
                '/signup',
                csrf,
                html`${errorLine(problem)}
                  ${field('Username', 'username', 'text', html`value="${username}" required minlength="2" maxlength="20" pattern="[A-Za-z0-9][A-Za-z0-9_\\-]*[A-Za-z0-9]" autocomplete="username"`)}
                  <p class="hint">2 to 20 letters, digits, _ and -; your player id is it in lower case.</p>
                  ${field('Password', 'password', 'password', 'required minlength="8" maxlength="256" autocomplete="new-password"')}
                  <p class="hint">At least 8 characters; not your username nor a common password.</p>
                  <button type="submit" class="primary" data-testid="sign-up">Sign up</button>`,
                'signup-form',
              )
            : html`<p class="error">Sign-up is closed on this service: ask its operator for an account.</p>`,
      },
      status,
    );

  app.get('/signup', hide, (_request, reply) => signUpPage(reply));
  app.post('/signup', guarded, async (request, reply) => {
    const username = text(request.body, 'username').trim();
    const password = text(request.body, 'password');
    try {
      await accounts.signUp(username, password);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return signUpPage(reply, error.message, username, error.status);
    }
    const { sessionId } = await accounts.signIn(username, password, request.ip);
    pages.setSession(reply, sessionId);
    return reply.code(303).redirect('/account');
  });

  const signInPage = (reply: FastifyReply, next: string, problem?: string, username = '', status = 200) =>
    pages.send(
      reply,
      {
        title: 'Sign in',
        body: csrf =>
          html`${form(
              '/login',
              csrf,
              html`${errorLine(problem)}
                <input type="hidden" name="next" value="${next}" />
                ${field('Username', 'username', 'text', html`value="${username}" required autocomplete="username"`)}
                ${field('Password', 'password', 'password', 'required autocomplete="current-password"')}
                <button type="submit" class="primary" data-testid="sign-in">Sign in</button>`,
              'login-form',
            )}
            <p>No account? <a href="/signup">Sign up</a></p>`,
      },
      status,
    );

  app.get<{ Querystring: { next?: string } }>('/login', hide, (request, reply) =>
    signInPage(reply, localPath(typeof request.query.next === 'string' ? request.query.next : undefined)),
  );
  app.post('/login', guarded, async (request, reply) => {
    const username = text(request.body, 'username').trim();
    const next = localPath(text(request.body, 'next'));
    try {
      const { sessionId } = await accounts.signIn(username, text(request.body, 'password'), request.ip);
      pages.setSession(reply, sessionId); // a new id at every sign-in: one set before is never kept
      return await reply.code(303).redirect(next);
    } catch (error) {
      if (error instanceof SignInLimited) void reply.header('retry-after', String(error.retryAfterS));
      if (!(error instanceof DomainError)) throw error;
      return signInPage(reply, next, error.message, username, error.status);
    }
  });

  // The board page (a static file, without a CSRF token) links here to sign out: a page with the button.
  app.get('/logout', hide, async (request, reply) => {
    const session = await pages.session(request);
    if (!session) return reply.code(303).redirect('/');
    return pages.send(reply, {
      title: 'Sign out',
      session,
      body: csrf =>
        form(
          '/logout',
          csrf,
          html`<button type="submit" class="primary" data-testid="confirm-sign-out">Sign out</button>`,
        ),
    });
  });

  app.post('/logout', guarded, async (request, reply) => {
    await accounts.signOut(request.cookies.session);
    pages.clearSession(reply);
    return reply.code(303).redirect('/');
  });

  /** The signed-in person's session, or a redirect to sign in first. */
  const signedIn = async (request: Parameters<Pages['session']>[0], reply: FastifyReply, next = '/account') => {
    const session = await pages.session(request);
    if (!session) void reply.code(303).redirect(`/login?next=${encodeURIComponent(next)}`);
    return session;
  };

  const accountPage = async (reply: FastifyReply, session: Session, notice?: Html, status = 200) => {
    const held = await tokens.list(session.account.id);
    const personal = held.filter(token => token.scopes !== undefined && token.clientId === undefined);
    const apps = held.filter(token => token.clientId !== undefined);
    const date = (ms: number | string | undefined) =>
      ms === undefined || ms === '' ? 'never' : new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
    const revoke = (csrf: string, id: string) =>
      html`<form method="post" action="/account/tokens/revoke" class="inline">
        <input type="hidden" name="_csrf" value="${csrf}" /><input type="hidden" name="id" value="${id}" />
        <button type="submit" data-testid="revoke-${id}">Revoke</button>
      </form>`;
    /** A list of tokens: what names each (a description, an app), its scopes, its times and its Revoke button. */
    const table = (
      testId: string,
      heading: string,
      listed: StoredToken[],
      name: (token: StoredToken) => string,
      csrf: string,
    ) =>
      html`<table class="tokens" data-testid="${testId}">
        <tr>
          <th>${heading}</th>
          <th>Scopes</th>
          <th>Created</th>
          <th>Last used</th>
          <th></th>
        </tr>
        ${listed.map(
          token =>
            html`<tr>
              <td>${name(token)}</td>
              <td>${(token.scopes ?? []).join(', ')}</td>
              <td>${date(token.createdAt)}</td>
              <td>${date(token.lastUsedAt)}</td>
              <td>${revoke(csrf, token.id)}</td>
            </tr>`,
        )}
      </table>`;
    return pages.send(
      reply,
      {
        title: `Account ${session.account.displayName}`,
        session,
        body: csrf =>
          html`${notice ?? ''}
            <p>Player id <code data-testid="account-id">${session.account.id}</code>. <a href="/">Play</a></p>
            <h2>Personal API tokens</h2>
            ${table('tokens', 'Description', personal, token => token.description ?? '', csrf)}
            ${form(
              '/account/tokens',
              csrf,
              html`${field('Description', 'description', 'text', 'required maxlength="100"')}
                <fieldset>
                  <legend>Scopes</legend>
                  ${ALL_SCOPES.map(
                    scope =>
                      html`<label
                        ><input type="checkbox" name="scopes" value="${scope}" /> ${scope}: ${SCOPES[scope]}</label
                      >`,
                  )}
                </fieldset>
                <button type="submit" class="primary" data-testid="create-token">Create token</button>`,
              'token-form',
            )}
            <h2>Apps holding tokens</h2>
            ${table('apps', 'App', apps, token => token.clientId ?? '', csrf)}
            <h2>Password</h2>
            ${form(
              '/account/password',
              csrf,
              html`${field('Current password', 'password', 'password', 'required autocomplete="current-password"')}
                ${field('New password', 'newPassword', 'password', 'required minlength="8" maxlength="256" autocomplete="new-password"')}
                <button type="submit">Change password</button>`,
            )}
            <h2>Close account</h2>
            ${form(
              '/account/close',
              csrf,
              html`<p class="hint">Your games stay; your sessions and tokens end; your name is never given again.</p>
                ${field('Password', 'closePassword', 'password', 'required autocomplete="current-password"')}
                <button type="submit" class="danger" data-testid="close-account">Close account</button>`,
            )}`,
      },
      status,
    );
  };

  app.get('/account', hide, async (request, reply) => {
    const session = await signedIn(request, reply);
    return session ? accountPage(reply, session) : reply;
  });

  app.post('/account/tokens', guarded, async (request, reply) => {
    const session = await signedIn(request, reply);
    if (!session) return reply;
    const description = text(request.body, 'description').trim();
    const scopes = [...new Set(list(request.body, 'scopes'))];
    const wrong = scopes.find(scope => !isScope(scope));
    if (description === '' || description.length > 100 || !description.isWellFormed() || wrong !== undefined) {
      const why = wrong !== undefined ? `unknown scope ${wrong.slice(0, 40)}` : 'a description has 1 to 100 characters';
      return accountPage(reply, session, errorLine(why), 400);
    }
    const issued = await tokens.issue(
      { id: session.account.id, displayName: session.account.displayName },
      { scopes, description, tokenSecret: newAccountSecret('lip_') },
    );
    const shown = html`<div class="card notice" data-testid="new-token">
      <p>Your new token, shown this once: copy it now.</p>
      <code data-testid="new-token-secret">${issued.token}</code>
    </div>`;
    return accountPage(reply, session, shown);
  });

  app.post('/account/tokens/revoke', guarded, async (request, reply) => {
    const session = await signedIn(request, reply);
    if (!session) return reply;
    const id = text(request.body, 'id');
    const own = (await tokens.list(session.account.id)).some(token => token.id === id);
    if (own) await tokens.revoke(id); // its streams end on every instance
    return accountPage(
      reply,
      session,
      own ? html`<p class="notice">Revoked.</p>` : errorLine('no such token'),
      own ? 200 : 404,
    );
  });

  app.post('/account/password', guarded, async (request, reply) => {
    const session = await signedIn(request, reply);
    if (!session) return reply;
    try {
      await accounts.changePassword(session, text(request.body, 'password'), text(request.body, 'newPassword'));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return accountPage(reply, session, errorLine(error.message), error.status);
    }
    return accountPage(reply, session, html`<p class="notice">Password changed; your other sessions have ended.</p>`);
  });

  app.post('/account/close', guarded, async (request, reply) => {
    const session = await signedIn(request, reply);
    if (!session) return reply;
    try {
      await accounts.close(session.account.id, text(request.body, 'closePassword'));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return accountPage(reply, session, errorLine(error.message), error.status);
    }
    pages.clearSession(reply);
    return reply.code(303).redirect('/');
  });

  await app.register(oauthPages, { pages, oauth: options.oauth, signedIn });
};
