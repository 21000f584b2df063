/**
 * A player's games and single games as lichess exports them (DECISIONS §22): `GET /api/games/user/{id}` streamed,
 * `GET /game/export/{id}`, `POST /api/games/export/_ids` and `GET /api/user/{id}/current-game`. Each answers PGN, or
 * lichess's GameJson (NDJSON for the streams) when the `Accept` header asks for it. The streams are written as the
 * reader takes them: the next page of games is read only once the socket has taken the one before (`drained`), so a
 * reader that stops reading holds the server to one page; each counts against the client's cap of streams.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ExportOptions, GameJson, PlayerGamesQuery } from '../../contract/gameExport.ts';
import type { Speed } from '../../contract/lichess.ts';
import { ref } from '../../contract/shapes.ts';
import { GAME_ID_PATTERN } from '../../contract/vocabulary.ts';
import { DomainError } from '../../domain/errors.ts';
import type { Game } from '../../domain/game.ts';
import { EXPORT_DEFAULTS, exportPgnOf, gameJsonOf, type ExportInclude } from '../../domain/gameExport.ts';
import type { HistoryQuery } from '../../domain/history.ts';
import { MAX_EXPORT_IDS, type GameExports } from '../../service/gameExports.ts';
import type { GameService } from '../../service/games.ts';
import { foundGame, requireGame } from '../requireGame.ts';
import { GameIdParams, operation } from '../schemas.ts';
import { streamErrorLine, type StreamHub } from '../stream.ts';
import { ndjsonAnswers } from './stream.ts';

export interface ExportRoutesOptions {
  exports: GameExports;
  games: GameService;
  hub: StreamHub;
  publicUrl: string | undefined;
  maxStreamsPerClient: number; // 0 = no limit
  clientKey: (request: FastifyRequest) => string;
}

const EXPORT = { tag: 'export' };

const PGN = 'application/x-chess-pgn';
const NDJSON = 'application/x-ndjson';

/** The latest creation time an ISO 8601 time of four-digit years tells (later bounds say nothing). */
const LAST_ISO_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

const PlayerParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: "the player's id" }) });
const ID = new RegExp(GAME_ID_PATTERN);

/** No games. */
async function* none(): AsyncGenerator<Game> {}

/** Whether the request asks for JSON (`type`: application/json or application/x-ndjson) rather than PGN. */
const wantsJson = (request: FastifyRequest, type: string): boolean =>
  (request.headers.accept ?? '').toLowerCase().includes(type);

/** The answers of an export: PGN, or `json` (GameJson). */
const answers = (json: 'application/json' | typeof NDJSON, description: string) => ({
  200: {
    description,
    content: {
      [PGN]: { schema: Type.String({ description: 'PGN: the games separated by a blank line' }) },
      [json]: { schema: ref(GameJson) },
    },
  },
});

/** Each game as its text, its site the game's page at `origin`: a PGN and a blank line, or a GameJson line. */
function textOf(origin: string, include: Omit<ExportInclude, 'site'>, json: boolean): (game: Game) => string {
  const of = (game: Game): ExportInclude => ({ ...include, site: `${origin}/game/${game.record.id}` });
  return json ? game => `${JSON.stringify(gameJsonOf(game, of(game)))}\n` : game => `${exportPgnOf(game, of(game))}\n`;
}

/** The bytes of text gathered before a write: the games of a page go out in a few writes, not one each. */
const WRITE_BYTES = 64 * 1024;

/** Resolves once `res` has taken what it was given (or has closed: the reader is gone). */
const drained = (res: ServerResponse): Promise<void> =>
  new Promise(resolve => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });

