/**
 * OAuth 2 with PKCE (DECISIONS §20): codes granted on the consent page and exchanged for tokens at `POST /api/token`.
 * A code is kept only as its SHA-256, used once within CODE_TTL_MS with the `client_id`, `redirect_uri` and verifier
 * it was granted for; any use marks it used, and a second use also revokes the token the first one gave (RFC 6749
 * 4.1.2: the code may have been stolen).
 *
 * ```ts
 * const oauth = new OAuth({ store, tokens, now: Date.now });
 * const code = await oauth.grant(account, request);                  // for the redirect
 * const token = await oauth.exchange({ code, verifier, redirectUri, clientId }); // { access_token, expires_in, ... }
 * ```
 */
import { createHash } from 'node:crypto';
import type { PlayerInfo } from '../contract/shapes.ts';
import {
  CODE_TTL_MS,
  OAUTH_TOKEN_TTL_S,
  OAuthError,
  type AuthorizationRequest,
  type TokenRequest,
} from '../domain/oauth.ts';
import type { AccountStore } from '../store/accounts.ts';
import { newAccountSecret } from './ids.ts';
import { tokenHash, type PlayerTokens } from './tokens.ts';

/** The S256 challenge of a verifier (RFC 7636 4.2). */
export const s256 = (verifier: string): string => createHash('sha256').update(verifier, 'ascii').digest('base64url');

export interface OAuthDeps {
  store: Pick<AccountStore, 'insertCode' | 'useCode' | 'setCodeToken' | 'account'>;
  tokens: PlayerTokens;
  now: () => number;
}

export interface GrantedToken {
  token_type: 'Bearer';
  access_token: string;
  expires_in: number;
}

export class OAuth {
  constructor(private readonly deps: OAuthDeps) {}

  /** A code for the app, granted by `player` for the request they allowed. */
  async grant(player: PlayerInfo, request: AuthorizationRequest): Promise<string> {
    const code = newAccountSecret('liu_');
    await this.deps.store.insertCode({
      hash: tokenHash(code),
      clientId: request.clientId,
      redirectUri: request.redirectUri,
      challenge: request.challenge,
      scopes: request.scopes,
      accountId: player.id,
      expiresAt: this.deps.now() + CODE_TTL_MS,
    });
    return code;
  }

  /** Exchanges a code for a token; an OAuthError says why not. */
  async exchange(request: TokenRequest): Promise<GrantedToken> {
    const now = this.deps.now();
    const hash = tokenHash(request.code);
    const code = request.code.length <= 100 ? await this.deps.store.useCode(hash, now) : undefined;
    if (!code) throw new OAuthError('invalid_grant', 'the code is unknown');
    if (code.usedAt !== null) {
      if (code.tokenId !== null) await this.deps.tokens.revoke(code.tokenId);
      throw new OAuthError('invalid_grant', 'the code was used already: the token it gave is revoked');
    }
    if (code.expiresAt <= now) throw new OAuthError('invalid_grant', 'the code has expired');
    if (code.clientId !== request.clientId)
      throw new OAuthError('invalid_grant', 'the code was granted to another client_id');
    if (code.redirectUri !== request.redirectUri) {
      throw new OAuthError('invalid_grant', 'the code was granted for another redirect_uri');
    }
    if (s256(request.verifier) !== code.challenge) {
      throw new OAuthError('invalid_grant', 'the code_verifier does not match the code_challenge');
    }
    const account = await this.deps.store.account(code.accountId);
    if (!account || account.closedAt !== null) throw new OAuthError('invalid_grant', 'the account is closed');
    const issued = await this.deps.tokens.issue(
      { id: account.id, displayName: account.displayName },
      {
        scopes: code.scopes,
        clientId: code.clientId,
        expiresAt: now + OAUTH_TOKEN_TTL_S * 1000,
        tokenSecret: newAccountSecret('lio_'),
      },
    );
    await this.deps.store.setCodeToken(hash, issued.id);
    return { token_type: 'Bearer', access_token: issued.token, expires_in: OAUTH_TOKEN_TTL_S };
  }
}
