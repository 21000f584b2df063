/**
 * One UCI engine as a child process: the handshake (`uci`, `isready`), one search at a time, and its end. It
 * never restarts itself and never retries: a process that exits, or that does not answer in time, fails the
 * exchange in progress with an `EngineFault`, and its owner (`pool.ts`) replaces it.
 *
 * ```ts
 * const engine = await UciProcess.start(engineCommand('/usr/games/stockfish'), 10_000);
 * const { bestmove } = await engine.search(INITIAL_FEN, ['e2e4'], plan, 1_500);
 * await engine.quit();
 * ```
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { accessSync, constants, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { EngineCaps, SearchPlan } from './levels.ts';
import {
  capsOf,
  makeGo,
  makePosition,
  makeSetOption,
  parseBestMove,
  parseInfo,
  parseOption,
  type InfoLine,
  type UciOption,
} from './uci.ts';

/** Why an engine process failed an exchange: it could not start, it exited, it did not answer in time, or it
 * answered nonsense. */
export class EngineFault extends Error {
  readonly kind: 'start' | 'crash' | 'hang' | 'answer';
  readonly detail: string; // what happened, without the subject: 'exited with code 3'

  constructor(kind: EngineFault['kind'], detail: string) {
    super(`the engine ${detail}`);
    this.name = 'EngineFault';
    this.kind = kind;
    this.detail = detail;
  }
}

export interface EngineCommand {
  readonly file: string;
  readonly args: readonly string[];
}

/** A UCI binary runs as it is; a JavaScript engine (`.js`, `.mjs`, `.cjs`) runs on this process's own Node.js. */
export function engineCommand(path: string): EngineCommand {
  return /\.[cm]?js$/.test(path) ? { file: process.execPath, args: [path] } : { file: path, args: [] };
}

/**
 * Why `command` cannot run, found without running it (its file is missing, or not executable or readable), or
 * undefined. A bare name is looked up on PATH when the process starts, so it is not judged here.
 */
