/**
 * The shared store: PostgreSQL through a connection pool, for several instances serving the same games. Each concern
 * is a part of its own (postgres/: games.ts with writes.ts and moves.ts, listing.ts, tokens.ts, challenges.ts,
 * seeks.ts, chat.ts, presence.ts, engine.ts, ratings.ts), put together here. Writes are group-committed (postgres/writes.ts): one
 * statement per batch does the version-checked updates, the moves rows that changed, the change-log entries and one
 * NOTIFY, so a batch commits or not as a whole and the announcement goes out exactly when its changes are visible. A
 * read takes a game and its moves in one round trip. Migrations in `sql/postgres/NNNN_name.sql` run at open under an
 * advisory lock, so instances may start together (postgres/schema.ts). Errors that mean "the database cannot be
 * reached" become UNAVAILABLE (503); nothing waits forever. A client is checked out of the pool only by
 * `transaction` (postgresTransaction.ts), which listens to its errors while it is out: a connection lost in the
 * middle of a request fails that request, never the process. The instance's presence (which tells other instances it
 * is alive) is in postgres/instance.ts. The statements of every request (insert, select, update) are named, so that
 * each connection has the server parse and plan them once instead of on every call.
 *
 * ```ts
 * const store = await PostgresGameStore.open('postgres://user@127.0.0.1:5432/chess');
 * ```
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { StoreOfParts, type StoreParts } from './parts.ts';
import { PostgresChallenges } from './postgres/challenges.ts';
import { PostgresChat } from './postgres/chat.ts';
import { PostgresEngineTurns } from './postgres/engine.ts';
import { PostgresGames } from './postgres/games.ts';
import { PostgresHistory } from './postgres/history.ts';
import { InstancePresence } from './postgres/instance.ts';
import { PostgresListing } from './postgres/listing.ts';
import { PostgresPresence } from './postgres/presence.ts';
import { PostgresRatings } from './postgres/ratings.ts';
import { migrate } from './postgres/schema.ts';
import { PostgresSeeks } from './postgres/seeks.ts';
import { PostgresTokens } from './postgres/tokens.ts';
import { PostgresAccounts } from './postgres/accounts.ts';
import { run } from './postgresTransaction.ts';

export { CHALLENGER_LOCK, CHAT_GAME_LOCK, CHAT_WRITER_LOCK } from './postgres/locks.ts';

export interface PostgresOptions {
  poolSize?: number; // connections per instance, 10
  connectTimeoutMs?: number; // wait for a connection at most this long, 3000
  queryTimeoutMs?: number; // a query that takes longer fails, 10000
  onError?: (error: Error) => void; // errors of idle connections, for the log
}

export class PostgresGameStore extends StoreOfParts {
  protected readonly parts: StoreParts;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly presence: InstancePresence,
  ) {
    super();
    this.parts = {
      games: new PostgresGames(pool),
      listing: new PostgresListing(pool),
      tokens: new PostgresTokens(pool),
      accounts: new PostgresAccounts(pool),
      challenges: new PostgresChallenges(pool),
      seeks: new PostgresSeeks(pool, presence.instanceId),
      chat: new PostgresChat(pool),
      presence: new PostgresPresence(pool),
      engineTurns: new PostgresEngineTurns(pool),
      history: new PostgresHistory(pool),
      ratings: new PostgresRatings(pool),
    };
  }

  static async open(url: string, options: PostgresOptions = {}): Promise<PostgresGameStore> {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 3000,
      query_timeout: options.queryTimeoutMs ?? 10_000,
      idleTimeoutMillis: 30_000,
    });
    // An idle connection that dies (database restart) must not take the process with it; one checked out is
    // watched by its transaction (postgresTransaction.ts).
    pool.on('error', error => options.onError?.(error));
    // This instance is alive for the others while this connection is there: the holder of its real-time seeks.
    const presence = new InstancePresence(url, randomBytes(8).toString('hex'), error => options.onError?.(error));
    const store = new PostgresGameStore(pool, presence);
    try {
      await run(() => migrate(pool));
      await run(() => presence.start());
    } catch (error) {
      await presence.close();
      await pool.end();
      throw error;
    }
    return store;
  }

  secret(): Promise<string> {
    return run(
      async () => (await this.pool.query<{ secret: string }>('SELECT secret FROM service_secret')).rows[0]!.secret,
    );
  }

  ping(): Promise<void> {
    return run(async () => {
      await this.pool.query('SELECT 1');
    });
  }

  async close(): Promise<void> {
    await this.presence.close();
    if (!this.pool.ended) await this.pool.end();
  }
}
