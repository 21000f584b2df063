/**
 * The NDJSON streams: operation 3, `GET /api/board/game/{gameId}/stream` (a `gameFull` line first, then one
 * `gameState` line per committed change), and a player's events, `GET /api/stream/event` (a `gameStart` line for
 * each ongoing game of the player, then `gameStart` and `gameFinish` as games start and end, DECISIONS §13). Both
 * have empty lines as heartbeats and an `error` line before the server closes them (also `UNAUTHORIZED` when the
 * player token a stream was opened with is revoked, and `UNAVAILABLE` when what a stream opens with cannot be read),
 * and count against the same per-client cap.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { PlayerFeed, PlayerEvent } from '../../bus/players.ts';
import { PlayerStream, retried } from '../../bus/players.ts';
import { DomainError } from '../../domain/errors.ts';
import { isOver } from '../../domain/status.ts';
import { eventGameOf, gameEventInfoOf, type EventGameFull } from '../../domain/lichess.ts';
import type { GameService } from '../../service/games.ts';
import type { ChallengeService } from '../../service/challenges.ts';
import { EVENT_STREAMS, type GamePresence } from '../../service/presence.ts';
import type { Actor } from '../../domain/seats.ts';
import type { Game } from '../../domain/game.ts';
import { GameStreamEvent, PlayerStreamEvent, type ChallengeLine } from '../../contract/events.ts';
import { ref } from '../../contract/shapes.ts';
import { withOrigin } from '../../service/challengeViews.ts';
import { foundGame, requireGame } from '../requireGame.ts';
import { GameIdParams, ndjsonAnswer, operation } from '../schemas.ts';
import type { StreamHub } from '../stream.ts';

export interface StreamRoutesOptions {
  games: GameService;
  hub: StreamHub;
  players: PlayerFeed | undefined; // games starting and ending; none: no player event streams
  challenges?: ChallengeService | undefined; // the player's pending challenges, sent when a stream opens
  presence?: GamePresence | undefined; // a player's game streams keep them present at the game (opponent gone)
  maxStreamsPerClient: number; // 0 = no limit
  clientKey: (request: { ip: string; headers: Record<string, unknown> }) => string;
}

const RETRY_AFTER_SECONDS = 5;

const definedHeaders = (headers: Record<string, number | string | string[] | undefined>): OutgoingHttpHeaders =>
  Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined));

const EventQuery = Type.Object({
  player: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: "whose events: a player's id (a service token needs it)" }),
  ),
});

/**
 * How the NDJSON answers start: `refuseOverCap` refuses a client with its cap of streams open (429 RATE_LIMITED,
 * with Retry-After), `startStream` does so too and then writes the head, answering the response to write the lines
 * to (undefined for HEAD, which gets the head only).
 */
/**
 * A stream of a game opened by one of its players keeps that player present at the game while it is open (DECISIONS
 * §17, opponent gone); the player's id, or undefined for a stream of no player of the game.
 */
export function keepPresent(
  presence: GamePresence | undefined,
  game: Game,
  actor: Actor,
  res: ServerResponse,
): string | undefined {
  if (actor.kind !== 'player') return undefined;
  const { white, black, id } = game.record;
  const playerId = actor.player.id;
  if (white.id !== playerId && black.id !== playerId) return undefined;
  if (presence && !res.closed) res.once('close', presence.open(id, playerId));
  return playerId;
}

export function ndjsonAnswers(hub: StreamHub, maxStreamsPerClient: number) {
  const refuseOverCap = (reply: FastifyReply, client: string): void => {
    if (maxStreamsPerClient > 0 && hub.streamsOf(client) >= maxStreamsPerClient) {
      reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      throw new DomainError('RATE_LIMITED', `at most ${maxStreamsPerClient} streams may be open per client`);
    }
  };
  const startStream = (request: FastifyRequest, reply: FastifyReply, client: string): ServerResponse | undefined => {
    refuseOverCap(reply, client);
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
      return undefined;
    }
    return res;
  };
  return { refuseOverCap, startStream };
}

