/**
 * The HTTP layer's own schemas: path and query parameters, and the error answers of each route. The API's shapes
 * (bodies and answers) are declared once in `contract/shapes.ts`.
 */
import { Type } from 'typebox';
import { ApiError, ref } from '../contract/shapes.ts';
import {
  DRAW_ACTIONS,
  GAME_ID_PATTERN,
  SQUARE_PATTERN,
  TAKEBACK_ACTIONS,
  UCI_PATTERN,
} from '../contract/vocabulary.ts';

export const GameIdParams = Type.Object({ gameId: Type.String({ pattern: GAME_ID_PATTERN }) });
export const MoveParams = Type.Object({
  gameId: Type.String({ pattern: GAME_ID_PATTERN }),
  uci: Type.String({ pattern: UCI_PATTERN, description: 'move in UCI, e.g. e2e4 or e7e8q' }),
});
export const DrawParams = Type.Object({
  gameId: Type.String({ pattern: GAME_ID_PATTERN }),
  action: Type.Enum(DRAW_ACTIONS),
});
export const TakebackParams = Type.Object({
  gameId: Type.String({ pattern: GAME_ID_PATTERN }),
  action: Type.Enum(TAKEBACK_ACTIONS),
});
export const MovesQuery = Type.Object({
  square: Type.Optional(
    Type.String({ pattern: `^$|${SQUARE_PATTERN}`, description: 'only moves from this square, e.g. e2' }),
  ),
});

export const ListQuery = Type.Object({
  player: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "only this player's games" })),
  status: Type.Optional(Type.Enum(['ongoing', 'ended', 'all'], { description: 'which games; all by default' })),
  limit: Type.Optional(
    Type.String({ pattern: '^(100|[1-9][0-9]?)$', description: 'games per page, 1-100; 50 by default' }),
  ),
  cursor: Type.Optional(Type.String({ maxLength: 64, description: "an earlier page's nextCursor" })),
});

/** Error responses every game route can give, for the OpenAPI document and serialization. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map(status => [status, ref(ApiError)])) as Record<
    number,
    ReturnType<typeof ref<typeof ApiError>>
  >;

/**
 * The schema of one operation: its OpenAPI identity, its inputs (which type the handler's request) and its
 * answers, the errors of `errors` included. `security` names the scheme: `bearerAuth` (a service or player
 * token) or `serviceToken` (a service token only).
 */
export function operation<Inputs extends object, Answers extends object>(
  operationId: string,
  summary: string,
  inputs: Inputs,
  answers: Answers,
  errors: readonly number[],
  { tag = 'games', security = 'bearerAuth' }: { tag?: string; security?: 'bearerAuth' | 'serviceToken' } = {},
) {
  return {
    operationId,
    summary,
    tags: [tag],
    security: [{ [security]: [] }],
    ...inputs,
    // Typed by the answers alone: a handler returns its answer and throws its errors (the error mapper's).
    response: { ...answers, ...errorResponses(...errors) } as Answers,
  };
}
