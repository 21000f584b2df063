/**
 * The board page's state, with no DOM and no network (after chessground's state/board/render split): the game
 * on the page and the rules for what reaches it, who the page acts for, and everything the page shows, derived
 * as plain data. The DOM modules (render.ts, board.ts) draw it; main.ts wires events to it. Tested under Node
 * (test/web/state.test.ts).
 *
 * ```ts
 * const session = newSession('AbCd1234');
 * applyGame(session, game);                      // from the stream's gameFull or a GET
 * const seats = seatsOf(session.game, account);  // the sides this page holds: GET /api/account's player
 * controlsOf(game.state, seats, game.clock);     // which buttons are shown and enabled
 * clockDisplayOf(game, serviceNow);              // both clocks at the service's time now (serviceOffsetAfter)
 * applyPlayerLine(myGames, line);                // "My games": a player's event stream's gameStart or gameFinish
 * ```
 */
import type {
  Account,
  ClockRequest,
  GameFull,
  GameState,
  LegalMove,
  PlayerEventLine,
  PlayerInfo,
} from '../contract/shapes.ts';
import { ENDED_STATUSES, type Color } from '../contract/vocabulary.ts';
import { colorName, describe, halfmoveClock, otherColor } from './notation.ts';

/** The game on the page. Replaced as a whole when another game is opened, so late answers can tell. */
export interface Session {
  id: string;
  game: GameFull | undefined;
  loadError: { code: string; message: string; status: number } | undefined;
  legal: LegalMove[];
  legalKey: string | undefined; // fen|status the legal moves were asked for
  epoch: number; // stream events applied so far
  pending: { fen: string; uci: string } | undefined; // a promotion this page sent without a piece
  dismissedPendingFen: string | undefined; // the pending promotion whose picker was cancelled
  notice: string | undefined; // the last error line of the stream
}

export const newSession = (id: string): Session => ({
  id,
  game: undefined,
  loadError: undefined,
  legal: [],
  legalKey: undefined,
  epoch: 0,
  pending: undefined,
  dismissedPendingFen: undefined,
  notice: undefined,
});

export const isEnded = (state: GameState): boolean => ENDED_STATUSES.has(state.status);

/** Shows a whole game (a stream's gameFull, a GET); resolves with the state it replaced. */
export function applyGame(session: Session, game: GameFull): GameState | undefined {
  const previous = session.game?.state;
  session.game = game;
  session.loadError = undefined;
  return previous;
}

/** Shows a new state of the game on the page; resolves with the state it replaced (none: nothing to update). */
export function applyState(session: Session, state: GameState): GameState | undefined {
  if (!session.game) return undefined;
  const previous = session.game.state;
  session.game = { ...session.game, state };
  return previous;
}

/**
 * An action's own answer is shown only when the stream has delivered nothing since the action was sent (its
 * epoch then): the stream's order is the truth, and a later gameFull repairs anything missed.
 */
export const answerIsCurrent = (session: Session, epochAtSend: number): boolean => session.epoch === epochAtSend;

/** The key the legal moves of a state are asked for under; a state of an ended game needs none. */
export const legalKeyOf = (state: GameState): string => `${state.fen}|${state.status}`;

/**
 * Whether the legal moves must be asked for again for the state shown, and marks them asked for (the list is
 * emptied meanwhile, so that no stale move is offered).
 */
export function needsLegal(session: Session): boolean {
  const state = session.game?.state;
  if (!state) return false;
  const key = legalKeyOf(state);
  if (session.legalKey === key) return false;
  session.legalKey = key;
  session.legal = [];
  return !isEnded(state);
}

/**
 * The move whose promotion piece the page should ask for now, when the game holds a pending promotion of a side
 * the page holds: the one this page sent, else the only pawn move to the last rank there is; none when the picker
 * was cancelled for this position.
 */
