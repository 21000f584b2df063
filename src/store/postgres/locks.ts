/**
 * The PostgreSQL store's advisory locks, in one table, so that a new one is given a key no other takes. Each lock is
 * taken inside a transaction (`pg_advisory_xact_lock`) by every instance alike, and held until it commits: what one
 * instance counts under a lock, the next to take it sees committed.
 *
 * ```ts
 * await lockFor(client, CHALLENGER_LOCK, challenge.challenger.id); // one challenger's inserts one at a time
 * ```
 */
import type pg from 'pg';

/** Any constant shared by all instances: the advisory lock that serializes migrations. */
export const MIGRATION_LOCK = 4_224_242;

/** The first key of the advisory locks of challengers (the second is a hash of the challenger's id). */
export const CHALLENGER_LOCK = 4_224_243;

/** The first keys of the advisory locks of chat writers and of games' chats (the second is a hash of the id). */
export const CHAT_WRITER_LOCK = 4_224_244;
export const CHAT_GAME_LOCK = 4_224_245;

/** The first key of the advisory locks of seekers (the second is a hash of the player's id). */
export const SEEKER_LOCK = 4_224_246;

/** The first key of the advisory locks of players making games against the computer (the second: the player's). */
export const ENGINE_GAMES_LOCK = 4_224_247;

/** Takes the advisory lock of `key` and `id` (hashed) for the rest of the client's transaction. */
export async function lockFor(client: pg.PoolClient, key: number, id: string): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [key, id]);
}
