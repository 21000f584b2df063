/**
 * The transitions of a game (DECISIONS §4-§6, §13, §14). Each is `(game, input, actor, now) => Result<Change>`:
 * the next game (version + 1) and the one gameState event it causes, or a DomainError and no change. `actor` is
 * who acts (seats.ts); `now` is the time of the change in milliseconds since the epoch, which a clocked game
 * needs (an untimed one ignores it).
 *
 * Order of checks in each: GAME_OVER (also when a clock's deadline has passed), the seat, then the action's own
 * rules.
 *
 * ```ts
 * const change = makeMove(game, 'e2e4', SERVICE, Date.now());
 * if (change.ok) save(change.value.game);
 * const flagged = expire(game, now); // the flag or the abort, once its deadline has come
 * ```
 */
import type { NormalMove } from 'chessops/types';
import { opposite } from 'chessops/util';
import { ENGINE_ID, type Color, type DrawAction, type TakebackAction } from '../contract/vocabulary.ts';
import { afterMove, afterTakeBack, deadlineOf, stopped, type Clock } from './clock.ts';
import { isRealTime, personSideOf } from './engineGames.ts';
import { DomainError, err, ok, type Result } from './errors.ts';
import { derive, firstMoverOf, lineOf, type Change, type FinalResult, type Game, type GameRecord } from './game.ts';
import { growingCopy, playOn, withoutLastMove } from './line.ts';
import { checkMove } from './moves.ts';
import { answererOf, mayRewind, moverOf, ownSideOf, SERVICE, sidesOf, type Actor } from './seats.ts';
import { hasMatingMaterial, isOver, statusOf } from './status.ts';
import { carryMovetext, gameStateEvent } from './views.ts';

/** The time of a change: a clocked game cannot change without it. */
function timeOf(game: Game, now: number | undefined): number {
  if (now !== undefined) return now;
  if (game.record.clock) throw new Error(`game ${game.record.id} is clocked: a change needs the time`);
  return 0;
}

/** When the game's clock calls for the service to act (a flag, or an abort), if it does. */
export const deadlineOfGame = (game: Game): number | undefined =>
  game.record.clock ? deadlineOf(game.record.clock, game.pos.turn, isOver(game)) : undefined;

/** What a store indexes a game by besides its record: facts derived from the whole game. */
export interface GameIndex {
  readonly deadline: number | null; // when its clock calls for the service to act, ms since the epoch
  readonly ended: boolean; // whether the game is over (a player's list filters on it)
}

export const indexOfGame = (game: Game): GameIndex => ({
  deadline: deadlineOfGame(game) ?? null,
  ended: isOver(game),
});

/** GAME_OVER for an ended game, and for a clocked one whose deadline has passed (before the service ends it). */
function closed(game: Game, now: number): Result<never> | undefined {
  if (isOver(game)) return err(new DomainError('GAME_OVER', `the game is over (${statusOf(game)})`));
  const deadline = deadlineOfGame(game);
  if (deadline !== undefined && deadline <= now) {
    const why = game.record.clock!.phase === 2 ? `${game.pos.turn} ran out of time` : 'it was not started in time';
    return err(new DomainError('GAME_OVER', `the game is over (${why})`));
  }
  return undefined;
}

/**
 * The first step of a transition (undo and redo aside: `rewindable`): the time of the change (timeOf), or GAME_OVER
 * when the game is over at that time (`closed`).
 */
function openAt(game: Game, at: number | undefined): number | Result<never> {
  const now = timeOf(game, at);
  return closed(game, now) ?? now;
}

/** GAME_OVER for a final end (resignation, agreed or claimed draw, flag, abort) or a passed deadline: what undo,
 * redo see (an end of the position itself can be undone). */
const finallyClosed = (game: Game, now: number): Result<never> | undefined =>
  game.record.result ? closed(game, now) : game.positionEnd ? undefined : closed(game, now);

/** A transition's success: the next game (its version already counted) and the event it causes at `now`. */
const changed = (next: Game, now: number): Result<Change> => ok({ game: next, event: gameStateEvent(next, now) });

