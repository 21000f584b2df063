/**
 * The API's views of a game (`contract/shapes.ts`): GameState, GameFull and the legal moves, and the stream
 * event a change causes. Views are derived from the game, never stored. A clocked game's views hold the clock
 * as it reads at `now` (DECISIONS §14): the side to move's time runs; an untimed game's views ignore `now`.
 *
 * ```ts
 * reply.send(gameFullOf(game, Date.now()));
 * ```
 */
import { parseSquare } from 'chessops/util';
import type { GameFull, GamePlayer, GameState, LegalMove, PlayerInfo } from '../contract/shapes.ts';
import type { GameEvent } from '../contract/events.ts';
import { deadlineOf, isCorrespondence, timesAt, type Clock } from './clock.ts';
import type { Game, SeatRating } from './game.ts';
import { listLegalMoves } from './moves.ts';
import { makeMovetext, movetextToken } from './notation.ts';
import { isOver, statusOf, winnerOf } from './status.ts';

/** A game's movetext, with where it ends after each ply (to cut it back after an undo). */
interface Movetext {
  text: string;
  ends: readonly number[]; // ends[i]: the text's length after ply i
}
const movetexts = new WeakMap<Game, Movetext>();

/** `state.pgn`: the movetext of the game so far (made once per game, or carried over from the game before). */
export function movetextOf(game: Game): string {
  let movetext = movetexts.get(game);
  if (!movetext) {
    const text = makeMovetext(game.startPly, game.sans);
    const ends: number[] = [];
    let length = 0;
    game.sans.forEach((_, i) => {
      length += (i === 0 ? 0 : 1) + movetextToken(game.startPly, i, game.sans[i]!).length;
      ends.push(length);
    });
    movetext = { text, ends };
    movetexts.set(game, movetext);
  }
  return movetext.text;
}

/**
 * Gives `next`, a game one move on from `previous` or some moves back, the movetext of `previous` extended or
 * cut back, when `previous` has one: a change then costs a copy of the text, not a SAN per ply.
 *
 * The text is always a flat string, made by a join. V8 keeps a string made by `+` or a template as a tree of its
 * parts, and one made by `slice` as a view of another, and JSON.stringify leaves its fast path for the rest of
 * the object at the first such string it meets: a move then cost about 4,600 instructions more than with a flat
 * text, of about 285,000 in all (docs/benchmarks.md, "Instructions per request").
 */
export function carryMovetext(previous: Game, next: Game): void {
  const before = movetexts.get(previous);
  if (!before) return;
  const count = next.sans.length;
  if (count < previous.sans.length) {
    const ends = before.ends.slice(0, count);
    const end = ends.at(-1) ?? 0;
    // Two parts, so that the join copies them (a join of one part gives back the part itself).
    const text = end < 2 ? before.text.slice(0, end) : [before.text.slice(0, 1), before.text.slice(1, end)].join('');
    movetexts.set(next, { text, ends });
  } else if (count === previous.sans.length + 1) {
    const token = movetextToken(next.startPly, count - 1, next.sans[count - 1]!);
    const text = count === 1 ? token : [before.text, token].join(' ');
    movetexts.set(next, { text, ends: [...before.ends, text.length] });
  }
}

/** The FEN of the current position. */
export const fenOf = (game: Game): string => game.fen;

/** A state made at `now` (ms since the epoch); an untimed game's does not depend on it. */
export function gameStateOf(game: Game, now = 0): GameState {
  const { record } = game;
  const state: GameState = {
    fen: fenOf(game),
    pgn: movetextOf(game),
    turn: game.pos.turn,
    status: statusOf(game),
    winner: winnerOf(game),
    moves: [...record.moves],
    undoAvailable: record.result === null && record.moves.length > 0,
    redoAvailable: record.result === null && record.redo.length > 0,
    drawOfferedBy: record.drawOffer,
    takebackOfferedBy: record.takebackOffer,
  };
  return record.clock ? { ...state, ...clockFieldsOf(game, record.clock, now) } : state;
}

/** The clock fields of a state made at `now`: four times and the server's time, or a correspondence deadline. */
function clockFieldsOf(game: Game, clock: Clock, now: number): Partial<GameState> {
  const over = isOver(game);
  if (isCorrespondence(clock.control)) {
    const deadline = clock.phase === 2 ? deadlineOf(clock, game.pos.turn, over) : undefined;
    return { deadline: deadline === undefined ? null : new Date(deadline).toISOString() };
  }
  const { white, black } = timesAt(clock, game.pos.turn, now, over);
  const { increment } = clock.control;
  return { wtime: white, btime: black, winc: increment, binc: increment, serverTime: now };
}

/** Whether the game's views change with time alone (a running clock): such views are made afresh for each read. */
export const isTicking = (game: Game): boolean => game.record.clock?.phase === 2 && !isOver(game);

export function gameFullOf(game: Game, now = 0): GameFull {
  const { record } = game;
  const full: GameFull = {
    gameId: record.id,
    white: gamePlayerOf(record.white, record.ratings?.white),
    black: gamePlayerOf(record.black, record.ratings?.black),
    state: gameStateOf(game, now),
    clock: record.clock?.control ?? null,
  };
  if (record.rated) full.rated = true;
  return full;
}

/** A side as the views show it: its player, with its rating where the game records one (DECISIONS §21). */
const gamePlayerOf = ({ id, displayName }: PlayerInfo, rating: SeatRating | undefined): GamePlayer =>
  rating === undefined ? { id, displayName } : { id, displayName, ...rating };

/** The event a change to `game` at `now` causes on its streams. */
export const gameStateEvent = (game: Game, now = 0): GameEvent & { type: 'gameState' } => ({
  type: 'gameState',
  state: gameStateOf(game, now),
});

/**
 * The JSON of a change's event, made once however many need it (the answer, the change log, the streams, the
 * announcement): a state is as long as its game, so each serialization costs a game's length.
 */
const eventJsons = new WeakMap<object, string>();
export function eventJsonOf(event: GameEvent & { type: 'gameState' }): string {
  let json = eventJsons.get(event);
  if (json === undefined) {
    json = JSON.stringify(event);
    eventJsons.set(event, json);
  }
  return json;
}

/** The JSON of an event's state: the answer of the change that caused it. */
export const stateJsonOf = (event: GameEvent & { type: 'gameState' }): string =>
  eventJsonOf(event).slice(STATE_PREFIX.length, -1);
const STATE_PREFIX = '{"type":"gameState","state":';

/** Legal moves of the side to move, none once the game is over (DECISIONS §4). */
export function legalMovesOf(game: Game, square?: string): LegalMove[] {
  if (isOver(game)) return [];
  if (square === undefined || square === '') return listLegalMoves(game.pos);
  return listLegalMoves(game.pos, parseSquare(square));
}
