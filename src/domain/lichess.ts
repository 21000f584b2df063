/**
 * The lichess dialect (DECISIONS §17) as views of the domain: what a game looks like to a program written for
 * lichess's Board and Bot APIs. Nothing here decides anything about chess; each function reads a game, or one of
 * the seed's own views of it, and writes lichess's shape (its published schemas: GameFullEvent, GameStateEvent,
 * GameEventInfo). The routes and the streams of the lichess paths call these, never rebuild them.
 *
 * - Status names: checkmate → `mate`, outOfTime → `outoftime`, every draw → `draw`, the in-progress statuses →
 *   `started`, a win claimed after the opponent left → `timeout`.
 * - Times in milliseconds; an unlimited game has no `clock` in gameFull and 2147483647 as its times.
 * - Players carry their ratings as the game recorded them when it began (DECISIONS §21), and `ratingDiff` once a
 *   rated game is over; a side whose game records none (the computer's, a board's) lichess's neutral 1500,
 *   provisional.
 *
 * ```ts
 * lichessGameFull(game, now); // { type: 'gameFull', id, variant, clock, speed, perf, rated, createdAt, white, ... }
 * lichessGameState(gameStateOf(game, now)); // { type: 'gameState', moves: 'e2e4 e7e5', wtime, btime, ... }
 * gameEventInfoOf(eventGameOf(game, now), 'ann', now); // lichess's GameEventInfo for Ann's event stream
 * lichessChatLine(line); // { type: 'chatLine', room: 'player', username: 'Ann', text: 'good luck' }
 * ```
 */
import type { GameFull, GamePlayer, GameState, PlayerInfo } from '../contract/shapes.ts';
import { parseSquare } from 'chessops/util';
import type { Color, DrawAction, GameStatus, TakebackAction } from '../contract/vocabulary.ts';
import { isCorrespondence, type TimeControl } from './clock.ts';
import type { ChatLine } from './chat.ts';
import type { ChatLineEvent, PlayerGameChat } from '../contract/chat.ts';
import type {
  GameEventInfo,
  LichessGameFull,
  LichessGameState,
  LichessPlayer,
  LichessStatus,
  Speed,
} from '../contract/lichess.ts';
import type { Game, SeatRating } from './game.ts';
import { INITIAL_FEN } from './notation.ts';
import { sidesOf, type Actor } from './seats.ts';
import { engineLevelOf } from './engineSeat.ts';
import { gameFullOf, gameStateOf } from './views.ts';
import { PERF_NAMES } from '../contract/vocabulary.ts';

/** lichess's speed of a clock: estimate = limit + 40 × increment (seconds); days and none: correspondence. */
export function speedOfClock(limitSeconds: number | null, incrementSeconds = 0): Speed {
  if (limitSeconds === null) return 'correspondence';
  const estimate = limitSeconds + 40 * incrementSeconds;
  if (estimate < 30) return 'ultraBullet';
  if (estimate < 180) return 'bullet';
  if (estimate < 480) return 'blitz';
  if (estimate < 1500) return 'rapid';
  return 'classical';
}

/** The speed of a game's time control (none: unlimited, correspondence to lichess). */
export function speedOfControl(control: TimeControl | null | undefined): Speed {
  if (!control || isCorrespondence(control)) return 'correspondence';
  return speedOfClock(control.initial / 1000, control.increment / 1000);
}

export { PERF_NAMES };

const STATUS_NAMES: Record<GameStatus, LichessStatus> = {
  started: 'started',
  check: 'started',
  drawOffered: 'started',
  fiftyMoveAvailable: 'started',
  promotionPending: 'started',
  checkmate: 'mate',
  stalemate: 'stalemate',
  resign: 'resign',
  draw: 'draw',
  insufficientMaterial: 'draw',
  outOfTime: 'outoftime',
  aborted: 'aborted',
  timeout: 'timeout',
};

/** lichess's status ids (GameStatusId), by name. */
const STATUS_IDS: Record<LichessStatus, number> = {
  created: 10,
  started: 20,
  aborted: 25,
  mate: 30,
  resign: 31,
  stalemate: 32,
  timeout: 33,
  draw: 34,
  outoftime: 35,
};

export const lichessStatus = (status: GameStatus): LichessStatus => STATUS_NAMES[status];

/** lichess's GameStatus object (`{id, name}`) of a seed status. */
export function lichessStatusObject(status: GameStatus): { id: number; name: LichessStatus } {
  const name = STATUS_NAMES[status];
  return { id: STATUS_IDS[name], name };
}

/** What lichess sends as the times of a game without a clock. */
export const NO_CLOCK_MS = 2_147_483_647;

