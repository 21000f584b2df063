/**
 * Announcements between instances: one connection per instance LISTENs to the channels on which every
 * committed update NOTIFYs `<gameId> <version>` and every issued or revoked player token says so (see
 * store/notifications.ts). Changes go to the change feed, which reads the events from the change log; tokens to
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
import pg from 'pg';
import {
  CHANGES_CHANNEL,
  parseChangeNotifications,
  parseTokenNotification,
  TOKENS_CHANNEL,
} from '../store/notifications.ts';
import type { PlayerTokens } from '../service/tokens.ts';
import type { ChangeFeed } from './feed.ts';
import type { PlayerFeed } from './players.ts';

/** What hears of tokens issued or revoked elsewhere. */
export type TokenListener = Pick<PlayerTokens, 'onIssued' | 'onRevoked' | 'onResync'>;

/** What follows the clocks' deadlines of games changed elsewhere. */
export interface ClockListener {
  announced(gameId: string, deadline: number | null): void;
  armClocks(): Promise<unknown>;
}

const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2000;

export class ChangeListener {
  private client: pg.Client | undefined;
  private closed = false;
  private backoff = MIN_BACKOFF_MS;
  private retry: NodeJS.Timeout | undefined;
  private connectedOnce = false;

  private readonly feed: Pick<ChangeFeed, 'announce' | 'publish' | 'resync'>;
  private readonly tokens: TokenListener | undefined;
  private readonly clocks: ClockListener | undefined;
  private readonly players: Pick<PlayerFeed, 'announce' | 'resync'> | undefined;

  constructor(
    private readonly url: string,
    listeners: {
      feed: Pick<ChangeFeed, 'announce' | 'publish' | 'resync'>; // the games' changes, for the game streams
      tokens?: TokenListener; // player tokens issued and revoked
      clocks?: ClockListener; // the deadlines of the games' clocks
      players?: Pick<PlayerFeed, 'announce' | 'resync'>; // games starting and ending, for the players' streams
    },
    private readonly log: { warn: (message: string) => void; info: (message: string) => void } = {
      warn: () => undefined,
      info: () => undefined,
    },
  ) {
    this.feed = listeners.feed;
    this.tokens = listeners.tokens;
    this.clocks = listeners.clocks;
    this.players = listeners.players;
  }

  /** Connects once; later drops reconnect by themselves. Rejects if the first connection fails. */
  async start(): Promise<void> {
    await this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 3000 });
    let dropped = false;
    const drop = (why: string) => {
      if (dropped) return;
      dropped = true;
      if (this.client === client) this.client = undefined;
      void client.end().catch(() => undefined);
      if (this.closed) return;
      this.log.warn(`change announcements lost (${why}); reconnecting`);
      this.schedule();
    };
    client.on('error', error => drop(error.message));
    client.on('end', () => drop('connection ended'));
    client.on('notification', message => {
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
        this.clocks?.announced(change.gameId, change.deadline);
        if (change.transition) this.players?.announce({ ...change, transition: change.transition });
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}; LISTEN ${TOKENS_CHANNEL}`);
    } catch (error) {
      dropped = true;
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.backoff = MIN_BACKOFF_MS;
    // Whatever was committed while nobody listened is in the log: every stream reads it.
    if (this.connectedOnce) {
      this.log.info('change announcements restored');
      this.feed.resync();
      this.tokens?.onResync();
      this.players?.resync();
      this.clocks?.armClocks().catch((error: unknown) => this.log.warn(`re-arming clocks failed: ${String(error)}`));
    }
    this.connectedOnce = true;
  }

  private schedule(): void {
    clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      this.connect().catch((error: unknown) => {
        this.log.warn(`reconnecting for change announcements failed: ${String(error)}`);
        this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS);
        this.schedule();
      });
    }, this.backoff);
    this.retry.unref();
  }
}
