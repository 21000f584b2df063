/**
 * lichess's shapes as the lichess paths send them (DECISIONS §17), after its published schemas (GameFullEvent,
 * GameStateEvent, GameEventInfo, ChatLineEvent, OpponentGoneEvent, the token test's answer): declared once here,
 * their types derived, so that the domain's views (`domain/lichess.ts`) return them and the OpenAPI document
 * describes them.
 */
import { Type, type Static } from 'typebox';
import { ref } from './shapes.ts';
import { SPEEDS } from './challenges.ts';

const Color = Type.Union([Type.Literal('white'), Type.Literal('black')]);

/** lichess's status names (GameStatusName). */
export const LICHESS_STATUSES = [
  'created',
  'started',
  'aborted',
  'mate',
  'resign',
  'stalemate',
  'timeout',
  'draw',
  'outoftime',
] as const;

export const LichessStatusName = Type.Enum(LICHESS_STATUSES, { $id: 'LichessStatusName' });
export type LichessStatus = Static<typeof LichessStatusName>;

const Variant = Type.Object(
  { key: Type.Enum(['standard', 'fromPosition']), name: Type.String(), short: Type.String() },
  { description: 'standard, or fromPosition for a game from a FEN' },
);

export const LichessGameState = Type.Object(
  {
    type: Type.Literal('gameState'),
    moves: Type.String({ description: 'the moves played, UCI, separated by spaces' }),
    wtime: Type.Integer({ description: "white's time left, ms (2147483647 without a clock)" }),
    btime: Type.Integer({ description: "black's time left, ms (2147483647 without a clock)" }),
    winc: Type.Integer({ description: "white's increment, ms" }),
    binc: Type.Integer({ description: "black's increment, ms" }),
    status: ref(LichessStatusName),
    winner: Type.Optional(Color),
    wdraw: Type.Optional(Type.Boolean({ description: 'white offers a draw' })),
    bdraw: Type.Optional(Type.Boolean({ description: 'black offers a draw' })),
    wtakeback: Type.Optional(Type.Boolean({ description: 'white proposes a takeback' })),
    btakeback: Type.Optional(Type.Boolean({ description: 'black proposes a takeback' })),
  },
  { $id: 'LichessGameState', description: "lichess's GameStateEvent: a game stream's line per change" },
);
export type LichessGameState = Static<typeof LichessGameState>;

export const LichessPlayer = Type.Object(
  {
    id: Type.String(),
    name: Type.String({ description: 'the display name' }),
    // OpenAPI 3.0's nullable enum: null among the values, which a union of the literal and null would not say.
    title: Type.Unsafe<'BOT' | null>({ type: 'string', enum: ['BOT', null], nullable: true }),
    rating: Type.Integer({ description: 'no ratings yet: 1500' }),
    provisional: Type.Boolean(),
    aiLevel: Type.Optional(Type.Integer({ minimum: 1, maximum: 8, description: "the computer's level" })),
  },
  { $id: 'LichessPlayer', description: "lichess's GameEventPlayer" },
);
export type LichessPlayer = Static<typeof LichessPlayer>;

export const LichessGameFull = Type.Object(
  {
    type: Type.Literal('gameFull'),
    id: Type.String(),
    variant: Variant,
    clock: Type.Optional(
      Type.Object({ initial: Type.Integer({ description: 'ms' }), increment: Type.Integer({ description: 'ms' }) }),
    ),
    daysPerTurn: Type.Optional(Type.Integer({ description: 'a correspondence game' })),
    speed: Type.Enum(SPEEDS),
    perf: Type.Object({ name: Type.String() }),
    rated: Type.Boolean(),
    createdAt: Type.Integer({ description: 'ms since the epoch' }),
    white: ref(LichessPlayer),
    black: ref(LichessPlayer),
    initialFen: Type.String({ description: 'startpos, or the FEN the game started from' }),
    state: ref(LichessGameState),
  },
  { $id: 'LichessGameFull', description: "lichess's GameFullEvent: a game stream's first line" },
);
export type LichessGameFull = Static<typeof LichessGameFull>;

