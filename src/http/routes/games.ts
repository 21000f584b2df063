/**
 * The REST operations of SPEC §Endpoints under `/api/board/game`. Handlers are thin: validated input in,
 * one service call, a view out.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static, type TObject, type TSchema } from 'typebox';
import type { Change, Game } from '../../domain/game.ts';
import type { Result } from '../../domain/errors.ts';
import type { Actor } from '../../domain/seats.ts';
import {
  abort,
  drawAction,
  makeMove,
  moveOfferingDraw,
  redo,
  resign,
  takebackAction,
  undo,
} from '../../domain/transitions.ts';
import { exportPgn } from '../../domain/pgn.ts';
import { engineSeatRefusal } from '../../domain/engineSeat.ts';
import { fenOf, gameFullOf, isTicking, legalMovesOf, stateJsonOf } from '../../domain/views.ts';
import type { GameService } from '../../service/games.ts';
import type { Metrics } from '../metrics.ts';
import { foundGame, requireGame } from '../requireGame.ts';
import {
  CreateGameRequest,
  GameFull,
  GamePage,
  GameState,
  ImportFenRequest,
  ImportPgnRequest,
  LegalMovesResponse,
  OkResponse,
  ref,
} from '../../contract/shapes.ts';
import { DrawParams, GameIdParams, ListQuery, MoveParams, MovesQuery, TakebackParams, operation } from '../schemas.ts';
import type { ListingCursors } from '../cursors.ts';

export interface GameRoutesOptions {
  games: GameService;
  publicUrl: string | undefined; // e.g. 'https://chess.example.org'
  metrics: Metrics;
  cursors: ListingCursors; // the listing's signed cursors
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The errors every operation on one game can answer, besides its own; creations have no game to miss; changes
 * and creations can be refused to a player for their seat (403, DECISIONS §13).
 */
const GAME_ERRORS = [400, 401, 404, 429] as const;
const CHANGE_ERRORS = [400, 401, 403, 404, 429] as const;
/** Undo and redo are refused in a rated game (409, DECISIONS §21). */
const REWIND_ERRORS = [...CHANGE_ERRORS, 409] as const;
const CREATE_ERRORS = [400, 401, 403, 429] as const;

/** A creation's schema: its body, and the game made, as its GameFull (201). */
const creation = <Body extends TSchema>(operationId: string, summary: string, body: Body) =>
  operation(operationId, summary, { body }, { 201: ref(GameFull) }, CREATE_ERRORS);

/** The computer's seat is never given by a request (DECISIONS §16a): it plays through `POST /api/challenge/ai`. */
function refuseEngineSeats(seats: Parameters<typeof engineSeatRefusal>[0]): void {
  const refusal = engineSeatRefusal(seats);
  if (refusal) throw refusal;
}

/**
 * Answers of reads, serialized once per game version (a Game never changes; a change makes a new one) with
 * the route's own response serializer: a game read many times between two moves costs a lookup per read. A game
 * whose clock runs is the exception: its state tells the time left now, so it is made for each read.
 */
const gameFullJson = new WeakMap<Game, string>();
const legalMovesJson = new WeakMap<Game, string>();

/**
 * Answers a change with the state of its event, serialized once for the answer, the change log and the streams
 * (a state is as long as its game).
 */
const sendState = (reply: FastifyReply, event: Change['event']) => reply.type(JSON_TYPE).send(stateJsonOf(event));

/** Sends the view of `game` from `cache`, serializing `view()` with the route's 200 schema on a miss. */
function sendCached(reply: FastifyReply, cache: WeakMap<Game, string>, game: Game, view: () => unknown): void {
  let json = cache.get(game);
  if (json === undefined) {
    json = reply.serialize(view()) as string;
    cache.set(game, json);
  }
  void reply.type(JSON_TYPE).send(json);
}

/**
 * A change of one game that differs from the others only by its path (under `/:gameId/`), operation, parameters and
 * transition (the move aside: it counts moves and takes lichess's draw offer): it answers the state after it
 * (`answersState`: undo, redo) or `{ok: true}`.
 */
interface ChangeRoute<P extends TObject> {
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  params: P;
  answersState?: true;
  transition: (game: Game, now: number, request: { params: Static<P>; actor: Actor }) => Result<Change>;
}

/** Types a row of CHANGES by its parameters. */
const change = <P extends TObject>(route: ChangeRoute<P>): ChangeRoute<P> => route;

