/**
 * The computer's turns (DECISIONS §18): in every game with the engine in a seat (`stockfish`), when it is the
 * engine's turn, one instance searches the engine's move and records it. A change the service makes by itself, so:
 *
 * - Exactly once: an instance takes the turn with a lease in the store (engineTurns.ts) before it searches, renews it
 *   while the search waits or runs, and records the move with the game's version check, judged on the version it
 *   searched: another move meanwhile (an undo, a takeback, a resignation) makes the search moot, never a second move.
 * - Never lost: a turn is found by a change committed here (`committed`, at once), and by a look at every ongoing
 *   engine game every POLL_MS (after a restart, after another instance's change, after the instance searching died:
 *   its lease lapses within LEASE_MS and another takes the turn). A failed search or record is tried again at the
 *   next look.
 * - Bounded: the searches run in the engine pool (its workers and its queue), never on the event loop; each is the
 *   person's, so that the queue takes them in turn by player (one player's many games cannot delay another's).
 *
 * The engine's level is in its seat's name, `Stockfish level N`, which the service gives it when the game is made.
 *
 * ```ts
 * const engineMoves = new EngineMoves({ games, store, engine, now: () => games.now() });
 * games.onCommitted = game => engineMoves.committed(game);
 * engineMoves.start(); // looks at every ongoing engine game now and every POLL_MS
 * ```
 */
import { randomBytes } from 'node:crypto';
import { ENGINE_ID, engineLevelOf } from '../domain/engineSeat.ts';
import { DomainError, err } from '../domain/errors.ts';
import type { Game } from '../domain/game.ts';
import { SERVICE } from '../domain/seats.ts';
import { isOver } from '../domain/status.ts';
import { makeMove } from '../domain/transitions.ts';
import { gameStateOf } from '../domain/views.ts';
import type { EngineClock, EnginePool } from '../engine/index.ts';
import type { EngineTurnStore } from '../store/engineTurns.ts';
import type { GameService } from './games.ts';

/**
 * How long a turn's lease lasts without renewal: another instance takes the turn of one that died after it. The
 * lapse and the next look (POLL_MS) come within 4.5 s of the death, so that the move, with the engine's start and
 * the level's move time, is recorded within 5 s plus that move time (DECISIONS §18); a lease of 5 s took 5 to 6 s
 * to be taken over.
 */
export const LEASE_MS = 3_500;
/** How often every ongoing engine game is looked at. */
export const POLL_MS = 1_000;
const PAGE = 200;

export interface EngineMovesDeps {
  games: GameService;
  store: EngineTurnStore;
  engine: EnginePool;
  instanceId?: string;
  leaseMs?: number;
  pollMs?: number;
  onError?: (gameId: string, error: unknown) => void;
}

/** The seat whose turn it is in a game, if it is the engine's and the game goes on; else undefined. */
export function engineToMove(game: Game): 'white' | 'black' | undefined {
  if (isOver(game) || game.record.pendingPromotion) return undefined;
  const turn = game.pos.turn;
  return game.record[turn].id === ENGINE_ID ? turn : undefined;
}

export class EngineMoves {
  private readonly instanceId: string;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  /** The games whose turn this instance works on now (searching or recording), with the version searched. */
  private readonly working = new Map<string, { search: AbortController; version: number }>();
  private poller: NodeJS.Timeout | undefined;
  private looking = false;
  private closed = false;

  constructor(private readonly deps: EngineMovesDeps) {
    this.instanceId = deps.instanceId ?? randomBytes(8).toString('hex');
    this.leaseMs = deps.leaseMs ?? LEASE_MS;
    this.pollMs = deps.pollMs ?? POLL_MS;
  }

  /** Looks at every ongoing engine game now and every POLL_MS from now on. */
  start(): void {
    this.poller ??= setInterval(() => void this.look(), this.pollMs).unref();
    void this.look();
  }

