/**
 * The chat panel's state (DECISIONS §17): the players' room of the game on the board, for a page whose player holds
 * a seat of it. No DOM and no network: chat.ts feeds it, chatPanel.ts draws it.
 *
 * The lines come from two places: each connection of the game's lichess stream sends the lines written from then on
 * (`chatLine`), and the room's history (`GET .../chat`) is asked for once the connection is live, so that what was
 * written before or while the page was away shows too. Lines that come on the stream before the history answers
 * are held back, then added after the history but for those the history already has (the history's latest lines,
 * the first of those held back).
 *
 * ```ts
 * const chat = newChat('AbCd1234');
 * const epoch = chatConnected(chat); // a connection is live: ask for the history now
 * applyChatLine(chat, { type: 'chatLine', room: 'player', username: 'Ann', text: 'hi' }); // held back
 * applyChatHistory(chat, [{ user: 'Ann', text: 'hi' }], epoch); // lines: [Ann: hi], once
 * ```
 */
import type { ChatLineEvent, PlayerGameChat } from '../contract/chat.ts';
import { MAX_CHAT_TEXT, VISIBLE_CHARACTER, type Color } from '../contract/vocabulary.ts';

export interface ChatLineView {
  user: string;
  text: string;
}

export interface ChatState {
  gameId: string;
  lines: ChatLineView[]; // shown, the oldest first: at most MAX_SHOWN_LINES
  added: number; // lines appended since `generation` began: what a redraw appends
  generation: number; // rises when the lines are replaced rather than appended to
  loading: boolean; // a connection's history has not come yet: its stream lines are held back
  held: ChatLineView[];
  epoch: number; // the connection whose history is awaited
}

/** The lines the panel keeps: as many as the service keeps of a room. */
export const MAX_SHOWN_LINES = 200;

export const newChat = (gameId: string): ChatState => ({
  gameId,
  lines: [],
  added: 0,
  generation: 0,
  loading: true,
  held: [],
  epoch: 0,
});

/** Whether the page shows the chat: its player (a player token's) holds a seat of the game. */
export const chatShown = (seats: readonly Color[], hasPlayer: boolean): boolean => hasPlayer && seats.length > 0;

/** A connection of the stream is live: lines are held back until its history comes. Returns the history's epoch. */
export function chatConnected(chat: ChatState): number {
  chat.loading = true;
  chat.held = [];
  return ++chat.epoch;
}

/** A line of the stream: the players' room's is shown (or held back while the history loads). */
export function applyChatLine(chat: ChatState, event: ChatLineEvent): boolean {
  if (event.room !== 'player') return false;
  const line = { user: event.username, text: event.text };
  if (chat.loading) {
    chat.held.push(line);
    return false;
  }
  chat.lines.push(line);
  chat.added += 1;
  trim(chat);
  return true;
}

/** The history of `epoch`'s connection: the lines shown from now on, with those held back that it lacks. */
export function applyChatHistory(chat: ChatState, history: PlayerGameChat, epoch: number): boolean {
  if (epoch !== chat.epoch || !chat.loading) return false;
  chat.lines = mergeHistory(history, chat.held);
  chat.held = [];
  chat.loading = false;
  chat.generation += 1;
  chat.added = 0;
  trim(chat);
  return true;
}

const same = (a: ChatLineView, b: ChatLineView) => a.user === b.user && a.text === b.text;

/**
 * The history followed by the lines held back, without those the history already has: the longest run at the start
 * of `held` that ends the history.
 */
export function mergeHistory(history: readonly ChatLineView[], held: readonly ChatLineView[]): ChatLineView[] {
  const lines = history.map(({ user, text }) => ({ user, text }));
  for (let overlap = Math.min(held.length, lines.length); overlap > 0; overlap--) {
    const tail = lines.slice(lines.length - overlap);
    if (tail.every((line, i) => same(line, held[i]!))) return [...lines, ...held.slice(overlap)];
  }
  return [...lines, ...held];
}

function trim(chat: ChatState): void {
  if (chat.lines.length > MAX_SHOWN_LINES) chat.lines.splice(0, chat.lines.length - MAX_SHOWN_LINES);
}

/**
 * Why a line cannot be sent as typed (the service's rules), or undefined: empty (nothing visible), too long, control
 * characters.
 */
export function chatTextProblem(text: string): string | undefined {
  const length = [...text].length;
  if (!VISIBLE_CHARACTER.test(text)) return 'Type a message first.';
  if (length > MAX_CHAT_TEXT) return `A message has at most ${MAX_CHAT_TEXT} characters (this one has ${length}).`;
  if (/\p{Cc}/u.test(text)) return 'A message cannot hold control characters.';
  return undefined;
}
