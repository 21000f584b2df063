/**
 * What the panels' feeds share (myGames.ts, challenges.ts, chat.ts: the traffic behind a panel, no DOM): `changed`
 * redraws the panel; the status and last problem of the stream a feed follows, for the panel's header; and lists
 * asked for again (`reload`), each answer applied only when no newer request was made meanwhile and the feed still
 * holds the list it was asked for. Reconnecting is the streams' own business (stream.ts).
 *
 * ```ts
 * class MyGamesFeed extends Feed {
 *   start() { this.stream = new PlayerEventStream({ ...this.connection(() => this.stream === stream, fatal), ... }); }
 *   refresh() { return this.reload(() => this.list, () => api.ongoingGames(), applyGameList); }
 * }
 * ```
 */
import type { ConnectionHandlers, ConnectionStatus } from './stream.ts';

export abstract class Feed {
  status: ConnectionStatus | 'idle' = 'idle';
  /** Why the stream stopped, or its last notice while it reconnects. */
  problem: string | undefined;
  /** The last request of `reload`: answers to earlier ones are dropped. */
  private request = 0;

  constructor(protected readonly changed: () => void) {}

  /** The feed follows nothing: no status, no problem, and answers on their way are for the list given up. */
  protected reset(): void {
    this.request += 1;
    this.status = 'idle';
    this.problem = undefined;
  }

  /**
   * The handlers of a stream's connection for this feed: its notices and its refusal (then `fatal` runs) become the
   * problem; its status is the feed's while `current()` says the stream is the one the feed follows.
   */
  protected connection(current: () => boolean, fatal: () => void): ConnectionHandlers {
    return {
      onNotice: error => {
        this.problem = error.message;
      },
      onFatal: error => {
        this.problem = error.message;
        fatal();
      },
      onConnection: status => {
        if (!current()) return;
        this.status = status;
        if (status === 'live') this.problem = undefined;
        this.changed();
      },
    };
  }

  /**
   * Asks for the list held now (`current()`) again (`load`) and applies the answer (`apply`, with the list's epoch
   * when asked), then redraws if it changed anything, unless a newer request was made or `current()` is another list
   * by then. A failure is
   * left alone: the next line or tick asks again, and the stream's status tells of a lost service.
   */
  protected async reload<List extends { epoch: number }, Answer>(
    current: () => List,
    load: () => Promise<Answer>,
    apply: (list: List, answer: Answer, epochAtSend: number) => boolean,
  ): Promise<void> {
    const list = current();
    const request = ++this.request;
    const epoch = list.epoch;
    try {
      const answer = await load();
      if (request === this.request && list === current() && apply(list, answer, epoch)) this.changed();
    } catch {
      // asked again later (see above)
    }
  }
}
