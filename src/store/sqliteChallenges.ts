/**
 * The embedded store's challenges, seeks, chat lines and known players: the shared SQL of challenges.ts, seeks.ts,
 * chat.ts and tokens.ts, prepared once per connection. SQLite numbers no parameter twice, so `$n` becomes the named `@pn`.
 *
 * ```ts
 * const challenges = prepareChallengeStatements(db);
 * challenges.select.get(params(['AbCd1234']));
 * ```
 */
import type Database from 'better-sqlite3';
import { CHALLENGE_SQL, type ChallengeRow } from './challenges.ts';
import { SEEK_SQL, type SeekRow } from './seeks.ts';
import { PRESENCE_SQL, type SeenRow } from './presence.ts';
import { ENGINE_TURN_SQL } from './engineTurns.ts';
import { KNOWN_PLAYER_SQL } from './tokens.ts';
import { CHAT_SQL, type ChatRow } from './chat.ts';

type Params = Record<string, unknown>;

/** Positional values as the named parameters `@p1`, `@p2`... */
export const params = (values: readonly unknown[]): Params =>
  Object.fromEntries(values.map((value, i) => [`p${i + 1}`, value]));

const named = (sql: string): string => sql.replace(/\$(\d+)/g, '@p$1');

export function prepareChallengeStatements(db: Database.Database) {
  return {
    insert: db.prepare<[Params]>(named(CHALLENGE_SQL.insert)),
    select: db.prepare<[Params], ChallengeRow>(named(CHALLENGE_SQL.select)),
    claim: db.prepare<[Params]>(named(CHALLENGE_SQL.claim)),
    pending: db.prepare<[Params], ChallengeRow>(named(CHALLENGE_SQL.pending)),
    count: db.prepare<[Params], { n: number }>(named(CHALLENGE_SQL.count)),
    expiring: db.prepare<[Params], ChallengeRow>(named(CHALLENGE_SQL.expiring)),
    withoutGame: db.prepare<[Params], ChallengeRow>(named(CHALLENGE_SQL.withoutGame)),
    knownPlayer: db.prepare<[Params], { player_id: string; display_name: string }>(named(KNOWN_PLAYER_SQL)),
  };
}

export function prepareSeekStatements(db: Database.Database) {
  return {
    insert: db.prepare<[Params]>(named(SEEK_SQL.insert)),
    select: db.prepare<[Params], SeekRow>(named(SEEK_SQL.select)),
    open: db.prepare<[Params], SeekRow>(named(SEEK_SQL.open)),
    pair: db.prepare<[Params]>(named(SEEK_SQL.pair)),
    withdraw: db.prepare<[Params]>(named(SEEK_SQL.withdraw)),
    keepAlive: db.prepare<[Params]>(
      "UPDATE seeks SET alive_until = @p2 WHERE status = 'open' AND id IN (SELECT value FROM json_each(@p1))",
    ),
    withoutGame: db.prepare<[Params], SeekRow>(named(SEEK_SQL.withoutGame)),
    countCorrespondence: db.prepare<[Params], { n: number }>(named(SEEK_SQL.countCorrespondence)),
    withdrawOlder: db.prepare<[Params], { id: string }>(named(SEEK_SQL.withdrawOlder)),
    // The real-time seeks that another store inserted: of a process before this one (DECISIONS §16a).
    withdrawHeldElsewhere: db.prepare<[Params]>(
      "UPDATE seeks SET status = 'withdrawn' WHERE status = 'open' AND holder IS NOT NULL AND holder <> @p1",
    ),
  };
}

export function preparePresenceStatements(db: Database.Database) {
  return {
    present: db.prepare<[Params]>(named(PRESENCE_SQL.present)),
    left: db.prepare<[Params]>(named(PRESENCE_SQL.left)),
    lastSeen: db.prepare<[string], SeenRow>(
      'SELECT game_id, player_id, max(until) AS until FROM game_presence ' +
        'WHERE game_id IN (SELECT value FROM json_each(?)) GROUP BY game_id, player_id',
    ),
    prune: db.prepare<[Params]>(named(PRESENCE_SQL.prune)),
    engineTurn: db.prepare<[Params]>(named(ENGINE_TURN_SQL)),
  };
}

export function prepareChatStatements(db: Database.Database) {
  return {
    recent: db.prepare<[Params], { created_at: number }>(named(CHAT_SQL.recent)),
    insert: db.prepare<[Params], ChatRow>(named(CHAT_SQL.insert)),
    trim: db.prepare<[Params]>(named(CHAT_SQL.trim)),
    lines: db.prepare<[Params], ChatRow>(named(CHAT_SQL.lines)),
  };
}
