/**
 * The service's clock timers (DECISIONS §14): one timer per game whose clock will call for the service to act (a
 * flag, or the abort of a game not started in time), set for its deadline, so that the game ends within moments
 * of it with no request and no scan of every game. Re-armed after every change of the game (its deadline moves),
 * from the store at start (a deadline passed while the server was down fires at once) and, with several
 * instances, from every change another instance announces.
 *
 * The end a timer makes is a change the service makes by itself (selfChanges.ts): while the store cannot record it
 * (an outage, a full disk), it is tried again with backoff until it is recorded or the game's deadline has moved,
 * each failed try reported to `onFailure`.
 *
 * Every instance arms a timer for every running game; the store's version check lets exactly one of them record
 * the end. The instance that made the game's last change fires at the deadline; the others `GRACE_MS` later, so
 * that they find the game already over instead of racing for it, unless that instance has gone.
 *
 * ```ts
 * const timers = new ClockTimers(id => games.expireDue(id), Date.now, { onFailure: failure => log.warn(...) });
 * timers.arm('AbCd1234', deadline, true); // this instance made the change
 * timers.arm('AbCd1234', null, true); // no deadline any more: disarmed
 * ```
 */
import { SelfChanges, type Failure } from './selfChanges.ts';

/** How much later an instance fires for a deadline set by another instance's change. */
export const GRACE_MS = 250;

export interface ClockTimersOptions {
  /** Each failed try of a game's end (the key is the game's id), e.g. for the log. */
  onFailure?: ((failure: Failure) => void) | undefined;
}

export class ClockTimers {
  /** The games' ends to make, each with the deadline it is armed for. */
  private readonly ends: SelfChanges<number>;

  /**
   * `fire` ends the game if its deadline has come; it resolves once that is recorded or found not to be due, and
   * rejects when the store failed (it is tried again).
   */
  constructor(
    private readonly fire: (gameId: string) => Promise<unknown>,
    now: () => number,
    options: ClockTimersOptions = {},
  ) {
    this.ends = new SelfChanges<number>({ now, onFailure: options.onFailure });
  }

  /** Games with a timer armed (or an end being tried). */
  get size(): number {
    return this.ends.size;
  }

  /** The deadline a game's timer is armed for, if any. */
  deadlineOf(gameId: string): number | undefined {
    return this.ends.dataOf(gameId);
  }

  /**
   * Sets the game's timer for `deadline` (null: no timer), in place of any it had, retries included. `own`: this
   * instance made the change that set it, and fires at the deadline; otherwise GRACE_MS after it.
   */
  arm(gameId: string, deadline: number | null, own: boolean): void {
    if (deadline === null) return this.ends.cancel(gameId);
    const at = own ? deadline : deadline + GRACE_MS;
    this.ends.schedule(gameId, at, () => this.fire(gameId), deadline);
  }

  /** At shutdown: no timer fires and no end is tried again any more. */
  close(): void {
    this.ends.close();
  }
}
