/**
 * The clocks' timer (DECISIONS §14): the page's estimate of the service's time, from the `serverTime` of the
 * states that arrive (clocks.ts, serviceOffsetAfter), and the redrawing of a clocked game's clocks (gamePanel.ts,
 * renderClocks) at that time: ten times a second while one runs, and never otherwise. The service ends a game whose
 * flag falls, and the stream brings that end.
 *
 * ```ts
 * const clocks = new ClockTicker(() => session?.game);
 * clocks.note(state); // each state that arrives, before it is shown
 * clocks.tick();      // after each redraw of the page: draws the clocks, starts or stops the timer
 * ```
 */
import type { GameFull, GameState } from './api.ts';
import { serviceOffsetAfter } from './clocks.ts';
import { renderClocks } from './gamePanel.ts';

export class ClockTicker {
  /** The service's clock minus performance.now(): undefined until a state with a serverTime has arrived. */
  private serviceOffset: number | undefined;
  private timer: number | undefined;

  /** `game`: the game whose clocks are drawn, the one on the page (none: no clocks). */
  constructor(private readonly game: () => GameFull | undefined) {}

  /** The service's time now, as estimated; the computer's clock until a real-time state has said. */
  serviceNow(): number {
    return this.serviceOffset === undefined ? Date.now() : performance.now() + this.serviceOffset;
  }

  /** Takes a state's `serverTime` into the estimate of the service's time. */
  note(state: GameState): void {
    if (state.serverTime !== undefined) {
      this.serviceOffset = serviceOffsetAfter(this.serviceOffset, state.serverTime, performance.now());
    }
  }

  /** Draws the clocks; keeps a timer while a clock runs (a correspondence one, too: its minutes), none otherwise. */
  tick(): void {
    const runs = renderClocks(this.game(), this.serviceNow())?.running !== undefined;
    if (runs && this.timer === undefined) this.timer = window.setInterval(() => this.tick(), 100);
    if (!runs && this.timer !== undefined) {
      window.clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
