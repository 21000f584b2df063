/**
 * The shared store: PostgreSQL through a connection pool, for several instances serving the same games.
 * Writes are group-committed (postgresWrites.ts): one statement per batch does the version-checked updates, the
 * moves rows that changed, the change-log entries and one NOTIFY, so a batch commits or not as a whole and the
 * announcement goes out exactly when its changes are visible. A read takes a game and its moves in one round trip. Migrations in
 * `sql/postgres/NNNN_name.sql` run at open under an advisory lock, so instances may start together.
 * Errors that mean "the database cannot be reached" become UNAVAILABLE (503); nothing waits forever. A client is
 * checked out of the pool only by `transaction` (postgresTransaction.ts), which listens to its errors while it is
 * out: a connection lost in the middle of a request fails that request, never the process. Seeks are in
 * postgresSeeks.ts; the instance's presence (which tells other instances it is alive) in postgresInstance.ts.
 * The statements of every request (insert, select, update) are named, so that each connection has the server
 * parse and plan them once instead of on every call.
 *
 * ```ts
 * const store = await PostgresGameStore.open('postgres://user@127.0.0.1:5432/chess');
 * ```
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { restoreGame, type GameRecord } from '../domain/game.ts';
import { indexOfGame } from '../domain/transitions.ts';
import { DomainError } from '../domain/errors.ts';
import {
  CHANGE_LOG_RETENTION_MS,
  loggedVersionError,
  NO_INDEX,
  type ClockedGame,
  type GameIndex,
  type ListedGame,
  type ListQuery,
  type GameStore,
  type StateEvent,
  type StoredChange,
} from './store.ts';
import { listGamesSql, ongoingGamesSql, playerShape } from './listing.ts';
import { CHALLENGES_CHANNEL, CHAT_CHANNEL, TOKEN_ISSUED, TOKENS_CHANNEL, tokenRevokedSql } from './notifications.ts';
import { PostgresWrites } from './postgresWrites.ts';
import { cappedEngineGameOf } from '../domain/engineGames.ts';
import { createEngineGamePostgres, engineGamesLimited } from './engineGames.ts';
import { recordOf, type StoredGameData } from './rows.ts';
import { BOT_SQL, TOKEN_COLUMNS, tokenOf, type StoredToken, type TokenRow, type TokenStore } from './tokens.ts';
import { migrations } from './migrations.ts';
import {
  byAge,
  CHALLENGE_SQL,
  challengeColumns,
  challengeOf,
  type ChallengeRow,
  type ChallengeStore,
  type InsertedChallenge,
} from './challenges.ts';
import { KNOWN_PLAYER_SQL } from './tokens.ts';
import type { Challenge } from '../domain/challenge.ts';
import type { Seek } from '../domain/seek.ts';
import type { InsertedSeek, SeekStore } from './seeks.ts';
import { PostgresSeeks } from './postgresSeeks.ts';
import { InstancePresence } from './postgresInstance.ts';
import { isUnavailable, Rollback, transaction } from './postgresTransaction.ts';
import { PRESENCE_SQL, seenOf, type PresenceKey, type PresenceStore, type SeenAt, type SeenRow } from './presence.ts';
import { ENGINE_TURN_SQL, type EngineTurn, type EngineTurnStore } from './engineTurns.ts';
import type { PlayerInfo } from '../contract/shapes.ts';
import { CHAT_SQL, chatColumns, chatLineOf, type AppendedChat, type ChatRow, type ChatStore } from './chat.ts';
import { chatRetryAt, type ChatLimit, type ChatLine, type NewChatLine } from '../domain/chat.ts';
import type { ChatRoom } from '../contract/vocabulary.ts';

/** A games row as the store reads it: its columns and its line (the moves rows, as JSON `[[uci, clock], ...]`). */
interface GameRow {
  id: string;
  version: number;
  created_at: string;
  data: string;
  line: Array<[string, number | string | null]>;
}

/** The SQL of a games row's line, for a row of `table`: its moves rows in ply order, in the one round trip. */
const LINE_SQL = (table: string) =>
  `(SELECT coalesce(json_agg(json_build_array(m.uci, m.clock) ORDER BY m.ply), '[]') FROM game_moves m ` +
  `WHERE m.game_id = ${table}.id) AS line`;

const recordOfRow = (row: GameRow): GameRecord =>
  recordOf(
    row.id,
    row.version,
    row.created_at,
    JSON.parse(row.data) as StoredGameData,
    row.line.map(([uci, clock]) => ({ uci, clock: clock === null ? null : Number(clock) })),
  );

