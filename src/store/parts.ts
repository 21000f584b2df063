/**
 * A store made of parts, one per concern, so that each concern of each adapter is a file of its own: sqlite/,
 * postgres/ and memory/ each hold games.ts (create, get, update, the change log), listing.ts, tokens.ts,
 * challenges.ts, seeks.ts, chat.ts, presence.ts, engine.ts, history.ts and ratings.ts, and the adapter's class (sqlite.ts, postgres.ts,
 * memory.ts) puts its parts together. What a store answers is forwarded to its part here, once for every adapter;
 * the adapter itself answers what is about the database as a whole: its secret, its readiness and its closing.
 *
 * ```ts
 * class MemoryGameStore extends StoreOfParts {
 *   protected readonly parts: StoreParts = { games, listing: new MemoryListing(games), tokens: new MemoryTokens(), ... };
 *   secret() { ... } // and ping, close
 * }
 * ```
 */
import type { PlayerInfo } from '../contract/shapes.ts';
import type { ChatRoom } from '../contract/vocabulary.ts';
import type { Challenge } from '../domain/challenge.ts';
import type { ChatLimit, ChatLine, NewChatLine } from '../domain/chat.ts';
import type { GameRecord } from '../domain/game.ts';
import type { HistoryQuery } from '../domain/history.ts';
import type { PerfType, PlayerPerf, RatedEnd, RatingPoint } from '../domain/ratings.ts';
import type { Seek } from '../domain/seek.ts';
import type { ChallengeStore, InsertedChallenge } from './challenges.ts';
import type { AppendedChat, ChatStore } from './chat.ts';
import type { EngineTurn, EngineTurnStore } from './engineTurns.ts';
import type { HistoryStore } from './history.ts';
import type { PresenceKey, PresenceStore, SeenAt } from './presence.ts';
import type { RatingStore } from './ratings.ts';
import type { InsertedSeek, SeekStore } from './seeks.ts';
import { loggedVersionError, NO_INDEX } from './store.ts';
import type { ClockedGame, GameIndex, GameStore, ListedGame, ListQuery, StateEvent, StoredChange } from './store.ts';
import type { StoredToken, TokenStore } from './tokens.ts';
import type { AccountStore, FailureCount, StoredAccount, StoredCode, StoredSession } from './accounts.ts';

/**
 * What an adapter keeps: games, player tokens, accounts, challenges, seeks, chat lines, presence, the engine's turns,
 * players' games for export and ratings.
 */
export type Store = GameStore &
  TokenStore &
  AccountStore &
  ChallengeStore &
  SeekStore &
  ChatStore &
  PresenceStore &
  EngineTurnStore &
  HistoryStore &
  RatingStore;

/**
 * The games themselves: their rows and moves, written with a version check, and their change log. An update whose
 * event would not log at the version after `expectedVersion` is refused before it reaches the part (`update` below).
 */
export interface GamesPart extends Pick<GameStore, 'create' | 'get' | 'changesSince'> {
  update(update: GameUpdate): Promise<boolean>;
}

/** An update as a games part takes it (GameStore's `update`). */
export interface GameUpdate {
  record: GameRecord;
  expectedVersion: number;
  event: StateEvent | undefined;
  index: GameIndex;
  /** The stored record of `expectedVersion`, when the caller knew it: only what differs from it is written. */
  stored: GameRecord | undefined;
  /** The end of a rated game: its perfs written in the same transaction, the update refused if they changed. */
  rated: RatedEnd | undefined;
}

/** The pages of games, and the games whose clocks the service's timers watch. */
export type ListingPart = Pick<GameStore, 'clockedGames' | 'listGames' | 'ongoingGames'>;

export interface StoreParts {
  games: GamesPart;
  listing: ListingPart;
  tokens: TokenStore;
  accounts: AccountStore;
  challenges: ChallengeStore;
  seeks: SeekStore;
  chat: ChatStore;
  presence: PresenceStore;
  engineTurns: EngineTurnStore;
  history: HistoryStore;
  ratings: RatingStore;
}

/** A store that answers each concern with its part; the adapter answers `secret`, `ping` and `close`. */
export abstract class StoreOfParts implements Store {
  protected abstract readonly parts: StoreParts;

  abstract secret(): Promise<string>;
  abstract ping(): Promise<void>;
  abstract close(): Promise<void>;

