/**
 * `POST /api/token/test` (DECISIONS §16a, §20), as lichess serves it: the body is up to 1,000 tokens separated by
 * commas, read as text whatever its media type (text/plain, a form, none: what lichess clients send); the answer
 * maps each token to `{userId, scopes, expires}`, or to `null` when it is unknown, revoked, or a service token
 * (which is nobody). Tokens the operator issues have every scope (`bot:play` a bot's only) and never expire; an
 * account's personal tokens have the scopes chosen and never expire; OAuth tokens expire a year after they are given. It
 * needs no token, even when authentication is on (its `security` is empty: guards.ts); lichess-bot calls it before
 * anything else.
 *
 * ```sh
 * curl -X POST --data 'cpt_abc,cpt_def' https://chess.example.org/api/token/test
 * # {"cpt_abc":{"userId":"ann","scopes":"board:play,challenge:read,challenge:write","expires":null},"cpt_def":null}
 * ```
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DomainError } from '../../domain/errors.ts';
import { TokenTest, type TestedToken } from '../../contract/lichess.ts';
import { ref } from '../../contract/shapes.ts';
import { scopesOf, type PlayerTokens } from '../../service/tokens.ts';
import type { StoredToken } from '../../store/tokens.ts';
import { errorResponses } from '../schemas.ts';

export interface TokenTestRoutesOptions {
  tokens?: PlayerTokens | undefined; // none: no token is anyone's
}

/** The most tokens one request may test, as on lichess. */
export const MAX_TESTED_TOKENS = 1000;

export const tokenTestRoutes: FastifyPluginAsync<TokenTestRoutesOptions> = async (fastify, { tokens }) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // The body is text whatever it is sent as (this plugin's parsers only).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.post(
    '/token/test',
    {
      config: { lichess: true },
      preValidation: (request, _reply, done) => {
        const raw = request as { body: unknown };
        raw.body ??= ''; // no body: no token
        done();
      },
      schema: {
        operationId: 'tokenTest',
        summary: 'Test tokens: the player and scopes of each, or null',
        description:
          `Up to ${MAX_TESTED_TOKENS} tokens, comma-separated, read as text whatever the media type. Unknown and ` +
          'revoked tokens, and service tokens, are null. Needs no token.',
        tags: ['tokens'],
        security: [],
        consumes: ['text/plain', 'application/x-www-form-urlencoded'],
        body: Type.String({ description: 'tokens separated by commas' }),
        response: { 200: ref(TokenTest), ...errorResponses(400, 429) },
      },
    },
    async request => {
      const secrets = [...new Set(request.body.split(',').map(token => token.trim()))].filter(token => token !== '');
      if (secrets.length > MAX_TESTED_TOKENS) {
        throw new DomainError('INVALID_BODY', `at most ${MAX_TESTED_TOKENS} tokens, not ${secrets.length}`);
      }
      const found = tokens ? await tokens.tokensOf(secrets) : new Map<string, StoredToken | undefined>();
      // Each token as its own key, whatever it says (`__proto__` too: entries, not assignments).
      return Object.fromEntries(
        secrets.map((secret): [string, TestedToken | null] => {
          const token = found.get(secret);
          const tested = token && {
            userId: token.player.id,
            scopes: scopesOf(token).join(','),
            expires: token.expiresAt ?? null,
          };
          return [secret, tested ?? null];
        }),
      );
    },
  );
};
