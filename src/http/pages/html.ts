/**
 * The account pages' HTML (DECISIONS §20): server-rendered, usable as plain forms without JavaScript, in the board
 * page's look (its stylesheet and icon, found in the built page). Every value written into a page is escaped here.
 *
 * ```ts
 * reply.type('text/html; charset=utf-8').send(layout({ title: 'Sign in', user, body: html`<p>${text}</p>` }));
 * ```
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WEB_ROOT } from '../../paths.ts';

/** Text made safe for HTML, as a marked value so that it is not escaped twice. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export const escape = (text: string): string =>
  text.replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

type Value = string | number | Html | undefined | null | false | readonly Value[];

const render = (value: Value): string => {
  if (value === undefined || value === null || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return (value as readonly Value[]).map(render).join('');
  return escape(String(value));
};

/** A template whose values are escaped (an Html is written as is). */
export const html = (strings: TemplateStringsArray, ...values: Value[]): Html =>
  new Html(strings.reduce((out, text, i) => out + text + (i < values.length ? render(values[i]) : ''), ''));

/** The board page's stylesheet and icon, as its built HTML names them (their names carry their content's hash). */
let assets: { css: string; icon: string } | undefined;
function pageAssets(root = WEB_ROOT): { css: string; icon: string } {
  if (assets) return assets;
  let page = '';
  try {
    page = readFileSync(join(root, 'index.html'), 'utf8');
  } catch {
    // not built: the pages go without the look
  }
  const css = /<link rel="stylesheet" href="([^"]+)"/.exec(page)?.[1] ?? '';
  const icon = /<link rel="icon"[^>]*href="([^"]+)"/.exec(page)?.[1] ?? '';
  return (assets = { css, icon });
}

export interface LayoutOptions {
  title: string;
  body: Html;
  user?: { id: string; displayName: string } | undefined;
  csrf?: string | undefined; // for the sign-out button
}

export function layout({ title, body, user, csrf }: LayoutOptions): string {
  const { css, icon } = pageAssets();
  const who = user
    ? html`<span class="signed-in" data-testid="signed-in"
          >Signed in as <a href="/account">${user.displayName}</a></span
        >
        <form method="post" action="/logout" class="inline">
          <input type="hidden" name="_csrf" value="${csrf ?? ''}" />
          <button type="submit" data-testid="sign-out">Sign out</button>
        </form>`
    : html`<a href="/login" data-testid="sign-in-link">Sign in</a> <a href="/signup">Sign up</a>`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>${title} · Chess</title>
        ${icon ? html`<link rel="icon" type="image/svg+xml" href="${icon}" />` : ''}
        ${css ? html`<link rel="stylesheet" href="${css}" />` : ''}
      </head>
      <body class="account-page">
        <header class="topbar">
          <a class="brand" href="/" data-testid="home">
            ${icon ? html`<img src="${icon}" alt="" width="24" height="24" />` : ''}
            <span>Chess</span>
          </a>
          <span class="account-links">${who}</span>
        </header>
        <main class="account-main">
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html> `.text;
}

/** A form that changes something: POST, with its CSRF token. */
export const form = (action: string, csrf: string, fields: Html, testId = ''): Html =>
  html`<form method="post" action="${action}" class="card stack" ${testId ? html` data-testid="${testId}"` : ''}>
    <input type="hidden" name="_csrf" value="${csrf}" />
    ${fields}
  </form>`;

export const field = (label: string, name: string, type: string, extra: Html | string = ''): Html =>
  html`<label for="${name}">${label}</label>
    <input id="${name}" name="${name}" type="${type}" ${extra instanceof Html ? extra : new Html(extra)} />`;

export const errorLine = (message: string | undefined): Html =>
  message ? html`<p class="error" role="alert" data-testid="form-error">${message}</p>` : html``;
