/// <reference lib="dom" />
// (the functions given to page.evaluate run in the browser)
/**
 * The board page's chat (DECISIONS §17): two windows (two browser contexts, so two token stores), Ann's and Bob's, on
 * a game between them. Each shows the players' room with what was written before it opened, and a line sent in one
 * appears in the other, live and once; a third player's window on the game shows no chat panel.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { findExecutable, skipReason } from '../helpers/external.ts';
import { byTestId, startBrowserEnv, waitForText, type BrowserEnv, type RunContext } from './harness.ts';

const chromiumPath = findExecutable('chromium');
const skip = skipReason('chromium', chromiumPath);

const SERVICE = 'browser-chat-service-token';
const ANN = { id: 'ann', displayName: 'Ann' };
const BOB = { id: 'bob', displayName: 'Bob' };
const CID = { id: 'cid', displayName: 'Cid' };

let env: BrowserEnv;
const tokens: Record<string, string> = {};
before(async () => {
  if (skip) return;
  env = await startBrowserEnv(chromiumPath!, { challenges: true, tokens: [SERVICE] });
  for (const player of [ANN, BOB, CID]) tokens[player.id] = (await env.playerTokens!.issue(player)).token;
});
after(async () => {
  if (!skip) await env.close();
});

/** Ann challenges Bob (Ann white, correspondence) and Bob accepts, through the API: the game's id. */
async function gameOfAnnAndBob(): Promise<string> {
  const made = await env.api('POST', `/api/challenge/${BOB.id}`, { days: 3, color: 'white' }, tokens.ann);
  assert.equal(made.statusCode, 200, made.body);
  const { id } = JSON.parse(made.body) as { id: string };
  const accepted = await env.api('POST', `/api/challenge/${id}/accept`, undefined, tokens.bob);
  assert.equal(accepted.statusCode, 200, accepted.body);
  return id;
}

/** A window of `player`'s own: the token saved through the page's form, then the game opened. */
async function openAs(open: RunContext['open'], player: { id: string }, gameId: string): Promise<Page> {
  const page = await open('/');
  await page.click(`${byTestId('settings')} summary`);
  await page.fill(byTestId('token-input'), tokens[player.id]!);
  await page.click(byTestId('token-save'));
  await waitForText(page, 'token-state', 'A token is set.');
  await page.goto(`${env.url}/game/${gameId}`);
  await page.waitForSelector(`${byTestId('connection')}[data-state="live"]`);
  return page;
}

/** The lines a page's chat shows, as 'user: text'. */
const linesOf = (page: Page): Promise<string[]> =>
  page
    .locator(`${byTestId('chat-lines')} ${byTestId('chat-line')}`)
    .evaluateAll(items =>
      items.map(
        item => `${item.querySelector('.chat-user')?.textContent}: ${item.querySelector('.chat-text')?.textContent}`,
      ),
    );

/** Waits until a page's chat shows exactly these lines. */
async function waitLines(page: Page, expected: string[]): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const shown = await linesOf(page);
    if (JSON.stringify(shown) === JSON.stringify(expected)) return;
    if (Date.now() > deadline) assert.fail(`chat shows ${JSON.stringify(shown)}, not ${JSON.stringify(expected)}`);
    await page.waitForTimeout(25);
  }
}

/** Types a line into the chat box (found by its label, as a screen reader would) and sends it with Enter. */
async function say(page: Page, text: string): Promise<void> {
  const input = page.getByLabel('Message', { exact: true });
  await input.fill(text);
  await input.press('Enter');
}

test('two players chat on the board page: a line sent in one window appears in the other, live', { skip }, t =>
  env.run(t, async ({ open }) => {
    const gameId = await gameOfAnnAndBob();
    // 1. A line written before the windows open: each shows it from the room's history.
    const early = await env.api(
      'POST',
      `/api/board/game/${gameId}/chat`,
      { room: 'player', text: 'hello' },
      tokens.bob,
    );
    assert.equal(early.statusCode, 200, early.body);
    const ann = await openAs(open, ANN, gameId);
    const bob = await openAs(open, BOB, gameId);
    for (const page of [ann, bob]) {
      await page.waitForSelector(`${byTestId('chat-connection')}[data-state="live"]`);
      await waitLines(page, ['Bob: hello']);
      assert.equal(await page.getAttribute(byTestId('chat-lines'), 'aria-live'), 'polite');
    }

    // 2. Ann writes: Bob's window shows it without a reload, and Ann's own once (it comes back on the stream).
    await say(ann, 'good luck ♞');
    await waitLines(bob, ['Bob: hello', 'Ann: good luck ♞']);
    await waitLines(ann, ['Bob: hello', 'Ann: good luck ♞']);
    assert.equal(await ann.inputValue(byTestId('chat-input')), '', 'the box is emptied once sent');

    // 3. Bob answers; a line the service would refuse is not sent, and says why.
    await say(bob, 'x'.repeat(141));
    await waitForText(bob, 'chat-error', /at most 140 characters/);
    await say(bob, 'you too');
    await bob.waitForSelector(byTestId('chat-error'), { state: 'hidden' });
    await waitLines(ann, ['Bob: hello', 'Ann: good luck ♞', 'Bob: you too']);
    await waitLines(bob, ['Bob: hello', 'Ann: good luck ♞', 'Bob: you too']);

    // 4. A line written elsewhere (Ann's own program, through lichess's Board API) comes live too.
    const elsewhere = await env.api(
      'POST',
      `/api/board/game/${gameId}/chat`,
      { room: 'player', text: 'gg' },
      tokens.ann,
    );
    assert.equal(elsewhere.statusCode, 200, elsewhere.body);
    await waitLines(bob, ['Bob: hello', 'Ann: good luck ♞', 'Bob: you too', 'Ann: gg']);
  }),
);

test("a spectator's window on the game has no chat panel; the players' window has", { skip }, t =>
  env.run(t, async ({ open }) => {
    const gameId = await gameOfAnnAndBob();
    const cid = await openAs(open, CID, gameId);
    const ann = await openAs(open, ANN, gameId);
    await ann.waitForSelector(byTestId('chat'), { state: 'visible' });
    await waitForText(cid, 'seat', 'You are watching');
    assert.equal(await cid.isVisible(byTestId('chat')), false);
  }),
);
