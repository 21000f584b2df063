/**
 * Player tokens and the caller's own account (DECISIONS §13): `POST /api/tokens` issues a token for a player,
 * `GET /api/tokens` lists them (no secrets), `DELETE /api/tokens/{id}` revokes one; these need a service token.
 * `GET /api/account` tells any caller who it acts as: the player of its player token, or any side.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DomainError } from '../../domain/errors.ts';
import type { RatingService } from '../../service/ratings.ts';
import type { PlayerTokens } from '../../service/tokens.ts';
import type { StoredToken } from '../../store/tokens.ts';
import { Account, IssuedToken, TokenList, TokenRequest, ref, type TokenInfo } from '../../contract/shapes.ts';
import { operation } from '../schemas.ts';
import { OK, okAction } from '../okAction.ts';

export interface TokenRoutesOptions {
  publicUrl?: string | undefined; // the base of lichess's account `url`; none: the request's own origin
  tokens: PlayerTokens;
  serviceTokens: boolean; // whether any service token is configured
  ratings?: RatingService | undefined; // a player's perfs in their account (DECISIONS §21)
}

const TokenIdParams = Type.Object({ id: Type.String({ description: "the token's id" }) });
const TokensQuery = Type.Object({
  player: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: "only this player's tokens (a PlayerInfo id)" }),
  ),
});

/**
 * The schema of a token-management operation: a service token is needed (401 without one, 403 with a player token,
 * 429 as everywhere), tagged tokens; `errors` are its own besides those (the answers' order is the statuses').
 */
const serviceOperation = <Inputs extends object, Answers extends object>(
  operationId: string,
  summary: string,
  inputs: Inputs,
  answers: Answers,
  ...errors: number[]
) =>
  operation(operationId, summary, inputs, answers, [...errors, 401, 403, 429], {
    tag: 'tokens',
    security: 'serviceToken',
  });

const infoOf = ({ id, player, createdAt }: StoredToken): TokenInfo => ({ id, player, createdAt });

export const tokenRoutes: FastifyPluginAsync<TokenRoutesOptions> = async (
  fastify,
  { tokens, serviceTokens, publicUrl, ratings },
) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  /** The token endpoints answer only requests with a service token. */
  const serviceOnly = (request: FastifyRequest, _reply: unknown, done: (error?: Error) => void) => {
    if (request.serviceToken) return done();
    done(
      new DomainError(
        'FORBIDDEN',
        !serviceTokens
          ? 'no service token is configured: issue player tokens from the command line (npm run token -- issue ID "Name")'
          : request.actor.kind === 'player'
            ? 'a player token cannot manage tokens: use a service token'
            : 'managing tokens needs a service token',
      ),
    );
  };

  app.post(
    '/tokens',
    {
      preValidation: serviceOnly,
      schema: serviceOperation(
        'createToken',
        'Issue a player token',
        { body: ref(TokenRequest) },
        { 201: ref(IssuedToken) },
        400,
      ),
    },
    async (request, reply) =>
      reply.code(201).send(await tokens.issue(request.body.player, { bot: request.body.bot === true })),
  );

  app.get(
    '/tokens',
    {
      preValidation: serviceOnly,
      schema: serviceOperation(
        'listTokens',
        'The player tokens not revoked (no secrets)',
        { querystring: TokensQuery },
        { 200: ref(TokenList) },
        400,
      ),
    },
    async request => ({ tokens: (await tokens.list(request.query.player)).map(infoOf) }),
  );

  okAction(app, {
    method: 'DELETE',
    url: '/tokens/:id',
    preValidation: serviceOnly,
    schema: serviceOperation(
      'revokeToken',
      'Revoke a player token: every instance refuses it within a second',
      { params: TokenIdParams },
      OK,
      404,
    ),
    act: async request => {
      if (!(await tokens.revoke(request.params.id))) {
        throw new DomainError('NOT_FOUND', `there is no token ${request.params.id}`);
      }
    },
  });

  app.get(
    '/account',
    {
      schema: operation(
        'getAccount',
        'Who the token acts as: its player, or any side',
        {},
        { 200: ref(Account) },
        [401, 429],
        { tag: 'tokens' },
      ),
    },
    async request => {
      if (request.actor.kind !== 'player') return { player: null };
      // lichess's fields beside the seed's (DECISIONS §17), so that a lichess client knows who it is.
      const { player } = request.actor;
      const origin = publicUrl ?? `${request.protocol}://${request.host}`;
      return {
        player,
        id: player.id,
        username: player.displayName,
        ...(request.actor.bot ? { title: 'BOT' as const } : {}),
        url: `${origin}/api/board/game?player=${encodeURIComponent(player.id)}`,
        ...(ratings ? { perfs: await ratings.perfs(player.id) } : {}),
      };
    },
  );
};
