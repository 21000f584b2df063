/**
 * Announcements between instances: one connection per instance LISTENs to the channels on which every
 * committed update NOTIFYs `<gameId> <version>` and every issued or revoked player token says so, as do challenges,
 * seeks paired and chat lines (see store/notifications.ts). Changes go to the change feed, which reads the events from the change log; tokens to
 * the player tokens, which forget a revoked one at once. When the connection drops, it reconnects with backoff
 * and has every stream read the log again and the tokens be asked of the store again, so nothing committed
 * meanwhile is lost or repeated.
 *
 * ```ts
 * const listener = new ChangeListener(url, { feed, tokens, clocks: games, players });
 * await listener.start();
 * await listener.close();
 * ```
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import {
  CHALLENGES_CHANNEL,
  CHAT_CHANNEL,
  parseChatNotification,
  SEEKS_CHANNEL,
  parseSeekNotification,
  CHANGES_CHANNEL,
  parseChallengeNotification,
  parseChangeNotifications,
  parseTokenNotification,
  TOKENS_CHANNEL,
} from '../store/notifications.ts';
import { KeptConnection } from '../store/postgres/keptConnection.ts';
import type { ChangeFeed } from './feed.ts';
import type { PlayerFeed } from './players.ts';
import type { Challenge } from '../domain/challenge.ts';
import type { ChatLine } from '../domain/chat.ts';

/**
 * What hears of tokens issued or revoked elsewhere (the service's player tokens). Declared here, beside the other
 * listeners, so that the bus depends on no layer above it: the service's tokens fit it as they are.
 */
export interface TokenListener {
  /** A token was issued: authentication is on from now on. */
  onIssued(): void;
  /** The token of this hash was revoked: it is refused from now on. */
  onRevoked(hash: string): void;
  /** Announcements may have been missed: whatever is remembered of tokens is asked of the store again. */
  onResync(): void;
}

/** What follows the games changed on any instance: their clocks' deadlines and their latest versions. */
export interface GameListener {
  announced(gameId: string, version: number, deadline: number | null): void;
  /** Announcements may have been missed: nothing this instance holds is known to be current any more. */
  resynced(): Promise<unknown>;
}

/** What hears of seeks paired, or withdrawn by their player's newer seek, on any instance. */
export interface SeekListener {
  announced(ids: readonly string[]): void;
  /** Announcements may have been missed: the seeks held here are read again. */
  resynced(): Promise<void>;
}

/** What hears of challenges made and answered on any instance. */
export interface ChallengeListener {
  announced(challenge: Challenge): void;
  /** Announcements may have been missed: the pending challenges' expiries are armed again from the store. */
  resynced(): Promise<unknown>;
}

/**
 * What hears of chat lines written on any instance. Lines announced while the connection was down are not sent to
 * the streams again (they are chat, kept with the game: GET .../chat reads them).
 */
export interface ChatListener {
  announced(line: ChatLine): void;
}

/** The longest wait between two tries to reconnect. */
const MAX_BACKOFF_MS = 2000;

export class ChangeListener {
  /** The listening connection, kept open (reconnected with backoff from 100 ms to MAX_BACKOFF_MS). */
  private readonly connection: KeptConnection;
  private readonly feed: Pick<ChangeFeed, 'announce' | 'publish' | 'resync'>;
  private readonly tokens: TokenListener | undefined;
  private readonly games: GameListener | undefined;
  /** The channel of this instance's own read barriers (see `sync`). */
  private readonly syncChannel = `chess_sync_${randomBytes(8).toString('hex')}`;
  private syncs = 0;
  /** The barrier the next reads wait for (not sent yet), and the one on its way (its payload and waiters). */
  private nextSync: Deferred | undefined;
  private sentSync: { payload: string; waiters: Deferred } | undefined;
  private readonly players: Pick<PlayerFeed, 'announce' | 'resync'> | undefined;
  private readonly challenges: ChallengeListener | undefined;
  private readonly seeks: SeekListener | undefined;
  private readonly chat: ChatListener | undefined;

  constructor(
    url: string,
    listeners: {
      feed: Pick<ChangeFeed, 'announce' | 'publish' | 'resync'>; // the games' changes, for the game streams
      tokens?: TokenListener; // player tokens issued and revoked
      games?: GameListener; // the games' deadlines and versions, for the clocks and the reads
      players?: Pick<PlayerFeed, 'announce' | 'resync'>; // games starting and ending, for the players' streams
      challenges?: ChallengeListener; // challenges made and answered, for the players' streams and the expiries
      seeks?: SeekListener; // seeks paired, for the real-time seeks' requests held here
      chat?: ChatListener; // chat lines written, for the lichess game streams
    },
    private readonly log: { warn: (message: string) => void; info: (message: string) => void } = {
      warn: () => undefined,
      info: () => undefined,
    },
  ) {
    this.feed = listeners.feed;
    this.tokens = listeners.tokens;
    this.games = listeners.games;
    this.players = listeners.players;
    this.challenges = listeners.challenges;
    this.seeks = listeners.seeks;
    this.chat = listeners.chat;
    this.connection = new KeptConnection({
      url,
      maxRetryMs: MAX_BACKOFF_MS,
      setUp: async client => {
        client.on('notification', message => this.heard(message));
        await client.query(
          `LISTEN ${CHANGES_CHANNEL}; LISTEN ${TOKENS_CHANNEL}; LISTEN ${CHALLENGES_CHANNEL}; LISTEN ${SEEKS_CHANNEL}; LISTEN ${CHAT_CHANNEL}; LISTEN ${this.syncChannel}; SET synchronous_commit = off`,
        );
      },
      up: (_client, again) => this.up(again),
      dropped: (why, closing) => {
        this.failSyncs(new Error(`change announcements lost (${why})`));
        if (!closing) this.log.warn(`change announcements lost (${why}); reconnecting`);
      },
      retryFailed: error => this.log.warn(`reconnecting for change announcements failed: ${String(error)}`),
    });
  }