export function promotionToAsk(session: Session, seats: readonly Color[]): string | undefined {
  const state = session.game?.state;
  if (!state || state.status !== 'promotionPending' || !seats.includes(state.turn)) return undefined;
  if (session.dismissedPendingFen === state.fen) return undefined;
  if (session.pending?.fen === state.fen) return session.pending.uci;
  const pairs = new Set(session.legal.filter(move => move.promotion).map(move => `${move.from}${move.to}`));
  return pairs.size === 1 ? [...pairs][0] : undefined;
}

/** chessground's destinations: every legal target, and the rook's square for castling (as on lichess). */
export function destinations(moves: readonly LegalMove[]): Map<string, string[]> {
  const dests = new Map<string, string[]>();
  const add = (from: string, to: string) => {
    const list = dests.get(from) ?? [];
    if (!list.includes(to)) list.push(to);
    dests.set(from, list);
  };
  for (const move of moves) {
    add(move.from, move.to);
    const rook = rookSquare(move);
    if (rook) add(move.from, rook);
  }
  return dests;
}

/** The rook's square a castling move may also be dropped on. */
export function rookSquare(move: LegalMove): string | undefined {
  if (move.moveType === 'castleKingside') return `h${move.from[1]}`;
  if (move.moveType === 'castleQueenside') return `a${move.from[1]}`;
  return undefined;
}

/** The legal moves a piece dragged from `orig` to `dest` may mean (several: a promotion's four pieces). */
export const movesFor = (legal: readonly LegalMove[], orig: string, dest: string): LegalMove[] =>
  legal.filter(move => move.from === orig && (move.to === dest || rookSquare(move) === dest));

/** Both sides: what a service token or no authentication acts for, and the seats of a practice board. */
export const BOTH_SIDES: readonly Color[] = ['white', 'black'];

/**
 * The sides the page acts for in `game` (DECISIONS §13): both for an account without a player (a service token,
 * or no authentication), else the seats holding the player's id; none (watching) without a game, and while the
 * account is not known yet, so that nothing is offered that the service would refuse.
 */
export function seatsOf(game: Pick<GameFull, 'white' | 'black'> | undefined, account: Account | undefined): Color[] {
  if (!game || !account) return [];
  const player = account.player;
  return BOTH_SIDES.filter(color => !player || game[color].id === player.id);
}

/** Which side a player sits at, in words; nothing for an account that acts for any side. */
export function seatWordsOf(game: Pick<GameFull, 'white' | 'black'> | undefined, account: Account | undefined): string {
  if (!game || !account?.player) return '';
  const seats = seatsOf(game, account);
  if (seats.length === 2) return 'You play both sides';
  return seats[0] ? `You play ${seats[0]}` : 'You are watching';
}

/** The orientation that puts the page's own side at the bottom: none to choose for both sides or none. */
export const orientationFor = (seats: readonly Color[]): Color | undefined =>
  seats.length === 1 ? seats[0] : undefined;

/** Whether `side` has a move that a takeback would take back: its last one, with the reply since if any. */
export function hasMoveToTakeBack(state: GameState, side: Color): boolean {
  return state.moves.length >= (side === state.turn ? 2 : 1);
}

/** A control is shown and enabled, shown but not usable now, or hidden because it does not apply. */
export type Control = 'enabled' | 'disabled' | 'hidden';

export interface Controls {
  undo: Control; // undo and redo: for a page that holds both sides; between two players, takebacks
  redo: Control;
  resign: Control;
  drawOffer: Control;
  drawAccept: Control;
  drawDecline: Control;
  drawClaim: Control;
  takebackOffer: Control;
  takebackAccept: Control;
  takebackDecline: Control;
  abort: Control; // a clocked game before both sides have moved
  move: Control; // the typed-move field and its button (and the board's pieces)
  export: Control; // copy and download of FEN and PGN, copy of the link
}

const shown = (applies: boolean): Control => (applies ? 'enabled' : 'hidden');

/**
 * The controls for a state and the sides the page holds (`seats`, from seatsOf), as the service judges actions
 * (DECISIONS §13): a page with no seat acts on nothing; one holding a single side moves and claims on its turn,
 * resigns and offers for its side on either turn, answers only the other side's offers, and asks for takebacks
 * instead of undoing; one holding both acts as the service does, for whichever side an action needs. Any seat may
 * abort a clocked game (`clock`: GameFull's) until both sides have moved (DECISIONS §14).
 */
