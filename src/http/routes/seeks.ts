/**
 * Seeks (DECISIONS §16), lichess's `POST /api/board/seek`: a real-time seek (`time` and `increment`) answers NDJSON,
 * an empty line now and then while it waits, and ends the answer when it is paired (both players get `gameStart`
 * on their event streams) or replaced by the player's newer real-time seek; closing the request withdraws it. A
 * player has one real-time seek open at most, and ten correspondence seeks (beyond: 429). A correspondence seek (`days`) answers `{id}` at once
 * and waits until paired or withdrawn with `DELETE /api/board/seek/{id}`. Bodies come as JSON or as forms. Every
 * operation needs a player token, as challenges do.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { SeekCreated, SeekRequest } from '../../contract/seeks.ts';
import { ref } from '../../contract/shapes.ts';
import { StreamErrorEvent } from '../../contract/events.ts';
import { isRealTime } from '../../domain/seek.ts';
import type { SeekService } from '../../service/seeks.ts';
import { errorResponses, operation } from '../schemas.ts';
import type { StreamHub } from '../stream.ts';
import { OK, okAction } from '../okAction.ts';
import { acceptForms } from './challenges.ts';
import { ndjsonAnswers } from './stream.ts';

export interface SeekRoutesOptions {
  seeks: SeekService;
  hub: StreamHub;
  maxStreamsPerClient: number; // 0 = no limit; a waiting real-time seek counts as a stream
  clientKey: (request: { ip: string; headers: Record<string, unknown> }) => string;
}

const SeekParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: "the seek's id" }) });

export const seekRoutes: FastifyPluginAsync<SeekRoutesOptions> = async (fastify, options) => {
  const { seeks, hub, clientKey } = options;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  acceptForms(app);
  const { refuseOverCap, startStream } = ndjsonAnswers(hub, options.maxStreamsPerClient);

  app.post(
    '/board/seek',
    {
      schema: {
        operationId: 'createSeek',
        summary: 'Seek an opponent with the same time control',
        description:
          'A real-time seek (time and increment) answers NDJSON: an empty line every few seconds while it waits, ' +
          'then the end of the answer once paired (gameStart comes on the event stream) or replaced: a player has ' +
          'one real-time seek open at most, and a new one withdraws the older, whose answer ends. Closing the request ' +
          'withdraws the seek. A correspondence seek (days) answers {id} at once and waits until paired or ' +
          'withdrawn; a player has at most 10 open (beyond: 429 RATE_LIMITED).',
        tags: ['challenges'],
        security: [{ bearerAuth: [] }],
        body: Type.Optional(ref(SeekRequest)),
        response: {
          200: {
            description: 'the seek: {id} for a correspondence seek; NDJSON for a real-time one',
            content: {
              'application/json': { schema: ref(SeekCreated) },
              // Empty lines (heartbeats) until paired; a line only for an error that ends the search (shutdown).
              'application/x-ndjson': { schema: ref(StreamErrorEvent) },
            },
          },
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
    async (request, reply) => {
      const client = clientKey(request);
      const { body } = request;
      // A real-time seek is an open answer: a client with its cap of streams open is refused before it seeks.
      if (body.days === undefined) refuseOverCap(reply, client);
      const seek = await seeks.create(request.actor, body);
      if (!isRealTime(seek)) return reply.type('application/json').send({ id: seek.id });
      const gone = new AbortController();
      const settled = seeks.settled(seek, gone.signal);
      // Paired at once: an answer of no line (the typed reply knows lines only, hence the cast).
      if (seek.status !== 'open') return reply.type('application/x-ndjson').send('' as never);
      let res;
      try {
        res = startStream(request, reply, client);
      } catch (error) {
        gone.abort();
        throw error;
      }
      if (!res) return gone.abort(); // HEAD: no seek waits for nobody
      res.once('close', () => gone.abort());
      request.log.info({ seekId: seek.id }, 'seek waiting');
      await hub.attachFeed(res, client, request.playerTokenHash, async (_send, end) => {
        // Paired, or replaced by the player's newer seek: the answer ends.
        void settled.then(ended => {
          if (ended) end();
        });
        return () => gone.abort();
      });
    },
  );

  okAction(app, {
    method: 'DELETE',
    url: '/board/seek/:id',
    schema: operation(
      'deleteSeek',
      'Withdraw a correspondence seek (a real-time one is withdrawn by closing its request)',
      { params: SeekParams },
      OK,
      [401, 403, 404, 429],
      { tag: 'challenges' },
    ),
    act: request => seeks.withdraw(request.actor, request.params.id),
  });
};
