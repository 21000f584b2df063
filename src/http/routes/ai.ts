/**
 * The computer opponent (DECISIONS §18): `POST /api/challenge/ai` starts a game against the engine at a level 1-8,
 * with the time control, colour and position of a challenge (section 16's fields, JSON or form). The answer is
 * lichess's (`201 {id, variant, speed, perf, rated, fen, turns, source, status, createdAt, player, fullId}`), and
 * the person gets `gameStart` on their event stream; the engine plays its turns by itself (engineMoves.ts), first
 * when it is white. With authentication off anyone plays the computer, as the default player of their colour; a
 * service token is nobody (403). When no engine can start, 503 UNAVAILABLE, and nothing else is affected.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AiGame, AiRequest } from '../../contract/ai.ts';
import { clockOfChallenge, parseComputerChallengeRequest } from '../../domain/challenge.ts';
import { engineSeat } from '../../domain/engineSeat.ts';
import { DomainError } from '../../domain/errors.ts';
import { fullIdOf, lichessStatusObject, speedOfControl } from '../../domain/lichess.ts';
import { SERVICE } from '../../domain/seats.ts';
import { statusOf } from '../../domain/status.ts';
import { DEFAULT_BLACK, DEFAULT_WHITE } from '../../domain/types.ts';
import { isEngineLevel, type EnginePool } from '../../engine/index.ts';
import type { Color } from '../../contract/vocabulary.ts';
import type { GameService } from '../../service/games.ts';
import { operation } from '../schemas.ts';
import { acceptForms } from './challenges.ts';

export interface AiRoutesOptions {
  games: GameService;
  engine: EnginePool;
  coin?: () => number; // [0, 1): a random colour
}

export const aiRoutes: FastifyPluginAsync<AiRoutesOptions> = async (fastify, { games, engine, coin = Math.random }) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  acceptForms(app);

  app.post(
    '/challenge/ai',
    {
      config: { lichess: true },
      schema: operation(
        'challengeAi',
        'Play the computer (Stockfish) at a level from 1 to 8',
        { body: Type.Optional(AiRequest) },
        { 201: AiGame },
        [400, 401, 403, 429, 503],
        { tag: 'challenges' },
      ),
    },
    async (request, reply) => {
      const { actor, body } = request;
      if (actor.kind === 'service' && request.serviceToken) {
        throw new DomainError('FORBIDDEN', 'a service token is nobody: play the computer with a player token');
      }
      const level = Number(body.level);
      if (!isEngineLevel(level)) throw new DomainError('INVALID_BODY', 'level must be an integer from 1 to 8', 'level');
      const parsed = parseComputerChallengeRequest(body);
      if (!parsed.ok) throw parsed.error;
      const { timeControl, color, initialFen } = parsed.value;
      if (!(await engine.available())) {
        throw new DomainError('UNAVAILABLE', 'the computer opponent is unavailable: no engine could be started');
      }
      const player: Color = color === 'random' ? (coin() < 0.5 ? 'white' : 'black') : color;
      const person = actor.kind === 'player' ? actor.player : player === 'white' ? DEFAULT_WHITE : DEFAULT_BLACK;
      const computer = engineSeat(level);
      const seats = player === 'white' ? { white: person, black: computer } : { white: computer, black: person };
      const clock = clockOfChallenge(timeControl);
      const game =
        initialFen === null
          ? await games.create({ ...seats, clock }, SERVICE)
          : await games.importFen({ ...seats, clock }, initialFen, SERVICE);
      const speed = speedOfControl(game.record.clock?.control);
      return reply.code(201).send({
        id: game.record.id,
        fullId: fullIdOf(game.record.id, person.id),
        variant:
          initialFen === null
            ? { key: 'standard', name: 'Standard', short: 'Std' }
            : { key: 'fromPosition', name: 'From Position', short: 'FEN' },
        speed,
        perf: speed,
        rated: false,
        fen: game.fen,
        turns: game.record.moves.length,
        source: 'ai',
        status: lichessStatusObject(statusOf(game)),
        createdAt: Date.parse(game.record.createdAt),
        player,
      });
    },
  );
};
