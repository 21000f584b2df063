/**
 * The shapes of a game's chat (DECISIONS §17), lichess's: a line to write (`POST .../chat`, as a form or JSON), the
 * players' room as `GET .../chat` answers it (lichess's PlayerGameChat), and the chatLine of the lichess game streams
 * (lichess's ChatLineEvent).
 */
import { Type, type Static } from 'typebox';
import { CHAT_ROOMS, MAX_CHAT_TEXT } from './vocabulary.ts';
import { PLAIN_TEXT } from './shapes.ts';

export const ChatRequest = Type.Object(
  {
    room: Type.Enum(CHAT_ROOMS, { description: "player (the game's two players) or spectator (anyone)" }),
    text: Type.String({
      minLength: 1,
      maxLength: MAX_CHAT_TEXT,
      ...PLAIN_TEXT,
      description: `1-${MAX_CHAT_TEXT} characters, no control characters, with a visible character (not only blanks)`,
    }),
  },
  { $id: 'ChatRequest', description: 'a chat line; as a form, or as JSON with the same keys' },
);

export const PlayerGameChat = Type.Array(
  Type.Object({
    text: Type.String(),
    user: Type.String({ description: "the writer's display name" }),
  }),
  { $id: 'PlayerGameChat', description: "the players' room, the oldest line first" },
);

export const ChatLineEvent = Type.Object(
  {
    type: Type.Literal('chatLine'),
    room: Type.Enum(CHAT_ROOMS),
    username: Type.String({ description: "the writer's display name" }),
    text: Type.String(),
  },
  { $id: 'ChatLineEvent' },
);

export const CHAT_SCHEMAS = [ChatRequest, PlayerGameChat, ChatLineEvent];

export type PlayerGameChat = Static<typeof PlayerGameChat>;
export type ChatLineEvent = Static<typeof ChatLineEvent>;
