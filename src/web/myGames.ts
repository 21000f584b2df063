/**
 * The traffic of the "My games" panel: while the page has a player, their event stream (`GET /api/stream/event`)
 * adds and drops their ongoing games (myGamesState.ts, MyGames), and the list is asked for again
 * (`GET /api/board/game?status=ongoing`) shortly after the stream's first lines or any event, and every 15 s while
 * the page is visible: a move changes whose turn it is and sends no event. No DOM: `changed` redraws.
 *
 * That stream is the page's only event stream: the other panels that follow the player (challenges and seeks)
 * hear its connections and lines through `listen`.
 *
 * ```ts
 * const myGames = new MyGamesFeed(() => render());
 * myGames.listen({ opened: () => ..., line: line => ... }); // every line, challenges' too
 * myGames.follow(account.player); // null: stop, and the panel hides
 * myGameRowsOf(myGames.list.games, myGames.player, openGame);
 * ```
 */
import { api, type PlayerInfo } from './api.ts';
import { Feed } from './feed.ts';
import { applyGameList, applyPlayerLine, newMyGames, openMyGames, type MyGames } from './myGamesState.ts';
import { PlayerEventStream, type PlayerLine } from './stream.ts';

/** Hears the page's event stream (besides the "My games" list, which it keeps). */
export interface PlayerLineListener {
  /** A connection was answered: what it sends first is the player's games and challenges, from scratch. */
  opened(): void;
  line(line: PlayerLine): void;
}

export interface MyGamesOptions {
  refreshMs?: number; // 15000: how often the list is asked for while shown
  settleMs?: number; // 250: the wait after a line before asking, so that a burst of lines makes one request
}

export class MyGamesFeed extends Feed {
  /** The player followed; null: none (no player token), the panel is hidden. */
  player: PlayerInfo | null = null;
  list: MyGames = newMyGames();
  private stream: PlayerEventStream | undefined;
  private readonly listeners: PlayerLineListener[] = [];
  private ticker: number | undefined;
  private settleTimer: number | undefined;
  private readonly refreshMs: number;
  private readonly settleMs: number;

  constructor(changed: () => void, options: MyGamesOptions = {}) {
    super(changed);
    this.refreshMs = options.refreshMs ?? 15_000;
    this.settleMs = options.settleMs ?? 250;
  }

  /** Follows `player`'s games (the token's player), or none; the same player goes on as before. */
  follow(player: PlayerInfo | null): void {
    if (player?.id === this.player?.id) return;
    this.stop();
    this.player = player;
    if (player) this.start();
    this.changed();
  }

  /** Hears the connections and lines of the stream of every player followed from now on. */
  listen(listener: PlayerLineListener): void {
    this.listeners.push(listener);
  }

  /** Connects again at once (the network came back). */
  reconnectNow(): void {
    this.stream?.reconnectNow();
  }

  private start(): void {
    const list = (this.list = newMyGames());
    const stream: PlayerEventStream = (this.stream = new PlayerEventStream({
      onOpen: () => {
        openMyGames(list);
        this.problem = undefined;
        this.refreshSoon();
        for (const listener of this.listeners) listener.opened();
        this.changed();
      },
      onEvent: line => {
        if (line.type === 'gameStart' || line.type === 'gameFinish') {
          applyPlayerLine(list, line);
          this.refreshSoon();
        }
        for (const listener of this.listeners) listener.line(line);
        this.changed();
      },
      // stopped: the list alone still shows the games, without live updates
      ...this.connection(
        () => this.stream === stream,
        () => this.refreshSoon(),
      ),
    }));
    stream.start();
    this.ticker = window.setInterval(() => {
      if (!document.hidden) void this.refresh();
    }, this.refreshMs);
  }

  private stop(): void {
    const stream = this.stream;
    this.stream = undefined;
    stream?.stop();
    window.clearInterval(this.ticker);
    window.clearTimeout(this.settleTimer);
    this.ticker = this.settleTimer = undefined;
    this.reset();
    this.list = newMyGames();
  }

  private refreshSoon(): void {
    window.clearTimeout(this.settleTimer);
    this.settleTimer = window.setTimeout(() => void this.refresh(), this.settleMs);
  }

  private refresh(): Promise<void> {
    return this.reload(
      () => this.list,
      () => api.ongoingGames(),
      applyGameList,
    );
  }
}
