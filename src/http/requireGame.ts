import type { FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.ts';
import { GAME_ID_PATTERN } from '../domain/types.ts';
import { notFound, type GameService } from '../service/games.ts';

const GAME_ID = new RegExp(GAME_ID_PATTERN);

/**
 * A preValidation hook for routes with a `gameId`: DECISIONS §4 wants a malformed id, then an unknown game,
 * judged before any other parameter, so this runs before schema validation.
 */
export const requireGame = (games: GameService) => async (request: FastifyRequest) => {
  const { gameId } = request.params as { gameId: string };
  if (!GAME_ID.test(gameId)) {
    throw new DomainError('INVALID_GAME_ID', `'${gameId}' is not a game id: expected 8 letters or digits`, 'gameId');
  }
  if (!(await games.exists(gameId))) throw notFound(gameId);
};
