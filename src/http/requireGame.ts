import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { DomainError } from '../domain/errors.ts';
import type { Game } from '../domain/game.ts';
import { notFound, type GameService } from '../service/games.ts';
import { GAME_ID_PATTERN } from '../contract/vocabulary.ts';

const GAME_ID = new RegExp(GAME_ID_PATTERN);

declare module 'fastify' {
  interface FastifyRequest {
    /** The game of the route's `gameId`, as `requireGame` found it. */
    game: Game | undefined;
  }
}

/**
 * A preValidation hook for routes with a `gameId`: DECISIONS §4 wants a malformed id, then an unknown game,
 * judged before any other parameter, so this runs before schema validation. The game it finds is kept on
 * the request (`foundGame`), so that a read answers from it without looking the game up again. A game in
 * memory is found without waiting; callback style, so that such a request costs no promise.
 *
 * `current: false` is for routes that read the game themselves (changes): the hook only asks whether the game
 * exists, and leaves `request.game` unset.
 */
export const requireGame =
  (games: GameService, { current = true }: { current?: boolean } = {}) =>
  (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const { gameId } = request.params as { gameId: string };
    if (!GAME_ID.test(gameId)) {
      done(new DomainError('INVALID_GAME_ID', `'${gameId}' is not a game id: expected 8 letters or digits`, 'gameId'));
      return;
    }
    if (!current) {
      const exists = games.exists(gameId);
      if (exists === true) done();
      else exists.then(found => done(found ? undefined : notFound(gameId)), done);
      return;
    }
    const game = games.current(gameId);
    if (!(game instanceof Promise)) {
      request.game = game;
      done();
      return;
    }
    game.then(found => {
      request.game = found;
      done(found ? undefined : notFound(gameId));
    }, done);
  };

/** The game `requireGame` found for this request (a hook that judges the current game). */
export function foundGame(request: FastifyRequest): Game {
  if (!request.game) throw new Error(`${request.url}: the route has no requireGame hook for the current game`);
  return request.game;
}
