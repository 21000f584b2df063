/**
 * The computer's eight levels and its clock, as pure functions: what one search asks of a UCI engine
 * (`planSearch`), how long it may think (`moveBudgetMs`), and which of several candidate lines a weakened level
 * plays (`pickCandidate`). No process, no timer, no randomness of its own.
 *
 * ```ts
 * const budget = moveBudgetMs(3, { wtime: 15_000, btime: 15_000, winc: 0, binc: 0 }, 'white'); // 150
 * planSearch(3, { skill: { min: 0, max: 20 }, multiPv: { max: 500 } }, budget);
 * // { skillOption: 20, multiPv: 4, pickSkill: -1, depth: 5, moveTimeMs: 150 }
 * pickCandidate([{ move: 'e2e4', score: 30 }, { move: 'd2d4', score: 20 }], -1, Math.random); // 'e2e4' or 'd2d4'
 * ```
 */
import { ENGINE_LEVELS, type EngineLevel } from '../contract/vocabulary.ts';

export { ENGINE_LEVELS, type EngineLevel };

export interface LevelSettings {
  readonly skill: number; // Stockfish's `Skill Level`, -20 to 20 (20: full strength)
  readonly depth: number; // deepest iteration searched, in plies
  readonly moveTimeMs: number; // longest search, before the clock's own limit
}

/**
 * lichess's AI levels, as lichess's lila has them played by its fishnet workers (fishnet's `SkillLevel`: skill
 * level, depth and move time per level; the search is `go movetime T depth D`). The negative skill levels are those
 * of Fairy-Stockfish, which plays lichess's AI moves; official Stockfish stops at 0 (see `planSearch`).
 */
export const LEVELS: Readonly<Record<EngineLevel, LevelSettings>> = {
  1: { skill: -9, depth: 5, moveTimeMs: 50 },
  2: { skill: -5, depth: 5, moveTimeMs: 100 },
  3: { skill: -1, depth: 5, moveTimeMs: 150 },
  4: { skill: 3, depth: 5, moveTimeMs: 200 },
  5: { skill: 7, depth: 5, moveTimeMs: 300 },
  6: { skill: 11, depth: 8, moveTimeMs: 400 },
  7: { skill: 16, depth: 13, moveTimeMs: 500 },
  8: { skill: 20, depth: 22, moveTimeMs: 1000 },
};

export const isEngineLevel = (value: unknown): value is EngineLevel =>
  (ENGINE_LEVELS as readonly unknown[]).includes(value);

/** What an engine said it accepts, from its `uci` option list. */
export interface EngineCaps {
  readonly skill?: { readonly min: number; readonly max: number }; // the `Skill Level` option
  readonly multiPv?: { readonly max: number }; // the `MultiPV` option
}

/** One search's settings. */
export interface SearchPlan {
  readonly skillOption: number | undefined; // `setoption name Skill Level value N`; undefined: the engine has none
  readonly multiPv: number; // lines searched (`setoption name MultiPV`)
  readonly pickSkill: number | undefined; // a skill level the engine cannot take, applied by `pickCandidate`
  readonly depth: number;
  readonly moveTimeMs: number;
}

/** Stockfish's weakened levels choose among at least this many lines (its `Skill`, `multiPV = max(multiPV, 4)`). */
export const CANDIDATE_LINES = 4;

/**
 * The settings of one search at `level` by an engine with `caps`, within `budgetMs` (`moveBudgetMs`). A skill level
 * the engine accepts is set on it; one it does not (a negative level on official Stockfish, whose minimum is 0) is
 * played the way Stockfish plays a weak level, by this module: the engine searches `CANDIDATE_LINES` lines at full
 * strength and `pickCandidate` chooses among them with the level's weakness. An engine without `MultiPV` gets its
 * lowest skill level instead.
 */
export function planSearch(level: EngineLevel, caps: EngineCaps, budgetMs: number): SearchPlan {
  const { skill, depth, moveTimeMs } = LEVELS[level];
  const common = { depth, moveTimeMs: Math.min(moveTimeMs, budgetMs) };
  const accepted = caps.skill && skill >= caps.skill.min && skill <= caps.skill.max;
  if (accepted || skill >= 20) return { ...common, skillOption: caps.skill && skill, multiPv: 1, pickSkill: undefined };
  if (caps.multiPv) {
    return {
      ...common,
      skillOption: caps.skill?.max,
      multiPv: Math.min(CANDIDATE_LINES, caps.multiPv.max),
      pickSkill: skill,
    };
  }
  return { ...common, skillOption: caps.skill?.min, multiPv: 1, pickSkill: undefined };
}

/** One line of a multi-line search: its first move and its score for the side to move, in centipawns. */
export interface CandidateLine {
  readonly move: string;
  readonly score: number;
}

/** A score gap larger than a pawn does not widen the random part of the choice (Stockfish caps it the same way). */
const PAWN_CP = 100;

