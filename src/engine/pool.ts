/**
 * A bounded set of engine processes behind one queue: `workers` processes, each searching one position at a time,
 * searches taken in turn by player (fairQueue.ts: one player's many games cannot delay another's), each thinking
 * within its game's clock and leaving the searches waiting after it time to answer within theirs (`sharedBudgetMs`
 * in levels.ts). A process that exits or hangs mid-search is killed, replaced and the search tried again (up to
 * `attempts` times); an engine that cannot start makes the pool unavailable for a while (`available()` false,
 * searches rejected at once with UNAVAILABLE) and is tried again after `retryStartMs`. See `index.ts` for the
 * interface and an example.
 */
import { DomainError, err, ok, type Result } from '../domain/errors.ts';
import { checkMove } from '../domain/moves.ts';
import { parseStrictFen } from '../domain/notation.ts';
import type { Chess } from 'chessops/chess';
import { FairQueue } from './fairQueue.ts';
import {
  clockShareMs,
  isEngineLevel,
  moveBudgetMs,
  pickCandidate,
  planSearch,
  sharedBudgetMs,
  type EngineClock,
  type EngineLevel,
} from './levels.ts';
import { lastIteration } from './uci.ts';
import {
  defaultEnginePath,
  EngineFault,
  engineCommand,
  unrunnable,
  UciProcess,
  type EngineCommand,
} from './uciProcess.ts';

export interface SearchRequest {
  readonly fen: string; // the game's start position
  readonly moves: readonly string[]; // the game's moves since, in UCI (castling as e1g1)
  readonly level: EngineLevel;
  readonly clock?: EngineClock; // milliseconds left and gained per move, read when the search is asked for
  readonly player?: string; // whom the search is for: searches are taken in turn by player; none: one shared turn
}

export interface EnginePool {
  /** The engine's move in the position, at the request's level. Rejects with a DomainError: INVALID_FEN,
   * INVALID_MOVE or GAME_OVER for a position it cannot search, UNAVAILABLE when no engine can answer; with
   * `signal`'s reason when it is aborted. */
  search(request: SearchRequest, signal?: AbortSignal): Promise<{ uci: string }>;
  /** Whether an engine runs or can be started now (it starts one if none runs). */
  available(): Promise<boolean>;
  /** Stops every engine; searches waiting or running reject with UNAVAILABLE, and so do later ones. */
  close(): Promise<void>;
}

/** Hooks for the service's metrics (`http/metrics.ts`, `engineMetricsHooks`). */
export interface EngineMetrics {
  queued(count: number): void; // searches waiting for a process, now
  running(count: number): void; // searches on a process, now
  searched(level: EngineLevel, seconds: number): void; // a search answered, from its request to its move
  restarted(): void; // an engine process that crashed or hung was killed, to be replaced
}

export interface EnginePoolOptions {
  enginePath?: string; // a UCI engine binary, or a .js engine run on this Node.js; default: the npm `stockfish`
  workers?: number; // engine processes at most, each one search at a time; default 1
  metrics?: EngineMetrics;
  log?: { warn: (message: string) => void };
  startTimeoutMs?: number; // handshake (`uci` … `readyok`) of a new process; default 10000
  marginMs?: number; // beyond a search's move time before the engine counts as hung; default 2000
  attempts?: number; // tries of one search on fresh processes after crashes or hangs; default 3
  retryStartMs?: number; // how long an engine that could not start is not tried again; default 5000
  random?: () => number; // for the choice among candidate lines of the weakest levels; default Math.random
  now?: () => number; // ms of a monotonic clock, for the searches' budgets and waits; default performance.now
}

interface Job {
  readonly request: SearchRequest;
  readonly position: Chess; // after the request's moves
  readonly signal: AbortSignal | undefined;
  readonly askedAt: number;
  readonly player: string; // whose turn it waits for ('' for a request that names no player)
  readonly deadline: number; // when its clock's share runs out (in the pool's `now` time), Infinity without a clock
  settled(): boolean; // answered, failed or aborted
  resolve(uci: string): void;
  reject(error: Error): void;
}

interface Worker {
  engine: UciProcess | undefined;
  starting: Promise<UciProcess> | undefined;
  busy: boolean;
}

const unavailable = (message: string) => new DomainError('UNAVAILABLE', message);

/** What an aborted search rejects with: the signal's reason (an AbortError unless the caller gave one). */
const abortReason = (signal: AbortSignal): Error =>
  signal.reason instanceof Error ? signal.reason : new DOMException(String(signal.reason), 'AbortError');