/** The game with `record` as its next version, nothing else derived changing. */
const change = (game: Game, record: Omit<GameRecord, 'version'>, now: number): Result<Change> =>
  changed({ ...game, record: { ...record, version: game.record.version + 1 } }, now);

/** What a change of position clears: a pending promotion and both kinds of offer. */
const CLEARED_BY_POSITION = { pendingPromotion: null, drawOffer: null, takebackOffer: null } as const;

/** The clock of a game that ends at `now`: the side to move is charged up to then. */
const clockAtEnd = (game: Game, now: number): Clock | null =>
  game.record.clock && stopped(game.record.clock, game.pos.turn, now);

/** The game ended for good with `result` at `now`: nothing stays pending, the clock stops. */
const ended = (game: Game, result: FinalResult, now: number): Result<Change> =>
  change(game, { ...game.record, ...CLEARED_BY_POSITION, result, clock: clockAtEnd(game, now) }, now);

/**
 * Plays a legal chessops move (already checked) at `now`: the next version, with `redo` as its redo stack; the
 * clock charges the mover and adds the increment (clock.ts), from `clock` (undefined: the game's clock).
 */
function playMove(
  game: Game,
  move: NormalMove,
  uci: string,
  redo: readonly string[],
  now: number,
  clock?: Clock,
): Game {
  const pos = game.pos.clone();
  const line = growingCopy(lineOf(game));
  playOn(line, pos, move, uci);
  const mover = game.pos.turn;
  const before = clock ?? game.record.clock;
  const after = before && afterMove(before, mover, now, firstMoverOf(game));
  const record: GameRecord = {
    ...game.record,
    ...CLEARED_BY_POSITION,
    version: game.record.version + 1,
    redo,
    clock: after,
    moveClocks: after ? [...game.record.moveClocks, after[mover]] : game.record.moveClocks,
  };
  const next = derive(record, pos, game.startPly, line);
  carryMovetext(game, next);
  return next;
}

/**
 * The game `count` moves back at `now`, with `redo` as its redo stack (the next version): the clock charges the side
 * that was to move (no time given back) and takes back the increments the moves earned (clock.ts); after an end
 * of the position, which stopped the clock, nothing is charged.
 */
function takeBack(game: Game, count: number, redo: readonly string[], now: number): Game {
  let line = lineOf(game);
  let pos = game.pos;
  for (let i = 0; i < count; i++) ({ line, pos } = withoutLastMove(line));
  const { clock, moveClocks, moves } = game.record;
  const taken = { played: moves.length, count, firstMover: firstMoverOf(game) };
  const record: GameRecord = {
    ...game.record,
    ...CLEARED_BY_POSITION,
    version: game.record.version + 1,
    redo,
    clock: clock && afterTakeBack(clock, game.pos.turn, now, taken, !game.positionEnd),
    moveClocks: clock ? moveClocks.slice(0, moveClocks.length - count) : moveClocks,
  };
  const next = derive(record, pos, game.startPly, line);
  carryMovetext(game, next);
  return next;
}

/**
 * DECISIONS §4 and §13: GAME_OVER, then the seat (only the side to move), then legality; a pawn reaching the
 * last rank without a piece is held pending.
 */
export function makeMove(game: Game, uci: string, actor: Actor = SERVICE, at?: number): Result<Change> {
  const now = openAt(game, at);
  if (typeof now !== 'number') return now;
  const seat = moverOf(game.record, game.pos.turn, actor);
  if (!seat.ok) return seat;
  const check = checkMove(game.pos, uci);
  switch (check.kind) {
    case 'illegal':
      return err(new DomainError('INVALID_MOVE', check.reason, 'uci'));
    case 'needsPromotion':
      return change(game, { ...game.record, pendingPromotion: uci }, now);
    case 'legal':
      return changed(playMove(game, check.move, uci, [], now), now);
  }
}

