/**
 * A player's games as lichess exports them (DECISIONS §22): lichess's GameJson (its published schema
 * `GameJson.yaml`), the query of `GET /api/games/user/{id}` and the options every export takes, declared once here
 * so that the domain's views (`domain/gameExport.ts`) return them, the routes validate with them and the OpenAPI
 * document describes them.
 */
import { Type, type Static } from 'typebox';
import { SPEEDS } from './challenges.ts';
import { LichessStatusName } from './lichess.ts';
import { ref } from './shapes.ts';

const Color = Type.Union([Type.Literal('white'), Type.Literal('black')]);

/** A seat as lichess's GamePlayerUser: the user, the rating the game began with (DECISIONS §21) and its change. */
export const ExportPlayer = Type.Object(
  {
    user: Type.Object({ id: Type.String(), name: Type.String({ description: 'the display name' }) }),
    rating: Type.Integer({ description: "a rated game's rating as it began; 1500 where none was recorded" }),
    ratingDiff: Type.Optional(Type.Integer({ description: 'the rating change, once a rated game is over' })),
    provisional: Type.Optional(Type.Boolean()),
    aiLevel: Type.Optional(Type.Integer({ minimum: 1, maximum: 8, description: "the computer's level" })),
  },
  { $id: 'ExportPlayer', description: "lichess's GamePlayerUser" },
);
export type ExportPlayer = Static<typeof ExportPlayer>;

export const GameJson = Type.Object(
  {
    id: Type.String(),
    rated: Type.Boolean(),
    variant: Type.Enum(['standard', 'fromPosition']),
    speed: Type.Enum(SPEEDS),
    perf: Type.Enum(SPEEDS, { description: 'the speed: unlimited games are correspondence' }),
    createdAt: Type.Integer({ description: 'ms since the epoch' }),
    lastMoveAt: Type.Integer({
      description: "ms since the epoch: when the clock last started (a clocked game's last move), else createdAt",
    }),
    status: ref(LichessStatusName),
    source: Type.Optional(Type.Enum(['lobby', 'friend', 'ai'])),
    players: Type.Object({ white: ref(ExportPlayer), black: ref(ExportPlayer) }),
    initialFen: Type.Optional(Type.String({ description: 'the start of a game from a position' })),
    winner: Type.Optional(Color),
    moves: Type.Optional(Type.String({ description: 'SAN, separated by spaces (moves=true, the default)' })),
    pgn: Type.Optional(Type.String({ description: 'the whole PGN (pgnInJson=true)' })),
    daysPerTurn: Type.Optional(Type.Integer({ description: 'a correspondence game' })),
    clock: Type.Optional(
      Type.Object({
        initial: Type.Integer({ description: 's' }),
        increment: Type.Integer({ description: 's' }),
        totalTime: Type.Integer({ description: 's: initial + 40 x increment' }),
      }),
    ),
    clocks: Type.Optional(
      Type.Array(Type.Integer(), {
        description: "clocks=true: the mover's time left after each move, in centiseconds",
      }),
    ),
    lastFen: Type.Optional(Type.String({ description: 'lastFen=true: the FEN of the position now' })),
  },
  { $id: 'GameJson', description: "lichess's GameJson: a game as lichess exports it" },
);
export type GameJson = Static<typeof GameJson>;

const Flag = (description: string) => Type.Boolean({ description });

/** What every export includes, with lichess's defaults (`clocks` is true by default on one game's export). */
export const ExportOptions = Type.Object({
  moves: Type.Optional(Flag('include the moves (default true)')),
  tags: Type.Optional(Flag('include the PGN tags (default true)')),
  clocks: Type.Optional(
    Flag("include the clocks: [%clk] comments in PGN, `clocks` in JSON (default false; true for one game's export)"),
  ),
  pgnInJson: Type.Optional(Flag('NDJSON: include the whole PGN in `pgn` (default false)')),
  lastFen: Type.Optional(Flag('NDJSON: include the FEN of the position now in `lastFen` (default false)')),
});
export type ExportOptions = Static<typeof ExportOptions>;

/** lichess's perf types this service has: the speeds (a comma-separated list of them). */
export const PERF_LIST_PATTERN = `^(${SPEEDS.join('|')})(,(${SPEEDS.join('|')}))*$`;

/** The query of `GET /api/games/user/{id}`: lichess's filters, then the options. */
export const PlayerGamesQuery = Type.Object({
  since: Type.Optional(Type.Integer({ minimum: 0, description: 'created at or after, ms since the epoch' })),
  until: Type.Optional(Type.Integer({ minimum: 0, description: 'created at or before, ms since the epoch' })),
  max: Type.Optional(Type.Integer({ minimum: 1, description: 'how many games at most (default: all)' })),
  vs: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "only games against this player's id" })),
  rated: Type.Optional(Flag('only rated (true) or casual (false) games')),
  perfType: Type.Optional(
    Type.String({
      pattern: PERF_LIST_PATTERN,
      maxLength: 100,
      description: 'only games of these speeds, comma-separated (unlimited games are correspondence)',
    }),
  ),
  color: Type.Optional(Type.Enum(['white', 'black'], { description: 'only games played as this colour' })),
  finished: Type.Optional(Flag('include finished games (default true)')),
  ongoing: Type.Optional(Flag('include ongoing games (default false)')),
  sort: Type.Optional(Type.Enum(['dateDesc', 'dateAsc'], { description: 'by creation time (default dateDesc)' })),
  ...ExportOptions.properties,
});
export type PlayerGamesQuery = Static<typeof PlayerGamesQuery>;

export const EXPORT_SCHEMAS = [ExportPlayer, GameJson];
