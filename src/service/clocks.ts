/**
 * The service's clock timers (DECISIONS §14): one timer per game whose clock will call for the service to act (a
 * flag, or the abort of a game not started in time), set for its deadline, so that the game ends within moments
 * of it with no request and no scan of every game. Re-armed after every change of the game (its deadline moves),
 * from the store at start (a deadline passed while the server was down fires at once) and, with several
 * instances, from every change another instance announces.
 *
 * Every instance arms a timer for every running game; the store's version check lets exactly one of them record
 * the end. The instance that made the game's last change fires at the deadline; the others `GRACE_MS` later, so
 * that they find the game already over instead of racing for it, unless that instance has gone.
 *
 * ```ts
 * const timers = new ClockTimers(id => games.expireDue(id), Date.now);
 * timers.arm('AbCd1234', deadline, true); // this instance made the change
 * timers.arm('AbCd1234', null, true); // no deadline any more: disarmed
 * ```
 */

/** How much later an instance fires for a deadline set by another instance's change. */
export const GRACE_MS = 250;
/** setTimeout's longest delay (about 24.8 days); a later deadline is waited for in steps. */
const MAX_DELAY_MS = 2 ** 31 - 1;

export class ClockTimers {
  private readonly timers = new Map<string, { deadline: number; timer: NodeJS.Timeout }>();
  private closed = false;

  constructor(
    private readonly fire: (gameId: string) => void,
    private readonly now: () => number,
  ) {}

  /** Games with a timer armed. */
  get size(): number {
    return this.timers.size;
  }

  /** The deadline a game's timer is armed for, if any. */
  deadlineOf(gameId: string): number | undefined {
    return this.timers.get(gameId)?.deadline;
  }

  /**
   * Sets the game's timer for `deadline` (null: no timer). `own`: this instance made the change that set it, and
   * fires at the deadline; otherwise GRACE_MS after it.
   */
  arm(gameId: string, deadline: number | null, own: boolean): void {
    const armed = this.timers.get(gameId);
    if (armed) {
      clearTimeout(armed.timer);
      this.timers.delete(gameId);
    }
    if (deadline === null || this.closed) return;
    const at = own ? deadline : deadline + GRACE_MS;
    this.schedule(gameId, deadline, at);
  }

  close(): void {
    this.closed = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private schedule(gameId: string, deadline: number, at: number): void {
    const delay = Math.max(0, at - this.now());
    const timer = setTimeout(
      () => {
        if (this.timers.get(gameId)?.timer !== timer) return;
        if (at > this.now()) return this.schedule(gameId, deadline, at); // a step of a long wait
        this.timers.delete(gameId);
        this.fire(gameId);
      },
      Math.min(delay, MAX_DELAY_MS),
    );
    // Timers do not keep the process alive: a server has its sockets for that, a test or a tool may end.
    timer.unref();
    this.timers.set(gameId, { deadline, timer });
  }
}