  /**
   * A game as a change made here left it: the engine's turn is taken at once, and a search for an earlier version
   * (the person resigned, took back, or the game ended) stops, so that it does not hold an engine for nothing.
   */
  committed(game: Game): void {
    const { white, black } = game.record;
    if (white.id !== ENGINE_ID && black.id !== ENGINE_ID) return;
    const working = this.working.get(game.record.id);
    if (working && working.version < game.record.version) working.search.abort();
    if (engineToMove(game)) void this.play(game);
  }

  /** How many engine turns this instance works on now. */
  busy(): number {
    return this.working.size;
  }

  /** At shutdown: no look, no search, no move any more (the leases lapse and another instance goes on). */
  close(): void {
    this.closed = true;
    clearInterval(this.poller);
    for (const { search } of this.working.values()) search.abort();
    this.working.clear();
  }

  /** Every ongoing game with the engine in a seat, a page at a time: each turn of the engine's is played. */
  private async look(): Promise<void> {
    if (this.looking || this.closed) return;
    this.looking = true;
    try {
      let after: string | undefined;
      for (;;) {
        const page = await this.deps.games.ongoing(ENGINE_ID, after, PAGE);
        for (const game of page) if (engineToMove(game)) void this.play(game);
        if (page.length < PAGE) break;
        after = page.at(-1)!.record.id;
      }
    } catch (error) {
      this.deps.onError?.('*', error); // looked at again at the next tick
    } finally {
      this.looking = false;
    }
  }

  /** Takes the engine's turn in `game` (at its version), searches, and records the move. */
  private async play(game: Game): Promise<void> {
    const gameId = game.record.id;
    const { version } = game.record;
    const turn = engineToMove(game);
    const level = engineLevelOf(game.record[turn ?? 'white']);
    if (!turn || level === undefined || this.closed) return;
    const working = this.working.get(gameId);
    if (working && working.version >= version) return;
    working?.search.abort(); // a search for an earlier version is moot
    const search = new AbortController();
    this.working.set(gameId, { search, version });
    let renewal: NodeJS.Timeout | undefined;
    try {
      const lease = () =>
        this.deps.store.claimEngineTurn(
          { gameId, version, instanceId: this.instanceId, until: this.deps.games.now() + this.leaseMs },
          this.deps.games.now(),
        );
      if (!(await lease())) return; // another instance has it
      // Renewed while the search waits in the queue or runs: a live instance keeps its turn.
      renewal = setInterval(() => void lease().catch(() => undefined), Math.max(1, Math.floor(this.leaseMs / 3)));
      renewal.unref();
      const state = gameStateOf(game, this.deps.games.now());
      const clock: EngineClock | undefined =
        state.wtime === undefined
          ? undefined
          : { wtime: state.wtime, btime: state.btime!, winc: state.winc!, binc: state.binc! };
      // Taken in turn with the other players' searches: the person's many games wait behind one another.
      const player = game.record[turn === 'white' ? 'black' : 'white'].id;
      const { uci } = await this.deps.engine.search(
        { fen: game.record.startFen, moves: [...game.record.moves], level, player, ...(clock ? { clock } : {}) },
        search.signal,
      );
      if (search.signal.aborted) return;
      await this.deps.games.change(gameId, (current, now) =>
        current.record.version === version
          ? makeMove(current, uci, SERVICE, now)
          : err(new DomainError('NOT_YOUR_TURN', 'the game moved on while the engine searched')),
      );
    } catch (error) {
      // A turn that moved on is nobody's fault (nor a search stopped for it); anything else is tried again at the
      // next look.
      if (search.signal.aborted || (error instanceof DomainError && error.code === 'NOT_YOUR_TURN')) return;
      this.deps.onError?.(gameId, error);
    } finally {
      clearInterval(renewal);
      if (this.working.get(gameId)?.search === search) this.working.delete(gameId);
    }
  }
}