const STANDARD = { key: 'standard', name: 'Standard', short: 'Std' } as const;
const FROM_POSITION = { key: 'fromPosition', name: 'From Position', short: 'FEN' } as const;

/** A seed GameState as lichess's gameState line. */
export function lichessGameState(state: GameState): LichessGameState {
  const line: LichessGameState = {
    type: 'gameState',
    moves: state.moves.join(' '),
    wtime: state.wtime ?? NO_CLOCK_MS,
    btime: state.btime ?? NO_CLOCK_MS,
    winc: state.winc ?? 0,
    binc: state.binc ?? 0,
    status: lichessStatus(state.status),
  };
  if (state.winner) line.winner = state.winner;
  if (state.drawOfferedBy === 'white') line.wdraw = true;
  if (state.drawOfferedBy === 'black') line.bdraw = true;
  if (state.takebackOfferedBy === 'white') line.wtakeback = true;
  if (state.takebackOfferedBy === 'black') line.btakeback = true;
  return line;
}

/**
 * A seat as lichess's GameEventPlayer. The computer's keeps its id and name (lichess's schema requires them) and
 * adds `aiLevel`.
 */
export function lichessPlayerOf(
  player: PlayerInfo,
  title: 'BOT' | null = null,
  rating: SeatRating = NEUTRAL_RATING,
): LichessPlayer {
  const seat: LichessPlayer = {
    id: player.id,
    name: player.displayName,
    title,
    rating: rating.rating,
    provisional: rating.provisional,
  };
  const level = engineLevelOf(player);
  return level === undefined ? seat : { ...seat, aiLevel: level };
}

/** What lichess's shapes show of a side whose game records no rating (the computer's, a board's): a new player's. */
const NEUTRAL_RATING: SeatRating = { rating: 1500, provisional: true };

/** Who of a game's players are bots (their `title`); none by default. */
export type TitleOf = (playerId: string) => 'BOT' | null;
const NO_TITLES: TitleOf = () => null;

