/**
 * A store whose commits (create, update) are timed, for the commit-latency metric: `startTimer` is called as a
 * commit begins and the function it returns as the commit ends, whether it succeeded or not; and whose reads of a
 * game are counted (`onRead`).
 *
 * ```ts
 * const store = timedStore(await openStore(url), () => metrics.storeCommit.startTimer());
 * ```
 */
import type { GameRecord } from '../domain/game.ts';
import type { RatedEnd } from '../domain/ratings.ts';
import type { GameIndex, GameStore, StateEvent } from './store.ts';

export function timedStore(
  store: GameStore,
  startTimer: () => () => void,
  onRead: () => void = () => undefined,
): GameStore {
  const timed =
    <A extends unknown[]>(write: (...args: A) => Promise<boolean>) =>
    async (...args: A): Promise<boolean> => {
      const end = startTimer();
      try {
        return await write(...args);
      } finally {
        end();
      }
    };
  return {
    create: timed((record, index?: GameIndex, event?: StateEvent) => store.create(record, index, event)),
    update: timed(
      (
        record,
        expectedVersion: number,
        event?: StateEvent,
        index?: GameIndex,
        previous?: GameRecord,
        rated?: RatedEnd,
      ) => store.update(record, expectedVersion, event, index, previous, rated),
    ),
    clockedGames: () => store.clockedGames(),
    listGames: query => store.listGames(query),
    ongoingGames: (player, after, limit) => store.ongoingGames(player, after, limit),
    get: id => {
      onRead();
      return store.get(id);
    },
    changesSince: (id, afterVersion) => store.changesSince(id, afterVersion),
    secret: () => store.secret(),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
