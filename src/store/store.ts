/**
 * Where games live. Adapters hold all SQL; the interface is async so that an embedded and a networked
 * database fit behind it alike. A resolved write is durable (committed and synced).
 *
 * ```ts
 * const store = await openStore('sqlite:./data/chess.sqlite');
 * await store.create(game.record);
 * const saved = await store.update(next.record, game.record.version); // false: someone else changed it first
 * ```
 */
import type { GameRecord } from '../domain/game.ts';

export interface GameStore {
  /** Inserts a new game; resolves false when the id is already taken. */
  create(record: GameRecord): Promise<boolean>;
  get(id: string): Promise<GameRecord | undefined>;
  /** Replaces a game if its stored version is still `expectedVersion`; resolves false otherwise. */
  update(record: GameRecord, expectedVersion: number): Promise<boolean>;
  /** Rejects when the store cannot serve requests. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The stored columns of a record besides id, version and timestamps. */
export type GameData = Omit<GameRecord, 'id' | 'version' | 'createdAt'>;

export const dataOf = ({ id: _id, version: _version, createdAt: _createdAt, ...data }: GameRecord): GameData => data;

export const recordOf = (id: string, version: number, createdAt: string, data: GameData): GameRecord => ({
  id,
  version,
  createdAt,
  ...data,
});