export const streamRoutes: FastifyPluginAsync<StreamRoutesOptions> = async (fastify, options) => {
  const { games, hub, players, challenges, maxStreamsPerClient, clientKey, presence } = options;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  const { startStream } = ndjsonAnswers(hub, maxStreamsPerClient);

  app.get(
    '/board/game/:gameId/stream',
    {
      preValidation: requireGame(games),
      schema: operation(
        'streamGame',
        'Follow a game live (NDJSON)',
        {
          description:
            'A gameFull event first, then one gameState event per change, in order; an empty line every few seconds ' +
            'while idle; an error event (SERVER_SHUTDOWN, SLOW_CONSUMER, UNAUTHORIZED once the token is revoked, ' +
            'UNAVAILABLE when the game could not be read to begin with) before the server closes the stream.',
          params: GameIdParams,
        },
        { 200: ndjsonAnswer(ref(GameStreamEvent), 'the game, then its changes, one JSON line each') },
        [400, 401, 404, 429],
      ),
    },
    async (request, reply) => {
      const { gameId } = request.params;
      const client = clientKey(request);
      const res = startStream(request, reply, client);
      if (!res) return;
      request.log.info({ gameId }, 'stream opened');
      res.once('close', () => request.log.info({ gameId }, 'stream closed'));
      keepPresent(presence, foundGame(request), request.actor, res);
      await hub.attach(gameId, res, client, () => games.get(gameId), request.playerTokenHash);
    },
  );

  if (!players) return;

  // Its declaration has the game stream's shape on purpose (an operation, its prose, its NDJSON lines): what the
  // two streams share in logic is ndjsonAnswers' and the hub's, written once.
  app.get(
    '/stream/event',
    {
      schema: operation(
        'streamEvents',
        "Follow a player's games starting and ending (NDJSON)",
        {
          description:
            'A gameStart event for each ongoing game of the player first, then gameStart when a game with the player ' +
            'in a seat starts (created, or resumed by an undo) and gameFinish when one ends; heartbeats and error ' +
            'events as on game streams. A player token follows only its own player (naming another is 403 FORBIDDEN); a ' +
            'service token names one (player). Challenges too: a challenge event for each pending one first, then ' +
            'challenge, challengeCanceled and challengeDeclined as they are made and answered.',
          querystring: EventQuery,
        },
        { 200: ndjsonAnswer(ref(PlayerStreamEvent), "the player's games and challenges, one JSON line each") },
        [400, 401, 403, 429],
        { tag: 'players' },
      ),
    },
    async (request, reply) => {
      const { actor } = request;
      // Who plays whom is the player's own business (DECISIONS §13a): a player token follows only its own events.
      if (actor.kind === 'player' && request.query.player !== undefined && request.query.player !== actor.player.id) {
        throw new DomainError(
          'FORBIDDEN',
          `a player token follows only its own events (${actor.player.id}): leave out ?player= or name that id`,
        );
      }
      const player = request.query.player ?? (actor.kind === 'player' ? actor.player.id : undefined);
      if (player === undefined) {
        throw new DomainError('INVALID_QUERY', 'name the player whose events to follow: ?player=ID', 'player');
      }
      const client = clientKey(request);
      const res = startStream(request, reply, client);
      if (!res) return;
      request.log.info({ player }, 'event stream opened');
      // Who has an event stream open, on any instance (the bots online): kept as presence is.
      if (presence) res.once('close', presence.open(EVENT_STREAMS, player));
      res.once('close', () => request.log.info({ player }, 'event stream closed'));
      await hub.attachFeed(res, client, request.playerTokenHash, async send => {
        // A game's line keeps its GameFull fields and gains lichess's GameEventInfo ones (DECISIONS §17).
        const stream = new PlayerStream(line =>
          send({ type: line.type, game: { ...line.game, ...gameEventInfoOf(line.game, player, games.now()) } }),
        );
        // Events that come while the player's games are read wait, then go through the same rule.
        let waiting: PlayerEvent[] | undefined = [];
        const off = players.subscribe(player, event => (waiting ? waiting.push(event) : stream.apply(event)));
        const look = async () => {
          const ongoing = await ongoingGames(games, player);
          stream.started(ongoing);
          // A game shown ongoing and no longer listed has ended (or changed meanwhile): its end, if it has one.
          const listed = new Set(ongoing.map(({ game }) => game.gameId));
          for (const id of stream.ongoing().filter(id => !listed.has(id))) {
            const game = await games.get(id);
            if (isOver(game)) {
              const full = eventGameOf(game, games.now());
              stream.apply({ type: 'gameFinish', gameId: id, version: game.record.version, game: full });
            }
          }
        };
        // Challenges made, canceled or declined (DECISIONS §16) go out as they come; the pending ones first.
        // A challenge's url is absolute: under PUBLIC_URL, else this request's own origin.
        const origin = `${request.protocol}://${request.host}`;
        const shown = new ShownChallenges(line => send({ ...line, challenge: withOrigin(line.challenge, origin) }));
        const offChallenges = players.subscribeChallenges(player, line => shown.send(line));
        const lookChallenges = async () => {
          if (challenges) await shown.look(challenges, player);
        };
        try {
          await look();
          await lookChallenges();
        } catch (error) {
          off();
          offChallenges();
          throw error;
        }
        for (const event of waiting) stream.apply(event);
        waiting = undefined;
        // A look after announcements were missed is tried again until it succeeds, while the stream is open.
        let open = true;
        const failed = (error: unknown) => request.log.warn({ err: error, player }, 'event stream: look again');
        const lookAgain = async () => {
          await look();
          await lookChallenges();
        };
        const offResync = players.onResync(() => void retried(lookAgain, () => open, failed));
        return () => {
          open = false;
          off();
          offChallenges();
          offResync();
        };
      });
    },
  );
};