/** A game as lichess's gameFull line, its clock read at `now`. */
export function lichessGameFull(game: Game, now: number, titleOf: TitleOf = NO_TITLES): LichessGameFull {
  const { record } = game;
  const control = record.clock?.control;
  const speed = speedOfControl(control);
  const fromStart = record.startFen === INITIAL_FEN;
  const full: LichessGameFull = {
    type: 'gameFull',
    id: record.id,
    variant: fromStart ? STANDARD : FROM_POSITION,
    speed,
    perf: { name: PERF_NAMES[speed] },
    rated: record.rated ?? false,
    createdAt: Date.parse(record.createdAt),
    white: lichessPlayerOf(record.white, titleOf(record.white.id), record.ratings?.white),
    black: lichessPlayerOf(record.black, titleOf(record.black.id), record.ratings?.black),
    initialFen: fromStart ? 'startpos' : record.startFen,
    state: lichessGameState(gameStateOf(game, now)),
  };
  if (control && isCorrespondence(control)) full.daysPerTurn = control.daysPerMove;
  else if (control) full.clock = { initial: control.initial, increment: control.increment };
  return full;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * lichess's `fullId`: the game's id and 4 characters fixed for the player and the game (an FNV-1a hash of both;
 * lichess uses it to name a player's seat, here it names nothing secret).
 */
export function fullIdOf(gameId: string, playerId: string): string {
  let hash = 0x811c9dc5;
  for (const char of `${gameId}\u0000${playerId}`) {
    hash = Math.imul(hash ^ char.codePointAt(0)!, 0x01000193) >>> 0;
  }
  let suffix = '';
  for (let i = 0; i < 4; i++, hash = Math.floor(hash / 62)) suffix += ALPHABET[hash % 62];
  return gameId + suffix;
}

/** An opponent as lichess's GameEventOpponent: a player, or the computer (`id` null, `ai` its level). */
function opponentOf(player: GamePlayer): GameEventInfo['opponent'] {
  const level = engineLevelOf(player);
  if (level !== undefined) return { id: null, username: player.displayName, ai: level };
  const opponent = { id: player.id, username: player.displayName, rating: player.rating ?? NEUTRAL_RATING.rating };
  return player.ratingDiff === undefined ? opponent : { ...opponent, ratingDiff: player.ratingDiff };
}

/**
 * A game's GameFull as the player streams carry it: with how the game was made where lichess tells it (its record's
 * `source`, `lobby` for a game paired from seeks), which the seed's GameFull does not say (eventGameOf).
 */
export type EventGameFull = GameFull & { readonly source?: 'lobby' | undefined };

/** The GameFull of a game at `now`, with its `source` when it has one: what gameEventInfoOf reads. */
export function eventGameOf(game: Game, now: number): EventGameFull {
  const full = gameFullOf(game, now);
  return game.record.source === undefined ? full : { ...full, source: game.record.source };
}

/**
 * A game (its GameFull, from eventGameOf) as lichess's GameEventInfo for `playerId` (white when the player holds
 * both seats), at `now`: `secondsLeft` is the player's clock, the time to a correspondence deadline, or lichess's
 * large value; `source` the game's (`lobby`), else `ai` against the computer and `friend` for the others.
 */
export function gameEventInfoOf(full: EventGameFull, playerId: string, now: number): GameEventInfo {
  const { state } = full;
  const color: Color = full.white.id === playerId || full.black.id !== playerId ? 'white' : 'black';
  const [me, opponent] = color === 'white' ? [full.white, full.black] : [full.black, full.white];
  const speed = speedOfControl(full.clock);
  const name = lichessStatus(state.status);
  const plies = state.moves.length;
  const myTime = color === 'white' ? state.wtime : state.btime;
  const deadline = state.deadline ? Date.parse(state.deadline) : undefined;
  const secondsLeft =
    myTime !== undefined
      ? Math.floor(myTime / 1000)
      : deadline !== undefined
        ? Math.max(0, Math.floor((deadline - now) / 1000))
        : Math.floor(NO_CLOCK_MS / 1000);
  const info: GameEventInfo = {
    id: full.gameId,
    gameId: full.gameId,
    fullId: fullIdOf(full.gameId, playerId),
    color,
    fen: state.fen,
    lastMove: state.moves.at(-1) ?? '',
    source: full.source ?? (engineLevelOf(opponent) === undefined ? 'friend' : 'ai'),
    status: { id: STATUS_IDS[name], name },
    variant: STANDARD,
    speed,
    perf: speed,
    rated: full.rated ?? false,
    // Whether the player has made a move in it: white after the first ply, black after the second.
    hasMoved: plies > (color === 'white' ? 0 : 1),
    opponent: opponentOf(opponent),
    isMyTurn: name === 'started' && state.turn === color,
    secondsLeft,
    compat: { bot: true, board: true },
  };
  if (state.winner) info.winner = state.winner;
  if (me.rating !== undefined) info.rating = me.rating;
  if (me.ratingDiff !== undefined) info.ratingDiff = me.ratingDiff;
  return info;
}

/**
 * What lichess's `draw/yes` and `draw/no` mean in the seed's actions, for `actor` on the game as it is: yes accepts
 * the other side's offer or makes one, no declines the other side's offer; undefined when there is nothing to do
 * (yes to one's own offer, no without an offer to answer), which lichess answers `{ok: true}` too.
 */
export function drawActionOf(game: Game, yes: boolean, actor: Actor): DrawAction | undefined {
  const offer = game.record.drawOffer;
  const own = offer !== null && isOnlySide(game, offer, actor);
  if (yes) return offer === null ? 'offer' : own ? undefined : 'accept';
  return offer !== null && !own ? 'decline' : undefined;
}

/** The same for `takeback/yes` and `takeback/no`. */
export function takebackActionOf(game: Game, yes: boolean, actor: Actor): TakebackAction | undefined {
  const offer = game.record.takebackOffer;
  const own = offer !== null && isOnlySide(game, offer, actor);
  if (yes) return offer === null ? 'offer' : own ? undefined : 'accept';
  return offer !== null && !own ? 'decline' : undefined;
}

/** Whether `side` is the one side the actor holds (an actor holding both answers its own offers). */
function isOnlySide(game: Game, side: Color, actor: Actor): boolean {
  const sides = sidesOf(game.record, actor);
  return sides.length === 1 && sides[0] === side;
}

/** lichess's rule: a pawn's move to the last rank without a piece promotes to a queen. */
export function withQueenPromotion(game: Game, uci: string): string {
  if (uci.length !== 4) return uci;
  const from = parseSquare(uci.slice(0, 2));
  const rank = uci[3];
  const piece = from === undefined ? undefined : game.pos.board.get(from);
  return piece?.role === 'pawn' && (rank === '8' || rank === '1') ? `${uci}q` : uci;
}

/** A chat line as lichess's chatLine (ChatLineEvent): the writer's display name as `username`. */
export const lichessChatLine = (line: ChatLine): ChatLineEvent => ({
  type: 'chatLine',
  room: line.room,
  username: line.player.displayName,
  text: line.text,
});

/** A game's chat lines as lichess answers them (PlayerGameChat): `{text, user}`, the oldest first. */
export const lichessChat = (lines: readonly ChatLine[]): PlayerGameChat =>
  lines.map(line => ({ text: line.text, user: line.player.displayName }));
