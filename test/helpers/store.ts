/** Store wrappers for tests: a real store with some of its methods replaced. */
import type { GameStore } from '../../src/store/store.ts';

/** A store that does what `store` does, except for the methods in `overrides`. */
export function storeWith(store: GameStore, overrides: Partial<GameStore>): GameStore {
  return {
    create: (record, index, event) => store.create(record, index, event),
    get: id => store.get(id),
    update: (record, expectedVersion, event, index, previous) =>
      store.update(record, expectedVersion, event, index, previous),
    clockedGames: () => store.clockedGames(),
    listGames: query => store.listGames(query),
    ongoingGames: (player, after, limit) => store.ongoingGames(player, after, limit),
    changesSince: (id, afterVersion) => store.changesSince(id, afterVersion),
    secret: () => store.secret(),
    ping: () => store.ping(),
    close: () => store.close(),
    ...overrides,
  };
}

/** A store that counts the reads (`get`) and the updates asked of it. */
export function countingStore(store: GameStore): GameStore & { reads: number; updates: number } {
  const counted = Object.assign(
    storeWith(store, {
      get: id => {
        counted.reads++;
        return store.get(id);
      },
      update: (record, expectedVersion, event, index, previous) => {
        counted.updates++;
        return store.update(record, expectedVersion, event, index, previous);
      },
    }),
    { reads: 0, updates: 0 },
  );
  return counted;
}

/**
 * Lets what is due run: timers' callbacks (on fake time, after a tick), the SQLite store's group commit, which
 * commits a turn of the event loop after the turn of its first write, and the continuations of those writes.
 */
export async function settle(turns = 4): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise(resolve => setImmediate(resolve));
}