export function unrunnable(command: EngineCommand): string | undefined {
  const [file, mode] = command.args.length > 0 ? [command.args[0]!, constants.R_OK] : [command.file, constants.X_OK];
  if (!/[\\/]/.test(file)) return undefined;
  try {
    accessSync(file, mode);
    return undefined;
  } catch (error) {
    return `the engine ${file} cannot be run: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * The engine that needs no set-up: the npm package `stockfish`'s lite single-threaded WebAssembly build (about
 * 2 MB; its full builds are 100 MB and no stronger within a second), found by its file name whatever the version.
 */
export function defaultEnginePath(): string {
  const bin = join(dirname(createRequire(import.meta.url).resolve('stockfish/package.json')), 'bin');
  const file = readdirSync(bin).find(name => /^stockfish-\d+-lite-single\.js$/.test(name));
  if (!file) throw new Error(`the stockfish package has no lite single-threaded build in ${bin}`);
  return join(bin, file);
}

/** How much lower the engine processes' scheduling priority is than the service's (nice 10 under a nice-0 service). */
export const ENGINE_NICENESS = 10;

/** The last bytes an engine wrote to stderr, for the message of its failure. */
const STDERR_TAIL = 500;

export class UciProcess {
  private onLine: ((line: string) => void) | undefined;
  private onEnd: ((reason: string) => void) | undefined;
  private endReason: string | undefined;
  private stderr = '';
  private readonly ended: Promise<void>;
  caps: EngineCaps = {};
  name = 'engine';

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    let end!: () => void;
    this.ended = new Promise(resolve => (end = resolve));
    const finish = (reason: string) => {
      if (this.endReason !== undefined) return;
      const tail = this.stderr.trim().split('\n').pop();
      this.endReason = tail ? `${reason} (${tail})` : reason;
      this.onEnd?.(this.endReason);
      end();
    };
    child.on('error', error => finish(`could not run: ${error.message}`));
    child.on('exit', (code, signal) => finish(signal ? `was killed by ${signal}` : `exited with code ${code}`));
    child.stdin.on('error', () => {}); // EPIPE once it has exited: the exit says it better
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL)));
    createInterface({ input: child.stdout }).on('line', line => this.onLine?.(line));
  }

  /**
   * Starts an engine and completes its handshake within `timeoutMs`, or fails with an EngineFault of kind
   * `start` (the process is killed).
   */
  static async start(command: EngineCommand, timeoutMs: number): Promise<UciProcess> {
    const child = spawn(command.file, command.args, { stdio: ['pipe', 'pipe', 'pipe'] });
    // Below the service's own priority: the engine thinks for a fixed time, the API's requests come first.
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, ENGINE_NICENESS);
      } catch {
        // not allowed here: the engine runs at the service's priority
      }
    }
    const engine = new UciProcess(child);
    const budget = { started: performance.now(), ms: timeoutMs };
    try {
      const options: UciOption[] = [];
      engine.write(['uci']);
      await engine.exchange(budget, line => {
        const option = parseOption(line);
        if (option) options.push(option);
        const name = /^id\s+name\s+(.+)$/.exec(line.trim());
        if (name) engine.name = name[1]!;
        return line.trim() === 'uciok' || undefined;
      });
      engine.caps = capsOf(options);
      engine.write(['isready']);
      await engine.exchange(budget, line => line.trim() === 'readyok' || undefined);
      return engine;
    } catch (error) {
      engine.kill();
      const detail = error instanceof EngineFault ? error.detail : String(error);
      throw new EngineFault('start', `${command.file} did not start: it ${detail}`);
    }
  }

  /**
   * Searches the position after `moves` from `fen` with `plan`, answering within `timeoutMs` from now (else an
   * EngineFault `hang`; the caller kills the process). `signal` stops the search early: the engine then answers
   * at once with the best move it has. `lines` are its complete `info` lines (scores and first moves).
   */
  async search(
    fen: string,
    moves: readonly string[],
    plan: SearchPlan,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<{ bestmove: string | null; lines: InfoLine[] }> {
    const budget = { started: performance.now(), ms: timeoutMs };
    const setup = ['ucinewgame'];
    if (plan.skillOption !== undefined) setup.push(makeSetOption('Skill Level', plan.skillOption));
    if (this.caps.multiPv) setup.push(makeSetOption('MultiPV', plan.multiPv));
    this.write([...setup, makePosition(fen, moves), 'isready']);
    await this.exchange(budget, line => line.trim() === 'readyok' || undefined);
    const stop = () => this.write(['stop']);
    signal?.addEventListener('abort', stop, { once: true });
    try {
      this.write(signal?.aborted ? [makeGo(plan), 'stop'] : [makeGo(plan)]);
      const lines: InfoLine[] = [];
      const bestmove = await this.exchange(budget, line => {
        const info = parseInfo(line);
        if (info) lines.push(info);
        return parseBestMove(line);
      });
      return { bestmove, lines };
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  }

  /** Whether the process still runs. */
  get running(): boolean {
    return this.endReason === undefined;
  }

  kill(): void {
    if (this.running) this.child.kill('SIGKILL');
  }

  /** Asks the engine to quit, and kills it if it has not within `graceMs`. */
  async quit(graceMs = 1_000): Promise<void> {
    if (!this.running) return;
    this.write(['quit']);
    const timer = setTimeout(() => this.kill(), graceMs);
    await this.ended;
    clearTimeout(timer);
  }

  private write(lines: readonly string[]): void {
    if (this.running && this.child.stdin.writable) this.child.stdin.write(lines.join('\n') + '\n');
  }

  /**
   * Feeds the engine's lines to `read` until it gives a value (not undefined), within what is left of `budget` (`ms`
   * from `started`, shared by the exchanges of one handshake or search); fails if the process ends first or the time
   * runs out, naming the whole budget. One exchange at a time.
   */
  private exchange<T>(budget: { started: number; ms: number }, read: (line: string) => T | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const settle = (finish: () => void) => {
        clearTimeout(timer);
        this.onLine = undefined;
        this.onEnd = undefined;
        finish();
      };
      const timer = setTimeout(
        () => settle(() => reject(new EngineFault('hang', `did not answer within ${Math.round(budget.ms)} ms`))),
        Math.max(0, budget.ms - (performance.now() - budget.started)),
      );
      this.onLine = line => {
        const value = read(line);
        if (value !== undefined) settle(() => resolve(value));
      };
      this.onEnd = reason => settle(() => reject(new EngineFault('crash', reason)));
      if (this.endReason !== undefined) this.onEnd(this.endReason);
    });
  }
}
