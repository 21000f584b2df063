/**
 * The traffic of the page's seek ("Find an opponent", DECISIONS §16; seekState.ts holds what it means). A
 * real-time seek is a request that stays open while the service searches (api.seekRealTime) and is withdrawn by
 * aborting it; a correspondence seek is answered with its id and withdrawn with `DELETE /api/board/seek/{id}`. The
 * game comes as a gameStart on the player's event stream, heard through the "My games" feed; `open` shows it. No
 * DOM: `changed` redraws, `failed` shows a refusal (undefined clears it).
 *
 * ```ts
 * const seeker = new Seeker(() => render(), id => openGame(id, 'push'), () => ongoingIds, showSeekError);
 * myGames.listen(seeker);
 * seeker.follow(account.player);
 * void seeker.start({ time: 5, increment: 0, color: 'random' }); // ... seeker.cancel();
 * ```
 */
import { api, asApiError, ApiError, type PlayerInfo } from './api.ts';
import type { SeekBody } from './challengesState.ts';
import type { PlayerLineListener } from './myGames.ts';
import { newSeek, seekAnswered, seekGameOf, seekPaired, startSeek, stopSeek, type Seek } from './seekState.ts';
import type { PlayerLine } from './stream.ts';

export interface SeekerOptions {
  lookAfterMs?: number; // 3000: paired with no gameStart heard by then, the player's games are looked at
}

export class Seeker implements PlayerLineListener {
  /** The player seeking; null: none (no player token). */
  player: PlayerInfo | null = null;
  readonly seek: Seek = newSeek();
  private controller: AbortController | undefined;
  private readonly lookAfterMs: number;

  constructor(
    private readonly changed: () => void,
    private readonly open: (gameId: string) => void,
    private readonly ongoing: () => Iterable<string>,
    private readonly failed: (error: ApiError | undefined) => void,
    options: SeekerOptions = {},
  ) {
    this.lookAfterMs = options.lookAfterMs ?? 3000;
  }

  /**
   * Seeks for `player` from now on. Another player (the token changed) ends a real-time search; a correspondence
   * seek stays with the service, for its player.
   */
  follow(player: PlayerInfo | null): void {
    if (player?.id === this.player?.id) return;
    this.abort();
    stopSeek(this.seek);
    this.player = player;
    this.changed();
  }

  opened(): void {
    // a connection sends the ongoing games first: none is the seek's unless it started since the search began
  }

  line(line: PlayerLine): void {
    if (line.type === 'gameStart' && this.player && seekGameOf(this.seek, line.game, this.player.id)) {
      this.abort();
      this.open(line.game.gameId);
    }
  }

  /** Starts a search (one at a time); resolves when it has ended or is open with the service. */
  async start(body: SeekBody): Promise<void> {
    if (!this.player || this.seek.phase !== 'idle') return;
    this.failed(undefined);
    const serial = startSeek(this.seek, body, this.ongoing());
    this.changed();
    try {
      if ('days' in body) {
        const { id } = await api.seekCorrespondence(body);
        if (!seekAnswered(this.seek, serial, id)) void api.cancelSeek(id).catch(() => undefined); // canceled meanwhile
      } else {
        const controller = (this.controller = new AbortController());
        try {
          await api.seekRealTime(body, controller.signal);
        } finally {
          if (this.controller === controller) this.controller = undefined;
        }
        if (seekPaired(this.seek, serial)) setTimeout(() => void this.look(serial), this.lookAfterMs);
      }
    } catch (error) {
      if (serial !== this.seek.serial) return; // canceled, or another search
      stopSeek(this.seek);
      const apiError = asApiError(error);
      if (apiError.code !== 'ABORTED') this.failed(apiError);
    } finally {
      this.changed();
    }
  }

  /** Withdraws the seek: ends a real-time one's request, deletes a correspondence one. */
  async cancel(): Promise<void> {
    const id = this.seek.id;
    this.abort();
    stopSeek(this.seek); // a correspondence seek still unanswered is withdrawn when its answer comes
    this.failed(undefined);
    this.changed();
    if (id === undefined) return;
    try {
      await api.cancelSeek(id);
    } catch (error) {
      this.failed(asApiError(error));
    }
  }

  private abort(): void {
    this.controller?.abort();
    this.controller = undefined;
  }

  /**
   * Paired, and no gameStart heard since (the event stream was down): the seek's game is among the player's ongoing
   * games. None there either: the search ends, saying so.
   */
  private async look(serial: number): Promise<void> {
    if (serial !== this.seek.serial || this.seek.phase !== 'paired' || !this.player) return;
    const player = this.player;
    try {
      const page = await api.ongoingGames();
      if (serial !== this.seek.serial) return;
      const game = page.games.find(candidate => seekGameOf(this.seek, candidate, player.id));
      if (game) {
        this.open(game.gameId);
        this.changed();
        return;
      }
    } catch {
      if (serial !== this.seek.serial) return;
    }
    stopSeek(this.seek);
    this.failed(new ApiError(0, 'SEEK_NO_GAME', 'An opponent was found, but the game did not come: see "My games".'));
    this.changed();
  }
}
