/// <reference lib="dom" />
// (the functions given to page.evaluate run in the browser)
/**
 * How two people come to play on the board page (DECISIONS §16): two windows (two browser contexts, so two token
 * stores), Ann's and Bob's. Ann challenges Bob by his id; Bob's window shows the challenge as it is made (no
 * reload), and when he accepts, both windows open the game, each on its own side, and a move in one shows in the
 * other. A decline and a cancel leave both windows. A seek waits, visibly, until someone seeks the same time
 * control, and a canceled seek pairs with nobody.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { findExecutable, skipReason } from '../helpers/external.ts';
import {
  byTestId,
  clickMove,
  gameIdOf,
  startBrowserEnv,
  waitForFen,
  waitForText,
  type BrowserEnv,
  type RunContext,
} from './harness.ts';

const chromiumPath = findExecutable('chromium');
const skip = skipReason('chromium', chromiumPath);

const SERVICE = 'browser-challenges-service-token';
const ANN = { id: 'ann', displayName: 'Ann' };
const BOB = { id: 'bob', displayName: 'Bob' };

let env: BrowserEnv;
const tokens: Record<string, string> = {};
before(async () => {
  if (skip) return;
  env = await startBrowserEnv(chromiumPath!, { challenges: true, tokens: [SERVICE] });
  for (const player of [ANN, BOB]) tokens[player.id] = (await env.playerTokens!.issue(player)).token;
});
after(async () => {
  if (!skip) await env.close();
});

const AFTER_E4 = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';
const AFTER_E4_E5 = 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2';

/**
 * A window of its own for `player`: the token saved through the page's form, the lobby opened again, and the
 * player's event stream live. The window is marked, so that a test can tell it was never reloaded.
 */
async function openAs(open: RunContext['open'], player: { id: string }): Promise<Page> {
  const page = await open('/');
  await page.click(`${byTestId('settings')} summary`);
  await page.fill(byTestId('token-input'), tokens[player.id]!);
  await page.click(byTestId('token-save'));
  await waitForText(page, 'token-state', 'A token is set.');
  await page.goto(`${env.url}/`);
  await page.waitForSelector(`${byTestId('my-games-connection')}[data-state="live"]`);
  await page.waitForSelector(byTestId('challenge-form'), { state: 'visible' });
  await page.evaluate(() => ((window as unknown as { sameWindow: boolean }).sameWindow = true));
  return page;
}

const neverReloaded = async (page: Page): Promise<boolean> =>
  page.evaluate(() => (window as unknown as { sameWindow?: boolean }).sameWindow === true);

/** The pending challenges a page lists, in one direction: 'title: details [buttons]'. */
async function listed(page: Page, direction: 'in' | 'out'): Promise<string[]> {
  return page.locator(`${byTestId(`challenges-${direction}`)} ${byTestId('challenge')}`).evaluateAll(items =>
    items.map(item => {
      const title = item.querySelector('.title')?.textContent;
      const details = item.querySelector('.side-name')?.textContent;
      const buttons = Array.from(item.querySelectorAll('button'), button => button.textContent).join(' ');
      return `${title}: ${details} [${buttons}]`;
    }),
  );
}

/** Waits until a page lists exactly these challenges in one direction (they follow the stream). */
async function waitListed(page: Page, direction: 'in' | 'out', expected: Array<string | RegExp>): Promise<void> {
  const deadline = Date.now() + 5000;
  const matches = (text: string, pattern: string | RegExp) =>
    typeof pattern === 'string' ? text === pattern : pattern.test(text);
  for (;;) {
    const shown = await listed(page, direction);
    if (shown.length === expected.length && shown.every((text, index) => matches(text, expected[index]!))) return;
    if (Date.now() > deadline)
      assert.fail(`challenges ${direction}: ${JSON.stringify(shown)}, not ${expected.map(String).join(', ')}`);
    await page.waitForTimeout(25);
  }
}

/** Fills and sends the challenge form. */
async function challenge(
  page: Page,
  playerId: string,
  control: { minutes: number; increment: number } | { days: number } | 'unlimited',
  color: 'random' | 'white' | 'black',
): Promise<void> {
  await page.fill(byTestId('challenge-player'), playerId);
  if (control === 'unlimited') {
    await page.selectOption(byTestId('challenge-kind'), 'unlimited');
  } else if ('days' in control) {
    await page.selectOption(byTestId('challenge-kind'), 'correspondence');
    await page.selectOption(byTestId('challenge-days'), String(control.days));
  } else {
    await page.selectOption(byTestId('challenge-kind'), 'realtime');
    await page.fill(byTestId('challenge-minutes'), String(control.minutes));
    await page.fill(byTestId('challenge-increment'), String(control.increment));
  }
  await page.selectOption(byTestId('challenge-color'), color);
  await page.click(byTestId('challenge-submit'));
}

