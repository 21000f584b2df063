/**
 * An instance's presence in the database: one connection per PostgreSQL store, open for as long as the store is,
 * that says which instance it belongs to in its `application_name`. PostgreSQL drops a connection the moment its
 * process dies (killed, crashed, restarted: the kernel closes the socket), so "is this instance alive" is "is its
 * connection there", read from `pg_stat_activity` by any instance in the statement that needs to know (`LIVE_SQL`).
 * That is what keeps a dead instance's real-time seeks from being paired before their lease lapses (seeks.ts).
 *
 * The connection does nothing but stay open. When it drops while the process lives (a database restart, a network
 * cut), it reconnects with backoff (100 ms doubling to 5 s); meanwhile the other instances take this one for dead,
 * which only delays the pairing of its seeks.
 *
 * ```ts
 * const presence = new InstancePresence(url, instanceId, error => log.warn(error.message));
 * await presence.start(); // rejects when the database cannot be reached
 * await presence.close();
 * ```
 */
import pg from 'pg';

/** What the `application_name` of an instance's presence starts with; its store's id follows. */
export const INSTANCE_APPLICATION = 'chess-instance ';

/** The SQL of the ids of the instances whose presence is connected to this database now. */
export const LIVE_SQL =
  `(SELECT substr(application_name, ${INSTANCE_APPLICATION.length + 1}) FROM pg_stat_activity ` +
  `WHERE datname = current_database() AND starts_with(application_name, '${INSTANCE_APPLICATION}'))`;

const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;

export class InstancePresence {
  private client: pg.Client | undefined;
  private closed = false;
  private failures = 0;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    readonly instanceId: string,
    private readonly onError: (error: Error) => void = () => undefined,
  ) {}

  /** Connects; later drops reconnect by themselves. Rejects when the first connection fails. */
  start(): Promise<void> {
    return this.connect();
  }

  /** Whether the connection is up (this instance counts as alive for the others). */
  get connected(): boolean {
    return this.client !== undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 3000, keepAlive: true });
    let lost = false;
    const lose = (error: Error) => {
      if (lost) return;
      lost = true;
      const wasUp = this.client === client; // else its connect rejects, and whoever called it tries again
      if (wasUp) this.client = undefined;
      void client.end().catch(() => undefined);
      if (this.closed || !wasUp) return;
      this.onError(new Error(`the instance's presence in the database was lost (${error.message}); reconnecting`));
      this.schedule();
    };
    client.on('error', lose);
    client.on('end', () => lose(new Error('connection ended')));
    try {
      await client.connect();
      // Set here rather than in the URL's parameters, which would override it.
      await client.query("SELECT set_config('application_name', $1, false)", [
        `${INSTANCE_APPLICATION}${this.instanceId}`,
      ]);
    } catch (error) {
      lost = true;
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.failures = 0;
  }

  private schedule(): void {
    const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(this.failures++, 10));
    clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      this.connect().catch((error: unknown) => {
        if (this.closed) return;
        this.onError(error instanceof Error ? error : new Error(String(error)));
        this.schedule();
      });
    }, delay);
    this.retry.unref();
  }
}
