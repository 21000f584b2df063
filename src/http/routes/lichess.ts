/**
 * The lichess dialect's paths (DECISIONS §17), beside the seed's own: a program written for lichess's Board or Bot
 * API plays here after changing its base URL. Every shape comes from the domain's lichess views
 * (domain/lichess.ts); these routes only read requests and call the service.
 *
 * - `GET /api/board/game/stream/{id}` and `GET /api/bot/game/stream/{id}`: the game in lichess's lines, `gameFull`
 *   then a `gameState` per change (the same hub as the seed's streams, another dialect), ending with the game.
 * - The actions on a game (`move`, `draw/{yes|no}`, `takeback/{yes|no}`, `abort`, `resign`, the claims) are
 *   lichessActions.ts's, registered here.
 * - `POST .../chat` (`{room, text}`) under both prefixes writes a line in the game's chat; `GET .../chat` reads the
 *   players' room as lichess's PlayerGameChat. The lichess game streams carry each line as `chatLine` to the readers
 *   of its room (domain/chat.ts: the players' room to the game's players only).
 * - `POST /api/bot/account/upgrade`, `GET /api/bot/online`, and `GET /api/account/playing`: the player's ongoing
 *   games as lichess's `nowPlaying`.
 *
 * Bodies may be forms, and a JSON `null` is an absent field (acceptForms); unknown query parameters are ignored
 * (lichess clients add their own); errors carry lichess's `error` beside the ApiError's fields.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actingPlayer, type Actor } from '../../domain/seats.ts';
import type { Game } from '../../domain/game.ts';
import {
  eventGameOf,
  gameEventInfoOf,
  lichessGameFull,
  lichessGameState,
  lichessChat,
  lichessChatLine,
} from '../../domain/lichess.ts';
import { ChatRateLimited } from '../../domain/chat.ts';
import { ChatRequest, PlayerGameChat } from '../../contract/chat.ts';
import type { ChatService } from '../../service/chat.ts';
import { DomainError } from '../../domain/errors.ts';
import { ENGINE_ID } from '../../domain/engineSeat.ts';
import { ref } from '../../contract/shapes.ts';
import { LichessGameStreamEvent } from '../../contract/events.ts';
import { BotOnlineUser, NowPlaying } from '../../contract/lichess.ts';
import type { GameService } from '../../service/games.ts';
import type { PlayerTokens } from '../../service/tokens.ts';
import type { PlayerFeed } from '../../bus/players.ts';
import { requireGame } from '../requireGame.ts';
import { ndjsonAnswer } from '../schemas.ts';
import type { StreamDialect, StreamHub } from '../stream.ts';
import { acceptForms } from './challenges.ts';
import { GameParams, lichess, lichessActions, lichessOperation } from './lichessActions.ts';
import { OK, okAction } from '../okAction.ts';
import { keepPresent, ndjsonAnswers } from './stream.ts';
import { EVENT_STREAMS, type GamePresence } from '../../service/presence.ts';

export interface LichessRoutesOptions {
  games: GameService;
  tokens?: PlayerTokens | undefined; // bots (DECISIONS §17); none: no player is a bot
  players?: PlayerFeed | undefined; // who has an event stream open (the bots online)
  presence?: GamePresence | undefined; // who is at a game (opponent gone, claims)
  chat?: ChatService | undefined; // games' chat; none: no chat routes and no chatLine lines
  hub: StreamHub;
  maxStreamsPerClient: number;
  clientKey: (request: { ip: string; headers: Record<string, unknown> }) => string;
}

/** lichess's lines on a game stream: its gameFull (with its players' titles), then its gameState for each change. */
export function lichessDialect(tokens: PlayerTokens | undefined): StreamDialect {
  return {
    first: async (game, now) => {
      const { white, black } = game.record;
      const bots = new Set(await (tokens?.botsAmong([white.id, black.id]) ?? []));
      return lichessGameFull(game, now, id => (bots.has(id) ? 'BOT' : null));
    },
    line: change => JSON.stringify(lichessGameState(change.event.state)),
    // lichess ends a game's stream with the state that shows it over, or right after gameFull for a game over.
    endsWhenOver: true,
  };
}