/**
 * What undo and redo check first (DECISIONS §5 and §13): GAME_OVER after a final end or a passed deadline, then the
 * seat (between two different players they are takebacks); the time of the change when they may go on.
 */
function rewindable(game: Game, actor: Actor, at: number | undefined): Result<number> {
  const now = timeOf(game, at);
  const over = finallyClosed(game, now);
  if (over) return over;
  const allowed = mayRewind(game.record, actor);
  return allowed.ok ? ok(now) : allowed;
}

export function undo(game: Game, actor: Actor = SERVICE, at?: number): Result<Change> {
  const now = rewindable(game, actor, at);
  if (!now.ok) return now;
  const { record } = game;
  const last = record.moves.at(-1);
  if (last === undefined) return err(new DomainError('NO_UNDO', 'there is no move to undo'));
  return changed(takeBack(game, 1, [...record.redo, last], now.value), now.value);
}

export function redo(game: Game, actor: Actor = SERVICE, at?: number): Result<Change> {
  const when = rewindable(game, actor, at);
  if (!when.ok) return when;
  const now = when.value;
  const { record } = game;
  const uci = record.redo.at(-1);
  if (uci === undefined) return err(new DomainError('NO_REDO', 'there is no move to redo'));
  const check = checkMove(game.pos, uci);
  if (check.kind !== 'legal') throw new Error(`game ${record.id}: redo move ${uci} is not legal`);
  // A redo is the move made again: the mover is charged and earns the increment (after an end of the position,
  // which stopped the clock, from now).
  const clock = record.clock && game.positionEnd ? { ...record.clock, since: now } : undefined;
  return changed(playMove(game, check.move, uci, record.redo.slice(0, -1), now, clock), now);
}

/** The actor's side resigns (the side to move for an actor holding both); the other side wins. */
export function resign(game: Game, actor: Actor = SERVICE, at?: number): Result<Change> {
  const now = openAt(game, at);
  if (typeof now !== 'number') return now;
  const side = ownSideOf(game.record, game.pos.turn, actor);
  if (!side.ok) return side;
  return ended(game, { kind: 'resign', winner: opposite(side.value) }, now);
}

/** DECISIONS §6 and §13, after the action itself was validated: GAME_OVER, the seat, then the action's own rule. */
export function drawAction(game: Game, action: DrawAction, actor: Actor = SERVICE, at?: number): Result<Change> {
  const now = openAt(game, at);
  if (typeof now !== 'number') return now;
  const { record } = game;
  switch (action) {
    case 'offer': {
      const side = ownSideOf(record, game.pos.turn, actor);
      if (!side.ok) return side;
      if (record.drawOffer) {
        return err(new DomainError('DRAW_ALREADY_OFFERED', `${record.drawOffer} has already offered a draw`));
      }
      // The computer declines at once (DECISIONS §16a): an offer to it never stays pending.
      return change(game, { ...record, drawOffer: personSideOf(record) ? null : side.value }, now);
    }
    case 'accept':
    case 'decline': {
      const answerer = answererOf(record, record.drawOffer, actor, 'draw');
      if (!answerer.ok) return answerer;
      if (!record.drawOffer) return err(new DomainError('NO_DRAW_OFFER', `there is no draw offer to ${action}`));
      if (action === 'decline') return change(game, { ...record, drawOffer: null }, now);
      return ended(game, { kind: 'drawAgreed' }, now);
    }
    case 'claim': {
      const seat = moverOf(record, game.pos.turn, actor);
      if (!seat.ok) return seat;
      if (game.pos.halfmoves < 100) {
        return err(
          new DomainError(
            'CLAIM_NOT_AVAILABLE',
            `a fifty-move draw can be claimed only after 50 moves by each side without a capture or pawn move (halfmove clock ${game.pos.halfmoves} of 100)`,
          ),
        );
      }
      return ended(game, { kind: 'drawClaimed' }, now);
    }
  }
}

