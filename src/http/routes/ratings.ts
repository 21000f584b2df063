/**
 * Ratings (DECISIONS §21), in lichess's shapes and at its paths: `GET /api/user/{id}` (a player as lichess's User,
 * with their perfs), `GET /api/user/{id}/rating-history` and `GET /api/player/top/{nb}/{perfType}`.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Leaderboard, LichessUser, RatingHistory, TopParams, UserParams } from '../../contract/ratings.ts';
import { ref } from '../../contract/shapes.ts';
import type { RatingService } from '../../service/ratings.ts';
import { operation } from '../schemas.ts';

export interface RatingRoutesOptions {
  ratings: RatingService;
}

const OPTIONS = { tag: 'ratings' };

export const ratingRoutes: FastifyPluginAsync<RatingRoutesOptions> = async (fastify, { ratings }) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/user/:userId',
    {
      schema: operation(
        'getUser',
        'A player as lichess shows one: their id, name and ratings in every perf',
        { params: UserParams },
        { 200: ref(LichessUser) },
        [400, 401, 404, 429],
        OPTIONS,
      ),
    },
    request => ratings.user(request.params.userId),
  );

  app.get(
    '/user/:userId/rating-history',
    {
      schema: operation(
        'getRatingHistory',
        "A player's rating history: every perf, the last rating of each UTC day",
        { params: UserParams },
        { 200: ref(RatingHistory) },
        [400, 401, 404, 429],
        OPTIONS,
      ),
    },
    request => ratings.history(request.params.userId),
  );

  app.get(
    '/player/top/:nb/:perfType',
    {
      schema: operation(
        'getLeaderboard',
        "A perf's best established players (not provisional), best first",
        { params: TopParams },
        { 200: ref(Leaderboard) },
        [400, 401, 404, 429],
        OPTIONS,
      ),
    },
    request => ratings.top(Number(request.params.nb), request.params.perfType),
  );
};
