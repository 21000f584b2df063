/**
 * The shapes of OAuth's token endpoint (DECISIONS §20), as lichess's API description gives them (its `oauth` tag)
 * and RFC 6749 5.1-5.2 define them.
 */
import { Type, type Static } from 'typebox';

export const OAuthToken = Type.Object(
  {
    token_type: Type.Literal('Bearer'),
    access_token: Type.String({ description: 'the token, for Authorization: Bearer', pattern: '^[A-Za-z0-9_]+$' }),
    expires_in: Type.Integer({ description: 'seconds until it expires: a year' }),
  },
  { $id: 'OAuthToken' },
);
export type OAuthToken = Static<typeof OAuthToken>;

export const OAuthErrorBody = Type.Object(
  {
    error: Type.String({ description: "RFC 6749's code: invalid_request, invalid_grant, unsupported_grant_type" }),
    error_description: Type.String({ description: 'why, for people' }),
  },
  { $id: 'OAuthError' },
);
export type OAuthErrorBody = Static<typeof OAuthErrorBody>;

export const OAUTH_SCHEMAS = [OAuthToken, OAuthErrorBody];
