/**
 * OAuth's API (DECISIONS §20), in lichess's shapes: `POST /api/token` exchanges a code and its verifier for a token
 * (a form, as RFC 6749 4.1.3 sends it; JSON too), `DELETE /api/token` revokes the token it is called with. The
 * token endpoint needs no token, as on lichess; its errors are RFC 6749 5.2's `{error, error_description}`.
 *
 * ```sh
 * curl -X POST https://chess.example.org/api/token -d grant_type=authorization_code -d code=liu_... \
 *   -d code_verifier=... -d redirect_uri=http://127.0.0.1:8000/cb -d client_id=example.org
 * # {"token_type":"Bearer","access_token":"lio_...","expires_in":31536000}
 * ```
 */
import type { FastifyPluginAsync } from 'fastify';
import formbody from '@fastify/formbody';
import { ref } from '../../contract/shapes.ts';
import { OAuthErrorBody, OAuthToken } from '../../contract/oauth.ts';
import { DomainError } from '../../domain/errors.ts';
import { judgeTokenRequest, OAuthError } from '../../domain/oauth.ts';
import type { OAuth } from '../../service/oauth.ts';
import type { PlayerTokens } from '../../service/tokens.ts';
import { BearerTokens } from '../auth.ts';
import { errorResponses } from '../schemas.ts';

export interface OAuthApiOptions {
  oauth: OAuth;
  tokens: PlayerTokens;
}

export const oauthApiRoutes: FastifyPluginAsync<OAuthApiOptions> = async (app, { oauth, tokens }) => {
  await app.register(formbody, { bodyLimit: 16 * 1024 });

  app.post(
    '/token',
    {
      schema: {
        operationId: 'oauthToken',
        summary: 'Get a token for an authorization code (OAuth 2 with PKCE)',
        description:
          'The code from `/oauth`, with the verifier of its challenge and the client_id and redirect_uri it was ' +
          'granted for, once, within 60 s. A second use of a code revokes the token its first use gave. Needs no token.',
        tags: ['oauth'],
        security: [],
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        response: { 200: ref(OAuthToken), 400: ref(OAuthErrorBody), ...errorResponses(413, 415, 429) },
      },
    },
    async (request, reply) => {
      try {
        const body = request.body && typeof request.body === 'object' ? (request.body as Record<string, unknown>) : {};
        return await oauth.exchange(judgeTokenRequest(body));
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error;
        return reply
          .code(400)
          .header('cache-control', 'no-store')
          .send({ error: error.error, error_description: error.description });
      }
    },
  );

  app.delete(
    '/token',
    {
      schema: {
        operationId: 'oauthRevoke',
        summary: 'Revoke the token this request is made with',
        description: 'Ends the token at once on every instance, with the streams opened with it.',
        tags: ['oauth'],
        security: [{ bearerAuth: [] }],
        response: { 204: { type: 'null', description: 'revoked' }, ...errorResponses(401) },
      },
    },
    async (request, reply) => {
      const secret = BearerTokens.tokenOf(request.headers.authorization);
      const token = secret !== undefined ? await tokens.identify(secret) : undefined;
      if (!token)
        throw new DomainError('UNAUTHORIZED', 'DELETE /api/token revokes the player token it is called with: give one');
      await tokens.revoke(token.id);
      return reply.code(204).send();
    },
  );
};
