/** Store wrappers for tests: a real store with some of its methods replaced. */
import type { GameStore } from '../../src/store/store.ts';

/** A store that does what `store` does, except for the methods in `overrides`. */
export function storeWith(store: GameStore, overrides: Partial<GameStore>): GameStore {
  return {
    create: record => store.create(record),
    get: id => store.get(id),
    update: (record, expectedVersion, event) => store.update(record, expectedVersion, event),
    changesSince: (id, afterVersion) => store.changesSince(id, afterVersion),
    ping: () => store.ping(),
    close: () => store.close(),
    ...overrides,
  };
}
