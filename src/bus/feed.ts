/**
 * The change feed: committed changes in, every change of a game exactly once and in version order out, to
 * each subscriber from the version it already has. It works from two sources that may each arrive late,
 * twice or not at all: changes this process committed (with their event) and announcements from other
 * instances (a game id and a version). Whatever a subscriber misses between them is read back from the
 * store's change log, so a subscriber never sees a gap, a repeat or a reordering.
 *
 * ```ts
 * const feed = new ChangeFeed(store);
 * const off = feed.subscribe(gameId, snapshot.version, change => send(change.event), () => restart());
 * feed.publish({ gameId, version: 8, event }); // after the commit of version 8
 * feed.announce(gameId, 9); // another instance committed version 9: the feed reads it from the log
 * ```
 */
import type { ChangeListener, EventBus, GameChange } from './bus.ts';
import type { GameStore } from '../store/store.ts';

/** Delay before retrying a catch-up (or a player's event, players.ts) that failed because the store did not answer. */
export const RETRY_MS = 1000;

interface Subscriber {
  cursor: number; // the last version this subscriber has
  listener: ChangeListener;
  onLost: () => void;
  active: boolean;
}

interface Channel {
  gameId: string;
  subscribers: Set<Subscriber>;
  behind: Set<Subscriber>; // subscribers that need a read of the log
  latest: number; // the highest version announced or published
  queue: Promise<void>; // one task at a time per game: delivery order is version order
  catchUpQueued: boolean;
}

export type ChangeLog = Pick<GameStore, 'changesSince'>;

export class ChangeFeed implements EventBus {
  private readonly channels = new Map<string, Channel>();
  private closed = false;

  constructor(
    private readonly log: ChangeLog,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** A change this process committed, with its event. */
  publish(change: GameChange): void {
    const channel = this.channels.get(change.gameId);
    if (!channel) return;
    channel.latest = Math.max(channel.latest, change.version);
    this.enqueue(channel, () => this.offer(channel, change));
  }

  /** Another instance committed `version` of a game; its event is in the log. */
  announce(gameId: string, version: number): void {
    const channel = this.channels.get(gameId);
    if (!channel || version <= channel.latest) return;
    channel.latest = version;
    for (const subscriber of channel.subscribers) if (subscriber.cursor < version) channel.behind.add(subscriber);
    this.scheduleCatchUp(channel);
  }

  /** Announcements may have been missed (a lost connection): every subscriber reads the log again. */
  resync(): void {
    for (const channel of this.channels.values()) {
      for (const subscriber of channel.subscribers) channel.behind.add(subscriber);
      this.scheduleCatchUp(channel);
    }
  }

  /**
   * Delivers every change of the game after `afterVersion`, in order, exactly once. `onLost` is called
   * instead when changes cannot be recovered (older than the log keeps); the subscription then ends.
   */
  subscribe(gameId: string, afterVersion: number, listener: ChangeListener, onLost: () => void): () => void {
    let channel = this.channels.get(gameId);
    if (!channel) {
      channel = {
        gameId,
        subscribers: new Set(),
        behind: new Set(),
        latest: afterVersion,
        queue: Promise.resolve(),
        catchUpQueued: false,
      };
      this.channels.set(gameId, channel);
    }
    const subscriber: Subscriber = { cursor: afterVersion, listener, onLost, active: true };
    channel.subscribers.add(subscriber);
    // Changes committed between the subscriber's snapshot and now are only in the log.
    channel.behind.add(subscriber);
    this.scheduleCatchUp(channel);
    const owner = channel;
    return () => {
      subscriber.active = false;
      owner.subscribers.delete(subscriber);
      owner.behind.delete(subscriber);
      if (owner.subscribers.size === 0 && this.channels.get(gameId) === owner) this.channels.delete(gameId);
    };
  }

  close(): Promise<void> {
    this.closed = true;
    this.channels.clear();
    return Promise.resolve();
  }

  private enqueue(channel: Channel, task: () => Promise<void> | void): void {
    channel.queue = channel.queue.then(task).catch((error: unknown) => this.onError(error));
  }

  private scheduleCatchUp(channel: Channel): void {
    if (channel.catchUpQueued || this.closed) return;
    channel.catchUpQueued = true;
    this.enqueue(channel, async () => {
      channel.catchUpQueued = false;
      await this.catchUp(channel);
    });
  }

  /** Sends a change to the subscribers it is next for; the others read the log. */
  private offer(channel: Channel, change: GameChange): void {
    for (const subscriber of channel.subscribers) {
      if (subscriber.cursor >= change.version) continue;
      if (subscriber.cursor === change.version - 1 && !channel.behind.has(subscriber)) {
        this.deliver(subscriber, change);
      } else {
        channel.behind.add(subscriber);
      }
    }
    if (channel.behind.size > 0) this.scheduleCatchUp(channel);
  }

  private async catchUp(channel: Channel): Promise<void> {
    const behind = [...channel.behind].filter(subscriber => subscriber.active);
    channel.behind.clear();
    if (behind.length === 0) return;
    // Every version known now was committed before the read starts, so the read must find it unless the log has
    // dropped it. Versions announced or published while it runs may be newer than what it finds: the next
    // catch-up or the live offer delivers those, so they cannot tell a loss.
    const known = channel.latest;
    let changes: GameChange[];
    try {
      changes = await this.log.changesSince(channel.gameId, Math.min(...behind.map(s => s.cursor)));
    } catch (error) {
      this.onError(error);
      for (const subscriber of behind) if (subscriber.active) channel.behind.add(subscriber);
      setTimeout(() => this.scheduleCatchUp(channel), RETRY_MS).unref();
      return;
    }
    for (const change of changes) {
      channel.latest = Math.max(channel.latest, change.version);
      for (const subscriber of behind) {
        if (subscriber.active && subscriber.cursor === change.version - 1) this.deliver(subscriber, change);
      }
    }
    for (const subscriber of behind) {
      const first = changes.find(change => change.version > subscriber.cursor);
      // A change after the cursor exists but not the next one, or a version known before the read is missing:
      // the log no longer has it.
      if (subscriber.active && (first !== undefined || subscriber.cursor < known)) {
        subscriber.active = false;
        channel.subscribers.delete(subscriber);
        subscriber.onLost();
      }
    }
  }

  private deliver(subscriber: Subscriber, change: GameChange): void {
    subscriber.cursor = change.version;
    subscriber.listener(change);
  }
}