export const OpponentGone = Type.Object(
  {
    type: Type.Literal('opponentGone'),
    gone: Type.Boolean(),
    claimWinInSeconds: Type.Optional(
      Type.Integer({ minimum: 0, description: 'while gone: seconds until claim-victory is open' }),
    ),
  },
  { $id: 'OpponentGone', description: "lichess's OpponentGoneEvent: the other player left the game, or came back" },
);
export type OpponentGone = Static<typeof OpponentGone>;

const Opponent = Type.Union([
  Type.Object({
    id: Type.String(),
    username: Type.String(),
    rating: Type.Integer(),
    ratingDiff: Type.Optional(Type.Integer({ description: 'a rated game over: their rating change' })),
  }),
  Type.Object({ id: Type.Null(), username: Type.String(), ai: Type.Integer({ description: "the computer's level" }) }),
]);

export const GameEventInfo = Type.Object(
  {
    id: Type.String(),
    gameId: Type.String(),
    fullId: Type.String({ description: 'the game id and 4 characters fixed for the player' }),
    color: Color,
    fen: Type.String(),
    lastMove: Type.String({ description: 'UCI; empty before the first move' }),
    source: Type.Enum(['lobby', 'friend', 'ai'], { description: 'lobby: paired from seeks; ai: the computer' }),
    status: Type.Object({ id: Type.Integer(), name: ref(LichessStatusName) }),
    variant: Variant,
    speed: Type.Enum(SPEEDS),
    perf: Type.String(),
    rating: Type.Optional(Type.Integer({ description: "the player's rating when the game began" })),
    rated: Type.Boolean(),
    hasMoved: Type.Boolean(),
    opponent: Opponent,
    isMyTurn: Type.Boolean(),
    secondsLeft: Type.Integer(),
    winner: Type.Optional(Color),
    ratingDiff: Type.Optional(Type.Integer({ description: "a rated game over: the player's rating change" })),
    compat: Type.Object({ bot: Type.Boolean(), board: Type.Boolean() }),
  },
  { $id: 'GameEventInfo', description: "lichess's GameEventInfo: a game as one of its players sees it" },
);
export type GameEventInfo = Static<typeof GameEventInfo>;

/** A lichess user in the bots online (`GET /api/bot/online`, one per line). */
export const BotOnlineUser = Type.Object(
  { id: Type.String(), username: Type.String(), title: Type.Literal('BOT') },
  { $id: 'BotOnlineUser' },
);

export const NowPlaying = Type.Object(
  {
    nowPlaying: Type.Array(
      Type.Intersect([
        Type.Omit(GameEventInfo, ['status', 'opponent']),
        Type.Object({
          status: ref(LichessStatusName),
          opponent: Type.Object({
            id: Type.String(),
            username: Type.String(),
            rating: Type.Optional(Type.Integer()),
            ai: Type.Optional(Type.Integer()),
          }),
        }),
      ]),
      { description: "the player's ongoing games, the most urgent first" },
    ),
    nbMyTurn: Type.Integer(),
  },
  { $id: 'NowPlaying', description: "GET /api/account/playing: lichess's shape" },
);

/** A token as lichess's token test tells it: its player, its scopes and when it expires. */
export const TestedToken = Type.Object({
  userId: Type.String({ description: "the id of the token's player" }),
  scopes: Type.String({ description: "the token's scopes, comma-separated, e.g. board:play,challenge:read" }),
  expires: Type.Union([Type.Integer(), Type.Null()], {
    description: 'when it expires, in ms since the epoch; null: never (until revoked)',
  }),
});
export type TestedToken = Static<typeof TestedToken>;

export const TokenTest = Type.Object(
  {},
  {
    $id: 'TokenTest',
    additionalProperties: Type.Union([TestedToken, Type.Null()]),
    description: 'POST /api/token/test: each token given, as lichess answers it; null for an unknown or revoked one',
  },
);

export const LICHESS_SCHEMAS = [
  LichessStatusName,
  LichessGameState,
  LichessPlayer,
  LichessGameFull,
  OpponentGone,
  GameEventInfo,
  BotOnlineUser,
  NowPlaying,
  TokenTest,
];

export type Speed = (typeof SPEEDS)[number];
