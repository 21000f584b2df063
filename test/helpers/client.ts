/**
 * The system tests call a running service through its typed client (client/, DECISIONS §19), as any user of the
 * service would, so that the OpenAPI document is tested by everything that uses the service: `clientOf` is a
 * client of a server, `gameAction` a change to a game named as its path below the game (`move/e2e4`, `undo`,
 * `draw/offer`, `resign`), for tests that script a game as a list of such steps.
 *
 * ```ts
 * const ann = clientOf(server.url, annToken);
 * const { gameId } = await ann.unwrap(ann.api.POST('/api/board/game', { body: {} }));
 * const moved = await gameAction(ann, gameId, 'move/e2e4'); // { status: 200, data: the GameState }
 * ```
 */
import { createChessClient, type ApiError, type ChessClient, type operations } from 'chess-game-service-client';

/** A client of the service at `base`, as the holder of `token` when given. */
export const clientOf = (base: string, token?: string): ChessClient => createChessClient({ baseUrl: base, token });

/** A change to a game, as its path below `/api/board/game/{gameId}/` says it. */
export type GameAction =
  `move/${string}` | 'undo' | 'redo' | 'resign' | 'abort' | `draw/${DrawAction}` | `takeback/${TakebackAction}`;
type DrawAction = operations['drawAction']['parameters']['path']['action'];
type TakebackAction = operations['takebackAction']['parameters']['path']['action'];

/** The answer to a change: its status, and its data (the GameState, or `{ ok: true }`) or its ApiError. */
export interface ActionAnswer {
  status: number;
  data: GameActionData | undefined;
  error: ApiError | undefined;
}
type GameActionData =
  | operations['makeMove']['responses'][200]['content']['application/json']
  | operations['drawAction']['responses'][200]['content']['application/json'];

/**
 * Makes a change to a game through the client. A draw or takeback action outside the document's vocabulary goes
 * as it is, for tests of its refusal: `draw/surrender` answers 400 INVALID_ACTION.
 */
export async function gameAction(client: ChessClient, gameId: string, action: GameAction): Promise<ActionAnswer> {
  const game = { params: { path: { gameId } } };
  const [kind, argument = ''] = action.split(/\/(.*)/s) as [string, string?];
  const answer = await (() => {
    switch (kind) {
      case 'move':
        return client.api.POST('/api/board/game/{gameId}/move/{uci}', { params: { path: { gameId, uci: argument } } });
      case 'draw':
        return client.api.POST('/api/board/game/{gameId}/draw/{action}', {
          params: { path: { gameId, action: argument as DrawAction } },
        });
      case 'takeback':
        return client.api.POST('/api/board/game/{gameId}/takeback/{action}', {
          params: { path: { gameId, action: argument as TakebackAction } },
        });
      case 'undo':
        return client.api.POST('/api/board/game/{gameId}/undo', game);
      case 'redo':
        return client.api.POST('/api/board/game/{gameId}/redo', game);
      case 'resign':
        return client.api.POST('/api/board/game/{gameId}/resign', game);
      case 'abort':
        return client.api.POST('/api/board/game/{gameId}/abort', game);
      default:
        throw new Error(`not a game action: ${action}`);
    }
  })();
  return { status: answer.response.status, data: answer.data, error: answer.error };
}