/** The pool; its options are described with `EnginePoolOptions`. */
export function createEnginePool(options: EnginePoolOptions = {}): EnginePool {
  return new UciEnginePool(options);
}

class UciEnginePool implements EnginePool {
  private readonly queue = new FairQueue<Job>();
  private readonly workers: Worker[];
  private readonly path: string | undefined;
  private readonly command: EngineCommand | undefined;
  private readonly startTimeoutMs: number;
  private readonly marginMs: number;
  private readonly attempts: number;
  private readonly retryStartMs: number;
  private readonly random: () => number;
  private readonly now: () => number;
  private running = 0;
  private closed = false;
  private startFailure: { message: string; at: number } | undefined;

  constructor(private readonly options: EnginePoolOptions) {
    const workers = options.workers ?? 1;
    if (!Number.isInteger(workers) || workers < 1)
      throw new RangeError(`workers must be a positive integer: ${workers}`);
    this.workers = Array.from({ length: workers }, () => ({ engine: undefined, starting: undefined, busy: false }));
    this.now = options.now ?? (() => performance.now());
    try {
      this.path = options.enginePath ?? defaultEnginePath();
      this.command = engineCommand(this.path);
      // Said at once, as a failed start would say it: the service starts with a warning line, not silently.
      const problem = unrunnable(this.command);
      if (problem) {
        this.startFailure = { message: problem, at: this.now() };
        options.log?.warn(`the computer opponent is unavailable: ${problem}`);
      }
    } catch (error) {
      // No engine to run (the package is missing): the pool is unavailable, the service runs without it.
      this.startFailure = { message: error instanceof Error ? error.message : String(error), at: Infinity };
      options.log?.warn(`the computer opponent is unavailable: ${this.startFailure.message}`);
    }
    this.startTimeoutMs = options.startTimeoutMs ?? 10_000;
    this.marginMs = options.marginMs ?? 2_000;
    this.attempts = options.attempts ?? 3;
    this.retryStartMs = options.retryStartMs ?? 5_000;
    this.random = options.random ?? Math.random;
  }

