/// <reference lib="dom" />
// (the functions given to page.evaluate run in the browser)
/**
 * The "My games" panel (DECISIONS §13, a player's games and events): with a player token the page lists the
 * player's ongoing games from their event stream, live: a game started elsewhere (paired through the API, or a
 * practice board from another window) appears without a reload, with whose turn it is; clicking one opens it; an ended one leaves the list; a
 * dropped connection reconnects and lists the games again. Without a player token there is no panel.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { PlayerTokens } from '../../src/service/tokens.ts';
import { MemoryGameStore } from '../../src/store/memory.ts';
import { findExecutable, skipReason } from '../helpers/external.ts';
import {
  byTestId,
  clickMove,
  gameIdOf,
  startBrowserEnv,
  waitForText,
  waitLive,
  type BrowserEnv,
  type RunContext,
} from './harness.ts';

const chromiumPath = findExecutable('chromium');
const skip = skipReason('chromium', chromiumPath);

const SERVICE = 'browser-my-games-service-token';
const ANN = { id: 'ann', displayName: 'Ann' };
const BOB = { id: 'bob', displayName: 'Bob' };

let env: BrowserEnv;
const tokens: Record<string, string> = {};
before(async () => {
  if (skip) return;
  const playerTokens = new PlayerTokens({ store: new MemoryGameStore(), now: Date.now });
  env = await startBrowserEnv(chromiumPath!, { playerTokens, tokens: [SERVICE] });
  for (const player of [ANN, BOB]) tokens[player.id] = (await playerTokens.issue(player)).token;
});
after(async () => {
  if (!skip) await env.close();
});

/** A window of its own for `player`: the token saved through the page's form, on the lobby. */
async function openAs(open: RunContext['open'], player: { id: string }): Promise<Page> {
  const page = await open('/');
  await page.click(`${byTestId('settings')} summary`);
  await page.fill(byTestId('token-input'), tokens[player.id]!);
  await page.click(byTestId('token-save'));
  await waitForText(page, 'token-state', 'A token is set.');
  return page;
}

type Row = [gameId: string, title: string, side: string, turn: string];

/** The panel's rows as shown: game id, opponent, side and whose turn. */
const rowsOf = (page: Page): Promise<Row[]> =>
  page.$$eval(`${byTestId('my-games')}:not([hidden]) ${byTestId('my-game')}`, buttons =>
    buttons.map((button): Row => [
      (button as HTMLElement).dataset.gameId ?? '',
      button.querySelector('.title')?.textContent ?? '',
      button.querySelector('.side-name')?.textContent ?? '',
      button.querySelector('.tag')?.textContent ?? '',
    ]),
  );

/**
 * Waits until the panel shows exactly these rows (they follow the event stream, so not at once); `anyOrder` when a
 * change of a listed game may have moved it up (the list, asked again, is most recently changed first).
 */
async function waitForRows(page: Page, expected: Row[], { anyOrder = false } = {}): Promise<void> {
  const deadline = Date.now() + 5000;
  const key = (rows: Row[]) => JSON.stringify(anyOrder ? rows.map(row => JSON.stringify(row)).sort() : rows);
  for (;;) {
    const rows = await rowsOf(page);
    if (key(rows) === key(expected)) return;
    if (Date.now() > deadline) assert.deepEqual(rows, expected, 'the rows of My games');
    await page.waitForTimeout(25);
  }
}

const waitPanelLive = (page: Page) =>
  page.waitForSelector(`${byTestId('my-games')}:not([hidden]) ${byTestId('my-games-connection')}[data-state="live"]`);