const PlayingQuery = Type.Object(
  {
    nb: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 999_999_999, description: 'how many games, 1-50 (9 by default)' }),
    ),
  },
  { additionalProperties: true },
);

/** The player of a player token; lichess's account paths need one. */
const playerIdOf = (actor: Actor): string => actingPlayer(actor, 'this path needs').id;

export const lichessRoutes: FastifyPluginAsync<LichessRoutesOptions> = async (fastify, options) => {
  const { games, chat, hub, clientKey, tokens, players, presence } = options;
  const dialect = lichessDialect(tokens);
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  acceptForms(app);
  const { startStream } = ndjsonAnswers(hub, options.maxStreamsPerClient);
  const gameExists = requireGame(games, { current: false });
  // Each line to the game's lichess streams that read its room.
  const stopChat = chat?.onLine(line => hub.sendExtra(line.gameId, dialect, line.room, lichessChatLine(line)));
  fastify.addHook('onClose', (_instance, done) => {
    stopChat?.();
    done();
  });

  for (const prefix of ['board', 'bot'] as const) {
    app.get(
      `/${prefix}/game/stream/:gameId`,
      {
        ...lichess,
        preValidation: gameExists,
        schema: lichessOperation(
          `${prefix}GameStream`,
          `Follow a game in lichess's ${prefix === 'bot' ? 'Bot' : 'Board'} API shape (NDJSON)`,
          { params: GameParams },
          {
            200: ndjsonAnswer(
              ref(LichessGameStreamEvent),
              "lichess's gameFull, then gameState lines; the answer ends once the game is over",
            ),
          },
          [400, 401, 404, 429],
        ),
      },
      async (request, reply) => {
        const { gameId } = request.params;
        const client = clientKey(request);
        const game = await games.get(gameId);
        const res = startStream(request, reply, client);
        if (!res) return;
        const owner = request.playerTokenHash;
        // A player's stream keeps them present, and tells them of their opponent's going (a real-time game's).
        const playerId = keepPresent(presence, game, request.actor, res);
        const control = game.record.clock?.control;
        const follow =
          presence && playerId !== undefined && control && !('daysPerMove' in control)
            ? (send: (line: object) => void) =>
                presence.watch(
                  {
                    gameId,
                    opponentId: game.record.white.id === playerId ? game.record.black.id : game.record.white.id,
                    startedAt: Date.parse(game.record.createdAt),
                  },
                  send,
                )
            : undefined;
        const { actor } = request;
        const rooms = chat ? (current: Game) => chat.roomsOf(current, actor) : undefined;
        await hub.attach(gameId, res, client, () => games.get(gameId), owner, dialect, rooms, follow);
      },
    );
  }

  lichessActions(fastify, { games, presence });

  for (const prefix of chat ? (['board', 'bot'] as const) : []) {
    const Prefix = prefix === 'bot' ? 'Bot' : 'Board';
    okAction(app, {
      method: 'POST',
      url: `/${prefix}/game/:gameId/chat`,
      preValidation: gameExists,
      lichess: true,
      schema: lichessOperation(
        `${prefix}ChatWrite`,
        "Write a line in the game's chat: the player room (the two players) or the spectator room (anyone)",
        { params: GameParams, body: ref(ChatRequest) },
        OK,
        [400, 401, 403, 404, 415, 429],
      ),
      act: async (request, reply) => {
        try {
          await chat!.write(request.actor, request.params.gameId, request.body);
        } catch (error) {
          if (error instanceof ChatRateLimited) void reply.header('retry-after', String(error.retryAfterSeconds));
          throw error;
        }
      },
    });
    app.get(
      `/${prefix}/game/:gameId/chat`,
      {
        ...lichess,
        preValidation: gameExists,
        schema: lichessOperation(
          `${prefix}ChatRead`,
          `The game's player room, in lichess's ${Prefix} API shape (for the game's players)`,
          { params: GameParams },
          { 200: ref(PlayerGameChat) },
          [400, 401, 403, 404, 429],
        ),
      },
      async request => lichessChat(await chat!.playerRoom(request.actor, request.params.gameId)),
    );
  }

  okAction(app, {
    method: 'POST',
    url: '/bot/account/upgrade',
    lichess: true,
    schema: lichessOperation(
      'botAccountUpgrade',
      "Make the token's player a bot, for good (a player who has played no game yet)",
      {},
      OK,
      [401, 403, 429],
    ),
    act: async request => {
      const player = playerIdOf(request.actor);
      if (!tokens) throw new DomainError('FORBIDDEN', 'bots need player tokens, which this service does not issue');
      if (request.actor.kind === 'player' && request.actor.bot) return;
      const played = await games.list({ player, status: 'all', limit: 1 });
      if (played.games.length > 0) {
        throw new DomainError('FORBIDDEN', `${player} has played games already: only a new player can become a bot`);
      }
      await tokens.makeBot(player);
    },
  });

  app.get(
    '/bot/online',
    {
      ...lichess,
      schema: lichessOperation(
        'botOnline',
        'The bots with an event stream open (NDJSON of lichess users)',
        {
          querystring: Type.Object(
            { nb: Type.Optional(Type.Integer({ minimum: 0, maximum: 999_999_999, description: 'at most this many' })) },
            { additionalProperties: true },
          ),
        },
        { 200: ndjsonAnswer(ref(BotOnlineUser), 'one lichess user per line') },
        [400, 429],
      ),
    },
    async (request, reply) => {
      // With presence, the event streams of every instance; without, this instance's.
      const following = presence ? await presence.present(EVENT_STREAMS) : (players?.following() ?? []);
      const online = await (tokens?.botsAmong(following) ?? []);
      const known = await Promise.all(online.sort().map(id => tokens!.player(id)));
      const limit = Math.max(1, request.query.nb ?? 50);
      const lines = known
        .filter(player => player !== undefined)
        .slice(0, limit)
        .map(player => `${JSON.stringify({ id: player.id, username: player.displayName, title: 'BOT' })}\n`);
      return reply.type('application/x-ndjson').send(lines.join(''));
    },
  );

  app.get(
    '/account/playing',
    {
      ...lichess,
      schema: lichessOperation(
        'accountPlaying',
        "The player's ongoing games, in lichess's shape",
        { querystring: PlayingQuery },
        { 200: ref(NowPlaying) },
        [400, 401, 403, 429],
      ),
    },
    async request => {
      const player = playerIdOf(request.actor);
      const now = games.now();
      const ongoing = await games.ongoing(player, undefined, 1000);
      const nowPlaying = ongoing
        .map(game => gameEventInfoOf(eventGameOf(game, now), player, now))
        // lichess lists the most urgent first: the player's turn, the least time left.
        .sort((a, b) => Number(b.isMyTurn) - Number(a.isMyTurn) || a.secondsLeft - b.secondsLeft);
      return {
        // Here lichess names the status (GameStatusName), where the events give its object.
        nowPlaying: nowPlaying
          .slice(0, Math.min(50, Math.max(1, request.query.nb ?? 9)))
          // ...and an opponent's `id` is always a string: the computer's is its seat's.
          .map(game => ({
            ...game,
            status: game.status.name,
            opponent: game.opponent.id === null ? { ...game.opponent, id: ENGINE_ID } : game.opponent,
          })),
        nbMyTurn: nowPlaying.filter(game => game.isMyTurn).length,
      };
    },
  );
};