export function controlsOf(
  state: GameState | undefined,
  seats: readonly Color[],
  clock: GameFull['clock'] = null,
): Controls {
  const playing = !!state && !isEnded(state) && seats.length > 0;
  const both = seats.length === 2;
  const onTurn = playing && seats.includes(state.turn);
  const answers = (offeredBy: Color | null) => playing && offeredBy !== null && (both || seats[0] !== offeredBy);
  const rewind = (available: boolean | undefined): Control =>
    !state || !both ? 'hidden' : available ? 'enabled' : 'disabled';
  return {
    undo: rewind(state?.undoAvailable),
    redo: rewind(state?.redoAvailable),
    resign: shown(playing),
    drawOffer: shown(playing && state.drawOfferedBy === null),
    drawAccept: shown(answers(state?.drawOfferedBy ?? null)),
    drawDecline: shown(answers(state?.drawOfferedBy ?? null)),
    drawClaim: shown(onTurn && halfmoveClock(state.fen) >= 100),
    takebackOffer: shown(playing && !both && state.takebackOfferedBy === null && hasMoveToTakeBack(state, seats[0]!)),
    takebackAccept: shown(answers(state?.takebackOfferedBy ?? null)),
    takebackDecline: shown(answers(state?.takebackOfferedBy ?? null)),
    abort: shown(playing && clock !== null && !clockStarted(state, clock)),
    move: !state || seats.length === 0 ? 'hidden' : onTurn ? 'enabled' : 'disabled',
    export: state ? 'enabled' : 'disabled',
  };
}

// ---------------------------------------------------------------------------------------------- clocks

type TimeControl = NonNullable<GameFull['clock']>;

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** A time control the forms offer (DECISIONS §14): its label and the `clock` a request carries (none: untimed). */
export interface TimeControlChoice {
  value: string; // the option's value, e.g. '5+3' or '3d'
  label: string; // e.g. '5+3 · Blitz'
  clock: ClockRequest | undefined; // e.g. { initial: 300000, increment: 3000 }
}

const realTime = (minutes: number, seconds: number, kind: string): TimeControlChoice => ({
  value: `${minutes}+${seconds}`,
  label: `${minutes}+${seconds} · ${kind}`,
  clock: { initial: minutes * MINUTE_MS, increment: seconds * SECOND_MS },
});

const correspondence = (days: number): TimeControlChoice => ({
  value: `${days}d`,
  label: `${plural(days, 'day')} per move`,
  clock: { daysPerMove: days },
});

/** No clock first (the default), then common presets (minutes + seconds of increment, as on lichess) and days. */
export const TIME_CONTROLS: readonly TimeControlChoice[] = [
  { value: '', label: 'No clock', clock: undefined },
  realTime(1, 0, 'Bullet'),
  realTime(3, 2, 'Blitz'),
  realTime(5, 3, 'Blitz'),
  realTime(10, 5, 'Rapid'),
  realTime(15, 10, 'Rapid'),
  correspondence(1),
  correspondence(3),
  correspondence(7),
];

/** The `clock` of a create or import request for a choice's value; none for no clock. */
export const clockRequestOf = (value: string): ClockRequest | undefined =>
  TIME_CONTROLS.find(choice => choice.value === value)?.clock;

/**
 * Whether both sides have made their first move, from which on the side to move's clock runs until the end
 * (DECISIONS §14). No field says so: a correspondence game has a deadline from then on; in a real-time game two
 * moves have been played, or a time is no longer the initial one (before, no time is taken; a takeback after may
 * leave fewer than two moves).
 */
export function clockStarted(state: GameState, clock: TimeControl | null): boolean {
  if (!clock) return false;
  if (state.moves.length >= 2) return true;
  if ('daysPerMove' in clock) return typeof state.deadline === 'string';
  return (state.wtime ?? clock.initial) !== clock.initial || (state.btime ?? clock.initial) !== clock.initial;
}

