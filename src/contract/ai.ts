/**
 * The shapes of the computer opponent's request and answer (DECISIONS §18), lichess's: `POST /api/challenge/ai` takes
 * a level and a challenge's time control, colour and position (section 16's keys, as JSON or a form), and answers the
 * game in lichess's shape, with `player` the person's colour. The route validates with the schemas; the board page
 * imports the types alone.
 *
 * ```ts
 * import type { AiGame } from '../contract/ai.ts';
 * const game: AiGame = await api.challengeAi({ level: 3, 'clock.limit': 300, 'clock.increment': 3, color: 'white' });
 * open(game.id, game.player);
 * ```
 */
import { Type, type Static } from 'typebox';

const Integer = Type.Union([Type.Integer(), Type.String()]);

export const AiRequest = Type.Object(
  {
    level: Type.Optional(Integer),
    'clock.limit': Type.Optional(Integer),
    'clock.increment': Type.Optional(Integer),
    clock: Type.Optional(Type.Object({}, { additionalProperties: true })),
    days: Type.Optional(Integer),
    color: Type.Optional(Type.String({ description: "the person's colour: random (default), white or black" })),
    fen: Type.Optional(Type.String()),
    variant: Type.Optional(Type.String()),
    rated: Type.Optional(Type.Union([Type.Boolean(), Type.String()])),
  },
  { description: 'level 1-8 (required), and the time control, colour and position of a challenge' },
);
export type AiRequest = Static<typeof AiRequest>;

export const AiGame = Type.Object(
  {
    id: Type.String(),
    fullId: Type.String(),
    variant: Type.Object({ key: Type.String(), name: Type.String(), short: Type.String() }),
    speed: Type.String(),
    perf: Type.String(),
    rated: Type.Boolean(),
    fen: Type.String(),
    turns: Type.Integer(),
    source: Type.String(),
    status: Type.Object({ id: Type.Integer(), name: Type.String() }),
    createdAt: Type.Integer(),
    player: Type.Union([Type.Literal('white'), Type.Literal('black')]),
  },
  { description: "the game, in lichess's shape; `player`: the person's colour" },
);
export type AiGame = Static<typeof AiGame>;