/**
 * The challenge lines one stream sent, so that a second look (after announcements were missed) sends what it
 * missed and nothing twice: a `challenge` for a pending one not shown, and the end of one shown pending that is
 * pending no more.
 */
class ShownChallenges {
  private readonly last = new Map<string, ChallengeLine['type'] | 'accepted'>();

  constructor(private readonly write: (line: ChallengeLine) => void) {}

  send(line: ChallengeLine): void {
    const { id } = line.challenge;
    if (this.last.get(id) === line.type) return;
    this.last.set(id, line.type);
    this.write(line);
    if (this.last.size > 1000) {
      for (const [known, type] of this.last) if (type !== 'challenge' && this.last.size > 500) this.last.delete(known);
    }
  }

  /** The player's pending challenges, and the end of each shown pending that is not any more. */
  async look(challenges: ChallengeService, player: string): Promise<void> {
    const pending = await challenges.pendingOf(player);
    const ids = new Set<string>();
    for (const challenge of [...pending.in, ...pending.out]) {
      ids.add(challenge.id);
      this.send({ type: 'challenge', challenge: challenges.view(challenge, player) });
    }
    for (const [id, type] of [...this.last]) {
      if (type !== 'challenge' || ids.has(id)) continue;
      const challenge = await challenges.find(id);
      if (challenge.status === 'accepted')
        this.last.set(id, 'accepted'); // its game's gameStart tells it
      else {
        const ended = challenge.status === 'declined' ? 'challengeDeclined' : 'challengeCanceled';
        this.send({ type: ended, challenge: challenges.view(challenge, player) });
      }
    }
  }
}

const ONGOING_PAGE = 100;

/**
 * Every ongoing game of a player, each with its version and its view, read a page at a time in id order: a game
 * ongoing throughout is listed once whatever changes meanwhile (in the order of changes, one that moved up between
 * two pages was missed), and one that starts or ends meanwhile is told by its event, heard from before the read.
 */
async function ongoingGames(games: GameService, player: string) {
  const found: Array<{ version: number; game: EventGameFull }> = [];
  let after: string | undefined;
  for (;;) {
    const page = await games.ongoing(player, after, ONGOING_PAGE);
    for (const game of page) found.push({ version: game.record.version, game: eventGameOf(game, games.now()) });
    if (page.length < ONGOING_PAGE) return found;
    after = page.at(-1)!.record.id;
  }
}