  create(record: GameRecord, index?: GameIndex, event?: StateEvent): Promise<boolean> {
    return this.parts.games.create(record, index, event);
  }

  get(id: string): Promise<GameRecord | undefined> {
    return this.parts.games.get(id);
  }

  update(
    record: GameRecord,
    expectedVersion: number,
    event?: StateEvent,
    index: GameIndex = NO_INDEX,
    previous?: GameRecord,
    rated?: RatedEnd,
  ): Promise<boolean> {
    // Refused alike by every adapter, before its part sees it.
    const refused = loggedVersionError(record, expectedVersion, event);
    if (refused) return Promise.reject(refused);
    // The version check makes `previous` (of expectedVersion) the stored record, so only what differs is written.
    const stored = previous?.version === expectedVersion ? previous : undefined;
    return this.parts.games.update({ record, expectedVersion, event, index, stored, rated });
  }

  changesSince(id: string, afterVersion: number): Promise<StoredChange[]> {
    return this.parts.games.changesSince(id, afterVersion);
  }

  clockedGames(): Promise<ClockedGame[]> {
    return this.parts.listing.clockedGames();
  }

  listGames(query: ListQuery): Promise<ListedGame[]> {
    return this.parts.listing.listGames(query);
  }

  ongoingGames(player: string, after: string | undefined, limit: number): Promise<GameRecord[]> {
    return this.parts.listing.ongoingGames(player, after, limit);
  }

  insertToken(token: StoredToken): Promise<void> {
    return this.parts.tokens.insertToken(token);
  }

  tokenByHash(hash: string): Promise<StoredToken | undefined> {
    return this.parts.tokens.tokenByHash(hash);
  }

  listTokens(playerId?: string): Promise<StoredToken[]> {
    return this.parts.tokens.listTokens(playerId);
  }

  revokeToken(id: string): Promise<string | undefined> {
    return this.parts.tokens.revokeToken(id);
  }

  validTokenHashes(hashes: readonly string[]): Promise<string[]> {
    return this.parts.tokens.validTokenHashes(hashes);
  }

  tokensIssued(): Promise<boolean> {
    return this.parts.tokens.tokensIssued();
  }

  knownPlayer(playerId: string): Promise<PlayerInfo | undefined> {
    return this.parts.tokens.knownPlayer(playerId);
  }

  touchToken(hash: string, at: number): Promise<void> {
    return this.parts.tokens.touchToken(hash, at);
  }

  revokeTokensOf(playerId: string): Promise<string[]> {
    return this.parts.tokens.revokeTokensOf(playerId);
  }

  insertAccount(account: Omit<StoredAccount, 'closedAt'>): Promise<boolean> {
    return this.parts.accounts.insertAccount(account);
  }

  account(id: string): Promise<StoredAccount | undefined> {
    return this.parts.accounts.account(id);
  }

  setPasswordHash(id: string, passwordHash: string): Promise<boolean> {
    return this.parts.accounts.setPasswordHash(id, passwordHash);
  }

  closeAccount(id: string, at: number): Promise<string[] | undefined> {
    return this.parts.accounts.closeAccount(id, at);
  }

  insertSession(session: Omit<StoredSession, 'lastSeenAt'>): Promise<void> {
    return this.parts.accounts.insertSession(session);
  }

  sessionByHash(hash: string, idleBefore: number): Promise<StoredSession | undefined> {
    return this.parts.accounts.sessionByHash(hash, idleBefore);
  }

  touchSession(hash: string, at: number): Promise<void> {
    return this.parts.accounts.touchSession(hash, at);
  }

  endSession(hash: string): Promise<boolean> {
    return this.parts.accounts.endSession(hash);
  }

  endSessionsOf(accountId: string, except?: string): Promise<string[]> {
    return this.parts.accounts.endSessionsOf(accountId, except);
  }

  recordSignInFailure(keys: readonly string[], at: number): Promise<void> {
    return this.parts.accounts.recordSignInFailure(keys, at);
  }

  signInFailures(keys: readonly string[], since: number): Promise<FailureCount[]> {
    return this.parts.accounts.signInFailures(keys, since);
  }

  insertCode(code: Omit<StoredCode, 'usedAt' | 'tokenId'>): Promise<void> {
    return this.parts.accounts.insertCode(code);
  }

