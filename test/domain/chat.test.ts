/**
 * A game's chat in the domain (DECISIONS §17), as tables: what a line may be, who writes it in which room and who
 * reads the players' room, when a player may write again, and the lichess views of lines (validated against
 * lichess's own schemas).
 */
import { test, type TestContext } from 'node:test';
import {
  CHAT_LIMIT,
  chatAuthorOf,
  chatRetryAt,
  parseChatRequest,
  readsPlayerRoom,
  type ChatLine,
} from '../../src/domain/chat.ts';
import { newGame, type Game } from '../../src/domain/game.ts';
import { lichessChat, lichessChatLine } from '../../src/domain/lichess.ts';
import { playerActor, SERVICE, type Actor } from '../../src/domain/seats.ts';
import { makeMove } from '../../src/domain/transitions.ts';
import { assertLichess } from '../helpers/lichess.ts';

const ANN = { id: 'ann', displayName: 'Ann' };
const BOB = { id: 'bob', displayName: 'Bob' };
const CID = { id: 'cid', displayName: 'Cid' };

const game = (): Game => newGame({ id: 'AbCd1234', createdAt: '2026-01-31T12:00:00.000Z', white: ANN, black: BOB });

test('what a line may be: a room, 1-140 characters (code points), no control characters or unpaired surrogates', (t: TestContext) => {
  const rows: Array<[Record<string, unknown>, string | undefined]> = [
    [{ room: 'player', text: 'good luck' }, undefined],
    [{ room: 'spectator', text: 'x' }, undefined],
    [{ room: 'player', text: 'x'.repeat(140) }, undefined],
    [{ room: 'player', text: '♞'.repeat(140) }, undefined],
    [{ room: 'player', text: '🐴'.repeat(140) }, undefined],
    [{ room: 'player', text: 'x'.repeat(141) }, 'text'],
    [{ room: 'player', text: '🐴'.repeat(141) }, 'text'],
    [{ room: 'player', text: '' }, 'text'],
    [{ room: 'player' }, 'text'],
    [{ room: 'player', text: 7 }, 'text'],
    [{ room: 'player', text: 'a\nb' }, 'text'],
    [{ room: 'player', text: 'a\tb' }, 'text'],
    [{ room: 'player', text: 'del\u007f' }, 'text'],
    [{ room: 'player', text: 'c1\u009b' }, 'text'],
    [{ room: 'player', text: 'half \ud83d' }, 'text'],
    [{ room: 'player', text: '\udc34 half' }, 'text'],
    [{ room: 'lobby', text: 'hi' }, 'room'],
    [{ text: 'hi' }, 'room'],
    [{ room: ['player'], text: 'hi' }, 'room'],
  ];
  for (const [body, field] of rows) {
    const parsed = parseChatRequest(body);
    const label = JSON.stringify(body).slice(0, 60);
    if (field === undefined) {
      t.assert.deepEqual(parsed, { ok: true, value: body }, label);
    } else {
      t.assert.equal(parsed.ok, false, label);
      if (!parsed.ok) t.assert.deepEqual([parsed.error.code, parsed.error.field], ['INVALID_BODY', field], label);
    }
  }
});

test('who writes in which room: a player in their own name, the players only in theirs; any side as the side to move', (t: TestContext) => {
  const start = game();
  const moved = makeMove(start, 'e2e4', SERVICE);
  if (!moved.ok) throw moved.error;
  const rows: Array<[Game, 'player' | 'spectator', Actor, string]> = [
    [start, 'player', playerActor(ANN), 'Ann'],
    [start, 'player', playerActor(BOB), 'Bob'],
    [start, 'spectator', playerActor(BOB), 'Bob'],
    [start, 'spectator', playerActor(CID), 'Cid'],
    [start, 'player', playerActor(CID), 'FORBIDDEN'],
    [start, 'player', SERVICE, 'Ann'],
    [moved.value.game, 'player', SERVICE, 'Bob'],
    [moved.value.game, 'spectator', SERVICE, 'Bob'],
  ];
  for (const [at, room, actor, expected] of rows) {
    const author = chatAuthorOf(at, room, actor);
    const got = author.ok ? author.value.displayName : author.error.code;
    t.assert.equal(got, expected, `${room} by ${actor.kind === 'player' ? actor.player.id : 'any side'}`);
  }
  t.assert.deepEqual(
    [playerActor(ANN), playerActor(BOB), playerActor(CID), SERVICE].map(actor => readsPlayerRoom(start, actor)),
    [true, true, false, true],
  );
});

test('when a player may write again: once the 20th latest line has left the minute', (t: TestContext) => {
  const now = 1_000_000;
  const lines = (count: number, newest: number, step: number) =>
    Array.from({ length: count }, (_, i) => newest - i * step);
  const rows: Array<[number[], number | undefined]> = [
    [[], undefined],
    [lines(19, now, 1000), undefined],
    [lines(20, now, 1000), now - 19_000 + 60_000],
    [lines(25, now, 1000), now - 19_000 + 60_000], // the store gives the latest 20 or more: the 20th counts
    [lines(20, now, 3000), now - 57_000 + 60_000],
    [lines(20, now - 3000, 3000), undefined], // the 20th latest is 60 s old: it has left the window
    [lines(20, now - 3000, 2999), now + 19],
  ];
  for (const [recent, expected] of rows) t.assert.equal(chatRetryAt(recent, now, CHAT_LIMIT), expected);
});

test("lines in lichess's shapes: chatLine and PlayerGameChat, with the writer's display name", (t: TestContext) => {
  const line: ChatLine = { gameId: 'AbCd1234', seq: 3, room: 'player', player: ANN, text: 'gg', at: 0 };
  const event = lichessChatLine(line);
  assertLichess('ChatLineEvent', event);
  t.assert.deepEqual(event, { type: 'chatLine', room: 'player', username: 'Ann', text: 'gg' });
  const spectator = lichessChatLine({ ...line, room: 'spectator', player: CID });
  assertLichess('ChatLineEvent', spectator);
  const chat = lichessChat([line, { ...line, seq: 4, player: BOB, text: 'thanks' }]);
  assertLichess('PlayerGameChat', chat);
  t.assert.deepEqual(chat, [
    { text: 'gg', user: 'Ann' },
    { text: 'thanks', user: 'Bob' },
  ]);
});
