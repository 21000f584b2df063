/**
 * Seeks (DECISIONS §16): a player asks to be paired with anyone who wants the same time control. A new seek is
 * stored first, then paired with the oldest compatible open seek of another player; the pairing is a claim of both
 * seeks in the store (seeks.ts), so that each is paired at most once whatever the number of instances. Since every
 * seek is stored before it looks for a partner, of two seeks racing on two instances the later look finds the
 * earlier seek: nobody waits beside a compatible seek.
 *
 * A real-time seek lives while its request is open: this instance keeps the seeks it holds alive in the store
 * (a lease renewed every third of LEASE_MS) and withdraws one whose client disconnects; one whose instance died is
 * not paired (the store knows its holder dead), and lapses with its lease. A correspondence seek lives until it is
 * paired or withdrawn (`DELETE`).
 *
 * A player has at most one open real-time seek: a new one withdraws the older in the store, and the older's request
 * ends (on any instance: a shared store announces the withdrawal). At most MAX_CORRESPONDENCE_SEEKS correspondence
 * seeks are open per player: beyond, RATE_LIMITED (DECISIONS §16a).
 *
 * The pairing records the game's id and each seek's colour before the game is made; the game is made by the
 * instance that paired, tried until recorded (selfChanges.ts), and a pairing a crash left without its game is
 * made at start (`makeMissingGames`, which does the same for accepted challenges). Both players get `gameStart`
 * from the game's creation; a real-time seek's request ends when its seek is paired or withdrawn by a newer one (on
 * any instance: a shared store announces both, `announced`).
 *
 * ```ts
 * const seeks = new SeekService({ store, games });
 * const seek = await seeks.create(playerActor(ann), { time: '5', increment: '0' });
 * await seeks.settled(seek, signal); // true once paired or replaced; aborting withdraws it (false)
 * ```
 */
import { DomainError, orThrow } from '../domain/errors.ts';
import { actingPlayer, SERVICE, type Actor } from '../domain/seats.ts';
import {
  bySeekAge,
  canPair,
  gameOfSeeks,
  isRealTime,
  newSeek,
  pairSeeks,
  parseSeekRequest,
  type Seek,
  type SeekGame,
  type SeekRequest,
} from '../domain/seek.ts';
import { clockOfChallenge } from '../domain/challenge.ts';
import { intRating } from '../domain/glicko.ts';
import { perfIn, perfTypeOf } from '../domain/ratings.ts';
import type { RatingStore } from '../store/ratings.ts';
import type { PlayerInfo } from '../contract/shapes.ts';
import type { SeekStore } from '../store/seeks.ts';
import type { GameService } from './games.ts';
import { newGameId } from './ids.ts';
import { SelfChanges, type Failure } from './selfChanges.ts';

/** How long a real-time seek stays alive in the store without its instance renewing it. */
export const LEASE_MS = 15_000;
/** Open correspondence seeks per player (DECISIONS §16a). */
export const MAX_CORRESPONDENCE_SEEKS = 10;
/** Open seeks of a pool looked at per try: the oldest. */
const CANDIDATES = 50;
/** Seeks announced no longer open before they were held here, remembered at most (the latest). */
const MAX_ENDED_UNHELD = 1000;
/** Pairings lost to another one that a seek tries again before it waits. */
const MAX_PAIR_ATTEMPTS = 10;
const MAX_ID_ATTEMPTS = 5;
/** How far back a start looks for pairings left without their game. */
const MISSING_GAMES_SINCE_MS = 24 * 3_600_000;

export interface SeekServiceDeps {
  store: SeekStore;
  games: GameService; // makes the paired games; its clock is the service's time
  newId?: () => string; // a seek's id, 8 letters or digits
  coin?: () => number; // [0, 1): draws the colours of two random seeks
  onError?: (failure: Failure) => void; // a failed try of a game's creation or a lease's renewal, for the log
  leaseMs?: number;
  ratings?: RatingStore | undefined; // a rated seek's player's rating, held to the other seeks' ranges
}

/** The player an actor is: seeks are made and withdrawn with a player token (403 otherwise). */
const playerOf = (actor: Actor): PlayerInfo => actingPlayer(actor, 'seeks need');

export class SeekService {
  private readonly newId: () => string;
  private readonly coin: () => number;
  private readonly leaseMs: number;
  /** The games of pairings made here, tried until recorded. */
  private readonly making: SelfChanges;
  /** The real-time seeks whose requests this instance holds, each with what to call when it is no longer open. */
  private readonly held = new Map<string, () => void>();
  /** Held seeks paired or replaced before their request waited for them (`settled` answers them at once). */
  private readonly endedEarly = new Set<string>();
  /**
   * Seeks announced no longer open that were not held here (yet): the announcement of a pairing or a withdrawal made
   * on another instance may come before the answer of the insert that makes this instance hold the seek.
   */
  private readonly endedUnheld = new Set<string>();
  private renewal: NodeJS.Timeout | undefined;

  constructor(private readonly deps: SeekServiceDeps) {
    this.newId = deps.newId ?? newGameId;
    this.coin = deps.coin ?? Math.random;
    this.leaseMs = deps.leaseMs ?? LEASE_MS;
    this.making = new SelfChanges({ now: () => this.now(), onFailure: deps.onError });
  }

