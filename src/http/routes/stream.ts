/**
 * Operation 3: `GET /api/board/game/{gameId}/stream`, NDJSON. A `gameFull` line first, then one `gameState`
 * line per committed change, empty lines as heartbeats, an `error` line before the server closes it.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DomainError } from '../../domain/errors.ts';
import type { GameService } from '../../service/games.ts';
import { requireGame } from '../requireGame.ts';
import { GameIdParams, errorResponses } from '../schemas.ts';
import type { StreamHub } from '../stream.ts';

export interface StreamRoutesOptions {
  games: GameService;
  hub: StreamHub;
  maxStreamsPerClient: number; // 0 = no limit
  clientKey: (request: { ip: string; headers: Record<string, unknown> }) => string;
}

const RETRY_AFTER_SECONDS = 5;

const definedHeaders = (headers: Record<string, number | string | string[] | undefined>): OutgoingHttpHeaders =>
  Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined));

export const streamRoutes: FastifyPluginAsync<StreamRoutesOptions> = async (fastify, options) => {
  const { games, hub, maxStreamsPerClient, clientKey } = options;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/:gameId/stream',
    {
      preValidation: requireGame(games),
      schema: {
        operationId: 'streamGame',
        summary: 'Follow a game live (NDJSON)',
        description:
          'A gameFull event first, then one gameState event per change, in order; an empty line every few seconds ' +
          'while idle; an error event (SERVER_SHUTDOWN, SLOW_CONSUMER) before the server closes the stream.',
        tags: ['games'],
        security: [{ bearerAuth: [] }],
        params: GameIdParams,
        produces: ['application/x-ndjson'],
        response: {
          200: Type.String({ description: 'NDJSON events', contentMediaType: 'application/x-ndjson' }),
          ...errorResponses(400, 401, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const { gameId } = request.params;
      const client = clientKey(request);
      if (maxStreamsPerClient > 0 && hub.streamsOf(client) >= maxStreamsPerClient) {
        reply.header('retry-after', String(RETRY_AFTER_SECONDS));
        throw new DomainError('RATE_LIMITED', `at most ${maxStreamsPerClient} streams may be open per client`);
      }
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        // What hooks have set (CORS, rate-limit counters): a hijacked reply does not write them by itself.
        ...definedHeaders(reply.getHeaders()),
        'content-type': 'application/x-ndjson',
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
        'x-accel-buffering': 'no', // reverse proxies: do not buffer the stream
        connection: 'close', // a stream ends only when cut or at shutdown: do not keep the socket for reuse
      });
      // HEAD (which Fastify routes here too) gets the head only: a body would never be sent, nor the end.
      if (request.method === 'HEAD') {
        res.end();
        return;
      }
      request.log.info({ gameId }, 'stream opened');
      res.once('close', () => request.log.info({ gameId }, 'stream closed'));
      await hub.attach(gameId, res, client, () => games.get(gameId));
    },
  );
};
