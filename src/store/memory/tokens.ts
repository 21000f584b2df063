/**
 * The memory store's player tokens and bots (memory.ts, tokens.ts).
 *
 * ```ts
 * const tokens = new MemoryTokens();
 * await tokens.insertToken({ id, hash, player, createdAt });
 * ```
 */
import type { PlayerInfo } from '../../contract/shapes.ts';
import type { StoredToken, TokenStore } from '../tokens.ts';
import { MemoryAccounts } from './accounts.ts';

export class MemoryTokens implements TokenStore {
  private readonly tokens = new Map<string, StoredToken & { revoked: boolean }>();
  private readonly bots = new Set<string>();

  /** `accounts`: the store's accounts, which are players and credentials too (DECISIONS §20). */
  constructor(private readonly accounts: MemoryAccounts = new MemoryAccounts()) {}

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
    for (const hash of this.accounts.liveSessions(hashes)) valid.add(hash);
    return Promise.resolve(hashes.filter(hash => valid.has(hash)));
  }

  touchToken(hash: string, at: number): Promise<void> {
    for (const token of this.tokens.values()) if (token.hash === hash) token.lastUsedAt = at;
    return Promise.resolve();
  }

  revokeTokensOf(playerId: string): Promise<string[]> {
    const revoked = [...this.tokens.values()].filter(token => token.player.id === playerId && !token.revoked);
    for (const token of revoked) token.revoked = true;
    return Promise.resolve(revoked.map(token => token.hash));
  }

  tokensIssued(): Promise<boolean> {
    return Promise.resolve(this.tokens.size > 0 || this.accounts.any());
  }

  async knownPlayer(playerId: string): Promise<PlayerInfo | undefined> {
    const account = await this.accounts.account(playerId);
    if (account) return { id: account.id, displayName: account.displayName };
    const latest = [...this.tokens.values()].filter(token => token.player.id === playerId).at(-1);
    return latest && { ...latest.player };
  }

  makeBot(playerId: string, _since: string): Promise<boolean> {
    if (this.bots.has(playerId)) return Promise.resolve(false);
    this.bots.add(playerId);
    return Promise.resolve(true);
  }

  botsAmong(playerIds: readonly string[]): Promise<string[]> {
    return Promise.resolve(playerIds.filter(id => this.bots.has(id)));
  }

  private withBot(token: StoredToken): StoredToken {
    return this.bots.has(token.player.id) ? { ...token, bot: true } : token;
  }
}

/** A token as stored, without what is read with it (`bot`) or kept beside it (`revoked`). */
const publicToken = ({ bot: _bot, revoked: _revoked, ...token }: StoredToken & { revoked?: boolean }): StoredToken =>
  structuredClone(token);
