/**
 * A connection of its own to PostgreSQL, outside any pool, kept open for as long as its owner wants it: the instance's
 * LISTEN (bus/postgres.ts) and the instance's presence (instance.ts). Each owner says how a new connection is set up
 * (its LISTENs, its settings) and what to do when it comes up or drops; the keeping is here, once.
 *
 * A connection that drops while the process lives (a database restart, a network cut) is ended, its owner hears of it
 * (`dropped`), and it reconnects with backoff: FIRST_RETRY_MS, doubling at each failed try up to the owner's
 * `maxRetryMs`, and from the first try again once it is up. A connection that never came up is not retried here: its
 * `start` rejects, and the caller decides.
 *
 * ```ts
 * const connection = new KeptConnection({ url, maxRetryMs: 2000, setUp: client => client.query('LISTEN x').then() });
 * await connection.start(); // rejects when the database cannot be reached
 * connection.client; // the connection while it is up
 * await connection.close();
 * ```
 */
import pg from 'pg';

/** The first wait before a new try once a connection dropped. */
const FIRST_RETRY_MS = 100;

export interface KeptConnectionOptions {
  url: string;
  /** More settings of the client (e.g. keepAlive). */
  settings?: Omit<pg.ClientConfig, 'connectionString' | 'connectionTimeoutMillis'>;
  /** The longest wait between two tries. */
  maxRetryMs: number;
  /** Readies a new connection once it is connected (its LISTENs, its settings): it is up once this resolves. */
  setUp: (client: pg.Client) => Promise<void>;
  /** The connection is up; `again`: it had been up before and dropped. */
  up?: (client: pg.Client, again: boolean) => void;
  /** The connection that was up dropped (`why`); unless `closing`, a new try follows. */
  dropped?: (why: string, closing: boolean) => void;
  /** A new try failed; another follows. */
  retryFailed?: (error: unknown) => void;
}

export class KeptConnection {
  private current: pg.Client | undefined;
  private closed = false;
  private connectedOnce = false;
  private failures = 0; // tries failed since the connection was last up
  private retry: NodeJS.Timeout | undefined;

  constructor(private readonly options: KeptConnectionOptions) {}

  /** The connection while it is up; undefined while it is down or closed. */
  get client(): pg.Client | undefined {
    return this.current;
  }

  /** Connects; later drops reconnect by themselves. Rejects when the first connection fails. */
  start(): Promise<void> {
    return this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.current;
    this.current = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const { url, settings, setUp } = this.options;
    const client = new pg.Client({ ...settings, connectionString: url, connectionTimeoutMillis: 3000 });
    let up = false;
    let dropped = false;
    const drop = (why: string) => {
      if (dropped) return;
      dropped = true;
      if (this.current === client) this.current = undefined;
      void client.end().catch(() => undefined);
      if (!up) return; // it never came up: its connect rejects, and whoever called it tries again
      this.options.dropped?.(why, this.closed);
      if (!this.closed) this.schedule();
    };
    client.on('error', error => drop(error.message));
    client.on('end', () => drop('connection ended'));
    try {
      await client.connect();
      await setUp(client);
    } catch (error) {
      dropped = true;
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.current = client;
    up = true;
    this.failures = 0;
    const again = this.connectedOnce;
    this.connectedOnce = true;
    this.options.up?.(client, again);
  }

  private schedule(): void {
    const delay = Math.min(this.options.maxRetryMs, FIRST_RETRY_MS * 2 ** Math.min(this.failures++, 10));
    clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      this.connect().catch((error: unknown) => {
        if (this.closed) return;
        this.options.retryFailed?.(error);
        this.schedule();
      });
    }, delay);
    this.retry.unref();
  }
}
