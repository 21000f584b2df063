/**
 * The shapes of challenges (DECISIONS §16), lichess's: ChallengeJson as its API sends it (`@lichess-org/types`,
 * `components.schemas.ChallengeJson`), the events on a player's stream, and the request bodies (a form's keys, as
 * JSON or `application/x-www-form-urlencoded`).
 */
import { Type, type Static, type TProperties } from 'typebox';
import { DECLINE_REASONS } from './vocabulary.ts';
import { ref, SPEED_KEYS } from './shapes.ts';

const Color = Type.Union([Type.Literal('white'), Type.Literal('black')]);

export const SPEEDS = SPEED_KEYS;

export const ChallengeUser = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    rating: Type.Optional(
      Type.Integer({ description: "the player's rating in the challenge's perf when it was made" }),
    ),
    provisional: Type.Optional(Type.Boolean()),
  },
  { $id: 'ChallengeUser', description: 'a player, as lichess names one in a challenge' },
);

export const ChallengeJson = Type.Object(
  {
    id: Type.String({ pattern: '^[A-Za-z0-9]{8}$' }),
    url: Type.String({ description: 'where the challenge is shown (GET .../show)' }),
    status: Type.Enum(['created', 'offline', 'canceled', 'declined', 'accepted']),
    challenger: ref(ChallengeUser),
    destUser: Type.Union([ref(ChallengeUser), Type.Null()], { description: 'null: an open challenge' }),
    variant: Type.Object({ key: Type.String(), name: Type.String(), short: Type.String() }),
    rated: Type.Boolean(),
    speed: Type.Enum(SPEEDS),
    timeControl: Type.Union([
      Type.Object({
        type: Type.Literal('clock'),
        limit: Type.Integer({ description: 'seconds' }),
        increment: Type.Integer({ description: 'seconds' }),
        show: Type.String({ description: 'e.g. 5+2' }),
      }),
      Type.Object({ type: Type.Literal('correspondence'), daysPerTurn: Type.Integer() }),
      Type.Object({ type: Type.Literal('unlimited') }),
    ]),
    color: Type.Enum(['white', 'black', 'random'], { description: "the challenger's colour as asked" }),
    finalColor: Color,
    perf: Type.Object({ icon: Type.String(), name: Type.String() }),
    direction: Type.Optional(Type.Enum(['in', 'out'], { description: 'to the player who reads it' })),
    initialFen: Type.Optional(Type.String()),
    declineReason: Type.Optional(Type.String({ description: 'challengeDeclined: the reason, in English' })),
    declineReasonKey: Type.Optional(Type.Enum(Object.keys(DECLINE_REASONS))),
  },
  { $id: 'ChallengeJson' },
);

export const ChallengeList = Type.Object(
  { in: Type.Array(ref(ChallengeJson)), out: Type.Array(ref(ChallengeJson)) },
  { $id: 'ChallengeList', description: "the player's pending challenges: received (in) and made (out)" },
);

/** A whole number as JSON sends it, or as the text a form sends (lichess's clients post forms). */
export const FormInteger = Type.Union([Type.Integer(), Type.String()]);

/**
 * A request to be paired, lichess's (a challenge, a seek): its own time fields first, then the fields both share
 * (days per turn, colour, rated, variant; the domain's rules for them are one too, domain/challenge.ts), then its
 * own others, as a form's keys or JSON with the same keys.
 */
export const pairingRequest = <Time extends TProperties, Others extends TProperties>(
  $id: string,
  description: string,
  time: Time,
  others: Others,
) =>
  Type.Object(
    {
      ...time,
      days: Type.Optional(FormInteger),
      color: Type.Optional(Type.String({ description: 'random (default), white or black' })),
      rated: Type.Optional(
        Type.Union([Type.Boolean(), Type.String()], {
          description: 'a rated game (false by default): needs a clock and the standard start (DECISIONS §21)',
        }),
      ),
      variant: Type.Optional(Type.String({ description: 'standard only' })),
      ...others,
    },
    { $id, description },
  );

export const ChallengeRequest = pairingRequest(
  'ChallengeRequest',
  'clock.limit (15-10800 s) and clock.increment (0-180 s), or days (1, 2, 3, 5, 7, 10, 14), or neither ' +
    '(unlimited); as a form, or as JSON with the same keys or a nested clock {limit, increment}',
  {
    'clock.limit': Type.Optional(FormInteger),
    'clock.increment': Type.Optional(FormInteger),
    clock: Type.Optional(
      Type.Object(
        { limit: Type.Optional(FormInteger), increment: Type.Optional(FormInteger) },
        { additionalProperties: true },
      ),
    ),
  },
  { fen: Type.Optional(Type.String({ description: 'a legal standard position to start from' })) },
);

export const DeclineRequest = Type.Object(
  { reason: Type.Optional(Type.String({ description: `one of ${Object.keys(DECLINE_REASONS).join(', ')}` })) },
  { $id: 'DeclineRequest' },
);

export const CHALLENGE_SCHEMAS = [ChallengeUser, ChallengeJson, ChallengeList, ChallengeRequest, DeclineRequest];

export type ChallengeJson = Static<typeof ChallengeJson>;
export type ChallengeList = Static<typeof ChallengeList>;