/** One side's clock as shown. */
export interface ClockFace {
  text: string; // e.g. '4:59', '0:09.3' under ten seconds, '2 days 3 h left' (correspondence)
  running: boolean; // counting down now
  active: boolean; // the side to move's, in a game not over
  low: boolean; // little time left
}

export interface ClockDisplay {
  white: ClockFace;
  black: ClockFace;
  running: Color | undefined; // whose clock runs: the page redraws the clocks while one does
}

/** Time left that is shown as low: a tenth of the initial time, at least 10 s and at most a minute. */
export const lowTimeOf = (initial: number): number => Math.min(MINUTE_MS, Math.max(10 * SECOND_MS, initial / 10));

/**
 * Both clocks of a clocked game (none for an untimed one) at `serviceNow`, the service's time in milliseconds since
 * the epoch as the page estimates it (serviceOffsetAfter). A real-time state holds each side's time at its
 * `serverTime`; the side to move's runs on from then once both sides have moved, and nothing runs after the end.
 * A correspondence game shows the time to the side to move's deadline.
 */
export function clockDisplayOf(
  game: Pick<GameFull, 'state' | 'clock'> | undefined,
  serviceNow: number,
): ClockDisplay | undefined {
  if (!game?.clock) return undefined;
  const { state, clock } = game;
  const over = isEnded(state);
  const running = clockStarted(state, clock) && !over ? state.turn : undefined;
  const face = (color: Color): ClockFace => {
    const active = !over && state.turn === color;
    if ('daysPerMove' in clock) {
      if (running === color && state.deadline) {
        const left = Math.max(0, Date.parse(state.deadline) - serviceNow);
        return {
          text: `${durationWords(left)} left`,
          running: true,
          active,
          low: left < (clock.daysPerMove * DAY_MS) / 10,
        };
      }
      const flagged = state.status === 'outOfTime' && state.turn === color;
      const text = flagged ? 'Out of time' : `${plural(clock.daysPerMove, 'day')} per move`;
      return { text, running: false, active, low: flagged };
    }
    const stored = (color === 'white' ? state.wtime : state.btime) ?? clock.initial;
    const elapsed =
      running === color && state.serverTime !== undefined ? Math.max(0, serviceNow - state.serverTime) : 0;
    const left = Math.max(0, stored - elapsed);
    return { text: formatClock(left), running: running === color, active, low: left < lowTimeOf(clock.initial) };
  };
  return { white: face('white'), black: face('black'), running };
}

/**
 * The estimate of the service's clock minus the page's after a state made at `serverTime` arrived at `receivedAt`
 * (the page's monotonic clock, performance.now(), so that a change of the computer's clock does not matter): the
 * largest difference seen, since a state always arrives after it was made and the quickest arrival is the closest.
 */
export const serviceOffsetAfter = (offset: number | undefined, serverTime: number, receivedAt: number): number =>
  offset === undefined ? serverTime - receivedAt : Math.max(offset, serverTime - receivedAt);

