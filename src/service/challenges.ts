/**
 * Challenges (DECISIONS §16): a player invites another (or anyone, an open challenge) to a game; the challenged
 * player accepts, declines or lets it expire, the challenger may cancel it. Each change of a pending challenge is
 * a claim in the store (a conditional update, challenges.ts), so that it changes once whatever the number of
 * instances and racing requests: of ten players accepting one open challenge at once, one gets the game.
 *
 * An accepted challenge's game has the challenge's id, as on lichess, so that both players' clients know which
 * game start is the challenge's. Accepting records that id in the claim before the game is made; a game that cannot
 * be made then (the store failed), or whose claim was recorded but its answer lost, is made later by the service
 * itself, tried until recorded (selfChanges.ts), as a pairing's is (DECISIONS §16a), while the accept answers the
 * failure. A retried accept by the same player of a
 * challenge so accepted answers 200 again and makes that game if it is still missing, never a second one; and a
 * crash between the claim and the game is repaired at start (`makeMissingGames`): no accepted challenge is left
 * without its game.
 *
 * A pending challenge expires at its `expiresAt` (CHALLENGE_TTL_S for real-time ones, 7 days for the others): a
 * change the service makes by itself (selfChanges.ts), tried until recorded, its timers armed at start from the
 * store. Events go to both players' streams (`PlayerFeed.publishChallenge`), each with its own `direction`.
 *
 * ```ts
 * const challenges = new ChallengeService({ store, games, players, ttlMs: 3_600_000 });
 * const made = await challenges.create(playerActor(ann), 'bob', { 'clock.limit': '300', 'clock.increment': '2' });
 * await challenges.accept(playerActor(bob), made.id); // the game starts: gameStart to both
 * ```
 */
import type { PlayerInfo } from '../contract/shapes.ts';
import type { ChallengeJson } from '../contract/challenges.ts';
import type { ChallengeLine } from '../contract/events.ts';
import {
  acceptChallenge,
  cancelChallenge,
  declineChallenge,
  declineReasonOf,
  expireChallenge,
  clockOfChallenge,
  MAX_PENDING_CHALLENGES,
  newChallenge,
  parseChallengeRequest,
  type Challenge,
  type ChallengeGame,
  type ChallengeRatings,
  type ChallengeTimeControl,
  type DeclineReason,
} from '../domain/challenge.ts';
import { perfIn, perfTypeOf, seatRatingOf } from '../domain/ratings.ts';
import type { RatingStore } from '../store/ratings.ts';
import { DomainError, orThrow, type Result } from '../domain/errors.ts';
import { actingPlayer, SERVICE, type Actor } from '../domain/seats.ts';
import type { PlayerFeed } from '../bus/players.ts';
import type { ChallengeStore } from '../store/challenges.ts';
import type { TokenStore } from '../store/tokens.ts';
import type { GameService } from './games.ts';
import { newGameId } from './ids.ts';
import { SelfChanges, type Failure } from './selfChanges.ts';
import { challengeJsonOf } from './challengeViews.ts';

/** The challenges whose expiry timers are armed at start: the soonest to expire first. */
const ARMED_AT_START = 100_000;
const MAX_ID_ATTEMPTS = 5;
/** The line a status announced sends (none for an acceptance: its game's gameStart tells the players). */
const LINES: Record<Challenge['status'], ChallengeLine['type'] | undefined> = {
  created: 'challenge',
  declined: 'challengeDeclined',
  canceled: 'challengeCanceled',
  accepted: undefined,
};
/** Claims lost to another change that one request judges again before it gives up. */
const MAX_CLAIM_ATTEMPTS = 5;

export interface ChallengeServiceDeps {
  store: ChallengeStore & Pick<TokenStore, 'knownPlayer'>;
  games: GameService; // makes the accepted games; its clock is the service's time
  players?: PlayerFeed | undefined; // the players' event streams
  ttlMs: number; // CHALLENGE_TTL_S: how long a real-time challenge waits
  publicUrl?: string | undefined; // the base of a challenge's `url`; none: relative to the service
  newId?: () => string; // a challenge's id, 8 letters or digits
  coin?: () => number; // [0, 1): draws a random colour
  onExpiryError?: (failure: Failure) => void; // a failed try of an expiry (it is tried again), for the log
  onGameError?: (failure: Failure) => void; // a failed try of an accepted challenge's game (tried again), for the log
  // Other instances share the store (PostgreSQL): it announces every challenge made or changed to every instance
  // (`announced`), this one included, and the events go out from there rather than from the change itself.
  sharedStore?: boolean;
  ratings?: RatingStore | undefined; // the players' ratings a challenge shows
}

