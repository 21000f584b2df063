/**
 * The HTTP layer's own schemas: path and query parameters, and the error answers of each route. The API's shapes
 * (bodies and answers) are declared once in `contract/shapes.ts`.
 */
import { Type } from 'typebox';
import { ApiError, ref } from '../contract/shapes.ts';
import { DRAW_ACTIONS, GAME_ID_PATTERN, SQUARE_PATTERN, UCI_PATTERN } from '../contract/vocabulary.ts';

export const GameIdParams = Type.Object({ gameId: Type.String({ pattern: GAME_ID_PATTERN }) });
export const MoveParams = Type.Object({
  gameId: Type.String({ pattern: GAME_ID_PATTERN }),
  uci: Type.String({ pattern: UCI_PATTERN, description: 'move in UCI, e.g. e2e4 or e7e8q' }),
});
export const DrawParams = Type.Object({
  gameId: Type.String({ pattern: GAME_ID_PATTERN }),
  action: Type.Enum(DRAW_ACTIONS),
});
export const MovesQuery = Type.Object({
  square: Type.Optional(
    Type.String({ pattern: `^$|${SQUARE_PATTERN}`, description: 'only moves from this square, e.g. e2' }),
  ),
});

/** Error responses every game route can give, for the OpenAPI document and serialization. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map(status => [status, ref(ApiError)])) as Record<
    number,
    ReturnType<typeof ref<typeof ApiError>>
  >;
