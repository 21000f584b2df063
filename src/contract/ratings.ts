/**
 * The shapes of ratings (DECISIONS §21), as lichess's published schemas give them: a player as lichess's User (with
 * its `perfs`, declared beside the Account in shapes.ts), the rating history (RatingHistory) and a leaderboard
 * (Leaderboard); declared once here, their types derived, so that the domain's views return them and the OpenAPI
 * document describes them.
 */
import { Type, type Static } from 'typebox';
import { LichessPerfs, ref, SPEED_KEYS } from './shapes.ts';

export const LichessUser = Type.Object(
  {
    id: Type.String(),
    username: Type.String({ description: "the player's display name" }),
    perfs: ref(LichessPerfs),
    title: Type.Optional(Type.Literal('BOT', { description: 'BOT for a bot, absent otherwise' })),
  },
  { $id: 'LichessUser', description: "lichess's User: a player and their ratings" },
);
export type LichessUser = Static<typeof LichessUser>;

export const RatingHistory = Type.Array(
  Type.Object({
    name: Type.String({ description: "the perf's name, e.g. Blitz" }),
    points: Type.Array(
      Type.Array(Type.Integer(), {
        minItems: 4,
        maxItems: 4,
        description: '[year, month (0-11), day, rating]: the last rating of a UTC day',
      }),
    ),
  }),
  { $id: 'RatingHistory', description: "lichess's RatingHistory: every perf, oldest point first, empty where none" },
);
export type RatingHistory = Static<typeof RatingHistory>;

export const Leaderboard = Type.Object(
  {
    users: Type.Array(
      Type.Object({
        id: Type.String(),
        username: Type.String(),
        perfs: Type.Record(Type.String(), Type.Object({ rating: Type.Integer(), progress: Type.Integer() })),
      }),
      { description: 'established (not provisional) players of the perf, best first' },
    ),
  },
  { $id: 'Leaderboard', description: "lichess's Leaderboard" },
);
export type Leaderboard = Static<typeof Leaderboard>;

export const TopParams = Type.Object({
  nb: Type.String({ pattern: '^(?:[1-9][0-9]?|1[0-9]{2}|200)$', description: 'how many players, 1-200' }),
  perfType: Type.Enum(SPEED_KEYS, { description: 'the perf' }),
});

export const UserParams = Type.Object({
  userId: Type.String({ minLength: 1, maxLength: 64, description: "the player's id" }),
});

export const RATING_SCHEMAS = [LichessUser, RatingHistory, Leaderboard];
