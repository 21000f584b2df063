/**
 * The chat panel's state (src/web/chatState.ts), under Node: lines of the players' room from the stream, the history
 * asked for on each connection merged with the lines that came meanwhile (once each), the lines kept, who sees the
 * panel, and what may be sent. The browser test (test/browser/chat.test.ts) checks the panel in Chromium.
 */
import { test, type TestContext } from 'node:test';
import type { ChatLineEvent } from '../../src/contract/chat.ts';
import {
  applyChatHistory,
  applyChatLine,
  chatConnected,
  chatShown,
  chatTextProblem,
  MAX_SHOWN_LINES,
  mergeHistory,
  newChat,
} from '../../src/web/chatState.ts';

const said = (username: string, text: string, room: 'player' | 'spectator' = 'player'): ChatLineEvent => ({
  type: 'chatLine',
  room,
  username,
  text,
});
const shown = (chat: { lines: Array<{ user: string; text: string }> }) =>
  chat.lines.map(line => `${line.user}: ${line.text}`);

test('lines that come while the history loads are held back, then added once after it', (t: TestContext) => {
  const chat = newChat('AbCd1234');
  const epoch = chatConnected(chat);
  t.assert.equal(applyChatLine(chat, said('Bob', 'hi')), false, 'held back');
  t.assert.equal(applyChatLine(chat, said('Ann', 'hello')), false);
  t.assert.deepEqual(shown(chat), []);
  // The history was read after Bob's line was written, before Ann's.
  t.assert.equal(
    applyChatHistory(
      chat,
      [
        { user: 'Ann', text: 'gl' },
        { user: 'Bob', text: 'hi' },
      ],
      epoch,
    ),
    true,
  );
  t.assert.deepEqual(shown(chat), ['Ann: gl', 'Bob: hi', 'Ann: hello']);
  t.assert.equal(applyChatLine(chat, said('Bob', 'thanks')), true);
  t.assert.equal(applyChatLine(chat, said('Cid', 'watching', 'spectator')), false, "not the players' room");
  t.assert.deepEqual(shown(chat), ['Ann: gl', 'Bob: hi', 'Ann: hello', 'Bob: thanks']);
  t.assert.equal(chat.added, 1, 'one line appended since the history');
});

test("a reconnection's history replaces the lines; an older connection's late history is dropped", (t: TestContext) => {
  const chat = newChat('AbCd1234');
  const first = chatConnected(chat);
  const second = chatConnected(chat);
  t.assert.equal(applyChatHistory(chat, [{ user: 'Ann', text: 'old' }], first), false);
  t.assert.equal(chat.loading, true);
  t.assert.equal(
    applyChatHistory(
      chat,
      [
        { user: 'Ann', text: 'old' },
        { user: 'Bob', text: 'missed' },
      ],
      second,
    ),
    true,
  );
  const generation = chat.generation;
  t.assert.deepEqual(shown(chat), ['Ann: old', 'Bob: missed']);
  t.assert.equal(applyChatHistory(chat, [], second), false, 'once per connection');
  chatConnected(chat);
  t.assert.deepEqual(shown(chat), ['Ann: old', 'Bob: missed'], 'shown while the next history loads');
  t.assert.equal(chat.generation, generation);
});

test('merging keeps repeated lines that are not the overlap', (t: TestContext) => {
  const gg = { user: 'Ann', text: 'gg' };
  const bob = { user: 'Bob', text: 'gg' };
  t.assert.deepEqual(mergeHistory([gg, bob], [bob, gg]), [gg, bob, gg]);
  t.assert.deepEqual(mergeHistory([gg], [bob]), [gg, bob]);
  t.assert.deepEqual(mergeHistory([], [gg, gg]), [gg, gg]);
  t.assert.deepEqual(mergeHistory([gg, gg], [gg, gg, gg]), [gg, gg, gg]);
});

test('the panel keeps the latest lines, as the service does', (t: TestContext) => {
  const chat = newChat('AbCd1234');
  const epoch = chatConnected(chat);
  applyChatHistory(chat, [], epoch);
  for (let i = 0; i < MAX_SHOWN_LINES + 5; i++) applyChatLine(chat, said('Ann', `line ${i}`));
  t.assert.equal(chat.lines.length, MAX_SHOWN_LINES);
  t.assert.deepEqual([shown(chat)[0], shown(chat).at(-1)], ['Ann: line 5', `Ann: line ${MAX_SHOWN_LINES + 4}`]);
});

test('who sees the panel, and what may be sent', (t: TestContext) => {
  t.assert.equal(chatShown(['white'], true), true);
  t.assert.equal(chatShown(['white', 'black'], true), true, 'a practice board');
  t.assert.equal(chatShown([], true), false, 'a spectator');
  t.assert.equal(chatShown(['white', 'black'], false), false, 'no player token: no players');
  t.assert.equal(chatTextProblem('good luck'), undefined);
  t.assert.equal(chatTextProblem('🐴'.repeat(140)), undefined, '140 characters, 280 UTF-16 units');
  t.assert.match(chatTextProblem('   ')!, /Type a message/);
  t.assert.match(chatTextProblem('\ufeff\u200b \u2060')!, /Type a message/, 'a byte-order mark and zero-width ones');
  t.assert.match(chatTextProblem('x'.repeat(141))!, /at most 140 characters \(this one has 141\)/);
  t.assert.match(chatTextProblem('a\tb')!, /control characters/);
});