const notFound = (id: string) => new DomainError('CHALLENGE_NOT_FOUND', `no pending challenge ${id}`);

/** The player an actor is: challenges are made and answered with a player token (403 otherwise). */
const playerOf = (actor: Actor): PlayerInfo => actingPlayer(actor, 'challenges need');

export class ChallengeService {
  private readonly expiries: SelfChanges;
  /** The games of accepts whose first try failed, tried again until recorded. */
  private readonly making: SelfChanges;
  private readonly newId: () => string;
  private readonly coin: () => number;

  constructor(private readonly deps: ChallengeServiceDeps) {
    this.newId = deps.newId ?? newGameId;
    this.coin = deps.coin ?? Math.random;
    this.expiries = new SelfChanges({ now: () => this.now(), onFailure: deps.onExpiryError });
    this.making = new SelfChanges({ now: () => this.now(), onFailure: deps.onGameError });
  }

  private now(): number {
    return this.deps.games.now();
  }

  /** The players' ratings in the perf of a challenge's time control, as they stand at `now`. */
  private async ratingsOf(
    challenger: PlayerInfo,
    destUser: PlayerInfo | null,
    timeControl: ChallengeTimeControl,
    now: number,
  ): Promise<ChallengeRatings | undefined> {
    const { ratings } = this.deps;
    if (!ratings) return undefined;
    const perfType = perfTypeOf(clockOfChallenge(timeControl));
    const stored = await ratings.perfsOf(destUser ? [challenger.id, destUser.id] : [challenger.id]);
    const of = (player: PlayerInfo) => seatRatingOf(perfIn(stored, player.id, perfType), now);
    return destUser ? { challenger: of(challenger), destUser: of(destUser) } : { challenger: of(challenger) };
  }

  /** A challenge as `viewer` reads it. */
  view(challenge: Challenge, viewer?: string): ChallengeJson {
    return challengeJsonOf(challenge, { viewer, now: this.now(), baseUrl: this.deps.publicUrl ?? '' });
  }

