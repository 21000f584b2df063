/** A store in a Map, for tests and tools: nothing survives the process. */
import { randomBytes } from 'node:crypto';
import { eventJsonOf } from '../domain/views.ts';
import type { GameRecord } from '../domain/game.ts';
import { RecentChanges } from './recentChanges.ts';
import {
  loggedVersionError,
  NO_INDEX,
  type ClockedGame,
  type GameIndex,
  type GameStore,
  type ListedGame,
  type ListQuery,
  type StateEvent,
  type StoredChange,
} from './store.ts';
import type { StoredToken, TokenStore } from './tokens.ts';
import { byAge, type ChallengeStore, type InsertedChallenge } from './challenges.ts';
import type { Challenge } from '../domain/challenge.ts';
import { bySeekAge, isRealTime, type Seek } from '../domain/seek.ts';
import type { InsertedSeek, SeekStore } from './seeks.ts';
import type { PresenceKey, PresenceStore, SeenAt } from './presence.ts';
import type { EngineTurn, EngineTurnStore } from './engineTurns.ts';
import { cappedEngineGameOf } from '../domain/engineGames.ts';
import { engineGamesLimited, engineGamesOf } from './engineGames.ts';
import type { PlayerInfo } from '../contract/shapes.ts';
import { chatRetryAt, type ChatLimit, type ChatLine, type NewChatLine } from '../domain/chat.ts';
import type { ChatRoom } from '../contract/vocabulary.ts';
import type { AppendedChat, ChatStore } from './chat.ts';

