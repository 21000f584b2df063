/**
 * Who may act for which side (DECISIONS §13). A game's seats are its `white.id` and `black.id`; a request acts
 * either as the service (a service token, or no authentication at all), which acts for any side as sections 5 and
 * 6 have it, or as one player, who acts only for the sides whose seat holds the player's id.
 *
 * Each transition asks here, after GAME_OVER and before its own rules, which side it acts for, and gets that side
 * or the 403 to answer: NOT_A_PLAYER for a player with no seat, NOT_YOUR_TURN for an action that is the other
 * side's to make, TAKEBACK_NEEDS_CONSENT for undo and redo between two different players.
 *
 * ```ts
 * const side = moverOf(game.record, 'white', playerActor(ann)); // ok('white') when Ann holds white
 * ```
 */
import { opposite } from 'chessops/util';
import type { PlayerInfo } from '../contract/shapes.ts';
import type { Color } from '../contract/vocabulary.ts';
import { DomainError, err, ok, type Result } from './errors.ts';
import type { GameRecord } from './game.ts';

/** Who makes a request: the service, for any side, or one player (the owner of a player token). */
export type Actor =
  { readonly kind: 'service' } | { readonly kind: 'player'; readonly player: PlayerInfo; readonly bot?: true }; // bot: DECISIONS §17

export const SERVICE: Actor = Object.freeze({ kind: 'service' });

export const playerActor = (player: PlayerInfo, bot = false): Actor =>
  bot ? { kind: 'player', player, bot: true } : { kind: 'player', player };

/**
 * The player an actor is, for what only a player may do (challenges, seeks, lichess's account paths): FORBIDDEN for a
 * service token, `needs` saying what needs a player token, e.g. 'challenges need'.
 */
export function actingPlayer(actor: Actor, needs: string): PlayerInfo {
  if (actor.kind === 'player') return actor.player;
  throw new DomainError('FORBIDDEN', `${needs} a player token: a service token acts for no player`);
}

/** The sides `actor` may act for in a game: both for the service, the seats holding its id for a player. */
export function sidesOf(record: Pick<GameRecord, 'white' | 'black'>, actor: Actor): Color[] {
  if (actor.kind === 'service') return ['white', 'black'];
  const sides: Color[] = [];
  if (record.white.id === actor.player.id) sides.push('white');
  if (record.black.id === actor.player.id) sides.push('black');
  return sides;
}

const notAPlayer = (): Result<never> =>
  err(new DomainError('NOT_A_PLAYER', 'this player holds no side of the game and cannot change it'));

const notYourTurn = (what: string): Result<never> => err(new DomainError('NOT_YOUR_TURN', what));

/** The seats of the actor, or NOT_A_PLAYER when it has none. */
function seatsOf(record: GameRecord, actor: Actor): Result<Color[]> {
  const sides = sidesOf(record, actor);
  return sides.length === 0 ? notAPlayer() : ok(sides);
}

/** A move (also completing a pending promotion) or a draw claim: only for the side to move. */
export function moverOf(record: GameRecord, turn: Color, actor: Actor): Result<Color> {
  const seats = seatsOf(record, actor);
  if (!seats.ok) return seats;
  return seats.value.includes(turn)
    ? ok(turn)
    : notYourTurn(`it is ${turn}'s turn, and this player holds ${seats.value[0]}`);
}

/**
 * The side that resigns or makes an offer: the one the actor holds; for an actor holding both (the service, a
 * practice board), `either`, the side the action needs (the side to move for resignation and draw offers, the
 * side that made the last move for takeback offers).
 */
export function ownSideOf(record: GameRecord, either: Color, actor: Actor): Result<Color> {
  const seats = seatsOf(record, actor);
  if (!seats.ok) return seats;
  return ok(seats.value.length === 2 ? either : seats.value[0]!);
}

/** An answer to an offer (`offeredBy`, if any): only the side that did not offer; an actor holding both answers either. */
export function answererOf(record: GameRecord, offeredBy: Color | null, actor: Actor, what: string): Result<void> {
  const seats = seatsOf(record, actor);
  if (!seats.ok) return seats;
  if (offeredBy !== null && seats.value.length === 1 && seats.value[0] === offeredBy) {
    return notYourTurn(`${offeredBy} made the ${what} offer; only ${opposite(offeredBy)} can answer it`);
  }
  return ok(undefined);
}

/**
 * Undo and redo: for the service and for a player holding both sides; between two different players, takebacks;
 * never in a rated game (DECISIONS §21), whose takebacks are by consent only.
 */
export function mayRewind(record: GameRecord, actor: Actor): Result<void> {
  const seats = seatsOf(record, actor);
  if (!seats.ok) return seats;
  if (seats.value.length === 1) {
    return err(
      new DomainError(
        'TAKEBACK_NEEDS_CONSENT',
        'undo and redo need both sides: between two players, offer a takeback (POST .../takeback/offer)',
      ),
    );
  }
  if (record.rated) {
    return err(
      new DomainError(
        'NOT_ALLOWED_IN_RATED',
        'undo and redo are not allowed in a rated game: offer a takeback (POST .../takeback/offer)',
      ),
    );
  }
  return ok(undefined);
}

export interface Seats {
  white?: PlayerInfo | undefined;
  black?: PlayerInfo | undefined;
}

/**
 * The seats of a game a player creates (create, import FEN, import PGN; DECISIONS §13a): a player creates only
 * practice boards, holding both seats; a request that names anyone else as a side is NOT_A_PLAYER, since playing
 * someone takes their consent (a challenge). Naming oneself is allowed, with the display name given. The service
 * takes the request as it is: that is how an operator pairs two players.
 */
export function seatsForNewGame(requested: Seats, actor: Actor): Result<Seats> {
  if (actor.kind === 'service') return ok(requested);
  const { player } = actor;
  const { white = player, black = player } = requested;
  const other = [white, black].find(side => side.id !== player.id);
  if (other) {
    return err(
      new DomainError(
        'NOT_A_PLAYER',
        `a player token creates only games in which its player holds both sides (${player.id}); ` +
          `to play ${other.id}, challenge them (POST /api/challenge/${encodeURIComponent(other.id)})`,
      ),
    );
  }
  return ok({ white, black });
}