const CHANGES = {
  resign: change({
    path: 'resign',
    operationId: 'resignGame',
    summary: "The side to move resigns (a player: their own side, on either side's turn)",
    params: GameIdParams,
    transition: (game, now, { actor }) => resign(game, actor, now),
  }),
  undo: change({
    path: 'undo',
    operationId: 'undoMove',
    summary: 'Take back the last move',
    params: GameIdParams,
    answersState: true,
    transition: (game, now, { actor }) => undo(game, actor, now),
  }),
  redo: change({
    path: 'redo',
    operationId: 'redoMove',
    summary: 'Replay the last move taken back',
    params: GameIdParams,
    answersState: true,
    transition: (game, now, { actor }) => redo(game, actor, now),
  }),
  draw: change({
    path: 'draw/:action',
    operationId: 'drawAction',
    summary: 'Offer, accept, decline or claim a draw',
    params: DrawParams,
    transition: (game, now, { params, actor }) => drawAction(game, params.action, actor, now),
  }),
  takeback: change({
    path: 'takeback/:action',
    operationId: 'takebackAction',
    summary: 'Offer, accept or decline a takeback',
    description:
      'An accepted takeback takes back the last move of the side that offered it and the reply made since, if any, so that it is to move again.',
    params: TakebackParams,
    transition: (game, now, { params, actor }) => takebackAction(game, params.action, actor, now),
  }),
  abort: change({
    path: 'abort',
    operationId: 'abortGame',
    summary: 'End a clocked game before both sides have moved once',
    description:
      'A clocked game ends as aborted, without a winner, while not both sides have made their first move; later, or on an untimed game, ABORT_NOT_AVAILABLE.',
    params: GameIdParams,
    transition: (game, now, { actor }) => abort(game, actor, now),
  }),
};