  private now(): number {
    return this.deps.games.now();
  }

  /**
   * Makes a seek from the request's fields and pairs it if a compatible seek waits. A real-time seek is held
   * from here on: keep it with `settled` (which withdraws it when its signal aborts); it withdraws the player's
   * older real-time seek, whose request ends. A correspondence seek beyond MAX_CORRESPONDENCE_SEEKS is RATE_LIMITED.
   */
  async create(actor: Actor, body: Readonly<Record<string, unknown>>): Promise<Seek> {
    const player = playerOf(actor);
    const request = orThrow(parseSeekRequest(body));
    const now = this.now();
    const rating = request.rated ? await this.ratingOf(player, request) : undefined;
    for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
      const seek = newSeek({ id: this.newId(), player, request, now, aliveUntil: now + this.leaseMs, rating });
      const inserted = await this.deps.store.insertSeek(seek, MAX_CORRESPONDENCE_SEEKS);
      if (inserted.result === 'limit') {
        throw new DomainError(
          'RATE_LIMITED',
          `a player may have at most ${MAX_CORRESPONDENCE_SEEKS} open correspondence seeks: withdraw one first`,
        );
      }
      if (inserted.result === 'taken') continue;
      // The player's older real-time seek, withdrawn by this one: its request ends (here; elsewhere by announcement).
      this.endHeld(inserted.withdrawn);
      if (isRealTime(seek)) this.hold(seek.id);
      try {
        return await this.pair(seek);
      } catch (error) {
        // The seek could not look for a partner (the store failed): it is withdrawn, not left waiting unseen.
        this.release(seek.id);
        await this.deps.store.withdrawSeek(seek.id).catch(() => undefined);
        throw error;
      }
    }
    throw new Error('could not find an unused seek id');
  }

  /**
   * Resolves true once the held real-time seek is no longer open: paired, or withdrawn by its player's newer seek
   * (its request ends then). When `signal` aborts first (its client went away), the seek is withdrawn and the
   * promise resolves false.
   */
  settled(seek: Seek, signal: AbortSignal): Promise<boolean> {
    const early = this.endedEarly.delete(seek.id);
    if (seek.status !== 'open' || early) return Promise.resolve(true);
    return new Promise<boolean>(resolve => {
      const onAbort = () => {
        this.release(seek.id);
        // A seek paired meanwhile stays paired: the withdrawal claims only an open one.
        this.deps.store.withdrawSeek(seek.id).then(
          () => resolve(false),
          () => resolve(false), // it lapses with its lease
        );
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.held.set(seek.id, () => {
        signal.removeEventListener('abort', onAbort);
        this.release(seek.id);
        resolve(true);
      });
    });
  }

  /** How many real-time seeks this instance holds (their requests wait). */
  heldSeeks(): number {
    return this.held.size;
  }

  /** Withdraws the player's own open seek (a correspondence one: a real-time one goes with its request). */
  async withdraw(actor: Actor, id: string): Promise<void> {
    const player = playerOf(actor);
    const seek = await this.deps.store.seek(id);
    if (!seek || seek.status !== 'open') throw new DomainError('SEEK_NOT_FOUND', `no open seek ${id}`);
    if (seek.player.id !== player.id) throw new DomainError('FORBIDDEN', 'only its player can withdraw a seek');
    if (!(await this.deps.store.withdrawSeek(id))) throw new DomainError('SEEK_NOT_FOUND', `no open seek ${id}`);
    this.held.get(id)?.();
  }

  /**
   * Seeks no longer open, paired or withdrawn by their player's newer seek, here or on any instance (a shared
   * store's announcement): their requests held here end.
   */
  announced(ids: readonly string[]): void {
    for (const id of this.endHeld(ids)) {
      this.endedUnheld.add(id);
      if (this.endedUnheld.size > MAX_ENDED_UNHELD) this.endedUnheld.delete(this.endedUnheld.values().next().value!);
    }
  }

  /** Ends the requests held here of these seeks; answers the ids not held here. */
  private endHeld(ids: readonly string[]): string[] {
    return ids.filter(id => {
      const end = this.held.get(id);
      end?.();
      return end === undefined;
    });
  }

  /** Announcements may have been missed (a shared store's): the seeks held here are read again. */
  async resynced(): Promise<void> {
    for (const id of [...this.held.keys()]) {
      const status = (await this.deps.store.seek(id))?.status;
      if (status !== undefined && status !== 'open') this.held.get(id)?.();
    }
  }

  /**
   * Makes the games of pairings and accepted challenges a crash left without their game (at start), tried until
   * recorded. Resolves with how many.
   */
  async makeMissingGames(challenges?: { makeMissingGames(since: number): Promise<number> }): Promise<number> {
    const since = this.now() - MISSING_GAMES_SINCE_MS;
    // Both seeks of a pairing are listed: they share its game's id and time.
    const byGame = new Map<string, Seek[]>();
    for (const seek of await this.deps.store.seeksWithoutGame(since)) {
      byGame.set(seek.gameId!, [...(byGame.get(seek.gameId!) ?? []), seek]);
    }
    let made = 0;
    for (const [gameId, [a, b, ...more]] of byGame) {
      if (!a || !b || more.length > 0) continue;
      void this.makeGame(gameId, gameOfSeeks(a, b));
      made++;
    }
    return made + ((await challenges?.makeMissingGames(since)) ?? 0);
  }

  /** A player's rating, truncated, in the perf of a seek's time control. */
  private async ratingOf(player: PlayerInfo, request: SeekRequest): Promise<number> {
    const stored = (await this.deps.ratings?.perfsOf([player.id])) ?? [];
    const perfType = perfTypeOf(clockOfChallenge(request.timeControl));
    return intRating(perfIn(stored, player.id, perfType).glicko);
  }

  /** At shutdown: no lease is renewed, no game creation tried again. */
  close(): void {
    this.making.close();
    clearInterval(this.renewal);
    this.renewal = undefined;
  }

  /** Pairs `seek` with the oldest compatible open seek of another player, or leaves it open; answers it as it is. */
  private async pair(seek: Seek): Promise<Seek> {
    for (let attempt = 0; attempt < MAX_PAIR_ATTEMPTS; attempt++) {
      const now = this.now();
      const open = await this.deps.store.openSeeks(seek.pool, now, CANDIDATES);
      const candidate = open.sort(bySeekAge).find(other => canPair(other, seek, now));
      if (!candidate) return seek;
      const pairing = pairSeeks(candidate, seek, newGameId(), now, this.coin);
      let won: boolean;
      try {
        won = await this.deps.store.pairSeeks(pairing.older, pairing.newer);
      } catch (error) {
        // The pairing's answer was lost (the store failed): it may have been recorded all the same. Once the store
        // answers again, its game is made if it was.
        this.makeGameIfPaired(pairing.older, pairing.newer, pairing.game, error);
        throw error;
      }
      if (won) {
        await this.makeGame(pairing.newer.gameId!, pairing.game);
        this.endHeld([candidate.id, seek.id]);
        return pairing.newer;
      }
      // Another pairing won one of the two: this seek, if it was paired meanwhile, is done.
      const current = await this.deps.store.seek(seek.id);
      if (current?.status !== 'open') return current ?? seek;
    }
    return seek;
  }

  /**
   * Makes the game of a pairing whose answer was lost, tried until the store answers, if both seeks are stored paired
   * into it.
   */
  private makeGameIfPaired(older: Seek, newer: Seek, game: SeekGame, error: unknown): void {
    const gameId = newer.gameId!;
    this.deps.onError?.({ key: gameId, error, failures: 1, retryInMs: 0 });
    const make = async () => {
      const stored = await Promise.all([older.id, newer.id].map(id => this.deps.store.seek(id)));
      const paired = stored.every(seek => seek?.status === 'paired' && seek.gameId === gameId);
      if (paired) await this.createGame(gameId, game);
    };
    this.making.schedule(gameId, this.now(), make, undefined);
  }

  /** Makes a pairing's game under its recorded id (a game of that id already made is kept), tried until recorded. */
  private async makeGame(gameId: string, game: SeekGame): Promise<void> {
    const create = () => this.createGame(gameId, game);
    try {
      await create(); // at once: the request that paired waits for its game
    } catch (error) {
      // The store failed: the game is made later, tried again until recorded; the pairing stands meanwhile.
      this.deps.onError?.({ key: gameId, error, failures: 1, retryInMs: 0 });
      this.making.schedule(gameId, this.now(), create, undefined);
    }
  }

  /** Creates a pairing's game under its recorded id; a game of that id already made is kept. */
  private async createGame(gameId: string, game: SeekGame): Promise<void> {
    const { white, black, clock, rated } = game;
    const players = { white, black, clock, source: 'lobby' as const, rated, matched: true };
    await this.deps.games.create(players, SERVICE, gameId);
  }

  /** Holds a real-time seek: its lease is renewed while this instance holds it. */
  private hold(id: string): void {
    if (this.endedUnheld.delete(id)) {
      // Paired or withdrawn elsewhere before this instance held it: its request ends at once.
      this.endedEarly.add(id);
      return;
    }
    this.held.set(id, () => {
      this.release(id);
      this.endedEarly.add(id);
    });
    this.renewal ??= setInterval(() => void this.renew(), Math.max(1, Math.floor(this.leaseMs / 3))).unref();
  }

  private release(id: string): void {
    this.held.delete(id);
    if (this.held.size === 0 && this.renewal) {
      clearInterval(this.renewal);
      this.renewal = undefined;
    }
  }

  private async renew(): Promise<void> {
    const ids = [...this.held.keys()];
    if (ids.length === 0) return;
    try {
      await this.deps.store.keepSeeksAlive(ids, this.now() + this.leaseMs);
    } catch (error) {
      // Tried again at the next renewal; a seek whose lease lapses meanwhile is only not paired until then.
      this.deps.onError?.({ key: 'seek leases', error, failures: 1, retryInMs: Math.floor(this.leaseMs / 3) });
    }
  }
}
