/**
 * The changes the service makes by itself, with no request (DECISIONS §13a): a flag, the abort of a game whose first
 * move does not come, and what comes later the same way (a challenge's expiry, the engine's move). Each is due at a
 * time; it runs then, and while it fails (the store unavailable: a PostgreSQL outage, a full disk) it runs again
 * with backoff, until it resolves: the change is recorded, or it is found no longer due. A store outage delays such
 * a change, never drops it.
 *
 * One task per key: scheduling a key again replaces its task, its time and any retry it waits for (a change of the
 * game moved its deadline, or ended it). Whether a change is made once, across instances too, is the task's own
 * business (the store's version check); this only sees that it is tried until it is done. Time is injected (`now`)
 * and timers do not keep the process alive.
 *
 * ```ts
 * const due = new SelfChanges({ now: Date.now, onFailure: ({ key, error, retryInMs }) => log.warn(...) });
 * due.schedule('AbCd1234', deadline, () => games.expireDue('AbCd1234'), undefined);
 * due.cancel('AbCd1234'); // no longer due
 * due.close(); // at shutdown: nothing runs or is retried any more
 * ```
 */

/** The waits between the tries of a failing change. */
export interface Backoff {
  /** The wait after the first failure, doubling after each further one, e.g. 100. */
  firstMs: number;
  /** The longest wait, e.g. 5000. */
  maxMs: number;
  /** 0-1: each wait is its step less up to this fraction of it, at random, so that many retries spread out. */
  jitter: number;
}

/** 100 ms doubling to 5 s, each wait between half its step and the whole of it. */
export const BACKOFF: Backoff = { firstMs: 100, maxMs: 5_000, jitter: 0.5 };

/** The wait after `failures` failures in a row (1 or more), for a `random` draw in [0, 1). */
export function retryDelay(failures: number, backoff: Backoff, random: number): number {
  const step = Math.min(backoff.maxMs, backoff.firstMs * 2 ** Math.min(Math.max(failures - 1, 0), 30));
  return Math.round(step * (1 - backoff.jitter * random));
}

/** A failed try of a change: what failed, how many times in a row, and when it is tried again (undefined: never). */
export interface Failure {
  key: string;
  error: unknown;
  failures: number;
  retryInMs: number | undefined;
}

export interface SelfChangesOptions {
  now: () => number;
  /** Each failed try, e.g. for the log. */
  onFailure?: ((failure: Failure) => void) | undefined;
  backoff?: Backoff | undefined;
  /** A draw in [0, 1) for the jitter; Math.random by default. */
  random?: (() => number) | undefined;
}

interface Task<T> {
  data: T;
  run: () => Promise<unknown>;
  timer: NodeJS.Timeout | undefined;
  failures: number;
}

/** setTimeout's longest delay (about 24.8 days); a later time is waited for in steps. */
const MAX_DELAY_MS = 2 ** 31 - 1;

export class SelfChanges<T = undefined> {
  private readonly tasks = new Map<string, Task<T>>();
  private readonly now: () => number;
  private readonly onFailure: (failure: Failure) => void;
  private readonly backoff: Backoff;
  private readonly random: () => number;
  private closed = false;

  constructor(options: SelfChangesOptions) {
    this.now = options.now;
    this.onFailure = options.onFailure ?? (() => undefined);
    this.backoff = options.backoff ?? BACKOFF;
    this.random = options.random ?? Math.random;
  }

  /** Keys with a change due, waiting for its time or a retry, or being tried. */
  get size(): number {
    return this.tasks.size;
  }

  /** Whether a change is due under `key`. */
  has(key: string): boolean {
    return this.tasks.has(key);
  }

  /** What the key's change was scheduled with (`data`), while it is due. */
  dataOf(key: string): T | undefined {
    return this.tasks.get(key)?.data;
  }

  /**
   * Runs `run` at `at` (at once if that has passed), and again with backoff while it rejects, until it resolves.
   * Replaces the key's task, if any: a try of it under way finishes, but is not retried. `data`: what the caller
   * wants to know of it later (`dataOf`).
   */
  schedule(key: string, at: number, run: () => Promise<unknown>, data: T): void {
    this.cancel(key);
    if (this.closed) return;
    const task: Task<T> = { data, run, timer: undefined, failures: 0 };
    this.tasks.set(key, task);
    this.wait(key, task, at);
  }

  /** The key's change is no longer due: it is not run or retried. */
  cancel(key: string): void {
    const task = this.tasks.get(key);
    if (!task) return;
    clearTimeout(task.timer);
    this.tasks.delete(key);
  }

  /** At shutdown: no change runs or is retried any more. */
  close(): void {
    this.closed = true;
    for (const task of this.tasks.values()) clearTimeout(task.timer);
    this.tasks.clear();
  }

  private wait(key: string, task: Task<T>, at: number): void {
    const timer = setTimeout(
      () => {
        if (this.tasks.get(key) !== task) return;
        task.timer = undefined;
        if (at > this.now()) return this.wait(key, task, at); // a step of a long wait
        this.attempt(key, task);
      },
      Math.min(Math.max(0, at - this.now()), MAX_DELAY_MS),
    );
    // Timers do not keep the process alive: a server has its sockets for that, a test or a tool may end.
    timer.unref();
    task.timer = timer;
  }

  private attempt(key: string, task: Task<T>): void {
    // A task that throws instead of rejecting is retried the same way.
    new Promise(resolve => {
      resolve(task.run());
    }).then(
      () => {
        if (this.tasks.get(key) === task) this.tasks.delete(key);
      },
      (error: unknown) => {
        task.failures++;
        const current = this.tasks.get(key) === task;
        const retryInMs = current ? retryDelay(task.failures, this.backoff, this.random()) : undefined;
        if (retryInMs !== undefined) this.retry(key, task, retryInMs);
        this.onFailure({ key, error, failures: task.failures, retryInMs });
      },
    );
  }

  /** Tries the task again after `ms` (a wait of real time, whatever the injected clock says). */
  private retry(key: string, task: Task<T>, ms: number): void {
    const timer = setTimeout(() => {
      if (this.tasks.get(key) !== task) return;
      task.timer = undefined;
      this.attempt(key, task);
    }, ms);
    timer.unref();
    task.timer = timer;
  }
}
