/**
 * The API's shapes, each declared once as a TypeBox schema with its TypeScript type derived from it (`Static`):
 * the routes validate and serialize with the schemas and document them in OpenAPI, the domain's view builders
 * return the types, and the board page imports the types alone (`import type`, which the bundler erases).
 * Shared schemas carry an `$id`, are registered once with `addSchema` and referenced with `ref()`.
 *
 * ```ts
 * import type { GameState } from '../contract/shapes.ts';
 * const state: GameState = gameStateOf(game);
 * ```
 */
import { Type, type Static, type TSchema } from 'typebox';
import { ERROR_CODES, GAME_ID_PATTERN, GAME_STATUSES, MOVE_TYPES, PROMOTION_PIECES } from './vocabulary.ts';

/** lichess's speeds, which are also the perfs a player is rated in (DECISIONS §21). */
export const SPEED_KEYS = ['ultraBullet', 'bullet', 'blitz', 'rapid', 'classical', 'correspondence'] as const;

/** A `$ref` to a registered schema that keeps the static type of the schema it points to. */
export const ref = <T extends TSchema>(schema: T) => {
  const id = (schema as { $id?: unknown }).$id;
  if (typeof id !== 'string') throw new Error('ref() needs a schema with an $id');
  return Type.Unsafe<Static<T>>(Type.Ref(`${id}#`));
};

/**
 * No control character of any kind (Unicode Cc: C0, DEL and C1), as a pattern every regex engine reads alike
 * (DECISIONS §19: no `\p{...}`, no surrogate ranges). The other half of DECISIONS §15's rule, no unpaired
 * surrogate, is the format `WELL_FORMED` (the service checks it; a client may not).
 */
export const NO_CONTROL_CHARACTERS = '^[^\\u0000-\\u001F\\u007F-\\u009F]*$';

/** A string format: well-formed Unicode, with no unpaired surrogate (`String.prototype.isWellFormed`). */
export const WELL_FORMED = 'well-formed-unicode';

/** Text that people write (names, chat): no control character, no unpaired surrogate. */
export const PLAIN_TEXT = {
  pattern: NO_CONTROL_CHARACTERS,
  format: WELL_FORMED,
} as const;

const Color = Type.Union([Type.Literal('white'), Type.Literal('black')]);

export const PlayerInfo = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 64,
      ...PLAIN_TEXT,
      description: 'unique player identifier; no control characters, no unpaired surrogates',
    }),
    displayName: Type.String({
      minLength: 1,
      maxLength: 100,
      ...PLAIN_TEXT,
      description: 'human-readable name; no control characters, no unpaired surrogates',
    }),
  },
  { $id: 'PlayerInfo' },
);
export type PlayerInfo = Static<typeof PlayerInfo>;

export const GameStatus = Type.Enum(GAME_STATUSES, { $id: 'GameStatus' });

export const GameState = Type.Object(
  {
    fen: Type.String({ description: 'FEN of the current position' }),
    pgn: Type.String({ description: 'PGN movetext of the whole game so far' }),
    turn: Color,
    status: ref(GameStatus),
    winner: Type.Union([Color, Type.Null()], { description: 'set when status is checkmate or resign' }),
    moves: Type.Array(Type.String(), { description: 'all moves played so far, UCI, in order' }),
    undoAvailable: Type.Boolean(),
    redoAvailable: Type.Boolean(),
    drawOfferedBy: Type.Union([Color, Type.Null()], { description: 'the side whose draw offer is pending' }),
    takebackOfferedBy: Type.Union([Color, Type.Null()], { description: 'the side whose takeback offer is pending' }),
    wtime: Type.Optional(Type.Integer({ description: "real-time clock: white's time left (ms) at serverTime" })),
    btime: Type.Optional(Type.Integer({ description: "real-time clock: black's time left (ms) at serverTime" })),
    winc: Type.Optional(Type.Integer({ description: "real-time clock: white's increment (ms)" })),
    binc: Type.Optional(Type.Integer({ description: "real-time clock: black's increment (ms)" })),
    serverTime: Type.Optional(
      Type.Integer({ description: 'real-time clock: when the times were read (ms since the epoch)' }),
    ),
    deadline: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description:
          'correspondence clock: when the side to move runs out (ISO 8601); null while no clock runs (before both sides have moved, after the end)',
      }),
    ),
  },
  { $id: 'GameState' },
);
export type GameState = Static<typeof GameState>;