test('the My games panel updates live when a game starts elsewhere', { skip }, t =>
  env.run(t, async ({ open }) => {
    const ann = await openAs(open, ANN);
    await waitPanelLive(ann);
    await ann.waitForSelector(`${byTestId('my-games-empty')}:not([hidden])`);
    await ann.evaluate(() => Object.assign(window, { notReloaded: true }));

    // A game of Ann against Bob is paired through the API (as an operator would): Ann is white, so it is her turn.
    const created = await env.api('POST', '/api/board/game', { white: ANN, black: BOB }, SERVICE);
    assert.equal(created.statusCode, 201, created.body);
    const first = (JSON.parse(created.body) as { gameId: string }).gameId;
    await waitForRows(ann, [[first, 'vs Bob', 'White', 'Your turn']]);
    assert.ok(await ann.locator(byTestId('my-games-empty')).isHidden());

    // Bob's window lists it too; another game is paired with Bob as white: in both windows the newest goes first,
    // and it is Bob's turn.
    const bob = await openAs(open, BOB);
    await waitPanelLive(bob);
    await waitForRows(bob, [[first, 'vs Ann', 'Black', "Ann's turn"]]);
    const paired = await env.api('POST', '/api/board/game', { white: BOB, black: ANN }, SERVICE);
    assert.equal(paired.statusCode, 201, paired.body);
    const second = (JSON.parse(paired.body) as { gameId: string }).gameId;
    await waitForRows(bob, [
      [second, 'vs Ann', 'White', 'Your turn'],
      [first, 'vs Ann', 'Black', "Ann's turn"],
    ]);
    await waitForRows(ann, [
      [second, 'vs Bob', 'Black', "Bob's turn"],
      [first, 'vs Bob', 'White', 'Your turn'],
    ]);

    // Clicking a game opens it; moving in it changes whose turn the panel shows, from the game's own stream.
    await ann.click(`${byTestId('my-game')}[data-game-id="${first}"]`);
    await ann.waitForURL(new RegExp(`/game/${first}$`));
    await waitLive(ann);
    await waitForText(ann, 'seat', 'You play white');
    assert.equal(await ann.getAttribute(`${byTestId('my-game')}[data-game-id="${first}"]`, 'aria-current'), 'true');
    await clickMove(ann, 'e2', 'e4', 'white');
    await waitForRows(
      ann,
      [
        [second, 'vs Bob', 'Black', "Bob's turn"],
        [first, 'vs Bob', 'White', "Bob's turn"],
      ],
      { anyOrder: true }, // the move makes `first` the most recently changed game
    );
    assert.equal(await ann.evaluate(() => 'notReloaded' in window), true, 'the page was never reloaded');

    // Bob resigns the game on Ann's board: it leaves the panel, the board shows its result.
    const resigned = await env.api('POST', `/api/board/game/${first}/resign`, undefined, tokens.bob);
    assert.equal(resigned.statusCode, 200, resigned.body);
    await waitForText(ann, 'result', 'White wins');
    await waitForRows(ann, [[second, 'vs Bob', 'Black', "Bob's turn"]]);
    await waitForRows(bob, [[second, 'vs Ann', 'White', 'Your turn']]);

    // A dropped connection: the panel reconnects and lists what is ongoing then (the other game has ended meanwhile).
    env.dropConnections();
    const ended = await env.api('POST', `/api/board/game/${second}/resign`, undefined, tokens.ann);
    assert.equal(ended.statusCode, 200, ended.body);
    await waitForRows(ann, []);
    await waitPanelLive(ann);
    await ann.waitForSelector(`${byTestId('my-games-empty')}:not([hidden])`);

    // From another window of hers, Ann starts a game with the form (a practice board): the first window lists it.
    const again = await openAs(open, ANN);
    await waitForText(again, 'playing-as', /practice board/);
    await again.click(byTestId('create-game'));
    await again.waitForURL(/\/game\/[A-Za-z0-9]{8}$/);
    await waitForRows(ann, [[gameIdOf(again), 'Practice board', 'Both sides', 'Your turn']]);
  }),
);

test('without a player token there is no My games panel; forgetting the token hides it', { skip }, t =>
  env.run(t, async ({ open }) => {
    const anonymous = await open('/');
    await waitForText(anonymous, 'status', 'No game yet');
    assert.ok(await anonymous.locator(byTestId('my-games')).isHidden());
    const ann = await openAs(open, ANN);
    await waitPanelLive(ann);
    await ann.click(byTestId('token-clear'));
    await ann.waitForSelector(`${byTestId('my-games')}[hidden]`, { state: 'attached' });
  }),
);

test('Download my games: every game of the player, ongoing ones too, as one PGN file', { skip }, t =>
  env.run(t, async ({ open }) => {
    const games: string[] = [];
    for (const sides of [
      { white: ANN, black: BOB },
      { white: BOB, black: ANN },
    ]) {
      const created = await env.api('POST', '/api/board/game', sides, SERVICE);
      assert.equal(created.statusCode, 201, created.body);
      games.push((JSON.parse(created.body) as { gameId: string }).gameId);
    }
    const resigned = await env.api('POST', `/api/board/game/${games[0]}/resign`, undefined, SERVICE);
    assert.equal(resigned.statusCode, 200, resigned.body);
    const ann = await openAs(open, ANN);
    await waitPanelLive(ann);
    const [download] = await Promise.all([ann.waitForEvent('download'), ann.click(byTestId('download-my-games'))]);
    assert.equal(download.suggestedFilename(), 'games-ann.pgn');
    const chunks: Buffer[] = [];
    for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const ids = [...text.matchAll(/\[GameId "(\w+)"\]/g)].map(match => match[1]);
    for (const id of games) assert.ok(ids.includes(id), `${id} in the download`);
    await waitForText(ann, 'download-my-games-notice', 'games-ann.pgn downloaded');
  }),
);
