/**
 * The making of games (games.ts): a new game, or one imported from a FEN or a PGN, with its seats and its clock
 * checked, recorded under a fresh id (or one the caller chose) and then kept and followed as a change is
 * (gameChanges.ts, `created`).
 *
 * ```ts
 * const creation = new GameCreation({ store, newId, clock: () => new Date(), maxPgnPlies: 10_000, cache, changes });
 * const game = await creation.create({ white: ann, black: bob, clock: { initial: 300, increment: 3 } });
 * ```
 */
import { gameFromFen, newGame, type Game, type GameRatings, type NewGameInput } from '../domain/game.ts';
import { gameRatingsOf, perfIn, perfTypeOf } from '../domain/ratings.ts';
import { DEFAULT_BLACK, DEFAULT_WHITE } from '../domain/types.ts';
import type { RatingStore } from '../store/ratings.ts';
import { ENGINE_ID } from '../contract/vocabulary.ts';
import { gameFromPgn } from '../domain/pgn.ts';
import { ok, type Result } from '../domain/errors.ts';
import { SERVICE, seatsForNewGame, type Actor } from '../domain/seats.ts';
import { parseTimeControl, type TimeControl } from '../domain/clock.ts';
import { indexOfGame as indexOf } from '../domain/transitions.ts';
import { gameStateEvent } from '../domain/views.ts';
import type { ClockRequest, PlayerInfo } from '../contract/shapes.ts';
import type { GameStore } from '../store/store.ts';
import type { GameCache } from './gameCache.ts';
import type { GameChanges } from './gameChanges.ts';

/** What a creation asks for: the players and an optional clock. */
export interface Players {
  white?: PlayerInfo | undefined;
  black?: PlayerInfo | undefined;
  clock?: ClockRequest | undefined;
  source?: 'lobby' | undefined; // a game paired from seeks (create only)
  /** A rated game (a challenge's or seeks', DECISIONS §21): its sides' ratings are recorded as it begins. */
  rated?: boolean | undefined;
  /** Two players met through a challenge or seeks: their ratings are recorded as it begins, rated or casual. */
  matched?: boolean | undefined;
}

export interface GameCreationDeps {
  store: GameStore;
  newId: () => string;
  clock: () => Date;
  maxPgnPlies: number; // e.g. 10000
  cache: GameCache;
  changes: GameChanges;
  ratings?: RatingStore | undefined; // where a challenge's or seeks' game reads its sides' ratings
}

const MAX_ID_ATTEMPTS = 5;

export class GameCreation {
  constructor(private readonly deps: GameCreationDeps) {}

  // Only the players and the clock are taken from the request: spreading it whole would let a body set the id or
  // the date. A player creates only games in which they hold both sides (DECISIONS §13a).
  // `id`: the game's id, chosen by the caller (an accepted challenge records it before the game is made); a game
  // of that id already made is answered as it is, so that a creation retried after a crash makes one game.
  async create(
    { white, black, clock, source, rated, matched }: Players,
    actor: Actor = SERVICE,
    id?: string,
  ): Promise<Game> {
    const seats = seatsForNewGame({ white, black }, actor);
    if (!seats.ok) throw seats.error;
    // A game of two players who met through a challenge or seeks shows their ratings as it began, rated or casual
    // (DECISIONS §21); only a rated one is rated at its end. The seed's own games keep lichess's neutral 1500.
    const shown = rated || (matched && betweenPlayers(seats.value));
    const ratings = shown ? await this.ratingsOf(seats.value, clock) : undefined;
    return this.insert(clock, input => ok(newGame({ ...input, ...seats.value, source, rated, ratings })), id);
  }

  /** Both sides' ratings in the perf of `clock`, as they stand now. */
  private async ratingsOf(
    {
      white = DEFAULT_WHITE,
      black = DEFAULT_BLACK,
    }: { white?: PlayerInfo | undefined; black?: PlayerInfo | undefined },
    clock: ClockRequest | undefined,
  ): Promise<GameRatings | undefined> {
    const { ratings, clock: now } = this.deps;
    if (!ratings) return undefined;
    const parsed = clock ? parseTimeControl(clock) : undefined;
    const perfType = perfTypeOf(parsed?.ok ? parsed.value : undefined);
    const stored = await ratings.perfsOf([white.id, black.id]);
    const perfs = { white: perfIn(stored, white.id, perfType), black: perfIn(stored, black.id, perfType) };
    return gameRatingsOf(perfs, now().getTime());
  }

  importFen({ white, black, clock }: Players, fen: string, actor: Actor = SERVICE, id?: string): Promise<Game> {
    const seats = seatsForNewGame({ white, black }, actor);
    if (!seats.ok) return Promise.reject(seats.error);
    return this.insert(clock, input => gameFromFen({ ...input, ...seats.value }, fen), id);
  }

  /** A player imports a game in which they hold both sides; the tags' names are not used then. */
  importPgn(pgn: string, actor: Actor = SERVICE, clock?: ClockRequest): Promise<Game> {
    const seats = seatsForNewGame({}, actor);
    if (!seats.ok) return Promise.reject(seats.error);
    const maxPlies = this.deps.maxPgnPlies;
    return this.insert(clock, input => gameFromPgn({ ...input, ...seats.value }, pgn, { maxPlies }));
  }

  private async insert(
    clock: ClockRequest | undefined,
    build: (input: NewGameInput) => Result<Game>,
    id?: string,
  ): Promise<Game> {
    let control: TimeControl | undefined;
    if (clock) {
      const parsed = parseTimeControl(clock);
      if (!parsed.ok) throw parsed.error;
      control = parsed.value;
    }
    const { store, newId, clock: now, cache, changes } = this.deps;
    for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
      if (id !== undefined && attempt > 0) return cache.get(id); // made already: the id is taken by that game
      const result = build({ id: id ?? newId(), createdAt: now().toISOString(), clock: control });
      if (!result.ok) throw result.error;
      const game = result.value;
      const index = indexOf(game);
      if (await store.create(game.record, index, gameStateEvent(game, now().getTime()))) {
        changes.created(game, index);
        return game;
      }
    }
    throw new Error('could not find an unused game id');
  }
}

/** Whether both seats are named players, two different ones, neither the computer: who have ratings to show. */
function betweenPlayers({ white, black }: { white?: PlayerInfo | undefined; black?: PlayerInfo | undefined }): boolean {
  return (
    white !== undefined &&
    black !== undefined &&
    white.id !== black.id &&
    white.id !== ENGINE_ID &&
    black.id !== ENGINE_ID
  );
}
