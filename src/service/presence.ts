/**
 * Presence at games (DECISIONS §17, opponent gone): whether each player of a real-time game has a stream of it open,
 * on any instance, and since when one who has none is gone.
 *
 * - `open(gameId, playerId)`: a stream of the player's (either dialect) opened here; the returned function is called
 *   when it closes. This instance writes a lease for the player while it holds one of their streams (renewed every
 *   third of LEASE_MS) and the time its last one closed; a dead instance's leases lapse.
 * - `goneSince(game, playerId)`: read from the store for a claim: undefined while the player is there, else when they
 *   left (the game's start if they never came).
 * - `watch(...)`: a lichess stream of one player learns of their opponent: `{gone: true, claimWinInSeconds}` once the
 *   opponent has been gone OPPONENT_GONE_MS, `{gone: false}` when they come back; every watched game is read in one
 *   store query per tick. The computer is never watched: it never goes.
 *
 * ```ts
 * const presence = new GamePresence({ store, now: () => games.now() });
 * const close = presence.open(gameId, 'ann'); // ...close() when the stream closes
 * const stop = presence.watch({ gameId, startedAt, opponentId: 'bob' }, line => send(line));
 * ```
 */
import type { OpponentGone } from '../contract/lichess.ts';
import { randomBytes } from 'node:crypto';
import { CLAIM_AFTER_GONE_MS, OPPONENT_GONE_MS } from '../domain/transitions.ts';
import type { Game } from '../domain/game.ts';
import { ENGINE_ID } from '../domain/engineSeat.ts';
import type { PresenceKey, PresenceStore } from '../store/presence.ts';

/** The key under which a player's event streams are kept, as a game's streams are (no game has this id). */
export const EVENT_STREAMS = '~events';

/** How long a lease on a player's presence lasts without renewal. */
export const LEASE_MS = 15_000;
/** How often the watched games are read. */
export const TICK_MS = 1_000;
/** Rows closed (or lapsed) this long ago are pruned. */
const PRUNE_AFTER_MS = 24 * 3_600_000;

export type OpponentGoneLine = OpponentGone;

export interface GamePresenceDeps {
  store: PresenceStore;
  now: () => number;
  instanceId?: string;
  leaseMs?: number;
  tickMs?: number;
  onError?: (error: unknown) => void;
}

interface Watcher {
  gameId: string;
  opponentId: string;
  startedAt: number; // ms: a player never seen is gone since the game's start
  send: (line: OpponentGoneLine) => void;
  gone: boolean | undefined; // what it was last told
}

const keyOf = ({ gameId, playerId }: PresenceKey) => `${gameId}\u0000${playerId}`;

/** When a player last seen at `until` (undefined: never) left, at `now`: undefined while present. */
export function goneSinceOf(until: number | undefined, startedAt: number, now: number): number | undefined {
  if (until === undefined) return startedAt;
  return until > now ? undefined : Math.max(until, startedAt);
}

/** What a watcher of a player gone since `since` (undefined: present) is told at `now`. */
export function opponentGoneLine(since: number | undefined, now: number): OpponentGoneLine {
  if (since === undefined || now - since < OPPONENT_GONE_MS) return { type: 'opponentGone', gone: false };
  const claimAt = since + OPPONENT_GONE_MS + CLAIM_AFTER_GONE_MS;
  return { type: 'opponentGone', gone: true, claimWinInSeconds: Math.max(0, Math.ceil((claimAt - now) / 1000)) };
}

export class GamePresence {
  private readonly instanceId: string;
  private readonly leaseMs: number;
  private readonly tickMs: number;
  /** The streams open here, per game and player. */
  private readonly held = new Map<string, { key: PresenceKey; streams: number }>();
  private readonly watchers = new Set<Watcher>();
  private renewal: NodeJS.Timeout | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private ticks = 0;
  private writes: Promise<void> = Promise.resolve();

  constructor(private readonly deps: GamePresenceDeps) {
    this.instanceId = deps.instanceId ?? randomBytes(8).toString('hex');
    this.leaseMs = deps.leaseMs ?? LEASE_MS;
    this.tickMs = deps.tickMs ?? TICK_MS;
  }

