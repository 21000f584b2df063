/**
 * The API's closed vocabularies and patterns, in one place for the domain, the routes and the board page: plain
 * constants, so that the page may import them (a few hundred bytes) without the schema library. Each list is the
 * source of its union type; the error table gives each code its HTTP status.
 *
 * ```ts
 * ENDED_STATUSES.has(state.status); // whether a GameState shows a finished game
 * ```
 */

export type Color = 'white' | 'black';

export const GAME_STATUSES = [
  'started',
  'check',
  'checkmate',
  'stalemate',
  'resign',
  'draw',
  'drawOffered',
  'fiftyMoveAvailable',
  'promotionPending',
  'insufficientMaterial',
  'outOfTime',
  'aborted',
  'timeout',
] as const;
export type GameStatus = (typeof GAME_STATUSES)[number];

/** Statuses that end the game. */
export const ENDED_STATUSES: ReadonlySet<GameStatus> = new Set([
  'checkmate',
  'stalemate',
  'resign',
  'draw',
  'insufficientMaterial',
  'outOfTime',
  'aborted',
  'timeout',
]);

export const MOVE_TYPES = ['normal', 'capture', 'castleKingside', 'castleQueenside', 'enPassant', 'promotion'] as const;
export type MoveType = (typeof MOVE_TYPES)[number];

export const PROMOTION_PIECES = ['queen', 'rook', 'bishop', 'knight'] as const;
export type PromotionPiece = (typeof PROMOTION_PIECES)[number];

export const DRAW_ACTIONS = ['offer', 'accept', 'decline', 'claim'] as const;
export type DrawAction = (typeof DRAW_ACTIONS)[number];

export const TAKEBACK_ACTIONS = ['offer', 'accept', 'decline'] as const;
export type TakebackAction = (typeof TAKEBACK_ACTIONS)[number];

/** The rooms of a game's chat (DECISIONS §17): its two players', and everyone's. */
export const CHAT_ROOMS = ['player', 'spectator'] as const;
export type ChatRoom = (typeof CHAT_ROOMS)[number];
/** The longest chat line, in characters (Unicode code points). */
export const MAX_CHAT_TEXT = 140;
/**
 * A character that shows, which a chat line must have (DECISIONS §16a): not a blank (Unicode White_Space, the
 * Braille blank U+2800) and not one drawn as nothing (Default_Ignorable_Code_Point: the byte-order mark, zero-width
 * spaces and joiners, fillers, variation selectors...).
 */
export const VISIBLE_CHARACTER = /[^\p{White_Space}\p{Default_Ignorable_Code_Point}\u2800]/u;

/** The player id of the computer's seat (DECISIONS §18): the engine plays as this player, and nobody else does. */
export const ENGINE_ID = 'stockfish';
/** The computer's levels (lichess's eight): what each one asks of the engine is in engine/levels.ts. */
export const ENGINE_LEVELS = [1, 2, 3, 4, 5, 6, 7, 8] as const;
export type EngineLevel = (typeof ENGINE_LEVELS)[number];

/** lichess's decline reasons, by key (its API sends them in lower case). */
export const DECLINE_REASONS = {
  generic: "I'm not accepting challenges at the moment.",
  later: 'This is not the right time for me, please ask again later.',
  toofast: 'This time control is too fast for me, please challenge again with a slower game.',
  tooslow: 'This time control is too slow for me, please challenge again with a faster game.',
  timecontrol: "I'm not accepting challenges with this time control.",
  rated: 'Please send me a rated challenge instead.',
  casual: 'Please send me a casual challenge instead.',
  standard: "I'm not accepting variant challenges right now.",
  variant: "I'm not willing to play this variant right now.",
  nobot: "I'm not accepting challenges from bots.",
  onlybot: "I'm only accepting challenges from bots.",
} as const;
export type DeclineReason = keyof typeof DECLINE_REASONS;

export const GAME_ID_PATTERN = '^[A-Za-z0-9]{8}$';
export const UCI_PATTERN = '^[a-h][1-8][a-h][1-8][qrbn]?$';
export const SQUARE_PATTERN = '^[a-h][1-8]$';

/** Every error code, with the HTTP status it is answered with (`http/errors.ts` turns them into responses). */
export const ERROR_STATUS = {
  INVALID_BODY: 400,
  INVALID_GAME_ID: 400,
  GAME_NOT_FOUND: 404,
  INVALID_UCI: 400,
  INVALID_MOVE: 400,
  INVALID_SQUARE: 400,
  INVALID_ACTION: 400,
  INVALID_FEN: 400,
  INVALID_PGN: 400,
  INVALID_QUERY: 400,
  GAME_OVER: 400,
  NO_UNDO: 400,
  NO_REDO: 400,
  NO_DRAW_OFFER: 400,
  DRAW_ALREADY_OFFERED: 400,
  CLAIM_NOT_AVAILABLE: 400,
  NO_MOVE_TO_TAKE_BACK: 400,
  TAKEBACK_ALREADY_OFFERED: 400,
  NO_TAKEBACK_OFFER: 400,
  ABORT_NOT_AVAILABLE: 400,
  INVALID_CHALLENGE: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  MISSING_SCOPE: 403,
  NOT_A_PLAYER: 403,
  NOT_YOUR_TURN: 403,
  TAKEBACK_NEEDS_CONSENT: 403,
  NOT_FOUND: 404,
  PLAYER_NOT_FOUND: 404,
  CHALLENGE_NOT_FOUND: 404,
  SEEK_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ALLOWED_IN_RATED: 409,
  BODY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** The perfs (lichess's speeds) by the names lichess writes them in: "Rated Blitz game", the leaderboards, the player card. */
export const PERF_NAMES = {
  ultraBullet: 'UltraBullet',
  bullet: 'Bullet',
  blitz: 'Blitz',
  rapid: 'Rapid',
  classical: 'Classical',
  correspondence: 'Correspondence',
} as const;