  /**
   * Makes a challenge to `destId` (null: an open challenge) from the request's fields. The challenged player must
   * be known (PLAYER_NOT_FOUND); a player has at most MAX_PENDING_CHALLENGES pending (RATE_LIMITED).
   */
  async create(actor: Actor, destId: string | null, body: Readonly<Record<string, unknown>>): Promise<Challenge> {
    const challenger = playerOf(actor);
    const request = orThrow(parseChallengeRequest(body));
    let destUser: PlayerInfo | null = null;
    if (destId !== null) {
      if (destId === challenger.id) {
        throw new DomainError('INVALID_CHALLENGE', 'a player cannot challenge themselves');
      }
      destUser = (await this.deps.store.knownPlayer(destId)) ?? null;
      if (destUser === null) throw new DomainError('PLAYER_NOT_FOUND', `no player ${destId} is known to the service`);
    }
    const now = this.now();
    const ratings = await this.ratingsOf(challenger, destUser, request.timeControl, now);
    for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
      const id = this.newId();
      // The accepted game takes the challenge's id: an id a game already has is not given to a challenge.
      if (await this.deps.games.exists(id)) continue;
      const input = { id, challenger, destUser, request, now, ttlMs: this.deps.ttlMs, coin: this.coin, ratings };
      const challenge = orThrow(newChallenge(input));
      const inserted = await this.deps.store.insertChallenge(challenge, MAX_PENDING_CHALLENGES);
      if (inserted === 'limit') {
        throw new DomainError('RATE_LIMITED', `a player may have at most ${MAX_PENDING_CHALLENGES} pending challenges`);
      }
      if (inserted === 'inserted') {
        this.arm(challenge);
        this.announce(challenge, 'challenge');
        return challenge;
      }
    }
    throw new Error('could not find an unused challenge id');
  }

  /** The challenge, whatever its status, to a player; CHALLENGE_NOT_FOUND when there is none. */
  show(actor: Actor, id: string): Promise<Challenge> {
    playerOf(actor);
    return this.find(id);
  }

  /** The challenge, whatever its status; CHALLENGE_NOT_FOUND when there is none. */
  async find(id: string): Promise<Challenge> {
    const challenge = await this.deps.store.challenge(id);
    if (!challenge) throw new DomainError('CHALLENGE_NOT_FOUND', `no challenge ${id}`);
    return challenge;
  }

  /** The player's pending challenges: received and made. */
  list(actor: Actor): Promise<{ in: Challenge[]; out: Challenge[] }> {
    return this.pendingOf(playerOf(actor).id);
  }

  /** A player's pending challenges: received and made, oldest first. */
  async pendingOf(playerId: string): Promise<{ in: Challenge[]; out: Challenge[] }> {
    const pending = await this.deps.store.pendingChallenges(playerId, this.now());
    return {
      in: pending.filter(challenge => challenge.challenger.id !== playerId),
      out: pending.filter(challenge => challenge.challenger.id === playerId),
    };
  }

  /**
   * Accepts a pending challenge and makes its game (with the gameId recorded by the claim); resolves with the
   * accepted challenge once the game exists. An accept retried by the player who accepted makes the game if it is
   * missing; any other accept of a challenge no longer pending is CHALLENGE_NOT_FOUND.
   */
  async accept(actor: Actor, id: string): Promise<Challenge> {
    playerOf(actor);
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
      const challenge = await this.deps.store.challenge(id);
      if (!challenge) throw notFound(id);
      if (this.acceptedBy(challenge, actor)) {
        await this.makeGameOrRetry(challenge, this.gameOf(challenge));
        return challenge;
      }
      // The game takes the challenge's id, as on lichess: a client that accepted knows its game's address.
      const { challenge: accepted, game } = orThrow(acceptChallenge(challenge, actor, this.now(), challenge.id));
      let claimed: boolean;
      try {
        claimed = await this.deps.store.claimChallenge(accepted, challenge.version);
      } catch (error) {
        // The claim's answer was lost (the store failed): it may have been recorded all the same. Once the store
        // answers again, its game is made if it was.
        this.makeGameLater(accepted, game, error);
        throw error;
      }
      if (claimed) {
        this.expiries.cancel(id);
        await this.makeGameOrRetry(accepted, game);
        return accepted;
      }
      // Another change won the claim: judged again on what it left.
    }
    throw notFound(id);
  }

  /** Declines a pending challenge (the challenged player), with one of lichess's reasons (generic by default). */
  async decline(actor: Actor, id: string, reasonText?: string): Promise<Challenge> {
    playerOf(actor);
    let reason: DeclineReason | undefined;
    if (reasonText !== undefined && reasonText !== '') {
      reason = declineReasonOf(reasonText);
      if (reason === undefined)
        throw new DomainError('INVALID_BODY', `unknown decline reason '${reasonText}'`, 'reason');
    }
    return this.change(id, (challenge, now) => declineChallenge(challenge, actor, now, reason));
  }

  /** Cancels a pending challenge (the challenger); the challenged player's cancel declines it. */
  cancel(actor: Actor, id: string): Promise<Challenge> {
    playerOf(actor);
    return this.change(id, (challenge, now) => cancelChallenge(challenge, actor, now));
  }

  /** Arms the expiry of every pending challenge in the store (at start); resolves with how many. */
  async armExpiries(): Promise<number> {
    const pending = await this.deps.store.expiringChallenges(ARMED_AT_START);
    for (const challenge of pending) this.arm(challenge);
    return pending.length;
  }

  /**
   * Makes the games of challenges accepted at or after `since` that a crash left without their game (at start).
   * Resolves with how many; one that fails now is tried again until recorded.
   */
  async makeMissingGames(since: number): Promise<number> {
    let made = 0;
    for (const challenge of await this.deps.store.challengesWithoutGame(since)) {
      if (challenge.gameId === null || challenge.acceptedBy === null) continue;
      await this.makeGameOrRetry(challenge, this.gameOf(challenge)).catch(() => undefined);
      made++;
    }
    return made;
  }

  /** Announcements may have been missed (a shared store's): the expiries are armed again from the store. */
  resynced(): Promise<number> {
    return this.armExpiries();
  }

  /** At shutdown: no expiry runs or is tried again any more, nor the making of a game. */
  close(): void {
    this.expiries.close();
    this.making.close();
  }

  /** Expires a challenge whose time has come; resolves when recorded or no longer due, rejects to be tried again. */
  async expire(id: string): Promise<void> {
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
      const challenge = await this.deps.store.challenge(id);
      const expired = challenge && expireChallenge(challenge, this.now());
      if (!challenge || !expired) return;
      if (await this.deps.store.claimChallenge(expired, challenge.version)) {
        this.announce(expired, 'challengeCanceled');
        return;
      }
    }
  }

  private arm(challenge: Challenge): void {
    this.expiries.schedule(challenge.id, challenge.expiresAt, () => this.expire(challenge.id), undefined);
  }

  /** Claims the change a transition makes of a pending challenge, then tells both players. */
  private async change(id: string, transition: (challenge: Challenge, now: number) => Result<Challenge>) {
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
      const challenge = await this.deps.store.challenge(id);
      if (!challenge) throw notFound(id);
      const next = orThrow(transition(challenge, this.now()));
      if (await this.deps.store.claimChallenge(next, challenge.version)) {
        this.expiries.cancel(id);
        this.announce(next, next.status === 'declined' ? 'challengeDeclined' : 'challengeCanceled');
        return next;
      }
    }
    throw notFound(id);
  }

  /** Whether the challenge was accepted by this actor, so that its accept is a retry. */
  private acceptedBy(challenge: Challenge, actor: Actor): boolean {
    return (
      challenge.status === 'accepted' &&
      challenge.gameId !== null &&
      actor.kind === 'player' &&
      challenge.acceptedBy?.id === actor.player.id
    );
  }

  /** The game an accepted challenge makes (as when it was accepted: seats, clock, position). */
  private gameOf(challenge: Challenge): ChallengeGame {
    const { challenger, acceptedBy } = challenge;
    const [white, black] = challenge.finalColor === 'white' ? [challenger, acceptedBy!] : [acceptedBy!, challenger];
    return { white, black, clock: clockOfChallenge(challenge.timeControl), fen: challenge.initialFen };
  }

  /**
   * Makes the accepted challenge's game now; should that fail, the service tries again by itself, with backoff,
   * until it is recorded (DECISIONS §16a), and the failure is the answer of the request that accepted.
   */
  private async makeGameOrRetry(challenge: Challenge, game: ChallengeGame): Promise<void> {
    try {
      await this.makeGame(challenge, game);
      this.making.cancel(challenge.gameId!); // made: a retry scheduled by an earlier try has nothing left to do
    } catch (error) {
      this.makeGameLater(challenge, game, error);
      throw error;
    }
  }

  /**
   * Tries again, with backoff until it is recorded, to make the game of `accepted` (the challenge as its claim
   * recorded it), if the stored challenge is that claim: a claim whose answer was lost may not have been recorded.
   */
  private makeGameLater(accepted: Challenge, game: ChallengeGame, error: unknown): void {
    const key = accepted.gameId!;
    if (this.making.has(key)) return;
    this.deps.onGameError?.({ key, error, failures: 1, retryInMs: 0 });
    const make = async () => {
      const stored = await this.deps.store.challenge(accepted.id);
      const claimed =
        stored?.status === 'accepted' &&
        stored.version === accepted.version &&
        stored.acceptedBy?.id === accepted.acceptedBy?.id;
      if (claimed) await this.makeGame(stored, game);
    };
    this.making.schedule(key, this.now(), make, undefined);
  }

  /** Makes the accepted challenge's game under its recorded id (a game of that id already made is kept). */
  private async makeGame(challenge: Challenge, game: ChallengeGame): Promise<void> {
    const players = { white: game.white, black: game.black, clock: game.clock, rated: game.rated, matched: true };
    const gameId = challenge.gameId!;
    if (game.fen === null) await this.deps.games.create(players, SERVICE, gameId);
    else await this.deps.games.importFen(players, game.fen, SERVICE, gameId);
  }

  /**
   * A challenge made or changed on any instance (a shared store's announcement, the challenge as committed): its
   * expiry is armed or dropped here too (the claim lets one instance record it), and its players' streams here are
   * told.
   */
  announced(challenge: Challenge): void {
    if (challenge.status === 'created') this.arm(challenge);
    else this.expiries.cancel(challenge.id);
    const type = LINES[challenge.status];
    if (type) this.tell(challenge, type);
  }

  /** Tells the players of a change made here, unless the shared store announces it to every instance. */
  private announce(challenge: Challenge, type: ChallengeLine['type']): void {
    if (!this.deps.sharedStore) this.tell(challenge, type);
  }

  /** Tells the challenger and the challenged player (each with its own direction). */
  private tell(challenge: Challenge, type: ChallengeLine['type']): void {
    const players = this.deps.players;
    if (!players) return;
    for (const player of [challenge.challenger, challenge.destUser]) {
      if (player) players.publishChallenge(player.id, { type, challenge: this.view(challenge, player.id) });
    }
  }
}