  /** Connects once; later drops reconnect by themselves. Rejects if the first connection fails. */
  async start(): Promise<void> {
    await this.connection.start();
  }

  close(): Promise<void> {
    return this.connection.close();
  }

  private heard(message: pg.Notification): void {
    if (message.channel === this.syncChannel) {
      if (message.payload === this.sentSync?.payload) this.syncDone();
      return;
    }
    if (message.channel === CHALLENGES_CHANNEL) {
      const challenge = parseChallengeNotification(message.payload);
      if (challenge) this.challenges?.announced(challenge);
      return;
    }
    if (message.channel === CHAT_CHANNEL) {
      const line = parseChatNotification(message.payload);
      if (line) this.chat?.announced(line);
      return;
    }
    if (message.channel === SEEKS_CHANNEL) {
      const seeks = parseSeekNotification(message.payload);
      if (seeks) this.seeks?.announced(seeks.ended);
      return;
    }
    if (message.channel === TOKENS_CHANNEL) {
      const token = parseTokenNotification(message.payload);
      if (token?.kind === 'issued') this.tokens?.onIssued();
      else if (token?.kind === 'revoked') this.tokens?.onRevoked(token.hash);
      return;
    }
    for (const change of parseChangeNotifications(message.payload)) {
      // A change whose event came along goes to the streams as it is; another is read from the change log.
      if (change.event) this.feed.publish({ gameId: change.gameId, version: change.version, event: change.event });
      else this.feed.announce(change.gameId, change.version);
      this.games?.announced(change.gameId, change.version, change.deadline);
      if (change.transition) this.players?.announce({ ...change, transition: change.transition });
    }
  }

  /**
   * The connection is up: after a drop, whatever was committed while nobody listened is in the log, and every stream
   * reads it.
   */
  private up(again: boolean): void {
    if (again) {
      this.log.info('change announcements restored');
      this.feed.resync();
      this.tokens?.onResync();
      this.players?.resync();
      this.games?.resynced().catch((error: unknown) => this.log.warn(`re-arming clocks failed: ${String(error)}`));
      this.challenges
        ?.resynced()
        .catch((error: unknown) => this.log.warn(`re-arming challenge expiries failed: ${String(error)}`));
      this.seeks?.resynced().catch((error: unknown) => this.log.warn(`reading held seeks failed: ${String(error)}`));
    }
    if (this.nextSync) this.sendSync();
  }

  /**
   * A read barrier: resolves once this instance has heard every announcement of a change committed before the
   * call. It NOTIFYs this instance's own channel from the listening connection and waits to hear it back:
   * PostgreSQL delivers notifications in the order their transactions committed, so everything committed before
   * has been heard by then. Calls made while a barrier is on its way wait for the next one (the one on its way may
   * have been committed before them), so that any number of reads share one round trip. Rejects while the
   * connection is down (a reader then asks the store itself).
   */
  sync(): Promise<void> {
    if (!this.connection.client) return Promise.reject(new Error('change announcements are not being heard'));
    const waiters = (this.nextSync ??= deferred());
    if (!this.sentSync) this.sendSync();
    return waiters.promise;
  }

  private sendSync(): void {
    const waiters = this.nextSync;
    const client = this.connection.client;
    if (!waiters || !client) return;
    this.nextSync = undefined;
    const payload = String(++this.syncs);
    this.sentSync = { payload, waiters };
    // Its commit need not wait for the disk: the barrier is about order, not durability (synchronous_commit off).
    client.query('SELECT pg_notify($1, $2)', [this.syncChannel, payload]).catch((error: unknown) => {
      if (this.sentSync?.payload === payload) this.failSyncs(error as Error);
    });
  }

  private syncDone(): void {
    const sent = this.sentSync;
    this.sentSync = undefined;
    sent?.waiters.resolve();
    if (this.nextSync) this.sendSync();
  }

  private failSyncs(error: Error): void {
    this.sentSync?.waiters.reject(error);
    this.nextSync?.reject(error);
    this.sentSync = undefined;
    this.nextSync = undefined;
  }
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: Error) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  promise.catch(() => undefined); // a barrier nobody waits for any more may fail unseen
  return { promise, resolve, reject };
}