/**
 * lichess's move with `?offeringDraw=true` (DECISIONS §16a), as one change: the move, then the mover's draw offer,
 * or, when the opponent's offer was pending, the agreement to it (the game is drawn, the move played). A move that
 * ends the game, or that waits for its promotion piece, is the move's change alone; a refused move is its error.
 */
export function moveOfferingDraw(game: Game, uci: string, actor: Actor = SERVICE, at?: number): Result<Change> {
  const moved = makeMove(game, uci, actor, at);
  if (!moved.ok) return moved;
  const next = moved.value.game;
  if (next.record.pendingPromotion !== null || isOver(next)) return moved;
  const now = timeOf(game, at);
  const mover = game.pos.turn;
  const offered = game.record.drawOffer;
  // The move made the next version; the offer, or the agreement, is part of that same version.
  const record: GameRecord =
    offered !== null && offered !== mover
      ? { ...next.record, result: { kind: 'drawAgreed' }, clock: clockAtEnd(next, now) }
      : // The computer declines at once (DECISIONS §16a): an offer to it never stays pending.
        { ...next.record, drawOffer: personSideOf(next.record) ? null : mover };
  return changed({ ...next, record }, now);
}

/**
 * Takebacks by consent (DECISIONS §13): GAME_OVER, the seat, then the action's own rule. An offer is made for the
 * actor's side (for an actor holding both, the side that made the last move) and needs a move of that side;
 * accepting takes back the offerer's last move and the reply made since, if any, so that the offerer is to move
 * again, and empties the redo stack.
 */
export function takebackAction(
  game: Game,
  action: TakebackAction,
  actor: Actor = SERVICE,
  at?: number,
): Result<Change> {
  const now = openAt(game, at);
  if (typeof now !== 'number') return now;
  const { record } = game;
  const turn = game.pos.turn;
  switch (action) {
    case 'offer': {
      // Against the computer an offer is always the person's, whoever acts for them.
      const person = personSideOf(record);
      const side = ownSideOf(record, person ?? opposite(turn), actor);
      if (!side.ok) return side;
      if (record.takebackOffer) {
        return err(
          new DomainError('TAKEBACK_ALREADY_OFFERED', `${record.takebackOffer} has already offered a takeback`),
        );
      }
      const count = movesToTakeBack(record.moves.length, turn, side.value);
      if (count === 0) {
        return err(new DomainError('NO_MOVE_TO_TAKE_BACK', `${side.value} has made no move in this game to take back`));
      }
      // The computer grants it at once (DECISIONS §16a): the person is to move again, as before their last move.
      if (person !== undefined) return changed(takeBack(game, count, [], now), now);
      return change(game, { ...record, takebackOffer: side.value }, now);
    }
    case 'accept':
    case 'decline': {
      const offeredBy = record.takebackOffer;
      const answerer = answererOf(record, offeredBy, actor, 'takeback');
      if (!answerer.ok) return answerer;
      if (!offeredBy) return err(new DomainError('NO_TAKEBACK_OFFER', `there is no takeback offer to ${action}`));
      if (action === 'decline') return change(game, { ...record, takebackOffer: null }, now);
      return changed(takeBack(game, movesToTakeBack(record.moves.length, turn, offeredBy), [], now), now);
    }
  }
}

/**
 * How many moves a takeback for `side` undoes: its last move, and the reply made since if any (so that `side` is
 * to move again); 0 when `side` has made no move among the `played` ones.
 */
function movesToTakeBack(played: number, turn: Color, side: Color): number {
  const count = side === turn ? 2 : 1;
  return played >= count ? count : 0;
}

/**
 * DECISIONS §14: a clocked game whose clock does not run yet (not both sides have moved once) ends as `aborted`,
 * by a player holding a side or by the service; later, or on an untimed game, ABORT_NOT_AVAILABLE.
 */