/** A game's time control as given: real time in milliseconds, or correspondence days per move. */
export const Clock = Type.Union(
  [Type.Object({ initial: Type.Integer(), increment: Type.Integer() }), Type.Object({ daysPerMove: Type.Integer() })],
  { $id: 'Clock' },
);

/** A real-time clock as asked for: milliseconds for each side, and added per move. */
export const RealTimeClock = Type.Object(
  {
    initial: Type.Integer({ minimum: 1_000, maximum: 10_800_000, description: 'ms for each side' }),
    increment: Type.Integer({ minimum: 0, maximum: 180_000, description: 'ms added per move' }),
  },
  { $id: 'RealTimeClock' },
);

/** A correspondence clock as asked for: days for each move. */
export const CorrespondenceClock = Type.Object(
  { daysPerMove: Type.Integer({ minimum: 1, maximum: 14, description: 'days for each move' }) },
  { $id: 'CorrespondenceClock' },
);

/**
 * The `clock` of create and the imports (DECISIONS §14): exactly one of its two forms, `{initial, increment}`
 * (real time) or `{daysPerMove}` (correspondence), as a `oneOf` (DECISIONS §19). A bad clock's error names the
 * field of the form it was meant as (`clock.initial`), or `clock` when its fields are of neither or of both
 * (`http/errors.ts`, with `parseTimeControl`).
 */
export const ClockRequest = Type.Unsafe<Static<typeof RealTimeClock> | Static<typeof CorrespondenceClock>>({
  $id: 'ClockRequest',
  description: '{initial, increment} (real time, ms) or {daysPerMove} (correspondence)',
  oneOf: [{ $ref: 'RealTimeClock#' }, { $ref: 'CorrespondenceClock#' }],
});
export type ClockRequest = Static<typeof ClockRequest>;

/** A side of a game: its player and, in a game between players that records them, its rating (DECISIONS §21). */
export const GamePlayer = Type.Object(
  {
    ...PlayerInfo.properties,
    rating: Type.Optional(Type.Integer({ description: "the player's rating in the game's perf when it began" })),
    provisional: Type.Optional(Type.Boolean({ description: 'whether that rating was provisional' })),
    ratingDiff: Type.Optional(Type.Integer({ description: "a rated game's change of the rating, once it is over" })),
  },
  { $id: 'GamePlayer' },
);
export type GamePlayer = Static<typeof GamePlayer>;

export const GameFull = Type.Object(
  {
    gameId: Type.String({ pattern: GAME_ID_PATTERN }),
    white: ref(GamePlayer),
    black: ref(GamePlayer),
    state: ref(GameState),
    clock: Type.Union([ref(Clock), Type.Null()], { description: 'the time control as given; null: untimed' }),
    rated: Type.Optional(Type.Boolean({ description: 'true: a rated game (DECISIONS §21); absent: casual' })),
  },
  { $id: 'GameFull' },
);
export type GameFull = Static<typeof GameFull>;

export const LegalMove = Type.Object(
  {
    from: Type.String(),
    to: Type.String(),
    uci: Type.String(),
    moveType: Type.Enum(MOVE_TYPES),
    promotion: Type.Union([Type.Enum(PROMOTION_PIECES), Type.Null()]),
  },
  { $id: 'LegalMove' },
);
export type LegalMove = Static<typeof LegalMove>;

export const LegalMovesResponse = Type.Object({ moves: Type.Array(ref(LegalMove)) }, { $id: 'LegalMovesResponse' });

export const OkResponse = Type.Object({ ok: Type.Literal(true) }, { $id: 'OkResponse' });

export const ApiError = Type.Object(
  {
    code: Type.Enum(ERROR_CODES, { description: 'machine-readable error code' }),
    message: Type.String({ description: 'human-readable description' }),
    field: Type.Optional(
      Type.Union([Type.String(), Type.Null()], { description: 'request field that caused the error' }),
    ),
    error: Type.Optional(Type.String({ description: "the lichess paths only: the message again, as lichess's Error" })),
  },
  { $id: 'ApiError' },
);
export type ApiErrorBody = Static<typeof ApiError>;

/** The seats and the clock a new game is asked with, by a creation and by a FEN import. */
const NEW_GAME_FIELDS = {
  white: Type.Optional(ref(PlayerInfo)),
  black: Type.Optional(ref(PlayerInfo)),
  clock: Type.Optional(ref(ClockRequest)),
};

export const CreateGameRequest = Type.Object({ ...NEW_GAME_FIELDS }, { $id: 'CreateGameRequest' });
export type CreateGameRequest = Static<typeof CreateGameRequest>;