export const gameRoutes: FastifyPluginAsync<GameRoutesOptions> = async (
  fastify,
  { games, publicUrl, metrics, cursors },
) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  const gameExists = requireGame(games);
  // Changes read the game themselves (GameService.change): the hook only judges that it exists.
  const gameToChange = requireGame(games, { current: false });

  /** A creation's answer: the game made, counted, as its GameFull with 201. */
  async function created(reply: FastifyReply, made: Promise<Game>): Promise<FastifyReply> {
    const game = await made;
    metrics.gamesCreated.inc();
    return reply.code(201).send(gameFullOf(game, games.now()));
  }

  /** Registers a change of the table: its transition for the request's actor, answered with the state or {ok: true}. */
  function changeRoute<P extends TObject>(route: ChangeRoute<P>): void {
    const { path, operationId, summary, description, params, answersState, transition } = route;
    const inputs = description === undefined ? { params } : { description, params };
    app.post(
      `/:gameId/${path}`,
      {
        preValidation: gameToChange,
        schema: operation(
          operationId,
          summary,
          inputs,
          { 200: ref(answersState ? GameState : OkResponse) },
          answersState ? REWIND_ERRORS : CHANGE_ERRORS,
        ),
      },
      async (request, reply) => {
        const values = request.params as Static<P> & { gameId: string };
        const asked = { params: values, actor: request.actor };
        const { event } = await games.change(values.gameId, (game, now) => transition(game, now, asked));
        return answersState ? sendState(reply, event) : { ok: true as const };
      },
    );
  }

  app.post(
    '',
    {
      // The body is optional: no body (or an empty one) is an empty request.
      preValidation: (request, _reply, done) => {
        // Only a missing body is an empty request; a JSON `null` is a body of the wrong type.
        const raw = request as { body: unknown };
        if (raw.body === undefined) raw.body = {};
        done();
      },
      schema: creation('createGame', 'Create a game at the initial position', Type.Optional(ref(CreateGameRequest))),
    },
    async (request, reply) => {
      const { white, black, clock } = request.body;
      refuseEngineSeats({ white, black });
      return created(reply, games.create({ white, black, clock }, request.actor));
    },
  );

  app.get(
    '',
    {
      schema: operation(
        'listGames',
        "A player's games, or all games, most recently changed first",
        {
          description:
            'Without player, a player token lists its own games; another caller, every game. Pages follow with ' +
            'nextCursor; a page never repeats or skips a game that did not change meanwhile.',
          querystring: ListQuery,
        },
        { 200: ref(GamePage) },
        [400, 401, 429],
      ),
    },
    async request => {
      const { player: named, status = 'all', limit = 50, cursor } = request.query;
      const player = named ?? (request.actor.kind === 'player' ? request.actor.player.id : undefined);
      const list = { player, status };
      const page = await games.list({ player, status, limit, before: cursors.parse(cursor, list) });
      const now = games.now();
      return {
        games: page.games.map(game => gameFullOf(game, now)),
        nextCursor: page.next === undefined ? null : cursors.make(page.next, list),
      };
    },
  );

  app.post(
    '/import/fen',
    { schema: creation('importFen', 'Create a game from a FEN position', ref(ImportFenRequest)) },
    async (request, reply) => {
      const { fen, white, black, clock } = request.body;
      refuseEngineSeats({ white, black });
      return created(reply, games.importFen({ white, black, clock }, fen, request.actor));
    },
  );

  app.post(
    '/import/pgn',
    { schema: creation('importPgn', 'Create a game by replaying a PGN', ref(ImportPgnRequest)) },
    async (request, reply) => created(reply, games.importPgn(request.body.pgn, request.actor, request.body.clock)),
  );

  app.get(
    '/:gameId',
    {
      preValidation: gameExists,
      schema: operation(
        'getGame',
        'The current full state of a game',
        { params: GameIdParams },
        { 200: ref(GameFull) },
        GAME_ERRORS,
      ),
    },
    (request, reply) => {
      const game = foundGame(request);
      if (isTicking(game)) void reply.send(gameFullOf(game, games.now()));
      else sendCached(reply, gameFullJson, game, () => gameFullOf(game, games.now()));
    },
  );

  changeRoute(CHANGES.resign);

  app.post(
    '/:gameId/move/:uci',
    {
      preValidation: gameToChange,
      schema: operation(
        'makeMove',
        'Play a move in UCI notation',
        {
          description:
            'A pawn move to the last rank without a promotion character answers status promotionPending and is not ' +
            "applied. lichess's offeringDraw=true also offers a draw with the move, or agrees to the opponent's pending " +
            'offer (the game is drawn): one change, answered with the state after it. A move that ends the game is ' +
            'answered as the move.',
          params: MoveParams,
        },
        { 200: ref(GameState) },
        CHANGE_ERRORS,
      ),
    },
    async (request, reply) => {
      const { gameId, uci } = request.params;
      const { actor } = request;
      // lichess's Board API sends ?offeringDraw=true with a move (DECISIONS §17, §16a); no schema, so a move pays
      // nothing. The move and the offer (or the agreement to the opponent's) are one change.
      const offering = (request.query as { offeringDraw?: unknown }).offeringDraw === 'true';
      const { event } = await games.change(gameId, (game, now) =>
        offering ? moveOfferingDraw(game, uci, actor, now) : makeMove(game, uci, actor, now),
      );
      if (event.state.status !== 'promotionPending') metrics.movesApplied.inc();
      return sendState(reply, event);
    },
  );

  app.get(
    '/:gameId/moves',
    {
      preValidation: gameExists,
      schema: operation(
        'getLegalMoves',
        'Legal moves of the side to move',
        { params: GameIdParams, querystring: MovesQuery },
        { 200: ref(LegalMovesResponse) },
        GAME_ERRORS,
      ),
    },
    (request, reply) => {
      const game = foundGame(request);
      const { square } = request.query;
      if (square !== undefined) void reply.send({ moves: legalMovesOf(game, square) });
      else sendCached(reply, legalMovesJson, game, () => ({ moves: legalMovesOf(game) }));
    },
  );

  // The document lists the operations in the order they are registered: resign stands before the move, as it did.
  for (const change of [CHANGES.undo, CHANGES.redo, CHANGES.draw, CHANGES.takeback, CHANGES.abort]) changeRoute(change);

  // The exports, alike but for the path, the operation, the media type and the text.
  const site = (game: Game) => (publicUrl ? `${publicUrl}/game/${game.record.id}` : '?');
  for (const { format, operationId, summary, type, text } of [
    {
      format: 'fen',
      operationId: 'exportFen',
      summary: 'The FEN of the current position',
      type: 'text/plain',
      text: fenOf,
    },
    {
      format: 'pgn',
      operationId: 'exportPgn',
      summary: 'The whole game as PGN',
      type: 'application/x-chess-pgn',
      text: (game: Game) => exportPgn(game, { site: site(game) }),
    },
  ]) {
    const answer = { description: format.toUpperCase(), content: { [type]: { schema: Type.String() } } };
    app.get(
      `/:gameId/export/${format}`,
      {
        preValidation: gameExists,
        schema: operation(operationId, summary, { params: GameIdParams }, { 200: answer }, GAME_ERRORS),
      },
      async (request, reply) => reply.type(`${type}; charset=utf-8`).send(text(foundGame(request))),
    );
  }
};
