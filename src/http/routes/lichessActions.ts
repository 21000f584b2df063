/**
 * The lichess dialect's actions on a game (DECISIONS §17, §16a), registered by `lichessRoutes` in its plugin:
 *
 * - Under both `/api/board/game/{id}/` and `/api/bot/game/{id}/`: `draw/{yes|no}` and `takeback/{yes|no}` (yes
 *   offers or accepts, no declines; `true`/`1` and `false`/`0` are the same paths, see lichessPaths.ts), and
 *   `claim-victory`, `claim-draw` after the opponent left.
 * - Under `/api/bot/game/{id}/` only (the Board API's are the seed's own, which keep their answers): `move/{move}`
 *   (`?offeringDraw=true`; a promotion without its piece is a queen), `abort`, `resign`.
 *
 * Every one answers `{ok: true}`. Who may call them (a bot on `/api/bot/`, a person on `/api/board/`) is the guards'
 * rule (guards.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { drawActionOf, takebackActionOf, withQueenPromotion } from '../../domain/lichess.ts';
import {
  abort,
  claimOpponentGone,
  drawAction,
  makeMove,
  moveOfferingDraw,
  resign,
  takebackAction,
} from '../../domain/transitions.ts';
import { GAME_ID_PATTERN, type TakebackAction } from '../../contract/vocabulary.ts';
import type { GameService } from '../../service/games.ts';
import type { GamePresence } from '../../service/presence.ts';
import { requireGame } from '../requireGame.ts';
import { operation } from '../schemas.ts';
import { OK, okAction } from '../okAction.ts';
import { NO_WORDS, YES_WORDS } from '../lichessPaths.ts';

export interface LichessActionsOptions {
  games: GameService;
  presence?: GamePresence | undefined; // who is at a game (claims)
}

export const GameParams = Type.Object({ gameId: Type.String({ pattern: GAME_ID_PATTERN }) });
const MoveParams = Type.Object({
  gameId: Type.String({ pattern: GAME_ID_PATTERN }),
  move: Type.String({ pattern: '^[a-h][1-8][a-h][1-8][qrbnQRBN]?$', description: 'the move in UCI, e.g. e2e4' }),
});
const MoveQuery = Type.Object(
  { offeringDraw: Type.Optional(Type.Union([Type.Boolean(), Type.String()])) },
  { additionalProperties: true },
);

export const lichess = { config: { lichess: true } } as const;

const ACTION_ERRORS = [400, 401, 403, 404, 429] as const;

/** The schema of a lichess operation: tagged lichess, with the actions' errors unless told. */
export const lichessOperation = <Inputs extends object, Answers extends object>(
  operationId: string,
  summary: string,
  inputs: Inputs,
  answers: Answers,
  errors: readonly number[] = ACTION_ERRORS,
) => operation(operationId, summary, inputs, answers, errors, { tag: 'lichess' });

/** Registers the actions on `fastify`, the lichess plugin (its forms parser and error shape apply). */
export function lichessActions(fastify: FastifyInstance, { games, presence }: LichessActionsOptions): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const gameExists = requireGame(games, { current: false });
  /** An action on one game, answered {ok: true}: the game judged to exist first, the dialect's errors. */
  const onGame = { method: 'POST', preValidation: gameExists, lichess: true } as const;

  for (const prefix of ['board', 'bot'] as const) {
    // Static `yes` and `no`: on /api/board/... the seed's `draw/:action` and `takeback/:action` take the other words.
    for (const what of ['draw', 'takeback'] as const) {
      for (const answer of ['yes', 'no'] as const) {
        const What = what === 'draw' ? 'Draw' : 'Takeback';
        const words = (answer === 'yes' ? YES_WORDS : NO_WORDS).filter(word => word !== answer);
        okAction(app, {
          ...onGame,
          url: `/${prefix}/game/:gameId/${what}/${answer}`,
          schema: lichessOperation(
            `${prefix}${What}${answer === 'yes' ? 'Yes' : 'No'}`,
            answer === 'yes' ? `Offer a ${what}, or accept the opponent's` : `Decline the opponent's ${what} offer`,
            {
              description: `lichess's ${words.map(word => `${what}/${word}`).join(' and ')} are this path too.`,
              params: GameParams,
            },
            OK,
          ),
          act: async request => {
            const { gameId } = request.params;
            const yes = answer === 'yes';
            const { actor } = request;
            // Judged on the game as it is; nothing to do (yes to one's own offer, no without one) is ok too.
            const game = await games.get(gameId);
            const action = what === 'draw' ? drawActionOf(game, yes, actor) : takebackActionOf(game, yes, actor);
            if (action === undefined) return;
            await games.change(gameId, (current, now) =>
              what === 'draw'
                ? drawAction(current, action, actor, now)
                : takebackAction(current, action as TakebackAction, actor, now),
            );
          },
        });
      }
    }

    // Claims after the opponent left (DECISIONS §17): a win (status timeout) or a draw.
    for (const claim of ['victory', 'draw'] as const) {
      okAction(app, {
        ...onGame,
        url: `/${prefix}/game/:gameId/claim-${claim}`,
        schema: lichessOperation(
          `${prefix}Claim${claim === 'victory' ? 'Victory' : 'Draw'}`,
          `Claim the game as a ${claim === 'victory' ? 'win' : 'draw'}: the opponent left a real-time game 30 s ago`,
          { params: GameParams },
          OK,
        ),
        act: async request => {
          const { gameId } = request.params;
          const { actor } = request;
          const game = await games.get(gameId);
          const { white, black } = game.record;
          const me = actor.kind === 'player' ? actor.player.id : undefined;
          const opponent = me === white.id ? black.id : me === black.id ? white.id : undefined;
          const since = opponent !== undefined && presence ? await presence.goneSince(game, opponent) : undefined;
          await games.change(gameId, (current, now) => claimOpponentGone(current, claim, actor, since, now));
        },
      });
    }
  }

  okAction(app, {
    ...onGame,
    url: '/bot/game/:gameId/move/:move',
    schema: lichessOperation(
      'botMove',
      'Play a move (a promotion without its piece is a queen); offeringDraw=true offers a draw with it',
      {
        description:
          "With offeringDraw=true and the opponent's draw offer pending, the move agrees to it: the game is drawn.",
        params: MoveParams,
        querystring: MoveQuery,
      },
      OK,
    ),
    act: request => {
      const { gameId } = request.params;
      const { actor } = request;
      const uci = request.params.move.toLowerCase();
      const offering = request.query.offeringDraw;
      const transition = offering === true || offering === 'true' ? moveOfferingDraw : makeMove;
      return games.change(gameId, (game, now) => transition(game, withQueenPromotion(game, uci), actor, now));
    },
  });

  for (const [path, transition] of [
    ['abort', abort],
    ['resign', resign],
  ] as const) {
    okAction(app, {
      ...onGame,
      url: `/bot/game/:gameId/${path}`,
      schema: lichessOperation(
        `bot${path === 'abort' ? 'Abort' : 'Resign'}`,
        path === 'abort' ? 'Abort a game whose clock has not started' : 'Resign a game',
        { params: GameParams },
        OK,
      ),
      act: request => games.change(request.params.gameId, (game, now) => transition(game, request.actor, now)),
    });
  }
}
