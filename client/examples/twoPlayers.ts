/**
 * Two players play a whole game through the typed client: a service token issues each a player token, Ann
 * challenges Bob to a 5+2 game as white, Bob accepts, both follow the game's stream, and they play fool's mate with
 * one takeback on the way (Ann offers to take back 2. g3, Bob accepts, and she plays 2. g4?? instead).
 *
 * It must compile against the generated types (client/test/types.test.ts), and it runs against a real server
 * (test/stream/client.test.ts):
 *
 * ```ts
 * const outcome = await playTwoPlayers({ baseUrl: 'http://localhost:3000', serviceToken });
 * ```
 */
import {
  createChessClient,
  type ChessClient,
  type ChessStream,
  type components,
  type StreamEvent,
} from '../src/index.ts';

type GameState = components['schemas']['GameState'];
/** A line of a game's stream: gameFull, gameState or error, told apart by `type`. */
type GameStreamEvent = StreamEvent<'/api/board/game/{gameId}/stream'>;

export interface TwoPlayersOptions {
  baseUrl: string;
  /** A service token of the server (API_TOKENS), which may issue player tokens. */
  serviceToken: string;
  /** The players' ids; `ann` and `bob` by default. */
  players?: { white: string; black: string };
  fetch?: typeof globalThis.fetch;
}

export interface TwoPlayersOutcome {
  gameId: string;
  /** The moves played, in UCI, as the last state both players saw says. */
  moves: string[];
  status: GameState['status'];
  winner: GameState['winner'];
  /** The moves of the game at each state each player's stream sent, in order. */
  seenByWhite: string[][];
  seenByBlack: string[][];
}

/** Reads a game's stream until a state matches `test`; every state read is recorded in `seen`. */
async function until(
  events: ChessStream<GameStreamEvent>,
  seen: string[][],
  test: (state: GameState) => boolean,
): Promise<GameState> {
  for (;;) {
    const next = await events.next();
    if (next.done) throw new Error('the game stream ended early');
    const event = next.value;
    if (event.type === 'error') throw new Error(`the game stream failed: ${event.error.code} ${event.error.message}`);
    const state = event.type === 'gameFull' ? event.game.state : event.state;
    seen.push(state.moves);
    if (test(state)) return state;
  }
}

export async function playTwoPlayers(options: TwoPlayersOptions): Promise<TwoPlayersOutcome> {
  const { baseUrl, serviceToken, players = { white: 'ann', black: 'bob' } } = options;
  const fetch = options.fetch;
  const service = createChessClient({ baseUrl, token: serviceToken, fetch });

  // A player token for each player, issued with the service token.
  const issue = (id: string, displayName: string) =>
    service.unwrap(service.api.POST('/api/tokens', { body: { player: { id, displayName } } }));
  const annToken = await issue(players.white, 'Ann');
  const bobToken = await issue(players.black, 'Bob');
  const ann: ChessClient = createChessClient({ baseUrl, token: annToken.token, fetch });
  const bob: ChessClient = createChessClient({ baseUrl, token: bobToken.token, fetch });

  // Ann challenges Bob to a 5+2 game as white; Bob accepts; the game has the challenge's id.
  const challenge = await ann.unwrap(
    ann.api.POST('/api/challenge/{playerId}', {
      params: { path: { playerId: players.black } },
      body: { clock: { limit: 300, increment: 2 }, color: 'white' },
    }),
  );
  await bob.unwrap(bob.api.POST('/api/challenge/{id}/accept', { params: { path: { id: challenge.id } } }));
  const gameId = challenge.id;

  // Both follow the game; leaving this block closes both streams.
  const params = { path: { gameId } };
  const white = await ann.stream('/api/board/game/{gameId}/stream', { params });
  const black = await bob.stream('/api/board/game/{gameId}/stream', { params });
  const seenByWhite: string[][] = [];
  const seenByBlack: string[][] = [];
  try {
    /** `player` plays `uci`; both streams then show a state with `count` moves: the one White's shows. */
    const play = async (player: ChessClient, uci: string, count: number): Promise<GameState> => {
      await player.unwrap(
        player.api.POST('/api/board/game/{gameId}/move/{uci}', { params: { path: { gameId, uci } } }),
      );
      const hasCount = (state: GameState) => state.moves.length === count;
      const [state] = await Promise.all([until(white, seenByWhite, hasCount), until(black, seenByBlack, hasCount)]);
      return state;
    };
    await Promise.all([until(white, seenByWhite, () => true), until(black, seenByBlack, () => true)]); // gameFull
    await play(ann, 'f2f3', 1);
    await play(bob, 'e7e5', 2);
    await play(ann, 'g2g3', 3);

    // Ann wants 2. g3 back: she offers a takeback, Bob sees the offer and accepts it.
    await ann.unwrap(
      ann.api.POST('/api/board/game/{gameId}/takeback/{action}', { params: { path: { gameId, action: 'offer' } } }),
    );
    await until(black, seenByBlack, state => state.takebackOfferedBy === 'white');
    await bob.unwrap(
      bob.api.POST('/api/board/game/{gameId}/takeback/{action}', { params: { path: { gameId, action: 'accept' } } }),
    );
    const back = (state: GameState) => state.moves.length === 2 && state.takebackOfferedBy === null;
    await Promise.all([until(white, seenByWhite, back), until(black, seenByBlack, back)]);

    await play(ann, 'g2g4', 3);
    const last = await play(bob, 'd8h4', 4); // 2... Qh4#
    return { gameId, moves: last.moves, status: last.status, winner: last.winner, seenByWhite, seenByBlack };
  } finally {
    await Promise.all([white.close(), black.close()]);
  }
}
