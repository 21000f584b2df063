/**
 * OAuth 2 with PKCE, as lichess does it (DECISIONS §20; RFC 6749 4.1, RFC 7636), pure: the judgement of an
 * authorization request and of a token request, and the S256 check of a verifier.
 *
 * The S256 check itself (a digest) is the service's (service/oauth.ts). An authorization request whose `client_id` or `redirect_uri` is missing, repeated or unusable is never redirected
 * to: the page shows why (RFC 6749 4.1.2.1). Any other fault goes back to the app at its `redirect_uri` with `error`
 * (and `state`): `unsupported_response_type`, `invalid_scope`, else `invalid_request`, `plain` included (only S256,
 * RFC 7636 4.4.1).
 *
 * ```ts
 * judgeAuthorization({ response_type: 'code', client_id: 'example.org', redirect_uri: 'https://example.org/cb',
 *   code_challenge_method: 'S256', code_challenge: 'E9Mel...', scope: 'board:play', state: 'xyz' });
 * // { kind: 'consent', request: { clientId, redirectUri, challenge, scopes: ['board:play'], state: 'xyz' } }
 * ```
 */
import { isScope, type Scope } from './accounts.ts';

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  challenge: string;
  scopes: Scope[];
  state: string | undefined;
}

export type AuthorizationJudgement =
  | { kind: 'consent'; request: AuthorizationRequest }
  | { kind: 'show'; message: string } // shown on the page, never redirected
  | { kind: 'redirect'; redirectUri: string; error: string; description: string; state: string | undefined };

/** How long a code may wait for its exchange. */
export const CODE_TTL_MS = 60_000;
/** How long an OAuth token lives: a year, in seconds. */
export const OAUTH_TOKEN_TTL_S = 365 * 24 * 60 * 60;

/** RFC 7636 4.1: a verifier is 43-128 unreserved characters; an S256 challenge is 43 of base64url. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const MAX_CLIENT_ID = 200;
const MAX_REDIRECT_URI = 2000;
const MAX_STATE = 1000;
/** Schemes that run or read something rather than reach an app. */
const UNSAFE_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:']);

type Query = Record<string, unknown>;

/** One value of a parameter: undefined when absent; 'repeated' when given more than once or not as text. */
function one(query: Query, name: string): string | undefined | { repeated: true } {
  const value = query[name];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : { repeated: true };
}

/**
 * Whether a redirect_uri can be redirected to: an absolute http(s) URL, or an app's own scheme with a dot in it
 * (RFC 8252 7.1, `org.example.app:/cb`); never a fragment (RFC 6749 3.1.2) nor a scheme that runs code.
 */
export function usableRedirect(uri: string): boolean {
  if (uri.length > MAX_REDIRECT_URI) return false;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.hash !== '' || uri.includes('#') || UNSAFE_SCHEMES.has(url.protocol)) return false;
  if (url.protocol === 'http:' || url.protocol === 'https:') return url.hostname !== '' && url.username === '';
  return url.protocol.slice(0, -1).includes('.');
}

export function judgeAuthorization(query: Query): AuthorizationJudgement {
  const clientId = one(query, 'client_id');
  if (clientId === undefined || clientId === '') return { kind: 'show', message: 'the app gave no client_id' };
  if (typeof clientId !== 'string') return { kind: 'show', message: 'the app gave client_id more than once' };
  if (clientId.length > MAX_CLIENT_ID || !clientId.isWellFormed() || /\p{Cc}/u.test(clientId)) {
    return { kind: 'show', message: 'the app gave a client_id that is not a name' };
  }
  const redirectUri = one(query, 'redirect_uri');
  if (redirectUri === undefined || redirectUri === '') return { kind: 'show', message: 'the app gave no redirect_uri' };
  if (typeof redirectUri !== 'string') return { kind: 'show', message: 'the app gave redirect_uri more than once' };
  if (!usableRedirect(redirectUri)) {
    return { kind: 'show', message: 'the app gave a redirect_uri that cannot be sent back to' };
  }
  const rawState = one(query, 'state');
  const state = typeof rawState === 'string' && rawState.length <= MAX_STATE ? rawState : undefined;
  const refuse = (error: string, description: string): AuthorizationJudgement => ({
    kind: 'redirect',
    redirectUri,
    error,
    description,
    state,
  });
  if (rawState !== undefined && state === undefined) return refuse('invalid_request', 'state is repeated or too long');
  const repeated = Object.keys(query).find(name => typeof one(query, name) === 'object');
  if (repeated !== undefined) return refuse('invalid_request', `${repeated} is given more than once`);
  const responseType = one(query, 'response_type');
  if (responseType === undefined || responseType === '') return refuse('invalid_request', 'response_type is missing');
  if (responseType !== 'code') return refuse('unsupported_response_type', 'only response_type=code is supported');
  const method = one(query, 'code_challenge_method');
  if (method === undefined || method === '') {
    return refuse('invalid_request', 'code_challenge_method is missing: PKCE with S256 is required');
  }
  if (method !== 'S256') return refuse('invalid_request', 'transform algorithm not supported: only S256');
  const challenge = one(query, 'code_challenge');
  if (challenge === undefined || challenge === '') return refuse('invalid_request', 'code_challenge is missing');
  if (typeof challenge !== 'string' || !S256_CHALLENGE.test(challenge)) {
    return refuse('invalid_request', 'code_challenge is not an S256 challenge (43 characters of base64url)');
  }
  const scopeText = one(query, 'scope');
  const names = typeof scopeText === 'string' ? scopeText.split(/[ ,+]+/).filter(name => name !== '') : [];
  const unknown = names.find(name => !isScope(name));
  if (unknown !== undefined) return refuse('invalid_scope', `unknown scope: ${unknown.slice(0, 50)}`);
  const scopes = [...new Set(names)] as Scope[];
  return {
    kind: 'consent',
    request: { clientId, redirectUri, challenge: challenge, scopes, state },
  };
}

/** Whether a verifier is well formed (RFC 7636 4.1). */
export const wellFormedVerifier = (verifier: string): boolean => VERIFIER.test(verifier);

/** An error of the token endpoint, RFC 6749 5.2's: 400 `{error, error_description}`. */
export class OAuthError extends Error {
  constructor(
    readonly error: 'invalid_request' | 'invalid_grant' | 'unsupported_grant_type' | 'invalid_client',
    readonly description: string,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

/** The fields of a token request, checked for presence and form (RFC 6749 4.1.3); the code is judged by the service. */
export interface TokenRequest {
  code: string;
  verifier: string;
  redirectUri: string;
  clientId: string;
}

export function judgeTokenRequest(body: Query): TokenRequest {
  for (const name of Object.keys(body)) {
    if (typeof one(body, name) === 'object') throw new OAuthError('invalid_request', `${name} is given more than once`);
  }
  const grantType = one(body, 'grant_type');
  if (grantType === undefined || grantType === '') throw new OAuthError('invalid_request', 'grant_type is missing');
  if (grantType !== 'authorization_code') {
    throw new OAuthError('unsupported_grant_type', 'only grant_type=authorization_code is supported');
  }
  const field = (name: string): string => {
    const value = one(body, name);
    if (typeof value !== 'string' || value === '') throw new OAuthError('invalid_request', `${name} is missing`);
    return value;
  };
  const request = {
    code: field('code'),
    verifier: field('code_verifier'),
    redirectUri: field('redirect_uri'),
    clientId: field('client_id'),
  };
  if (!wellFormedVerifier(request.verifier)) {
    throw new OAuthError('invalid_request', 'code_verifier is 43 to 128 characters of [A-Za-z0-9._~-]');
  }
  return request;
}