/** The pending challenges the API lists for a player. */
async function pendingOf(player: { id: string }): Promise<{ in: unknown[]; out: unknown[] }> {
  const res = await env.api('GET', '/api/challenge', undefined, tokens[player.id]);
  assert.equal(res.statusCode, 200, res.body);
  return JSON.parse(res.body) as { in: unknown[]; out: unknown[] };
}

test('Ann challenges Bob by id; Bob sees it live and accepts; both windows open the game and play it', { skip }, t =>
  env.run(t, async ({ open }) => {
    const ann = await openAs(open, ANN);
    const bob = await openAs(open, BOB);
    await bob.waitForSelector(byTestId('challenges-in-empty'), { state: 'visible' });

    // 1. Ann challenges Bob to 5+3, playing black. Her window lists it as hers, Bob's as his to answer, at once.
    await challenge(ann, 'bob', { minutes: 5, increment: 3 }, 'black');
    await waitListed(ann, 'out', ['You challenge Bob: 5+3 · Blitz · You play black [Cancel]']);
    await waitListed(bob, 'in', ['Ann challenges you: 5+3 · Blitz · You play white [Accept Decline]']);
    const id = await ann.getAttribute(`${byTestId('challenges-out')} ${byTestId('challenge')}`, 'data-challenge-id');
    assert.ok(id);
    assert.ok(await ann.locator(byTestId('challenge-error')).isHidden());

    // 2. Bob accepts: both windows open the game, whose id is the challenge's, each on its own side.
    await bob.click(byTestId('challenge-accept'));
    for (const page of [ann, bob]) await page.waitForURL(`${env.url}/game/${id}`);
    assert.equal(gameIdOf(ann), id);
    await waitForText(ann, 'seat', 'You play black');
    await waitForText(bob, 'seat', 'You play white');
    await ann.waitForSelector(`${byTestId('board')}.orientation-black`);
    await bob.waitForSelector(`${byTestId('board')}.orientation-white`);
    await waitForText(bob, 'player-black', 'Ann');
    for (const page of [ann, bob]) await page.waitForSelector(byTestId('clock-white'));
    const game = await env.api('GET', `/api/board/game/${id}`, undefined, tokens.ann);
    assert.deepEqual(JSON.parse(game.body).clock, { initial: 300_000, increment: 3_000 }, "the challenge's clock");

    // 3. A move in one window shows in the other.
    await clickMove(bob, 'e2', 'e4', 'white');
    await waitForFen(ann, AFTER_E4);
    await clickMove(ann, 'e7', 'e5', 'black');
    await waitForFen(bob, AFTER_E4_E5);

    // The challenge is no longer listed anywhere; neither window was reloaded.
    await waitListed(ann, 'out', []);
    await waitListed(bob, 'in', []);
    assert.deepEqual(await pendingOf(ANN), { in: [], out: [] });
    assert.ok(await neverReloaded(ann));
    assert.ok(await neverReloaded(bob));
  }),
);

test("a decline leaves the challenger's window, saying why; a cancel leaves the challenged player's", { skip }, t =>
  env.run(t, async ({ open }) => {
    const ann = await openAs(open, ANN);
    const bob = await openAs(open, BOB);

    // Bob declines a correspondence challenge, saying it is not the time.
    await challenge(ann, 'bob', { days: 3 }, 'random');
    await waitListed(bob, 'in', [
      /^Ann challenges you: 3 days per move · You play (white|black) \(random\) \[Accept Decline\]$/,
    ]);
    await waitListed(ann, 'out', [
      /^You challenge Bob: 3 days per move · You play (white|black) \(random\) \[Cancel\]$/,
    ]);
    await bob.selectOption(byTestId('challenge-decline-reason'), 'later');
    await bob.click(byTestId('challenge-decline'));
    await waitListed(ann, 'out', []);
    await waitListed(bob, 'in', []);
    await waitForText(
      ann,
      'challenge-notice',
      'Bob declined your challenge: This is not the right time for me, please ask again later.',
    );
    assert.ok(await bob.locator(byTestId('challenges-error')).isHidden());

    // Ann cancels an unlimited challenge before Bob answers it.
    await challenge(ann, 'bob', 'unlimited', 'white');
    await waitListed(bob, 'in', ['Ann challenges you: Unlimited · You play black [Accept Decline]']);
    await ann.click(byTestId('challenge-cancel'));
    await waitListed(bob, 'in', []);
    await waitListed(ann, 'out', []);
    await waitForText(bob, 'challenge-notice', "Ann's challenge was withdrawn");
    assert.deepEqual(await pendingOf(BOB), { in: [], out: [] });
    assert.equal(new URL(ann.url()).pathname, '/', 'no game opened');
    assert.equal(new URL(bob.url()).pathname, '/');

    // A challenge the service refuses shows its message under the form.
    await challenge(ann, 'nobody', { minutes: 5, increment: 0 }, 'random');
    await ann.waitForSelector(`${byTestId('challenge-error')}[data-code="PLAYER_NOT_FOUND"]`);
    await waitListed(ann, 'out', []);
  }),
);

