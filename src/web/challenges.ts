/**
 * The traffic of the "Play someone" panel's challenges (DECISIONS §16): while the page has a player, the lines of
 * their event stream (heard through the "My games" feed, the page's one event stream) keep their pending challenges
 * (challengesState.ts), with the list (`GET /api/challenge`) asked for when the stream connects; the panel's
 * buttons make, accept, decline and cancel challenges. When a challenge's game starts (a gameStart of the
 * challenge's id, or the answer to this page's accept), `open` shows it. No DOM: `changed` redraws, and a refused
 * request rejects with its ApiError for the caller to show.
 *
 * ```ts
 * const challenges = new ChallengesFeed(() => render(), id => openGame(id, 'push'));
 * myGames.listen(challenges);
 * challenges.follow(account.player);
 * await challenges.accept(id); // the game opens
 * ```
 */
import { api, asApiError, type PlayerInfo } from './api.ts';
import {
  applyChallengeLine,
  applyChallengeList,
  challengeAnswered,
  claimChallengeGame,
  newChallenges,
  openChallenges,
  type ChallengeBody,
  type Challenges,
} from './challengesState.ts';
import type { DeclineReason } from '../contract/vocabulary.ts';
import { Feed } from './feed.ts';
import type { PlayerLineListener } from './myGames.ts';
import type { PlayerLine } from './stream.ts';

/** The challenges' feed hears the "My games" feed's stream: its own status stays idle. */
export class ChallengesFeed extends Feed implements PlayerLineListener {
  /** The player followed; null: none (no player token). */
  player: PlayerInfo | null = null;
  state: Challenges = newChallenges();

  constructor(
    changed: () => void,
    private readonly open: (gameId: string) => void,
  ) {
    super(changed);
  }

  /** Follows `player`'s challenges (the token's player), or none; the same player goes on as before. */
  follow(player: PlayerInfo | null): void {
    if (player?.id === this.player?.id) return;
    this.player = player;
    this.state = newChallenges();
    this.reset(); // answers on their way are for the lists given up
    this.changed();
  }

  opened(): void {
    if (!this.player) return;
    openChallenges(this.state);
    void this.refresh();
  }

  line(line: PlayerLine): void {
    if (!this.player) return;
    if ('challenge' in line) applyChallengeLine(this.state, line);
    else if (line.type === 'gameStart' && claimChallengeGame(this.state, line.game.gameId)) this.open(line.game.gameId);
  }

  /** Challenges `playerId`; the challenge is listed at once (its line on the stream comes too). */
  async create(playerId: string, body: ChallengeBody): Promise<void> {
    const state = this.state;
    const made = await api.challenge(playerId, body);
    if (state !== this.state) return;
    applyChallengeLine(state, { type: 'challenge', challenge: { ...made, direction: 'out' } });
    this.changed();
  }

  /** Accepts a received challenge; its game, which has the challenge's id, opens (unless its gameStart opened it). */
  accept(id: string): Promise<void> {
    return this.answer(id, async () => {
      await api.acceptChallenge(id);
      if (claimChallengeGame(this.state, id)) this.open(id);
    });
  }

  decline(id: string, reason: DeclineReason): Promise<void> {
    return this.answer(id, async () => {
      await api.declineChallenge(id, reason);
      challengeAnswered(this.state, id);
    });
  }

  cancel(id: string): Promise<void> {
    return this.answer(id, async () => {
      await api.cancelChallenge(id);
      challengeAnswered(this.state, id);
    });
  }

  /** Runs an answer to a challenge; one no longer pending (404) leaves the lists, and the error goes on. */
  private async answer(id: string, run: () => Promise<void>): Promise<void> {
    const state = this.state;
    try {
      await run();
    } catch (error) {
      const apiError = asApiError(error);
      if (apiError.code === 'CHALLENGE_NOT_FOUND' && state === this.state) challengeAnswered(state, id);
      throw apiError;
    } finally {
      this.changed();
    }
  }

  /** The pending challenges listed (the stream's lines list them too). */
  private refresh(): Promise<void> {
    return this.reload(
      () => this.state,
      () => api.challenges(),
      applyChallengeList,
    );
  }
}