export function abort(game: Game, actor: Actor = SERVICE, at?: number): Result<Change> {
  const now = openAt(game, at);
  if (typeof now !== 'number') return now;
  if (sidesOf(game.record, actor).length === 0) {
    return err(new DomainError('NOT_A_PLAYER', 'this player holds no side of the game and cannot abort it'));
  }
  const { clock } = game.record;
  if (!clock) return err(new DomainError('ABORT_NOT_AVAILABLE', 'only a clocked game can be aborted'));
  if (clock.phase === 2) {
    return err(new DomainError('ABORT_NOT_AVAILABLE', 'both sides have moved: the game can no longer be aborted'));
  }
  return ended(game, { kind: 'aborted' }, now);
}

/**
 * What the service does at a clocked game's deadline (DECISIONS §14): once a running clock reaches zero the game
 * ends as `outOfTime` (the other side wins, unless it has no mating material); a game whose side to move has not
 * made its first move in time ends as `aborted`. Undefined before the deadline, or on a game already over.
 */
export function expire(game: Game, now: number): Change | undefined {
  const deadline = deadlineOfGame(game);
  const clock = game.record.clock;
  if (deadline === undefined || deadline > now || !clock) return undefined;
  if (clock.phase < 2) return must(ended(game, { kind: 'aborted' }, now));
  const loser = game.pos.turn;
  const winner = opposite(loser);
  const result: FinalResult = { kind: 'outOfTime', winner: hasMatingMaterial(game.pos, winner) ? winner : null };
  const flagged: Clock = { ...clock, [loser]: 0, since: now };
  return must(change(game, { ...game.record, ...CLEARED_BY_POSITION, result, clock: flagged }, now));
}

function must(result: Result<Change>): Change {
  if (!result.ok) throw result.error;
  return result.value;
}

/** A player with no open stream of a real-time game this long is gone (DECISIONS §17). */
export const OPPONENT_GONE_MS = 10_000;
/** How long after going a gone opponent's game may be claimed. */
export const CLAIM_AFTER_GONE_MS = 20_000;

/**
 * DECISIONS §17 and §16a, lichess's rule: in a real-time game that has started (both sides have moved: it can no
 * longer be aborted), against a person (the computer never leaves), on the opponent's turn, once the opponent has
 * been gone (no open stream of the game) since `goneSince` for OPPONENT_GONE_MS and then CLAIM_AFTER_GONE_MS, a
 * player claims the game: as a win (`timeout`), or as a draw. `goneSince` is when the opponent's last stream closed
 * (or the game started), undefined while they are there. Otherwise CLAIM_NOT_AVAILABLE, saying which rule.
 */
export function claimOpponentGone(
  game: Game,
  claim: 'victory' | 'draw',
  actor: Actor,
  goneSince: number | undefined,
  at?: number,
): Result<Change> {
  const now = openAt(game, at);
  if (typeof now !== 'number') return now;
  const { record } = game;
  const sides = sidesOf(record, actor);
  if (sides.length !== 1) {
    return err(new DomainError('NOT_A_PLAYER', 'only one of the two players can claim that the other has left'));
  }
  const side = sides[0]!;
  const refused = (why: string) => err(new DomainError('CLAIM_NOT_AVAILABLE', why));
  if (!isRealTime(record)) return refused('only a real-time game can be claimed when the opponent leaves');
  if (record[opposite(side)].id === ENGINE_ID) return refused('the computer never leaves: there is nothing to claim');
  if (record.clock!.phase < 2) {
    return refused('the game has not started (each side has not moved once): it can be aborted, not claimed');
  }
  if (game.pos.turn === side) return refused("a game is claimed on the opponent's turn only, and it is yours to move");
  const claimableAt = goneSince === undefined ? undefined : goneSince + OPPONENT_GONE_MS + CLAIM_AFTER_GONE_MS;
  if (claimableAt === undefined || now < claimableAt) {
    const wait =
      claimableAt === undefined ? 'the opponent is connected' : `wait ${Math.ceil((claimableAt - now) / 1000)} s`;
    return refused(`the opponent has not been gone long enough: ${wait}`);
  }
  return ended(game, claim === 'victory' ? { kind: 'timeout', winner: side } : { kind: 'drawClaimed' }, now);
}
