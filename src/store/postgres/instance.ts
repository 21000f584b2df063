/**
 * An instance's presence in the database: one connection per PostgreSQL store, open for as long as the store is,
 * that says which instance it belongs to in its `application_name`. PostgreSQL drops a connection the moment its
 * process dies (killed, crashed, restarted: the kernel closes the socket), so "is this instance alive" is "is its
 * connection there", read from `pg_stat_activity` by any instance in the statement that needs to know (`LIVE_SQL`).
 * That is what keeps a dead instance's real-time seeks from being paired before their lease lapses (seeks.ts).
 *
 * The connection does nothing but stay open. When it drops while the process lives (a database restart, a network
 * cut), it reconnects with backoff (100 ms doubling to 5 s, keptConnection.ts); meanwhile the other instances take
 * this one for dead, which only delays the pairing of its seeks.
 *
 * ```ts
 * const presence = new InstancePresence(url, instanceId, error => log.warn(error.message));
 * await presence.start(); // rejects when the database cannot be reached
 * await presence.close();
 * ```
 */
import { KeptConnection } from './keptConnection.ts';

/** What the `application_name` of an instance's presence starts with; its store's id follows. */
export const INSTANCE_APPLICATION = 'chess-instance ';

/** The SQL of the ids of the instances whose presence is connected to this database now. */
export const LIVE_SQL =
  `(SELECT substr(application_name, ${INSTANCE_APPLICATION.length + 1}) FROM pg_stat_activity ` +
  `WHERE datname = current_database() AND starts_with(application_name, '${INSTANCE_APPLICATION}'))`;

/** The longest wait between two tries to reconnect. */
const MAX_RETRY_MS = 5_000;

export class InstancePresence {
  private readonly connection: KeptConnection;

  constructor(
    url: string,
    readonly instanceId: string,
    onError: (error: Error) => void = () => undefined,
  ) {
    this.connection = new KeptConnection({
      url,
      settings: { keepAlive: true },
      maxRetryMs: MAX_RETRY_MS,
      setUp: async client => {
        // Set here rather than in the URL's parameters, which would override it.
        await client.query("SELECT set_config('application_name', $1, false)", [
          `${INSTANCE_APPLICATION}${this.instanceId}`,
        ]);
      },
      dropped: (why, closing) => {
        if (!closing) onError(new Error(`the instance's presence in the database was lost (${why}); reconnecting`));
      },
      retryFailed: error => onError(error instanceof Error ? error : new Error(String(error))),
    });
  }

  /** Connects; later drops reconnect by themselves. Rejects when the first connection fails. */
  start(): Promise<void> {
    return this.connection.start();
  }

  /** Whether the connection is up (this instance counts as alive for the others). */
  get connected(): boolean {
    return this.connection.client !== undefined;
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}
