/**
 * A stand-in for the engine pool in the HTTP tests of the computer opponent: it answers the first legal move of the
 * position (in chessops's order) after `delayMs`, counts its searches, and can be made unavailable or to fail. The
 * real engines are tested in test/engine and test/engine-system.
 *
 * ```ts
 * const engine = new FirstMoveEngine();
 * await makeTestApp({ engine });
 * ```
 */
import { Chess } from 'chessops/chess';
import { makeUci, parseUci } from 'chessops/util';
import { parseFen } from 'chessops/fen';
import { DomainError } from '../../src/domain/errors.ts';
import type { EnginePool, SearchRequest } from '../../src/engine/index.ts';

export class FirstMoveEngine implements EnginePool {
  searches: SearchRequest[] = [];
  aborted: SearchRequest[] = []; // searches stopped by their signal before their answer
  up = true;
  failing = false;

  constructor(private readonly delayMs = 0) {}

  available(): Promise<boolean> {
    return Promise.resolve(this.up);
  }

  async search(request: SearchRequest, signal?: AbortSignal): Promise<{ uci: string }> {
    this.searches.push(request);
    if (!this.up || this.failing) throw new DomainError('UNAVAILABLE', 'no engine');
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, this.delayMs);
      signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          this.aborted.push(request);
          reject(signal.reason as Error);
        },
        { once: true },
      );
    });
    signal?.throwIfAborted();
    const pos = Chess.fromSetup(parseFen(request.fen).unwrap()).unwrap();
    for (const uci of request.moves) pos.play(parseUci(uci)!);
    for (const [from, targets] of pos.allDests()) {
      for (const to of targets) {
        const promotes = pos.board.get(from)?.role === 'pawn' && (to >> 3 === 7 || to >> 3 === 0);
        return { uci: makeUci({ from, to, ...(promotes ? { promotion: 'queen' as const } : {}) }) };
      }
    }
    throw new DomainError('GAME_OVER', 'no legal move');
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
