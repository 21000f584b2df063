/**
 * Serializability checks for concurrent requests on one game: the requests, the domain transition each one
 * runs, and a search for a serial order of the acknowledged requests that leads from the start to the state
 * found afterwards. Used by the concurrency tests of test/http and test/guard.
 *
 * ```ts
 * const order = findSerialOrder(restoreGame(start), acknowledged, (await store.get(id))!);
 * assert.ok(order, 'no serial order reaches the stored state');
 * ```
 */
import type { Result } from '../../src/domain/errors.ts';
import { type Change, type Game, type GameRecord } from '../../src/domain/game.ts';
import { drawAction, makeMove, redo, resign, takebackAction, undo } from '../../src/domain/transitions.ts';
import { SERVICE, type Actor } from '../../src/domain/seats.ts';
import { gameStateOf } from '../../src/domain/views.ts';
import type { DrawAction, TakebackAction } from '../../src/contract/vocabulary.ts';
import type { GameState } from '../../src/contract/shapes.ts';

/** A request on one game; `by` is who sends it (the service when absent), `token` the bearer it sends. */
export type Op = (
  | { kind: 'move'; uci: string }
  | { kind: 'undo' }
  | { kind: 'redo' }
  | { kind: 'offer' }
  | { kind: 'draw'; action: Exclude<DrawAction, 'offer'> }
  | { kind: 'takeback'; action: TakebackAction }
  | { kind: 'resign' }
) & { by?: Actor; token?: string };

const path = (id: string) => `/api/board/game/${id}`;

/** The request path of an operation on game `id`. */
export function urlOf(id: string, op: Op): string {
  switch (op.kind) {
    case 'move':
      return `${path(id)}/move/${op.uci}`;
    case 'offer':
      return `${path(id)}/draw/offer`;
    case 'draw':
      return `${path(id)}/draw/${op.action}`;
    case 'takeback':
      return `${path(id)}/takeback/${op.action}`;
    default:
      return `${path(id)}/${op.kind}`;
  }
}

/** A short name; operations with the same label are interchangeable. */
export const labelOf = (op: Op): string => {
  const what =
    op.kind === 'move'
      ? op.uci
      : op.kind === 'draw'
        ? op.action
        : op.kind === 'takeback'
          ? `takeback-${op.action}`
          : op.kind;
  return op.by?.kind === 'player' ? `${op.by.player.id}:${what}` : what;
};

/** The domain transition the service runs for the operation. */
export function apply(game: Game, op: Op): Result<Change> {
  const by = op.by ?? SERVICE;
  switch (op.kind) {
    case 'move':
      return makeMove(game, op.uci, by);
    case 'undo':
      return undo(game, by);
    case 'redo':
      return redo(game, by);
    case 'offer':
      return drawAction(game, 'offer', by);
    case 'draw':
      return drawAction(game, op.action, by);
    case 'takeback':
      return takebackAction(game, op.action, by);
    case 'resign':
      return resign(game, by);
  }
}

/** Everything a change can touch, in a comparable form. */
const stateKey = (record: GameRecord): string =>
  JSON.stringify([
    record.moves,
    record.redo,
    record.drawOffer,
    record.takebackOffer,
    record.pendingPromotion,
    record.result,
  ]);

export const sameState = (a: GameRecord, b: GameRecord): boolean => stateKey(a) === stateKey(b);

/**
 * A serial order of `ops`, each accepted in turn, that leads from `start` to `target`; undefined if none.
 * `observed[i]`, when given, is the GameState the answer to `ops[i]` showed: then the order must also give
 * each such request exactly that state (a check of the answers as well as the end, and a much smaller search).
 */
export function findSerialOrder(
  start: Game,
  ops: readonly Op[],
  target: GameRecord,
  observed: ReadonlyArray<GameState | undefined> = [],
): Op[] | undefined {
  // Requests with the same label and the same observed answer are interchangeable: search over their counts.
  const keyOf = (i: number) => `${labelOf(ops[i]!)} ${JSON.stringify(observed[i] ?? null)}`;
  const keys = [...new Set(ops.map((_, i) => keyOf(i)))];
  const first = new Map<string, number>();
  ops.forEach((_, i) => {
    if (!first.has(keyOf(i))) first.set(keyOf(i), i);
  });
  const remaining = keys.map(key => ops.filter((_, i) => keyOf(i) === key).length);
  const seen = new Set<string>();
  const search = (g: Game, order: Op[]): Op[] | undefined => {
    if (order.length === ops.length) return sameState(g.record, target) ? order : undefined;
    const key = `${remaining.join(',')}|${stateKey(g.record)}`;
    if (seen.has(key)) return undefined;
    seen.add(key);
    for (let k = 0; k < keys.length; k++) {
      if (remaining[k] === 0) continue;
      const index = first.get(keys[k]!)!;
      const op = ops[index]!;
      const next = apply(g, op);
      if (!next.ok) continue;
      const shown = observed[index];
      if (shown && JSON.stringify(gameStateOf(next.value.game)) !== JSON.stringify(shown)) continue;
      remaining[k]!--;
      const found = search(next.value.game, [...order, op]);
      remaining[k]!++;
      if (found) return found;
    }
    return undefined;
  };
  return search(start, []);
}

/** A small deterministic generator (mulberry32), so that every run sends the same bursts. */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffled<T>(items: readonly T[], next: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