/** A write of a challenge that announces what it wrote when it commits (a row when it wrote one). */
const ANNOUNCED = (write: string) =>
  `WITH written AS (${write} RETURNING data) SELECT pg_notify('${CHALLENGES_CHANNEL}', data) FROM written`;

/** The first key of the advisory locks of challengers (the second is a hash of the challenger's id). */
export const CHALLENGER_LOCK = 4_224_243;

/** The first keys of the advisory locks of chat writers and of games' chats (the second is a hash of the id). */
export const CHAT_WRITER_LOCK = 4_224_244;
export const CHAT_GAME_LOCK = 4_224_245;

/** Any constant shared by all instances: the advisory lock that serializes migrations. */
const MIGRATION_LOCK = 4_224_242;
const PRUNE_EVERY = 1000;

export interface PostgresOptions {
  poolSize?: number; // connections per instance, 10
  connectTimeoutMs?: number; // wait for a connection at most this long, 3000
  queryTimeoutMs?: number; // a query that takes longer fails, 10000
  onError?: (error: Error) => void; // errors of idle connections, for the log
}

export class PostgresGameStore
  implements GameStore, TokenStore, ChallengeStore, SeekStore, ChatStore, PresenceStore, EngineTurnStore
{
  private updates = 0;

  private readonly writes: PostgresWrites;
  private readonly seeks: PostgresSeeks;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly presence: InstancePresence,
  ) {
    this.writes = new PostgresWrites(pool, call => this.run(call));
    this.seeks = new PostgresSeeks(pool, call => this.run(call), presence.instanceId);
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
      await store.run(() => migrate(pool));
      await store.run(() => presence.start());
    } catch (error) {
      await presence.close();
      await pool.end();
      throw error;
    }
    return store;
  }

  async create(record: GameRecord, index: GameIndex = NO_INDEX, event?: StateEvent): Promise<boolean> {
    const cap = cappedEngineGameOf(record);
    if (!cap) return this.writes.create(record, index, event);
    // A real-time game against the computer: counted and inserted as one step (engineGames.ts).
    const created = await this.run(() =>
      createEngineGamePostgres(this.pool, cap, client => this.writes.createOn(client, record, index, event)),
    );
    if (created === 'limit') throw engineGamesLimited(cap.max);
    return created;
  }

  get(id: string): Promise<GameRecord | undefined> {
    return this.run(async () => {
      const result = await this.pool.query<GameRow>({
        name: 'chess-select-game',
        text: `SELECT id, version, created_at, data, ${LINE_SQL('games')} FROM games WHERE id = $1`,
        values: [id],
      });
      const row = result.rows[0];
      return row && recordOfRow(row);
    });
  }

  update(
    record: GameRecord,
    expectedVersion: number,
    event?: StateEvent,
    index = NO_INDEX,
    previous?: GameRecord,
  ): Promise<boolean> {
    const refused = loggedVersionError(record, expectedVersion, event);
    if (refused) return Promise.reject(refused);
    return this.writes.update(record, expectedVersion, event, index, previous).then(saved => {
      if (saved && ++this.updates % PRUNE_EVERY === 0) void this.prune();
      return saved;
    });
  }

  listGames(query: ListQuery): Promise<ListedGame[]> {
    const given = { player: query.player, before: query.before ?? Number.MAX_SAFE_INTEGER, limit: query.limit };
    const names: Array<keyof typeof given> = []; // in the order the statement numbers its parameters
    const page = listGamesSql(query, name => {
      if (!names.includes(name)) names.push(name);
      return `$${names.indexOf(name) + 1}`;
    });
    return this.run(async () => {
      const result = await this.pool.query<GameRow & { seq: string }>({
        name: `chess-list-${playerShape(query.player)}-${query.status}`,
        text: `SELECT page.*, ${LINE_SQL('page')} FROM (${page}) AS page ORDER BY seq DESC`,
        values: names.map(name => given[name]),
      });
      return result.rows.map(row => ({ record: recordOfRow(row), seq: Number(row.seq) }));
    });
  }

  ongoingGames(player: string, after: string | undefined, limit: number): Promise<GameRecord[]> {
    const params = ['player', 'after', 'limit'] as const; // numbered in this order
    const page = ongoingGamesSql(player, name => `$${params.indexOf(name) + 1}`);
    return this.run(async () => {
      const result = await this.pool.query<GameRow>({
        name: `chess-ongoing-games-${playerShape(player)}`,
        text: `SELECT page.*, ${LINE_SQL('page')} FROM (${page}) AS page ORDER BY id`,
        values: [player, after ?? '', limit],
      });
      return result.rows.map(recordOfRow);
    });
  }

  clockedGames(): Promise<ClockedGame[]> {
    return this.run(async () => {
      const result = await this.pool.query<{ id: string; deadline: string }>(
        'SELECT id, deadline FROM games WHERE deadline IS NOT NULL',
      );
      return result.rows.map(row => ({ id: row.id, deadline: Number(row.deadline) }));
    });
  }

  changesSince(id: string, afterVersion: number): Promise<StoredChange[]> {
    return this.run(async () => {
      const result = await this.pool.query<{ version: number; event: string }>(
        'SELECT version, event FROM game_changes WHERE game_id = $1 AND version > $2 ORDER BY version',
        [id, afterVersion],
      );
      return result.rows.map(row => ({ gameId: id, version: row.version, event: JSON.parse(row.event) as StateEvent }));
    });
  }

  insertToken(token: StoredToken): Promise<void> {
    return this.run(async () => {
      await this.pool.query({
        name: 'chess-insert-token',
        text: `WITH inserted AS (
  INSERT INTO player_tokens (id, hash, player_id, display_name, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id
) SELECT pg_notify('${TOKENS_CHANNEL}', '${TOKEN_ISSUED}') FROM inserted`,
        values: [token.id, token.hash, token.player.id, token.player.displayName, token.createdAt],
      });
    });
  }

  tokenByHash(hash: string): Promise<StoredToken | undefined> {
    return this.run(async () => {
      const result = await this.pool.query<TokenRow>({
        name: 'chess-select-token',
        text: `SELECT ${TOKEN_COLUMNS} FROM player_tokens WHERE hash = $1 AND revoked_at IS NULL`,
        values: [hash],
      });
      const row = result.rows[0];
      return row && tokenOf(row);
    });
  }

  listTokens(playerId?: string): Promise<StoredToken[]> {
    return this.run(async () => {
      const result = await this.pool.query<TokenRow>(
        `SELECT ${TOKEN_COLUMNS} FROM player_tokens WHERE revoked_at IS NULL AND ($1::text IS NULL OR player_id = $1)
         ORDER BY created_at, id`,
        [playerId ?? null],
      );
      return result.rows.map(tokenOf);
    });
  }

  revokeToken(id: string): Promise<string | undefined> {
    return this.run(async () => {
      const result = await this.pool.query<{ hash: string }>(
        `WITH revoked AS (
  UPDATE player_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING hash
) SELECT hash, pg_notify('${TOKENS_CHANNEL}', ${tokenRevokedSql('hash')}) FROM revoked`,
        [id],
      );
      return result.rows[0]?.hash;
    });
  }

  validTokenHashes(hashes: readonly string[]): Promise<string[]> {
    return this.run(async () => {
      const result = await this.pool.query<{ hash: string }>({
        name: 'chess-valid-tokens',
        text: 'SELECT hash FROM player_tokens WHERE hash = ANY($1::text[]) AND revoked_at IS NULL',
        values: [hashes],
      });
      return result.rows.map(row => row.hash);
    });
  }

  tokensIssued(): Promise<boolean> {
    return this.run(async () => (await this.pool.query('SELECT 1 FROM player_tokens LIMIT 1')).rowCount === 1);
  }

  knownPlayer(playerId: string): Promise<PlayerInfo | undefined> {
    return this.run(async () => {
      const { rows } = await this.pool.query<{ player_id: string; display_name: string }>(KNOWN_PLAYER_SQL, [playerId]);
      const row = rows[0];
      return row && { id: row.player_id, displayName: row.display_name };
    });
  }

  makeBot(playerId: string, since: string): Promise<boolean> {
    return this.run(async () => (await this.pool.query(BOT_SQL.insert, [playerId, since])).rowCount === 1);
  }

  botsAmong(playerIds: readonly string[]): Promise<string[]> {
    return this.run(async () =>
      (
        await this.pool.query<{ player_id: string }>('SELECT player_id FROM bots WHERE player_id = ANY($1)', [
          [...playerIds],
        ])
      ).rows.map(row => row.player_id),
    );
  }

  insertChallenge(challenge: Challenge, maxPending = Infinity): Promise<InsertedChallenge> {
    const insert = async (client: pg.PoolClient | pg.Pool): Promise<InsertedChallenge> =>
      (await client.query(ANNOUNCED(CHALLENGE_SQL.insert), [...challengeColumns(challenge)])).rowCount === 1
        ? 'inserted'
        : 'taken';
    if (maxPending === Infinity) return this.run(() => insert(this.pool));
    return this.run(() =>
      transaction<InsertedChallenge>(this.pool, async client => {
        // One challenger's inserts one at a time, on every instance: each counts what the one before committed.
        await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
          CHALLENGER_LOCK,
          challenge.challenger.id,
        ]);
        const { rows } = await client.query<{ n: string }>(CHALLENGE_SQL.count, [
          challenge.challenger.id,
          challenge.createdAt,
        ]);
        return Number(rows[0]!.n) >= maxPending ? 'limit' : await insert(client);
      }),
    );
  }

  challenge(id: string): Promise<Challenge | undefined> {
    return this.run(async () => {
      const row = (await this.pool.query<ChallengeRow>(CHALLENGE_SQL.select, [id])).rows[0];
      return row && challengeOf(row);
    });
  }

  claimChallenge(next: Challenge, expectedVersion: number): Promise<boolean> {
    const values = [next.id, next.version, next.status, JSON.stringify(next), expectedVersion];
    return this.run(async () => (await this.pool.query(ANNOUNCED(CHALLENGE_SQL.claim), values)).rowCount === 1);
  }

  pendingChallenges(playerId: string, now: number): Promise<Challenge[]> {
    return this.run(async () =>
      (await this.pool.query<ChallengeRow>(CHALLENGE_SQL.pending, [playerId, now])).rows.map(challengeOf).sort(byAge),
    );
  }

  pendingCount(challengerId: string, now: number): Promise<number> {
    return this.run(async () =>
      Number((await this.pool.query<{ n: string }>(CHALLENGE_SQL.count, [challengerId, now])).rows[0]!.n),
    );
  }

  expiringChallenges(limit: number): Promise<Challenge[]> {
    return this.run(async () =>
      (await this.pool.query<ChallengeRow>(CHALLENGE_SQL.expiring, [limit])).rows.map(challengeOf),
    );
  }

  challengesWithoutGame(since: number): Promise<Challenge[]> {
    return this.run(async () =>
      (await this.pool.query<ChallengeRow>(CHALLENGE_SQL.withoutGame, [since])).rows.map(challengeOf),
    );
  }

  insertSeek(seek: Seek, maxCorrespondence?: number): Promise<InsertedSeek> {
    return this.seeks.insertSeek(seek, maxCorrespondence);
  }

  seek(id: string): Promise<Seek | undefined> {
    return this.seeks.seek(id);
  }

  openSeeks(pool: string, now: number, limit: number): Promise<Seek[]> {
    return this.seeks.openSeeks(pool, now, limit);
  }

  pairSeeks(a: Seek, b: Seek): Promise<boolean> {
    return this.seeks.pairSeeks(a, b);
  }

  withdrawSeek(id: string): Promise<boolean> {
    return this.seeks.withdrawSeek(id);
  }

  keepSeeksAlive(ids: readonly string[], aliveUntil: number): Promise<void> {
    return this.seeks.keepSeeksAlive(ids, aliveUntil);
  }

  seeksWithoutGame(since: number): Promise<Seek[]> {
    return this.seeks.seeksWithoutGame(since);
  }

  markPresent(keys: readonly PresenceKey[], instanceId: string, until: number): Promise<void> {
    if (keys.length === 0) return Promise.resolve();
    return this.run(async () => {
      await this.pool.query(
        'INSERT INTO game_presence (game_id, player_id, instance_id, open, until) ' +
          'SELECT g, p, $3, 1, $4 FROM unnest($1::text[], $2::text[]) AS k(g, p) ' +
          'ON CONFLICT (game_id, player_id, instance_id) DO UPDATE SET open = 1, until = excluded.until',
        [keys.map(key => key.gameId), keys.map(key => key.playerId), instanceId, until],
      );
    });
  }

  markLeft({ gameId, playerId }: PresenceKey, instanceId: string, at: number): Promise<void> {
    return this.run(async () => {
      await this.pool.query(PRESENCE_SQL.left, [gameId, playerId, instanceId, at]);
    });
  }

  lastSeen(gameIds: readonly string[]): Promise<SeenAt[]> {
    return this.run(async () =>
      (
        await this.pool.query<SeenRow>(
          'SELECT game_id, player_id, max(until) AS until FROM game_presence WHERE game_id = ANY($1) ' +
            'GROUP BY game_id, player_id',
          [[...gameIds]],
        )
      ).rows.map(seenOf),
    );
  }

  prunePresence(before: number): Promise<void> {
    return this.run(async () => {
      await this.pool.query(PRESENCE_SQL.prune, [before]);
    });
  }

  claimEngineTurn({ gameId, version, instanceId, until }: EngineTurn, now: number): Promise<boolean> {
    return this.run(
      async () => (await this.pool.query(ENGINE_TURN_SQL, [gameId, version, instanceId, until, now])).rowCount === 1,
    );
  }

  appendChat(line: NewChatLine, limit: ChatLimit): Promise<AppendedChat> {
    return this.run(() =>
      transaction<AppendedChat>(this.pool, async client => {
        // One writer's lines one at a time on every instance (each counts what the one before committed), and one
        // game's lines one at a time (each numbered after the one before); always in this order, so no two wait on
        // each other in a circle.
        await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2)), pg_advisory_xact_lock($3, hashtext($4))', [
          CHAT_WRITER_LOCK,
          line.player.id,
          CHAT_GAME_LOCK,
          line.gameId,
        ]);
        const { rows: recent } = await client.query<{ created_at: string }>(CHAT_SQL.recent, [
          line.player.id,
          line.at - limit.windowMs,
          limit.lines,
        ]);
        const retryAt = chatRetryAt(
          recent.map(row => Number(row.created_at)),
          line.at,
          limit,
        );
        if (retryAt !== undefined) throw new Rollback<AppendedChat>({ retryAt });
        const written = chatLineOf((await client.query<ChatRow>(CHAT_SQL.insert, [...chatColumns(line)])).rows[0]!);
        await client.query(CHAT_SQL.trim, [line.gameId, line.room, limit.kept]);
        // Heard by every instance once the line commits, this one included.
        await client.query('SELECT pg_notify($1, $2)', [CHAT_CHANNEL, JSON.stringify(written)]);
        return { line: written };
      }),
    );
  }

  chatLines(gameId: string, room: ChatRoom): Promise<ChatLine[]> {
    return this.run(async () => (await this.pool.query<ChatRow>(CHAT_SQL.lines, [gameId, room])).rows.map(chatLineOf));
  }

  secret(): Promise<string> {
    return this.run(
      async () => (await this.pool.query<{ secret: string }>('SELECT secret FROM service_secret')).rows[0]!.secret,
    );
  }

  ping(): Promise<void> {
    return this.run(async () => {
      await this.pool.query('SELECT 1');
    });
  }

  async close(): Promise<void> {
    await this.presence.close();
    if (!this.pool.ended) await this.pool.end();
  }

  private async prune(): Promise<void> {
    try {
      await this.pool.query("DELETE FROM game_changes WHERE created_at < now() - $1 * interval '1 millisecond'", [
        CHANGE_LOG_RETENTION_MS,
      ]);
    } catch {
      // The next prune tries again.
    }
  }

  /** Runs a database call, turning "cannot reach the database" into UNAVAILABLE. */
  private async run<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      const code = (error as { code?: unknown }).code;
      throw new DomainError(
        'UNAVAILABLE',
        code === '53100'
          ? "the database server's disk is full; try again once space is freed"
          : typeof code === 'string' && code.startsWith('53')
            ? `the database server is out of resources (${code}); try again shortly`
            : 'the database is unreachable; try again shortly',
      );
    }
  }
}

async function migrate(pool: pg.Pool): Promise<void> {
  await transaction(pool, async client => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    );
    const applied = new Set(
      (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map(row => row.version),
    );
    for (const { version, name, sql } of migrations('postgres')) {
      if (applied.has(version)) continue;
      await client.query(sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [version, name]);
    }
    await reindexGames(client);
  });
}

/**
 * Works out `ended` and `deadline` of the games stored before those columns were filled (migration 0005), from
 * each game itself: whether a game is over depends on its position. Runs under the migration lock.
 */
async function reindexGames(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<GameRow>(
    `SELECT id, version, created_at, data, ${LINE_SQL('games')} FROM games WHERE ended IS NULL`,
  );
  for (const row of rows) {
    const { ended, deadline } = indexOfGame(restoreGame(recordOfRow(row)));
    await client.query('UPDATE games SET ended = $2, deadline = $3 WHERE id = $1', [row.id, +ended, deadline]);
  }
}