/**
 * The move a weak level plays among `lines` (sorted best first), by Stockfish's own rule for its skill levels
 * (`Skill::pick_best`): each line's score gets a push that grows with the level's weakness (120 - 2 × skill) and
 * the line's loss against the best, plus a random part up to the gap between the best and last lines (at most a
 * pawn); the highest pushed score wins. From a weakness above 128 (skill below -4) the push more than makes up
 * a line's loss, so the weakest levels prefer worse lines, as lichess's do. `random` gives numbers in [0, 1).
 */
export function pickCandidate(lines: readonly CandidateLine[], skill: number, random: () => number): string {
  const first = lines[0];
  if (!first) throw new Error('pickCandidate needs at least one line');
  const top = first.score;
  const delta = Math.min(top - lines[lines.length - 1]!.score, PAWN_CP);
  const weakness = 120 - 2 * skill;
  let best = first.move;
  let bestScore = -Infinity;
  for (const line of lines) {
    const push = Math.trunc((weakness * (top - line.score) + delta * Math.floor(random() * weakness)) / 128);
    if (line.score + push >= bestScore) {
      bestScore = line.score + push;
      best = line.move;
    }
  }
  return best;
}

/** The time each side has left and gains per move, in milliseconds (UCI's `wtime`, `btime`, `winc`, `binc`). */
export interface EngineClock {
  readonly wtime: number;
  readonly btime: number;
  readonly winc: number;
  readonly binc: number;
}

/** Never ask for less: `go movetime 0` means no limit at all to some engines. */
export const MIN_MOVE_TIME_MS = 1;

/**
 * How long the engine may think on one move at `level`, as `turn`, `elapsedMs` after its clock was read (time
 * spent waiting for an engine counts against it): the level's move time, and never more than a thirtieth of
 * what is left plus half the increment, nor more than half of what is left. So a side with 15 s and no
 * increment spends at most 500 ms on its first move and less on each next one, and still has time left after
 * any number of moves, while a move fits in a millisecond.
 */
export function moveBudgetMs(
  level: EngineLevel,
  clock: EngineClock | undefined,
  turn: 'white' | 'black',
  elapsedMs = 0,
): number {
  const share = clockShareMs(clock, turn, elapsedMs);
  return Math.max(MIN_MOVE_TIME_MS, Math.floor(Math.min(LEVELS[level].moveTimeMs, share)));
}

/**
 * The share of `turn`'s clock one reply may take, `elapsedMs` after the clock was read: a thirtieth of what is left
 * plus half the increment, never more than half of what is left; Infinity without a clock.
 */
export function clockShareMs(clock: EngineClock | undefined, turn: 'white' | 'black', elapsedMs = 0): number {
  if (!clock) return Infinity;
  const left = Math.max(0, (turn === 'white' ? clock.wtime : clock.btime) - elapsedMs);
  const increment = turn === 'white' ? clock.winc : clock.binc;
  return Math.min(left / 30 + increment / 2, left / 2);
}

/** A search as `sharedBudgetMs` weighs it: whose it is, and when its clock's share runs out (Infinity: no clock). */
export interface QueuedSearch {
  readonly player: string;
  readonly deadline: number;
}

/**
 * How long a search may think at `now` while others wait (DECISIONS §16a: the clock budget holds for every game,
 * however many searches share the engine): `ownBudgetMs` (its `moveBudgetMs`) at most, and never so long that a
 * search answers after its deadline, when its clock's share (`clockShareMs`, from when it was asked for) runs out.
 *
 * For each waiting search with a deadline (`waiting` is in the order the queue will take them), the time left until
 * it is a window shared by the searches that run until it has answered: this one, those taken before it, and itself.
 * The window goes in equal parts to their players (over `workers` processes), and each player's part in equal parts
 * to that player's searches in it: so a player with many games waiting thins their own searches, not the others'.
 * Its own deadline bounds a search too (what it waited is spent). Each search thus takes less than the whole of any
 * window it comes before, and the last one the rest: every deadline holds, but for the engine's own overhead per
 * search. Searches without a clock have no deadline but think within the windows of the others. At least
 * MIN_MOVE_TIME_MS.
 *
 * ```ts
 * // Ann's 30 searches of 15 s games wait behind Bob's (level 8, 3 min), all asked for at 0:
 * sharedBudgetMs(1000, { player: 'bob', deadline: 6000 }, Array(30).fill({ player: 'ann', deadline: 500 }), 0, 1);
 * // 250: half the 500 ms window is Bob's; each of Ann's 30 searches gets a thirtieth of the other half
 * ```
 */
export function sharedBudgetMs(
  ownBudgetMs: number,
  own: QueuedSearch,
  waiting: readonly QueuedSearch[],
  now: number,
  workers: number,
): number {
  let budget = Math.min(ownBudgetMs, own.deadline - now);
  const searches = new Map([[own.player, 1]]); // of each player, among this one and those taken before the next
  for (const search of waiting) {
    searches.set(search.player, (searches.get(search.player) ?? 0) + 1);
    if (search.deadline === Infinity) continue;
    const parts = searches.get(own.player)! * Math.max(1, searches.size / workers);
    budget = Math.min(budget, (search.deadline - now) / parts);
  }
  return Math.max(MIN_MOVE_TIME_MS, Math.floor(budget));
}