/** The page of a query's filters: since/until as ISO times, finished/ongoing as `ended`; undefined: no game. */
function historyQueryOf(player: string, query: PlayerGamesQuery): Omit<HistoryQuery, 'after' | 'limit'> | undefined {
  const finished = query.finished ?? true;
  const ongoing = query.ongoing ?? false;
  if (!finished && !ongoing) return undefined;
  if (query.since !== undefined && query.since > LAST_ISO_MS) return undefined;
  const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
  return {
    player,
    since: iso(query.since),
    until: query.until === undefined || query.until >= LAST_ISO_MS ? undefined : iso(query.until),
    vs: query.vs,
    rated: query.rated,
    perfs: query.perfType === undefined ? undefined : ([...new Set(query.perfType.split(','))] as Speed[]),
    color: query.color,
    ended: finished && ongoing ? undefined : finished,
    order: query.sort === 'dateAsc' ? 'asc' : 'desc',
  };
}

export const exportRoutes: FastifyPluginAsync<ExportRoutesOptions> = async (fastify, options) => {
  const { exports, games, hub, publicUrl, clientKey } = options;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { refuseOverCap } = ndjsonAnswers(hub, options.maxStreamsPerClient);
  // The body of `_ids` is text whatever it is sent as (text/plain, a form, none: what lichess clients send).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  const originOf = (request: FastifyRequest) => publicUrl ?? `${request.protocol}://${request.host}`;
  /** What an export includes: lichess's defaults (`clocks` as given), then the request's options. */
  const includeOf = (given: ExportOptions, clocks: boolean): Omit<ExportInclude, 'site'> => ({
    moves: given.moves ?? EXPORT_DEFAULTS.moves,
    tags: given.tags ?? EXPORT_DEFAULTS.tags,
    clocks: given.clocks ?? clocks,
    pgnInJson: given.pgnInJson ?? EXPORT_DEFAULTS.pgnInJson,
    lastFen: given.lastFen ?? EXPORT_DEFAULTS.lastFen,
  });

  /**
   * Streams `games` on the reply as `type`, a page at a time as the reader takes them, counted as one of the client's
   * streams (refused with 429 beyond its cap) and ended at shutdown.
   */
  const stream = async (
    request: FastifyRequest,
    reply: FastifyReply,
    type: string,
    games: AsyncIterable<Game>,
    text: (game: Game) => string,
  ): Promise<void> => {
    const client = clientKey(request);
    refuseOverCap(reply, client);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      ...Object.fromEntries(Object.entries(reply.getHeaders()).filter(([, value]) => value !== undefined)),
      'content-type': `${type}; charset=utf-8`,
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'x-accel-buffering': 'no',
    });
    if (request.method === 'HEAD') return void res.end();
    await hub.attachFeed(res, client, request.playerTokenHash, async (_send, end) => {
      let stopped = false;
      const write = async () => {
        try {
          let page = '';
          for await (const game of games) {
            if (stopped) return;
            page += text(game);
            // A page's worth of text goes out in one write; the next is read once the socket has taken it.
            if (page.length >= WRITE_BYTES) {
              const taken = res.write(page);
              page = '';
              if (!taken) await drained(res);
            }
          }
          if (!stopped && page) res.write(page);
          end(true);
        } catch (error) {
          // The head is out: the reader learns of the failure from a last line (NDJSON) or a cut answer (PGN).
          request.log.warn({ err: error }, 'export failed');
          if (!stopped && type === NDJSON)
            res.write(streamErrorLine('UNAVAILABLE', 'the export could not be completed'));
          end();
        }
      };
      void write();
      return () => {
        stopped = true;
      };
    });
  };

  app.get(
    '/api/games/user/:id',
    {
      config: { lichess: true },
      schema: operation(
        'exportPlayerGames',
        "A player's games, streamed as PGN or NDJSON (lichess's export)",
        {
          description:
            'Newest first by creation time (ties by id), or oldest first with sort=dateAsc; only finished games unless ' +
            'ongoing=true. NDJSON (one GameJson a line) for Accept: application/x-ndjson, else PGN with the games ' +
            "separated by a blank line. Written as the reader takes it; counts as one of the client's streams.",
          params: PlayerParams,
          querystring: PlayerGamesQuery,
        },
        // No game of an unknown player is an empty answer; 404 is the path's own (a player id too long is 400).
        answers(NDJSON, 'the games'),
        [400, 401, 404, 429],
        EXPORT,
      ),
    },
    async (request, reply) => {
      const { query } = request;
      const json = wantsJson(request, NDJSON);
      const history = historyQueryOf(request.params.id, query);
      const found = history ? exports.playerGames(history, query.max) : none();
      const text = textOf(originOf(request), includeOf(query, false), json);
      await stream(request, reply, json ? NDJSON : PGN, found, text);
    },
  );

  app.post(
    '/api/games/export/_ids',
    {
      config: { lichess: true },
      preValidation: (request, _reply, done) => {
        (request as { body: unknown }).body ??= ''; // no body: no game
        done();
      },
      schema: operation(
        'exportGamesByIds',
        'Games by their ids, streamed as PGN or NDJSON',
        {
          description:
            `Up to ${MAX_EXPORT_IDS} game ids, comma-separated, read as text whatever the media type; unknown ids are ` +
            'skipped, ongoing games included, in the order given. NDJSON (one GameJson a line) for Accept: ' +
            "application/x-ndjson, else PGN. Counts as one of the client's streams.",
          consumes: ['text/plain'],
          querystring: ExportOptions,
          body: Type.String({ description: 'game ids separated by commas' }),
        },
        answers(NDJSON, 'the games found'),
        [400, 401, 429],
        EXPORT,
      ),
    },
    async (request, reply) => {
      const ids = request.body
        .split(',')
        .map(id => id.trim())
        .filter(id => id !== '');
      if (ids.length > MAX_EXPORT_IDS) {
        throw new DomainError('INVALID_BODY', `at most ${MAX_EXPORT_IDS} game ids, not ${ids.length}`);
      }
      const json = wantsJson(request, NDJSON);
      const found = exports.byIds(ids.filter(id => ID.test(id)));
      const text = textOf(originOf(request), includeOf(request.query, false), json);
      await stream(request, reply, json ? NDJSON : PGN, found, text);
    },
  );

  /** One game's answer: GameJson for Accept: application/json, else its PGN; clocks by default, as on lichess. */
  const answerGame = (request: FastifyRequest, reply: FastifyReply, game: Game, given: ExportOptions) => {
    const json = wantsJson(request, 'application/json');
    const text = textOf(originOf(request), includeOf(given, true), json)(game);
    return reply
      .type(json ? 'application/json; charset=utf-8' : `${PGN}; charset=utf-8`)
      .send(json ? text.trimEnd() : text);
  };

  app.get(
    '/game/export/:gameId',
    {
      config: { lichess: true },
      preValidation: requireGame(games),
      schema: operation(
        'exportGame',
        "One game as PGN or JSON (lichess's export)",
        {
          description:
            'GameJson for Accept: application/json, else PGN; clocks=true by default. Outside /api/, but it needs a ' +
            'token as /api/ does when authentication is on.',
          params: GameIdParams,
          querystring: ExportOptions,
        },
        answers('application/json', 'the game'),
        [400, 401, 404, 429],
        EXPORT,
      ),
    },
    async (request, reply) => answerGame(request, reply, foundGame(request), request.query),
  );

  app.get(
    '/api/user/:id/current-game',
    {
      config: { lichess: true },
      schema: operation(
        'exportCurrentGame',
        "A player's ongoing game most recently changed, as PGN or JSON",
        {
          description:
            'As GET /game/export/{gameId}; 404 GAME_NOT_FOUND when the player has no ongoing game (lichess gives the ' +
            'last game instead).',
          params: PlayerParams,
          querystring: ExportOptions,
        },
        answers('application/json', 'the game'),
        [400, 401, 404, 429],
        EXPORT,
      ),
    },
    async (request, reply) => {
      const game = await exports.currentGame(request.params.id);
      if (!game) throw new DomainError('GAME_NOT_FOUND', `player ${request.params.id} has no ongoing game`);
      return answerGame(request, reply, game, request.query);
    },
  );
};