export const ImportFenRequest = Type.Object(
  { fen: Type.String({ description: 'complete FEN string with 6 fields' }), ...NEW_GAME_FIELDS },
  { $id: 'ImportFenRequest' },
);
export type ImportFenRequest = Static<typeof ImportFenRequest>;

export const ImportPgnRequest = Type.Object(
  { pgn: Type.String({ description: 'PGN text: headers and move list' }), clock: Type.Optional(ref(ClockRequest)) },
  { $id: 'ImportPgnRequest' },
);

export const TokenRequest = Type.Object(
  {
    player: ref(PlayerInfo),
    bot: Type.Optional(Type.Boolean({ description: "issue it as a bot's: the player becomes a bot, for good" })),
  },
  { $id: 'TokenRequest' },
);

export const TokenInfo = Type.Object(
  {
    id: Type.String({ description: "the token's public id, to list and revoke it" }),
    player: ref(PlayerInfo),
    createdAt: Type.String({ description: 'ISO 8601, e.g. 2026-01-31T12:00:00.000Z' }),
  },
  { $id: 'TokenInfo' },
);
export type TokenInfo = Static<typeof TokenInfo>;

export const IssuedToken = Type.Object(
  {
    id: Type.String({ description: "the token's public id, to list and revoke it" }),
    token: Type.String({ description: 'the secret, for Authorization: Bearer; shown this once only' }),
    player: ref(PlayerInfo),
    createdAt: Type.String({ description: 'ISO 8601, e.g. 2026-01-31T12:00:00.000Z' }),
  },
  { $id: 'IssuedToken' },
);
export type IssuedToken = Static<typeof IssuedToken>;

export const TokenList = Type.Object({ tokens: Type.Array(ref(TokenInfo)) }, { $id: 'TokenList' });

/** A perf as lichess shows it in a User (Perf): rating and deviation truncated, `prov` only while provisional. */
export const LichessPerf = Type.Object(
  {
    games: Type.Integer({ description: 'rated games played in this perf' }),
    rating: Type.Integer(),
    rd: Type.Integer({ description: 'the rating deviation, grown with the time since the last rated game' }),
    prog: Type.Integer({ description: 'the progress over the last rated games' }),
    prov: Type.Optional(Type.Literal(true, { description: 'present while the rating is provisional' })),
  },
  { $id: 'LichessPerf', description: "lichess's Perf (DECISIONS §21)" },
);
export type LichessPerf = Static<typeof LichessPerf>;

/** A player's perfs, every perf listed (a perf never played: a new player's), as lichess's Perfs. */
export const LichessPerfs = Type.Object(
  Object.fromEntries(SPEED_KEYS.map(speed => [speed, ref(LichessPerf)])) as Record<
    (typeof SPEED_KEYS)[number],
    ReturnType<typeof ref<typeof LichessPerf>>
  >,
  { $id: 'LichessPerfs', description: "lichess's Perfs: the ratings of a player, one per speed" },
);
export type LichessPerfs = Static<typeof LichessPerfs>;

export const Account = Type.Object(
  {
    player: Type.Union([ref(PlayerInfo), Type.Null()], {
      description: 'the player of a player token; null for a service token or without authentication (any side)',
    }),
    id: Type.Optional(Type.String({ description: "lichess's: the player's id (a player token only)" })),
    username: Type.Optional(Type.String({ description: "lichess's: the player's display name" })),
    title: Type.Optional(Type.Literal('BOT', { description: "lichess's: BOT for a bot, absent otherwise" })),
    url: Type.Optional(Type.String({ description: "lichess's: where the player is shown" })),
    perfs: Type.Optional(ref(LichessPerfs)),
  },
  { $id: 'Account' },
);
export type Account = Static<typeof Account>;

export const GamePage = Type.Object(
  {
    games: Type.Array(ref(GameFull), { description: 'most recently changed first' }),
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description: 'the cursor of the next page; null when no game follows',
    }),
  },
  { $id: 'GamePage' },
);
export type GamePage = Static<typeof GamePage>;

export const SHARED_SCHEMAS = [
  PlayerInfo,
  LichessPerf,
  LichessPerfs,
  GamePlayer,
  GameStatus,
  GameState,
  Clock,
  RealTimeClock,
  CorrespondenceClock,
  ClockRequest,
  GameFull,
  LegalMove,
  LegalMovesResponse,
  OkResponse,
  ApiError,
  CreateGameRequest,
  ImportFenRequest,
  ImportPgnRequest,
  TokenRequest,
  TokenInfo,
  IssuedToken,
  TokenList,
  Account,
  GamePage,
];
