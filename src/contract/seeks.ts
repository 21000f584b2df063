/**
 * The shapes of seeks (DECISIONS §16), lichess's (`POST /api/board/seek`): the request's fields (a form's, or JSON
 * with the same keys) and the answer to a correspondence seek. A real-time seek answers NDJSON: an empty line now
 * and then while it waits, and the end of the answer when it is paired.
 */
import { Type, type Static } from 'typebox';
import { FormInteger, pairingRequest } from './challenges.ts';

export const SeekRequest = pairingRequest(
  'SeekRequest',
  'time (minutes, 0.25-180, whole seconds) and increment (seconds, 0-180) for a real-time seek, or days (1, 2, ' +
    '3, 5, 7, 10, 14) for a correspondence one; as a form, or as JSON with the same keys',
  { time: Type.Optional(Type.Union([Type.Number(), Type.String()])), increment: Type.Optional(FormInteger) },
  { ratingRange: Type.Optional(Type.String({ description: 'accepted and not used: there are no ratings yet' })) },
);

export const SeekCreated = Type.Object(
  { id: Type.String({ description: "the correspondence seek's id, to withdraw it (DELETE /api/board/seek/{id})" }) },
  { $id: 'SeekCreated' },
);

export const SEEK_SCHEMAS = [SeekRequest, SeekCreated];

export type SeekCreated = Static<typeof SeekCreated>;
