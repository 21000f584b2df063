/**
 * The lines of the NDJSON streams, each a schema with its `type`, and each stream's lines as a `oneOf` with a
 * discriminator on `type` (DECISIONS §19), so that a client generated from the OpenAPI document gets a union it
 * must narrow. An empty line is a heartbeat, on every stream; it is not a line of these.
 *
 * ```ts
 * import type { GameStreamEvent } from '../contract/events.ts';
 * if (event.type === 'gameState') show(event.state.fen);
 * ```
 */
import { Type, type Static, type TLiteral, type TSchema } from 'typebox';
import { GameFull, GameState, ref } from './shapes.ts';
import { ChallengeJson } from './challenges.ts';
import { ChatLineEvent } from './chat.ts';
import { GameEventInfo, LichessGameFull, LichessGameState, OpponentGone } from './lichess.ts';

/**
 * A `oneOf` of registered schemas told apart by their `type` (each has `type` with one value), with the
 * discriminator that OpenAPI 3.0 reads. TypeBox's own union is an `anyOf`, which a generator cannot narrow.
 */
function eventUnion<T extends TSchema[]>(id: string, description: string, events: readonly [...T]) {
  const mapping: Record<string, string> = {};
  for (const event of events) {
    const type = (event as { properties?: { type?: { const?: unknown } } }).properties?.type?.const;
    const schemaId = (event as { $id?: unknown }).$id;
    if (typeof type !== 'string' || typeof schemaId !== 'string') throw new Error(`${id}: an event needs $id and type`);
    mapping[type] = `#/components/schemas/${schemaId}`;
  }
  return Type.Unsafe<Static<T[number]>>({
    $id: id,
    description,
    oneOf: events.map(event => ({ $ref: `${(event as { $id: string }).$id}#` })),
    discriminator: { propertyName: 'type', mapping },
  });
}

/**
 * A line `{type, [key]: schema}`, registered under its type's name with Event after it (`gameFull`: GameFullEvent).
 */
function event<T extends string, K extends string, S extends TSchema>(type: T, key: K, schema: S, description: string) {
  const properties = { type: Type.Literal(type), [key]: ref(schema) } as { type: TLiteral<T> } & {
    [P in K]: ReturnType<typeof ref<S>>;
  };
  return Type.Object(properties, { $id: `${type[0]!.toUpperCase()}${type.slice(1)}Event`, description });
}

export const StreamError = Type.Object(
  {
    code: Type.String({ description: 'SERVER_SHUTDOWN, SLOW_CONSUMER, RESYNC_REQUIRED, UNAUTHORIZED, ...' }),
    message: Type.String(),
  },
  { $id: 'StreamError' },
);
export type StreamError = Static<typeof StreamError>;

export const StreamErrorEvent = Type.Object(
  { type: Type.Literal('error'), error: ref(StreamError) },
  { $id: 'StreamErrorEvent', description: 'the last line before the service ends the stream' },
);

export const GameFullEvent = event('gameFull', 'game', GameFull, 'the first line: the game as it is');
export const GameStateEvent = event('gameState', 'state', GameState, 'one line per change, in order');

export const GameStreamEvent = eventUnion('GameStreamEvent', 'a line of GET /api/board/game/{gameId}/stream', [
  GameFullEvent,
  GameStateEvent,
  StreamErrorEvent,
]);
export type GameStreamEvent = Static<typeof GameStreamEvent>;

/** A game of a player's event stream: its GameFull fields and lichess's GameEventInfo for that player. */
export const PlayerGame = Type.Intersect([ref(GameFull), ref(GameEventInfo)], {
  $id: 'PlayerGame',
  description: "a game as GameFull, with lichess's GameEventInfo fields for the stream's player",
});
export type PlayerGame = Static<typeof PlayerGame>;

const gameEvent = <T extends 'gameStart' | 'gameFinish'>(type: T, description: string) =>
  event(type, 'game', PlayerGame, description);
const challengeEvent = <T extends 'challenge' | 'challengeCanceled' | 'challengeDeclined'>(
  type: T,
  description: string,
) => event(type, 'challenge', ChallengeJson, description);

export const GameStartEvent = gameEvent(
  'gameStart',
  'a game of the player is ongoing (each first), starts, or resumes',
);
export const GameFinishEvent = gameEvent('gameFinish', 'a game of the player ended');
export const ChallengeEvent = challengeEvent('challenge', 'a challenge to or from the player is pending');
export const ChallengeCanceledEvent = challengeEvent('challengeCanceled', 'a pending challenge was canceled');
export const ChallengeDeclinedEvent = challengeEvent('challengeDeclined', 'a pending challenge was declined');

export const PlayerStreamEvent = eventUnion('PlayerStreamEvent', 'a line of GET /api/stream/event', [
  GameStartEvent,
  GameFinishEvent,
  ChallengeEvent,
  ChallengeCanceledEvent,
  ChallengeDeclinedEvent,
  StreamErrorEvent,
]);
export type PlayerStreamEvent = Static<typeof PlayerStreamEvent>;

export const LichessGameStreamEvent = eventUnion(
  'LichessGameStreamEvent',
  "a line of lichess's game streams (GET /api/board/game/stream/{gameId}, GET /api/bot/game/stream/{gameId})",
  [LichessGameFull, LichessGameState, ChatLineEvent, OpponentGone, StreamErrorEvent],
);
export type LichessGameStreamEvent = Static<typeof LichessGameStreamEvent>;

export const EVENT_SCHEMAS = [
  StreamError,
  StreamErrorEvent,
  GameFullEvent,
  GameStateEvent,
  GameStreamEvent,
  PlayerGame,
  GameStartEvent,
  GameFinishEvent,
  ChallengeEvent,
  ChallengeCanceledEvent,
  ChallengeDeclinedEvent,
  PlayerStreamEvent,
  LichessGameStreamEvent,
];

/** A line of the seed's game stream, as the hub writes it. */
export type GameEvent = GameStreamEvent;
/** A challenge line of a player's stream (`GET /api/stream/event`). */
export type ChallengeLine = Static<
  typeof ChallengeEvent | typeof ChallengeCanceledEvent | typeof ChallengeDeclinedEvent
>;