  /** A stream of the player's at the game opened here; call the answer when it closes. */
  open(gameId: string, playerId: string): () => void {
    const key = { gameId, playerId };
    const id = keyOf(key);
    const entry = this.held.get(id) ?? { key, streams: 0 };
    entry.streams++;
    this.held.set(id, entry);
    if (entry.streams === 1) {
      this.write(() => this.deps.store.markPresent([key], this.instanceId, this.deps.now() + this.leaseMs));
    }
    this.renewal ??= setInterval(() => this.renew(), Math.max(1, Math.floor(this.leaseMs / 3))).unref();
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      entry.streams--;
      if (entry.streams > 0) return;
      this.held.delete(id);
      const at = this.deps.now();
      this.write(() => this.deps.store.markLeft(key, this.instanceId, at));
      if (this.held.size === 0) this.stopRenewal();
    };
  }

  /** When the player left the game (its start if never seen), or undefined while they are there: for a claim. */
  async goneSince(game: Game, playerId: string): Promise<number | undefined> {
    const gameId = game.record.id;
    const seen = (await this.deps.store.lastSeen([gameId])).find(row => row.playerId === playerId);
    return goneSinceOf(seen?.until, Date.parse(game.record.createdAt), this.deps.now());
  }

  /** The players present at a game (or with an event stream open, EVENT_STREAMS), on any instance. */
  async present(gameId: string): Promise<string[]> {
    const now = this.deps.now();
    return (await this.deps.store.lastSeen([gameId])).filter(row => row.until > now).map(row => row.playerId);
  }

  /**
   * Tells `send` of the opponent's going and coming back at the game, from the next tick on; call the answer to stop.
   * The computer never goes: nothing is ever said of it (DECISIONS §16a).
   */
  watch(game: { gameId: string; opponentId: string; startedAt: number }, send: (line: OpponentGoneLine) => void) {
    if (game.opponentId === ENGINE_ID) return () => undefined;
    const watcher: Watcher = { ...game, send, gone: undefined };
    this.watchers.add(watcher);
    this.ticker ??= setInterval(() => void this.tick(), this.tickMs).unref();
    void this.tick([watcher]);
    return () => {
      this.watchers.delete(watcher);
      if (this.watchers.size === 0) {
        clearInterval(this.ticker);
        this.ticker = undefined;
      }
    };
  }

  /** At shutdown: the streams here are gone (their leases lapse), nothing is read or renewed any more. */
  close(): void {
    this.stopRenewal();
    clearInterval(this.ticker);
    this.ticker = undefined;
    this.watchers.clear();
  }

  /** Reads the watched games (all, or these watchers') and tells each watcher what changed. */
  private async tick(watchers: Watcher[] = [...this.watchers]): Promise<void> {
    if (watchers.length === 0) return;
    try {
      const seen = await this.deps.store.lastSeen([...new Set(watchers.map(watcher => watcher.gameId))]);
      const until = new Map(seen.map(row => [keyOf(row), row.until]));
      const now = this.deps.now();
      for (const watcher of watchers) {
        if (!this.watchers.has(watcher)) continue;
        const last = until.get(keyOf({ gameId: watcher.gameId, playerId: watcher.opponentId }));
        const line = opponentGoneLine(goneSinceOf(last, watcher.startedAt, now), now);
        // A stream hears of a change only; a new one of a gone opponent at once (its first look).
        if (line.gone === watcher.gone || (watcher.gone === undefined && !line.gone)) {
          watcher.gone = line.gone;
          continue;
        }
        watcher.gone = line.gone;
        watcher.send(line);
      }
    } catch (error) {
      this.deps.onError?.(error); // read again at the next tick
    }
  }

  private renew(): void {
    const keys = [...this.held.values()].map(entry => entry.key);
    if (keys.length > 0) {
      this.write(() => this.deps.store.markPresent(keys, this.instanceId, this.deps.now() + this.leaseMs));
    }
    // Now and then, rows long closed (or left by instances that died) go.
    if (++this.ticks % 1000 === 0) this.write(() => this.deps.store.prunePresence(this.deps.now() - PRUNE_AFTER_MS));
  }

  private stopRenewal(): void {
    clearInterval(this.renewal);
    this.renewal = undefined;
  }

  /**
   * Presence writes go one at a time, in order (a close never overtakes its open on another connection). One that
   * fails is not retried: the next renewal writes again, and a lapsed lease reads as gone.
   */
  private write(op: () => Promise<void>): void {
    this.writes = this.writes.then(op).catch((error: unknown) => this.deps.onError?.(error));
  }
}
