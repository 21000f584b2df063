/**
 * The embedded store: one SQLite file, written by one process. The connection to the file (sqlite/connection.ts:
 * WAL with full syncs, migrations applied at open from `sql/sqlite/NNNN_name.sql`, the group commit, the checkpoint
 * thread, what a failure of the file means) and each concern's statements and their use (sqlite/: games.ts and
 * moves.ts, listing.ts, tokens.ts, challenges.ts, seeks.ts, chat.ts, presence.ts, engine.ts, ratings.ts) are put together here.
 *
 * ```ts
 * const store = SqliteGameStore.open('./data/chess.sqlite'); // or ':memory:'
 * ```
 */
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { StoreOfParts, type StoreParts } from './parts.ts';
import { SqliteAccounts } from './sqlite/accounts.ts';
import { SqliteChallenges } from './sqlite/challenges.ts';
import { SqliteChat } from './sqlite/chat.ts';
import { SqliteConnection, type SqliteOptions } from './sqlite/connection.ts';
import { SqliteEngineTurns } from './sqlite/engine.ts';
import { SqliteGames, prepareGameStatements, reindexGames } from './sqlite/games.ts';
import { SqliteHistory } from './sqlite/history.ts';
import { SqliteListing, prepareListingStatements } from './sqlite/listing.ts';
import { prepareMoveStatements } from './sqlite/moves.ts';
import { SqlitePresence } from './sqlite/presence.ts';
import { SqliteRatings } from './sqlite/ratings.ts';
import { SqliteSeeks } from './sqlite/seeks.ts';
import { SqliteTokens, prepareTokenStatements } from './sqlite/tokens.ts';

export { CHECKPOINT_EVERY_WRITES, type SqliteOptions } from './sqlite/connection.ts';
export { describeFailure } from './sqlite/file.ts';

/** The statements of every part, prepared once per connection (again on a file written again). */
const prepareStatements = (db: Database.Database) => ({
  games: prepareGameStatements(db),
  moves: prepareMoveStatements(db),
  listing: prepareListingStatements(db),
  tokens: prepareTokenStatements(db),
});

export class SqliteGameStore extends StoreOfParts {
  protected readonly parts: StoreParts;
  private readonly connection: SqliteConnection<ReturnType<typeof prepareStatements>>;

  private constructor(path: string, options: SqliteOptions) {
    super();
    const connection = new SqliteConnection(path, prepareStatements, options);
    this.connection = connection;
    // The seeks: this store, one per process, holds the real-time ones it inserts.
    const seeks = new SqliteSeeks(connection, randomBytes(8).toString('hex'));
    this.parts = {
      games: new SqliteGames(connection),
      listing: new SqliteListing(connection),
      tokens: new SqliteTokens(connection),
      accounts: new SqliteAccounts(connection),
      challenges: new SqliteChallenges(connection),
      seeks,
      chat: new SqliteChat(connection),
      presence: new SqlitePresence(connection),
      engineTurns: new SqliteEngineTurns(connection),
      history: new SqliteHistory(connection),
      ratings: new SqliteRatings(connection),
    };
    if (connection.writable) {
      reindexGames(connection.db, connection.statements.moves);
      seeks.withdrawStale();
    }
  }

  static open(path: string, options: SqliteOptions = {}): SqliteGameStore {
    return new SqliteGameStore(path, options);
  }

  /** The connection's database, for tests and tools that look at the file. */
  private get db(): Database.Database {
    return this.connection.db;
  }

  secret(): Promise<string> {
    return this.connection.read(
      () => (this.db.prepare('SELECT secret FROM service_secret WHERE id = 1').get() as { secret: string }).secret,
    );
  }

  /**
   * Resolves when the store can serve: reads answer and, after a failed write, a write succeeds again (a one-row
   * write of its own). A removed file is written again first.
   */
  ping(): Promise<void> {
    return this.connection.ping();
  }

  /** Commits the writes asked for before it (they are not dropped), then closes; a second call waits as well. */
  close(): Promise<void> {
    return this.connection.close();
  }
}