/** A real-time clock's text: 'h:mm:ss', 'm:ss', and tenths under ten seconds ('0:09.3'); always rounded down. */
export function formatClock(ms: number): string {
  const left = Math.max(0, ms);
  if (left < 10 * SECOND_MS) {
    const tenths = Math.floor(left / 100);
    return `0:0${Math.floor(tenths / 10)}.${tenths % 10}`;
  }
  const seconds = Math.floor(left / SECOND_MS);
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const ss = String(seconds % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${ss}` : `${minutes}:${ss}`;
}

/** A long time in words, to its two largest units, rounded down: '2 days 3 h', '5 h 12 min', '12 min', '45 s'. */
export function durationWords(ms: number): string {
  const left = Math.max(0, ms);
  const days = Math.floor(left / DAY_MS);
  const hours = Math.floor((left % DAY_MS) / HOUR_MS);
  const minutes = Math.floor((left % HOUR_MS) / MINUTE_MS);
  if (days > 0) return hours > 0 ? `${plural(days, 'day')} ${hours} h` : plural(days, 'day');
  if (hours > 0) return minutes > 0 ? `${hours} h ${minutes} min` : `${hours} h`;
  if (minutes > 0) return `${minutes} min`;
  return `${Math.floor(left / SECOND_MS)} s`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** The offers pending in a game, in words, besides the one its status already names (a draw offer). */
export function offerWordsOf(state: GameState | undefined): string {
  if (!state || isEnded(state)) return '';
  const words: string[] = [];
  if (state.drawOfferedBy && state.status !== 'drawOffered')
    words.push(`${colorName(state.drawOfferedBy)} offers a draw`);
  if (state.takebackOfferedBy) words.push(`${colorName(state.takebackOfferedBy)} offers a takeback`);
  return words.join(' · ');
}

/** The status line: a code for styling, the status, whose turn it is and the result, in words. */
export interface StatusWords {
  code: string;
  status: string;
  turn: string;
  result: string;
}

export function statusWordsOf(session: Session | undefined): StatusWords {
  if (!session) return { code: '', status: 'No game yet', turn: 'Start a new game or open one.', result: '' };
  if (session.loadError) {
    return { code: 'error', status: 'Game not available', turn: 'Check the address, or start a new game.', result: '' };
  }
  if (!session.game) return { code: 'loading', status: 'Loading…', turn: '', result: '' };
  const words = describe(session.game.state);
  return { code: session.game.state.status, status: words.status, turn: words.turn, result: words.result };
}

/** The window's title for the game shown. */
export function titleOf(game: GameFull | undefined): string {
  if (!game) return 'Chess';
  const words = describe(game.state);
  return `${game.white.displayName} vs ${game.black.displayName} · ${words.result || words.status} · Chess`;
}

/** The game id of a page address (`/game/{gameId}`), or undefined for the lobby. */
export function idFromPath(pathname: string): string | undefined {
  const match = /^\/game\/([^/]+)\/?$/.exec(pathname);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return match[1];
  }
}

/** The game id typed or pasted in the "open" field: an id, or an address that holds one. */
export const idFromInput = (text: string): string => {
  const trimmed = text.trim();
  return /\/game\/([^/?#]+)/.exec(trimmed)?.[1] ?? trimmed;
};

/** The players of a new game from the two name fields; an empty field leaves the side to the service. */
export function playersOf(whiteName: string, blackName: string): { white?: PlayerInfo; black?: PlayerInfo } {
  const body: { white?: PlayerInfo; black?: PlayerInfo } = {};
  const white = whiteName.trim();
  const black = blackName.trim();
  if (white) body.white = { id: 'p1', displayName: white };
  if (black) body.black = { id: 'p2', displayName: black };
  return body;
}

/** The create form's fields: names without a player token; with one, the player's side and their opponent. */
export interface NewGameFields {
  whiteName: string;
  blackName: string;
  ownSide: Color;
  opponentId: string; // the opponent's player id, as their token holds it
  opponentName: string; // their display name; the id when empty
}

/**
 * The players of a new game from the create form (DECISIONS §13). For a player (`account.player`) the request
 * names only the opponent, on the side the player does not take: the service seats the player from the token;
 * no opponent is a practice board. Without a player, the names (playersOf).
 */
export function newGamePlayersOf(
  fields: NewGameFields,
  account: Account | undefined,
): { white?: PlayerInfo; black?: PlayerInfo } | { error: string } {
  if (!account?.player) return playersOf(fields.whiteName, fields.blackName);
  const id = fields.opponentId.trim();
  const name = fields.opponentName.trim();
  if (!id) return name ? { error: "Give the opponent's player id: a name alone does not say who they are." } : {};
  const known = id === account.player.id ? account.player.displayName : id;
  const opponent = { id, displayName: name || known };
  return otherColor(fields.ownSide) === 'white' ? { white: opponent } : { black: opponent };
}

// ---------------------------------------------------------------------------------------------- a player's games

/** A line of a player's event stream (GET /api/stream/event) that says one of their games started or ended. */
export type PlayerGameLine = Exclude<PlayerEventLine, { type: 'error' }>;

/**
 * The "My games" panel: the ongoing games of the page's player, the most recently changed first (DECISIONS §13).
 * The event stream adds and drops games; a list answer (GET /api/board/game?status=ongoing) brings their order and
 * whose turn it is, since a move sends no event.
 */
export interface MyGames {
  games: GameFull[];
  /**
   * Whether a list answer has come since the stream's connection opened. Until then a game not listed goes last:
   * a connection first sends the ongoing games, most recent first, with no line to say when they end. After, a
   * game that starts is the most recent and goes first.
   */
  settled: boolean;
  epoch: number; // connections and lines applied so far: a list answer asked for before the last one is stale
}

export const newMyGames = (): MyGames => ({ games: [], settled: false, epoch: 0 });

/** A new connection of the event stream: what it sends first is the whole list again. */
export function openMyGames(list: MyGames): void {
  list.games = [];
  list.settled = false;
  list.epoch += 1;
}

/**
 * A gameStart adds its game unless it is listed (a list answer made after the start is as new), a gameFinish
 * drops it.
 */
export function applyPlayerLine(list: MyGames, line: PlayerGameLine): void {
  list.epoch += 1;
  const id = line.game.gameId;
  if (line.type === 'gameFinish' || isEnded(line.game.state)) {
    list.games = list.games.filter(game => game.gameId !== id);
  } else if (!list.games.some(game => game.gameId === id)) {
    list.games = list.settled ? [line.game, ...list.games] : [...list.games, line.game];
  }
}

/**
 * A list answer, asked for at `epochAtSend` (list.epoch then), replaces the list unless a connection or a line came
 * since (its epoch then is stale; that line asks for the list again). An answer with more pages keeps the listed
 * games it does not hold, after its own. Answers whether it was applied.
 */
export function applyGameList(
  list: MyGames,
  page: { games: readonly GameFull[]; nextCursor: string | null },
  epochAtSend: number,
): boolean {
  if (list.epoch !== epochAtSend) return false;
  const ongoing = page.games.filter(game => !isEnded(game.state));
  const answered = new Set(page.games.map(game => game.gameId));
  const rest = page.nextCursor === null ? [] : list.games.filter(game => !answered.has(game.gameId));
  list.games = [...ongoing, ...rest];
  list.settled = true;
  return true;
}

/** A game of the panel, in words. */
export interface MyGameRow {
  gameId: string;
  title: string; // 'vs Bob': the other player's name; 'Practice board' for a game against oneself
  side: string; // 'White', 'Black' or 'Both sides': the seats the player holds
  turn: string; // 'Your turn' or "Bob's turn"
  yourTurn: boolean;
  open: boolean; // the game on the board
}

/**
 * The panel's rows for `player`. The game on the board (`open`, followed by its own stream) shows its latest state;
 * an ended one is left out.
 */
export function myGameRowsOf(games: readonly GameFull[], player: PlayerInfo, open: GameFull | undefined): MyGameRow[] {
  const rows: MyGameRow[] = [];
  for (const listed of games) {
    const isOpen = open?.gameId === listed.gameId;
    const state = isOpen ? open.state : listed.state;
    if (isEnded(state)) continue;
    const seats = BOTH_SIDES.filter(color => listed[color].id === player.id);
    const [seat] = seats;
    const title =
      seats.length === 2
        ? 'Practice board'
        : seat
          ? `vs ${listed[otherColor(seat)].displayName}`
          : `${listed.white.displayName} vs ${listed.black.displayName}`;
    const yourTurn = seats.includes(state.turn);
    rows.push({
      gameId: listed.gameId,
      title,
      side: seats.length === 2 ? 'Both sides' : seat ? colorName(seat) : 'Watching',
      turn: yourTurn ? 'Your turn' : `${listed[state.turn].displayName}'s turn`,
      yourTurn,
      open: isOpen,
    });
  }
  return rows;
}