export class MemoryGameStore
  implements GameStore, TokenStore, ChallengeStore, SeekStore, ChatStore, PresenceStore, EngineTurnStore
{
  private readonly games = new Map<string, string>();
  private readonly deadlines = new Map<string, number>();
  private readonly order = new Map<string, { seq: number; ended: boolean }>();
  private seq = 0;
  private readonly log = new RecentChanges();
  private readonly secretHex = randomBytes(32).toString('hex');
  private readonly tokens = new Map<string, StoredToken & { revoked: boolean }>();
  private readonly challenges = new Map<string, string>(); // JSON, so that no caller shares a stored object
  private readonly seeks = new Map<string, string>(); // JSON, as the challenges
  private readonly bots = new Set<string>();
  private readonly engineTurns = new Map<string, EngineTurn>();
  private readonly presence = new Map<string, SeenAt & { instanceId: string }>(); // by game, player and instance
  private readonly chats = new Map<string, ChatLine[]>(); // each game's lines, oldest first

  create(record: GameRecord, index: GameIndex = NO_INDEX): Promise<boolean> {
    if (this.games.has(record.id)) return Promise.resolve(false);
    // A real-time game against the computer: its person has a bound of ongoing ones (engineGames.ts).
    const cap = cappedEngineGameOf(record);
    if (cap) {
      const ongoing = [...this.order].filter(([, { ended }]) => !ended).map(([id]) => ({ data: this.games.get(id)! }));
      if (engineGamesOf(ongoing, cap.player) >= cap.max) return Promise.reject(engineGamesLimited(cap.max));
    }
    this.games.set(record.id, JSON.stringify(record));
    this.indexed(record.id, index);
    return Promise.resolve(true);
  }

  get(id: string): Promise<GameRecord | undefined> {
    const json = this.games.get(id);
    return Promise.resolve(json === undefined ? undefined : (JSON.parse(json) as GameRecord));
  }

  update(record: GameRecord, expectedVersion: number, event?: StateEvent, index = NO_INDEX): Promise<boolean> {
    const refused = loggedVersionError(record, expectedVersion, event);
    if (refused) return Promise.reject(refused);
    const json = this.games.get(record.id);
    if (json === undefined || (JSON.parse(json) as GameRecord).version !== expectedVersion)
      return Promise.resolve(false);
    this.games.set(record.id, JSON.stringify(record));
    this.indexed(record.id, index);
    if (event) this.log.append(record.id, record.version, eventJsonOf(event));
    return Promise.resolve(true);
  }

  clockedGames(): Promise<ClockedGame[]> {
    return Promise.resolve([...this.deadlines].map(([id, deadline]) => ({ id, deadline })));
  }

  listGames(query: ListQuery): Promise<ListedGame[]> {
    const before = query.before ?? Infinity;
    const wanted = (record: GameRecord, ended: boolean) =>
      (query.player === undefined || record.white.id === query.player || record.black.id === query.player) &&
      (query.status === 'all' || ended === (query.status === 'ended'));
    const page = [...this.order]
      .filter(([, { seq }]) => seq < before)
      .map(([id, { seq, ended }]) => ({ record: JSON.parse(this.games.get(id)!) as GameRecord, seq, ended }))
      .filter(({ record, ended }) => wanted(record, ended))
      .sort((a, b) => b.seq - a.seq)
      .slice(0, query.limit);
    return Promise.resolve(page.map(({ record, seq }) => ({ record, seq })));
  }

  ongoingGames(player: string, after: string | undefined, limit: number): Promise<GameRecord[]> {
    const page = [...this.order]
      .filter(([id, { ended }]) => !ended && id > (after ?? ''))
      .map(([id]) => JSON.parse(this.games.get(id)!) as GameRecord)
      .filter(record => record.white.id === player || record.black.id === player)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit);
    return Promise.resolve(page);
  }

  private indexed(id: string, { deadline, ended }: GameIndex): void {
    if (deadline === null) this.deadlines.delete(id);
    else this.deadlines.set(id, deadline);
    this.order.set(id, { seq: ++this.seq, ended });
  }

  changesSince(id: string, afterVersion: number): Promise<StoredChange[]> {
    return Promise.resolve(this.log.since(id, afterVersion));
  }

  secret(): Promise<string> {
    return Promise.resolve(this.secretHex);
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  insertToken(token: StoredToken): Promise<void> {
    this.tokens.set(token.id, { ...token, revoked: false });
    return Promise.resolve();
  }

  tokenByHash(hash: string): Promise<StoredToken | undefined> {
    const found = [...this.tokens.values()].find(token => token.hash === hash && !token.revoked);
    return Promise.resolve(found && this.withBot(publicToken(found)));
  }

  listTokens(playerId?: string): Promise<StoredToken[]> {
    const live = [...this.tokens.values()].filter(
      token => !token.revoked && (playerId === undefined || token.player.id === playerId),
    );
    return Promise.resolve(live.map(token => this.withBot(publicToken(token))));
  }

  revokeToken(id: string): Promise<string | undefined> {
    const token = this.tokens.get(id);
    if (!token || token.revoked) return Promise.resolve(undefined);
    token.revoked = true;
    return Promise.resolve(token.hash);
  }

  validTokenHashes(hashes: readonly string[]): Promise<string[]> {
    const valid = new Set([...this.tokens.values()].filter(token => !token.revoked).map(token => token.hash));
    return Promise.resolve(hashes.filter(hash => valid.has(hash)));
  }

  tokensIssued(): Promise<boolean> {
    return Promise.resolve(this.tokens.size > 0);
  }

  knownPlayer(playerId: string): Promise<PlayerInfo | undefined> {
    const latest = [...this.tokens.values()].filter(token => token.player.id === playerId).at(-1);
    return Promise.resolve(latest && { ...latest.player });
  }

  private withBot(token: StoredToken): StoredToken {
    return this.bots.has(token.player.id) ? { ...token, bot: true } : token;
  }

  markPresent(keys: readonly PresenceKey[], instanceId: string, until: number): Promise<void> {
    for (const key of keys) this.seen(key, instanceId, until);
    return Promise.resolve();
  }

  markLeft(key: PresenceKey, instanceId: string, at: number): Promise<void> {
    this.seen(key, instanceId, at);
    return Promise.resolve();
  }

  private seen({ gameId, playerId }: PresenceKey, instanceId: string, until: number): void {
    this.presence.set(`${gameId}\u0000${playerId}\u0000${instanceId}`, { gameId, playerId, instanceId, until });
  }

  lastSeen(gameIds: readonly string[]): Promise<SeenAt[]> {
    const latest = new Map<string, SeenAt>();
    for (const { gameId, playerId, until } of this.presence.values()) {
      if (!gameIds.includes(gameId)) continue;
      const key = `${gameId}\u0000${playerId}`;
      if ((latest.get(key)?.until ?? -Infinity) < until) latest.set(key, { gameId, playerId, until });
    }
    return Promise.resolve([...latest.values()]);
  }

  prunePresence(before: number): Promise<void> {
    for (const [key, row] of this.presence) if (row.until < before) this.presence.delete(key);
    return Promise.resolve();
  }

  claimEngineTurn(turn: EngineTurn, now: number): Promise<boolean> {
    const held = this.engineTurns.get(turn.gameId);
    const free =
      !held ||
      held.version < turn.version ||
      held.until <= now ||
      (held.instanceId === turn.instanceId && held.version === turn.version);
    if (free) this.engineTurns.set(turn.gameId, { ...turn });
    return Promise.resolve(free);
  }

  makeBot(playerId: string, _since: string): Promise<boolean> {
    if (this.bots.has(playerId)) return Promise.resolve(false);
    this.bots.add(playerId);
    return Promise.resolve(true);
  }

  botsAmong(playerIds: readonly string[]): Promise<string[]> {
    return Promise.resolve(playerIds.filter(id => this.bots.has(id)));
  }

  insertChallenge(challenge: Challenge, maxPending = Infinity): Promise<InsertedChallenge> {
    if (this.challenges.has(challenge.id)) return Promise.resolve('taken');
    // Counted and inserted in one synchronous step: no other insert comes between.
    if (this.pendingOf(challenge.challenger.id, challenge.createdAt).length >= maxPending) {
      return Promise.resolve('limit');
    }
    this.challenges.set(challenge.id, JSON.stringify(challenge));
    return Promise.resolve('inserted');
  }

  challenge(id: string): Promise<Challenge | undefined> {
    const json = this.challenges.get(id);
    return Promise.resolve(json === undefined ? undefined : (JSON.parse(json) as Challenge));
  }

  claimChallenge(next: Challenge, expectedVersion: number): Promise<boolean> {
    const json = this.challenges.get(next.id);
    const stored = json === undefined ? undefined : (JSON.parse(json) as Challenge);
    if (stored?.version !== expectedVersion || stored.status !== 'created') return Promise.resolve(false);
    this.challenges.set(next.id, JSON.stringify(next));
    return Promise.resolve(true);
  }

  private storedChallenges(): Challenge[] {
    return [...this.challenges.values()].map(json => JSON.parse(json) as Challenge);
  }

  pendingChallenges(playerId: string, now: number): Promise<Challenge[]> {
    const pending = this.storedChallenges().filter(
      c => c.status === 'created' && c.expiresAt > now && (c.challenger.id === playerId || c.destUser?.id === playerId),
    );
    return Promise.resolve(pending.sort(byAge));
  }

  pendingCount(challengerId: string, now: number): Promise<number> {
    return Promise.resolve(this.pendingOf(challengerId, now).length);
  }

  private pendingOf(challengerId: string, now: number): Challenge[] {
    return this.storedChallenges().filter(
      c => c.status === 'created' && c.expiresAt > now && c.challenger.id === challengerId,
    );
  }

  expiringChallenges(limit: number): Promise<Challenge[]> {
    const created = this.storedChallenges().filter(c => c.status === 'created');
    return Promise.resolve(created.sort((a, b) => a.expiresAt - b.expiresAt).slice(0, limit));
  }

  challengesWithoutGame(since: number): Promise<Challenge[]> {
    const unmade = this.storedChallenges().filter(
      c => c.status === 'accepted' && c.createdAt >= since && !this.games.has(c.id),
    );
    return Promise.resolve(unmade);
  }

  private storedSeeks(): Seek[] {
    return [...this.seeks.values()].map(json => JSON.parse(json) as Seek);
  }

  private storedSeek(id: string): Seek | undefined {
    const json = this.seeks.get(id);
    return json === undefined ? undefined : (JSON.parse(json) as Seek);
  }

  insertSeek(seek: Seek, maxCorrespondence = Infinity): Promise<InsertedSeek> {
    // Counted, inserted and the older withdrawn in one synchronous step: no other change comes between. Every seek
    // is held by this process, the only one that sees the store.
    const open = this.storedSeeks().filter(
      s => s.player.id === seek.player.id && s.status === 'open' && isRealTime(s) === isRealTime(seek),
    );
    if (!isRealTime(seek) && open.length >= maxCorrespondence) {
      return Promise.resolve({ result: 'limit', withdrawn: [] });
    }
    if (this.seeks.has(seek.id)) return Promise.resolve({ result: 'taken', withdrawn: [] });
    this.seeks.set(seek.id, JSON.stringify(seek));
    const withdrawn = isRealTime(seek) ? open.map(older => older.id) : [];
    for (const id of withdrawn) this.seeks.set(id, JSON.stringify({ ...this.storedSeek(id)!, status: 'withdrawn' }));
    return Promise.resolve({ result: 'inserted', withdrawn });
  }

  seek(id: string): Promise<Seek | undefined> {
    return Promise.resolve(this.storedSeek(id));
  }

  openSeeks(pool: string, now: number, limit: number): Promise<Seek[]> {
    const open = this.storedSeeks().filter(s => s.pool === pool && s.status === 'open' && s.aliveUntil > now);
    return Promise.resolve(open.sort(bySeekAge).slice(0, limit));
  }

  pairSeeks(a: Seek, b: Seek): Promise<boolean> {
    // Judged and written in one synchronous step: no other change comes between.
    if (this.storedSeek(a.id)?.status !== 'open' || this.storedSeek(b.id)?.status !== 'open') {
      return Promise.resolve(false);
    }
    for (const seek of [a, b]) {
      const stored = this.storedSeek(seek.id)!;
      const { gameId, pairedAt, gameColor } = seek;
      this.seeks.set(seek.id, JSON.stringify({ ...stored, status: 'paired', gameId, pairedAt, gameColor }));
    }
    return Promise.resolve(true);
  }

  withdrawSeek(id: string): Promise<boolean> {
    const stored = this.storedSeek(id);
    if (stored?.status !== 'open') return Promise.resolve(false);
    this.seeks.set(id, JSON.stringify({ ...stored, status: 'withdrawn' }));
    return Promise.resolve(true);
  }

  keepSeeksAlive(ids: readonly string[], aliveUntil: number): Promise<void> {
    for (const id of ids) {
      const stored = this.storedSeek(id);
      if (stored?.status === 'open') this.seeks.set(id, JSON.stringify({ ...stored, aliveUntil }));
    }
    return Promise.resolve();
  }

  seeksWithoutGame(since: number): Promise<Seek[]> {
    const unmade = this.storedSeeks().filter(
      s => s.status === 'paired' && s.pairedAt !== null && s.pairedAt >= since && !this.games.has(s.gameId!),
    );
    return Promise.resolve(unmade);
  }

  appendChat(line: NewChatLine, limit: ChatLimit): Promise<AppendedChat> {
    // Counted and added in one synchronous step: no other line comes between.
    const recent = [...this.chats.values()]
      .flat()
      .filter(kept => kept.player.id === line.player.id && kept.at > line.at - limit.windowMs)
      .map(kept => kept.at)
      .sort((a, b) => b - a);
    const retryAt = chatRetryAt(recent, line.at, limit);
    if (retryAt !== undefined) return Promise.resolve({ retryAt });
    const lines = this.chats.get(line.gameId) ?? [];
    const written: ChatLine = { ...line, player: { ...line.player }, seq: (lines.at(-1)?.seq ?? 0) + 1 };
    lines.push(written);
    const room = lines.filter(kept => kept.room === line.room);
    const dropped = new Set(room.slice(0, Math.max(0, room.length - limit.kept)));
    this.chats.set(
      line.gameId,
      lines.filter(kept => !dropped.has(kept)),
    );
    return Promise.resolve({ line: { ...written, player: { ...written.player } } });
  }

  chatLines(gameId: string, room: ChatRoom): Promise<ChatLine[]> {
    const lines = (this.chats.get(gameId) ?? []).filter(line => line.room === room);
    return Promise.resolve(lines.map(line => ({ ...line, player: { ...line.player } })));
  }
}

const publicToken = ({ id, hash, player, createdAt }: StoredToken): StoredToken => ({ id, hash, player, createdAt });