/** Fills and sends the seek form. */
async function seek(page: Page, control: { minutes: number; increment: number } | { days: number }): Promise<void> {
  if ('days' in control) {
    await page.selectOption(byTestId('seek-kind'), 'correspondence');
    await page.selectOption(byTestId('seek-days'), String(control.days));
  } else {
    await page.selectOption(byTestId('seek-kind'), 'realtime');
    await page.fill(byTestId('seek-minutes'), String(control.minutes));
    await page.fill(byTestId('seek-increment'), String(control.increment));
  }
  await page.click(byTestId('seek-submit'));
}

/** Waits until the open seeks of a pool ('300+0', '3d') are those of these players, oldest first. */
async function waitOpenSeeks(pool: string, players: string[]): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const open = (await env.store.openSeeks(pool, Date.now(), 10)).map(found => found.player.id);
    if (JSON.stringify(open) === JSON.stringify(players)) return;
    if (Date.now() > deadline) assert.deepEqual(open, players, `the open seeks of ${pool}`);
    await new Promise(resolve => setTimeout(resolve, 25));
  }
}

/** Whether a page shows it is searching: the status's words, Cancel offered, the form waiting. */
async function searching(page: Page, words: string): Promise<void> {
  await waitForText(page, 'seek-status', words);
  assert.ok(await page.isVisible(byTestId('seek-cancel')), 'Cancel is offered');
  assert.ok(await page.isDisabled(byTestId('seek-submit')), 'one search at a time');
  assert.equal(await page.getAttribute(byTestId('seek-status'), 'aria-live'), 'polite');
}

/** Cancels a page's search: its words go, and so does Cancel. */
async function cancelSeek(page: Page): Promise<void> {
  await page.click(byTestId('seek-cancel'));
  await waitForText(page, 'seek-status', '');
  assert.ok(await page.isHidden(byTestId('seek-cancel')));
  assert.ok(await page.isEnabled(byTestId('seek-submit')));
}

test('a seek searches until canceled and pairs with nobody after; two seeks of 5+0 make one game', { skip }, t =>
  env.run(t, async ({ open }) => {
    const ann = await openAs(open, ANN);
    const bob = await openAs(open, BOB);

    // 1. Ann seeks 5+0: the page says it is searching and offers Cancel; the service holds her seek.
    await seek(ann, { minutes: 5, increment: 0 });
    await searching(ann, 'Searching for an opponent (5+0)…');
    await waitOpenSeeks('300+0', ['ann']);
    // 2. She cancels: the seek is withdrawn (the request closed).
    await cancelSeek(ann);
    await waitOpenSeeks('300+0', []);

    // 3. A correspondence seek is answered with its id at once and withdrawn by Cancel too.
    await seek(ann, { days: 3 });
    await searching(ann, 'Searching for an opponent (3 days per move)…');
    await waitOpenSeeks('3d', ['ann']);
    await cancelSeek(ann);
    await waitOpenSeeks('3d', []);

    // 4. Bob seeks 5+0: Ann's canceled seek does not pair with his, he waits.
    await seek(bob, { minutes: 5, increment: 0 });
    await searching(bob, 'Searching for an opponent (5+0)…');
    await waitOpenSeeks('300+0', ['bob']);
    await bob.waitForTimeout(300);
    await searching(bob, 'Searching for an opponent (5+0)…');
    assert.equal(new URL(bob.url()).pathname, '/');

    // 5. Ann seeks 5+0 too: both windows open the same new game, each on its own side, and play it.
    await seek(ann, { minutes: 5, increment: 0 });
    await ann.waitForURL(/\/game\/[A-Za-z0-9]{8}$/);
    const id = gameIdOf(ann);
    await bob.waitForURL(`${env.url}/game/${id}`);
    for (const page of [ann, bob]) await waitForText(page, 'seek-status', '');
    await waitOpenSeeks('300+0', []);
    const game = JSON.parse((await env.api('GET', `/api/board/game/${id}`, undefined, tokens.ann)).body);
    assert.deepEqual(game.clock, { initial: 300_000, increment: 0 }, 'the time control sought');
    assert.deepEqual([game.white.id, game.black.id].sort(), ['ann', 'bob']);
    const [white, black] = game.white.id === 'ann' ? [ann, bob] : [bob, ann];
    await waitForText(white, 'seat', 'You play white');
    await waitForText(black, 'seat', 'You play black');
    await clickMove(white, 'e2', 'e4', 'white');
    await waitForFen(black, AFTER_E4);
    assert.ok(await neverReloaded(ann));
    assert.ok(await neverReloaded(bob));
  }),
);

test('without a player token the panel says that challenges need one', { skip }, t =>
  env.run(t, async ({ open }) => {
    const page = await open('/');
    await page.waitForSelector(byTestId('play-needs-player'), { state: 'visible' });
    assert.match((await page.textContent(byTestId('play-needs-player'))) ?? '', /need a player token/);
    assert.ok(await page.locator(byTestId('challenge-form')).isHidden());
    assert.ok(await page.locator(byTestId('seek-form')).isHidden());
  }),
);