  useCode(hash: string, at: number): Promise<StoredCode | undefined> {
    return this.parts.accounts.useCode(hash, at);
  }

  setCodeToken(hash: string, tokenId: string): Promise<void> {
    return this.parts.accounts.setCodeToken(hash, tokenId);
  }

  makeBot(playerId: string, since: string): Promise<boolean> {
    return this.parts.tokens.makeBot(playerId, since);
  }

  botsAmong(playerIds: readonly string[]): Promise<string[]> {
    return this.parts.tokens.botsAmong(playerIds);
  }

  insertChallenge(challenge: Challenge, maxPending?: number): Promise<InsertedChallenge> {
    return this.parts.challenges.insertChallenge(challenge, maxPending);
  }

  challenge(id: string): Promise<Challenge | undefined> {
    return this.parts.challenges.challenge(id);
  }

  claimChallenge(next: Challenge, expectedVersion: number): Promise<boolean> {
    return this.parts.challenges.claimChallenge(next, expectedVersion);
  }

  pendingChallenges(playerId: string, now: number): Promise<Challenge[]> {
    return this.parts.challenges.pendingChallenges(playerId, now);
  }

  pendingCount(challengerId: string, now: number): Promise<number> {
    return this.parts.challenges.pendingCount(challengerId, now);
  }

  expiringChallenges(limit: number): Promise<Challenge[]> {
    return this.parts.challenges.expiringChallenges(limit);
  }

  challengesWithoutGame(since: number): Promise<Challenge[]> {
    return this.parts.challenges.challengesWithoutGame(since);
  }

  insertSeek(seek: Seek, maxCorrespondence?: number): Promise<InsertedSeek> {
    return this.parts.seeks.insertSeek(seek, maxCorrespondence);
  }

  seek(id: string): Promise<Seek | undefined> {
    return this.parts.seeks.seek(id);
  }

  openSeeks(pool: string, now: number, limit: number): Promise<Seek[]> {
    return this.parts.seeks.openSeeks(pool, now, limit);
  }

  pairSeeks(a: Seek, b: Seek): Promise<boolean> {
    return this.parts.seeks.pairSeeks(a, b);
  }

  withdrawSeek(id: string): Promise<boolean> {
    return this.parts.seeks.withdrawSeek(id);
  }

  keepSeeksAlive(ids: readonly string[], aliveUntil: number): Promise<void> {
    return this.parts.seeks.keepSeeksAlive(ids, aliveUntil);
  }

  seeksWithoutGame(since: number): Promise<Seek[]> {
    return this.parts.seeks.seeksWithoutGame(since);
  }

  appendChat(line: NewChatLine, limit: ChatLimit): Promise<AppendedChat> {
    return this.parts.chat.appendChat(line, limit);
  }

  chatLines(gameId: string, room: ChatRoom): Promise<ChatLine[]> {
    return this.parts.chat.chatLines(gameId, room);
  }

  markPresent(keys: readonly PresenceKey[], instanceId: string, until: number): Promise<void> {
    return this.parts.presence.markPresent(keys, instanceId, until);
  }

  markLeft(key: PresenceKey, instanceId: string, at: number): Promise<void> {
    return this.parts.presence.markLeft(key, instanceId, at);
  }

  lastSeen(gameIds: readonly string[]): Promise<SeenAt[]> {
    return this.parts.presence.lastSeen(gameIds);
  }

  prunePresence(before: number): Promise<void> {
    return this.parts.presence.prunePresence(before);
  }

  claimEngineTurn(turn: EngineTurn, now: number): Promise<boolean> {
    return this.parts.engineTurns.claimEngineTurn(turn, now);
  }

  playerGames(query: HistoryQuery): Promise<GameRecord[]> {
    return this.parts.history.playerGames(query);
  }

  perfsOf(playerIds: readonly string[]): Promise<PlayerPerf[]> {
    return this.parts.ratings.perfsOf(playerIds);
  }

  ratingHistory(playerId: string): Promise<RatingPoint[]> {
    return this.parts.ratings.ratingHistory(playerId);
  }

  topPlayers(perfType: PerfType, limit: number): Promise<PlayerPerf[]> {
    return this.parts.ratings.topPlayers(perfType, limit);
  }
}