  search(request: SearchRequest, signal?: AbortSignal): Promise<{ uci: string }> {
    if (!isEngineLevel(request.level)) {
      return Promise.reject(new RangeError(`level must be 1 to 8: ${String(request.level)}`));
    }
    const position = positionOf(request);
    if (!position.ok) return Promise.reject(position.error);
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const refusal = this.refusal();
    if (refusal) return Promise.reject(refusal);
    return new Promise<string>((resolve, reject) => {
      let settled = false;
      const askedAt = this.now();
      const job: Job = {
        request,
        position: position.value,
        signal,
        askedAt,
        player: request.player ?? '',
        deadline: askedAt + clockShareMs(request.clock, position.value.turn),
        settled: () => settled,
        resolve: uci => {
          if (settled) return;
          settled = true;
          signal?.removeEventListener('abort', abort);
          this.options.metrics?.searched(request.level, (this.now() - job.askedAt) / 1000);
          resolve(uci);
        },
        reject: error => {
          if (settled) return;
          settled = true;
          signal?.removeEventListener('abort', abort);
          reject(error);
        },
      };
      const abort = () => {
        if (this.queue.remove(job)) this.options.metrics?.queued(this.queue.length);
        job.reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', abort, { once: true });
      this.queue.push(job.player, job);
      this.options.metrics?.queued(this.queue.length);
      this.dispatch();
    }).then(uci => ({ uci }));
  }

  async available(): Promise<boolean> {
    if (this.refusal()) return false;
    const worker = this.workers.find(w => w.engine?.running) ?? this.workers[0]!;
    try {
      await this.engineOf(worker);
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.clear()) job.reject(unavailable('the engine is shut down'));
    this.options.metrics?.queued(0);
    await Promise.all(
      this.workers.map(async worker => {
        const engine = worker.engine ?? (await worker.starting?.catch(() => undefined));
        worker.engine = undefined;
        await engine?.quit();
      }),
    );
  }

  /** A method, not the field: the pool may close while a search awaits. */
  private isClosed(): boolean {
    return this.closed;
  }

  /** Why a search is refused before it is queued, if it is. */
  private refusal(): DomainError | undefined {
    if (this.closed) return unavailable('the engine is shut down');
    const failure = this.startFailure;
    if (failure && this.now() - failure.at < this.retryStartMs) {
      return unavailable(`the computer opponent is unavailable: ${failure.message}`);
    }
    return undefined;
  }

  private dispatch(): void {
    for (const worker of this.workers) {
      if (worker.busy) continue;
      const job = this.queue.shift();
      if (!job) return;
      this.options.metrics?.queued(this.queue.length);
      void this.run(worker, job);
    }
  }

  private async run(worker: Worker, job: Job): Promise<void> {
    worker.busy = true;
    this.options.metrics?.running(++this.running);
    try {
      job.resolve(await this.searchOn(worker, job));
    } catch (error) {
      job.reject(error instanceof Error ? error : new Error(String(error)));
    } finally {
      worker.busy = false;
      this.options.metrics?.running(--this.running);
      this.dispatch();
    }
  }

  /** One search on `worker`'s process, on a fresh one after each crash or hang, `attempts` times at most. */
  private async searchOn(worker: Worker, job: Job): Promise<string> {
    const { fen, moves, level, clock } = job.request;
    for (let attempt = 1; ; attempt++) {
      if (job.settled()) return '';
      if (this.closed) throw unavailable('the engine is shut down');
      let engine: UciProcess;
      try {
        engine = await this.engineOf(worker);
      } catch (error) {
        const refusal = this.refusal() ?? unavailable(error instanceof Error ? error.message : String(error));
        for (const waiting of this.queue.clear()) waiting.reject(refusal);
        this.options.metrics?.queued(0);
        throw refusal;
      }
      if (job.settled()) return ''; // aborted while its engine started
      // Its own budget, and no longer than lets the searches waiting after it answer within their clocks.
      const now = this.now();
      const own = moveBudgetMs(level, clock, job.position.turn, now - job.askedAt);
      const budget = sharedBudgetMs(own, job, this.queue.order(), now, this.workers.length);
      const plan = planSearch(level, engine.caps, budget);
      try {
        const { bestmove, lines } = await engine.search(fen, moves, plan, budget + this.marginMs, job.signal);
        const candidates = lastIteration(lines);
        const uci =
          plan.pickSkill !== undefined && candidates.length > 0
            ? pickCandidate(candidates, plan.pickSkill, this.random)
            : bestmove;
        if (job.settled()) return ''; // aborted: the engine was stopped, its answer goes nowhere
        if (uci === null || checkMove(job.position, uci).kind !== 'legal') {
          throw new EngineFault('answer', `answered ${uci ?? '(none)'}, not a legal move`);
        }
        return uci;
      } catch (error) {
        if (this.isClosed()) throw unavailable('the engine is shut down');
        const message = error instanceof Error ? error.message : String(error);
        engine.kill();
        worker.engine = undefined;
        this.options.metrics?.restarted();
        this.options.log?.warn(`engine search failed (attempt ${attempt} of ${this.attempts}): ${message}`);
        if (attempt >= this.attempts) {
          throw unavailable(`the engine failed ${attempt} times on this position: ${message}`);
        }
      }
    }
  }

  /** The worker's running process, started (once, whoever asks) if it has none. */
  private async engineOf(worker: Worker): Promise<UciProcess> {
    if (worker.engine?.running) return worker.engine;
    if (worker.engine) {
      // It ended while idle: replaced like one that crashed mid-search.
      worker.engine = undefined;
      this.options.metrics?.restarted();
    }
    if (!worker.starting) {
      if (!this.command) throw unavailable(this.startFailure?.message ?? 'no engine');
      worker.starting = UciProcess.start(this.command, this.startTimeoutMs).then(
        engine => {
          worker.starting = undefined;
          this.startFailure = undefined;
          if (this.closed) void engine.quit();
          else worker.engine = engine;
          return engine;
        },
        (error: unknown) => {
          worker.starting = undefined;
          const message = error instanceof Error ? error.message : String(error);
          this.startFailure = { message, at: this.now() };
          this.options.log?.warn(`the computer opponent is unavailable: ${message}`);
          throw error;
        },
      );
    }
    return worker.starting;
  }
}

/** The position after the request's moves, or why it cannot be searched. */
function positionOf(request: SearchRequest): Result<Chess> {
  const parsed = parseStrictFen(request.fen, { stored: true });
  if (!parsed.ok) return parsed;
  const pos = parsed.value;
  for (const uci of request.moves) {
    const check = checkMove(pos, uci);
    if (check.kind !== 'legal')
      return err(new DomainError('INVALID_MOVE', `${uci} is not legal in this game`, 'moves'));
    pos.play(check.move);
  }
  if (pos.isEnd()) return err(new DomainError('GAME_OVER', 'the game is over: there is no move to search'));
  return ok(pos);
}
