/**
 * The REST operations of SPEC §Endpoints under `/api/board/game`. Handlers are thin: validated input in,
 * one service call, a view out.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  drawAction,
  exportPgn,
  gameFullOf,
  gameStateOf,
  legalMovesOf,
  makeMove,
  redo,
  resign,
  undo,
} from '../../domain/game.ts';
import { DomainError } from '../../domain/errors.ts';
import { GAME_ID_PATTERN } from '../../domain/types.ts';
import { notFound, type GameService } from '../../service/games.ts';
import {
  CreateGameRequest,
  DrawParams,
  GameFull,
  GameIdParams,
  GameState,
  ImportFenRequest,
  ImportPgnRequest,
  LegalMovesResponse,
  MoveParams,
  MovesQuery,
  OkResponse,
  errorResponses,
  ref,
} from '../schemas.ts';

export interface GameRoutesOptions {
  games: GameService;
  publicUrl: string | undefined; // e.g. 'https://chess.example.org'
}

const GAME_ID = new RegExp(GAME_ID_PATTERN);
const security = [{ bearerAuth: [] }];
const tags = ['games'];

export const gameRoutes: FastifyPluginAsync<GameRoutesOptions> = async (fastify, { games, publicUrl }) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  /** DECISIONS §4 order: a malformed id, then an unknown game, before any other parameter is judged. */
  const requireGame = async (request: FastifyRequest) => {
    const { gameId } = request.params as { gameId: string };
    if (!GAME_ID.test(gameId)) {
      throw new DomainError('INVALID_GAME_ID', `'${gameId}' is not a game id: expected 8 letters or digits`, 'gameId');
    }
    if (!(await games.exists(gameId))) throw notFound(gameId);
  };

  app.post(
    '',
    {
      // The body is optional: no body (or an empty one) is an empty request.
      preValidation: (request, _reply, done) => {
        const raw = request as { body: unknown };
        raw.body ??= {};
        done();
      },
      schema: {
        operationId: 'createGame',
        summary: 'Create a game at the initial position',
        tags,
        security,
        body: ref(CreateGameRequest),
        response: { 201: ref(GameFull), ...errorResponses(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const game = await games.create(request.body);
      return reply.code(201).send(gameFullOf(game));
    },
  );

  app.post(
    '/import/fen',
    {
      schema: {
        operationId: 'importFen',
        summary: 'Create a game from a FEN position',
        tags,
        security,
        body: ref(ImportFenRequest),
        response: { 201: ref(GameFull), ...errorResponses(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const { fen, white, black } = request.body;
      const game = await games.importFen({ white, black }, fen);
      return reply.code(201).send(gameFullOf(game));
    },
  );

  app.post(
    '/import/pgn',
    {
      schema: {
        operationId: 'importPgn',
        summary: 'Create a game by replaying a PGN',
        tags,
        security,
        body: ref(ImportPgnRequest),
        response: { 201: ref(GameFull), ...errorResponses(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const game = await games.importPgn(request.body.pgn);
      return reply.code(201).send(gameFullOf(game));
    },
  );

  app.get(
    '/:gameId',
    {
      preValidation: requireGame,
      schema: {
        operationId: 'getGame',
        summary: 'The current full state of a game',
        tags,
        security,
        params: GameIdParams,
        response: { 200: ref(GameFull), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async request => gameFullOf(await games.get(request.params.gameId)),
  );

  app.post(
    '/:gameId/resign',
    {
      preValidation: requireGame,
      schema: {
        operationId: 'resignGame',
        summary: 'The side to move resigns',
        tags,
        security,
        params: GameIdParams,
        response: { 200: ref(OkResponse), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async request => {
      await games.change(request.params.gameId, resign);
      return { ok: true as const };
    },
  );

  app.post(
    '/:gameId/move/:uci',
    {
      preValidation: requireGame,
      schema: {
        operationId: 'makeMove',
        summary: 'Play a move in UCI notation',
        description:
          'A pawn move to the last rank without a promotion character answers status promotionPending and is not applied.',
        tags,
        security,
        params: MoveParams,
        response: { 200: ref(GameState), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async request => {
      const { gameId, uci } = request.params;
      const change = await games.change(gameId, game => makeMove(game, uci));
      return change.event.state;
    },
  );

  app.get(
    '/:gameId/moves',
    {
      preValidation: requireGame,
      schema: {
        operationId: 'getLegalMoves',
        summary: 'Legal moves of the side to move',
        tags,
        security,
        params: GameIdParams,
        querystring: MovesQuery,
        response: { 200: ref(LegalMovesResponse), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async request => ({ moves: legalMovesOf(await games.get(request.params.gameId), request.query.square) }),
  );

  app.post(
    '/:gameId/undo',
    {
      preValidation: requireGame,
      schema: {
        operationId: 'undoMove',
        summary: 'Take back the last move',
        tags,
        security,
        params: GameIdParams,
        response: { 200: ref(GameState), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async request => (await games.change(request.params.gameId, undo)).event.state,
  );

  app.post(
    '/:gameId/redo',
    {
      preValidation: requireGame,
      schema: {
        operationId: 'redoMove',
        summary: 'Replay the last move taken back',
        tags,
        security,
        params: GameIdParams,
        response: { 200: ref(GameState), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async request => (await games.change(request.params.gameId, redo)).event.state,
  );

  app.post(
    '/:gameId/draw/:action',
    {
      preValidation: requireGame,
      schema: {
        operationId: 'drawAction',
        summary: 'Offer, accept, decline or claim a draw',
        tags,
        security,
        params: DrawParams,
        response: { 200: ref(OkResponse), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async request => {
      const { gameId, action } = request.params;
      await games.change(gameId, game => drawAction(game, action));
      return { ok: true as const };
    },
  );

  app.get(
    '/:gameId/export/fen',
    {
      preValidation: requireGame,
      schema: {
        operationId: 'exportFen',
        summary: 'The FEN of the current position',
        tags,
        security,
        params: GameIdParams,
        produces: ['text/plain'],
        response: {
          200: Type.String({ description: 'FEN', contentMediaType: 'text/plain' }),
          ...errorResponses(400, 401, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const game = await games.get(request.params.gameId);
      return reply.type('text/plain; charset=utf-8').send(gameStateOf(game).fen);
    },
  );

  app.get(
    '/:gameId/export/pgn',
    {
      preValidation: requireGame,
      schema: {
        operationId: 'exportPgn',
        summary: 'The whole game as PGN',
        tags,
        security,
        params: GameIdParams,
        produces: ['application/x-chess-pgn'],
        response: {
          200: Type.String({ description: 'PGN', contentMediaType: 'application/x-chess-pgn' }),
          ...errorResponses(400, 401, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const game = await games.get(request.params.gameId);
      const site = publicUrl ? `${publicUrl}/game/${game.record.id}` : '?';
      return reply.type('application/x-chess-pgn; charset=utf-8').send(exportPgn(game, { site }));
    },
  );
};
