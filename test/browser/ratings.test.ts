/// <reference lib="dom" />
// (the functions given to page.evaluate run in the browser)
/**
 * A rated game on the board page (DECISIONS §21), from the challenge to the rating change: Ann challenges Bob with
 * the Rated box ticked; both windows show each side's rating beside its name (new players: 1500, provisional), and
 * when Bob mates, both show each side's change, as the API rates it; Bob's player card then shows his new rating,
 * its history and the game.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { findExecutable, skipReason } from '../helpers/external.ts';
import { byTestId, clickMove, startBrowserEnv, waitForText, type BrowserEnv, type RunContext } from './harness.ts';

const chromiumPath = findExecutable('chromium');
const skip = skipReason('chromium', chromiumPath);

const ANN = { id: 'ann', displayName: 'Ann' };
const BOB = { id: 'bob', displayName: 'Bob' };

let env: BrowserEnv;
const tokens: Record<string, string> = {};
before(async () => {
  if (skip) return;
  env = await startBrowserEnv(chromiumPath!, { challenges: true, tokens: ['browser-ratings-service-token'] });
  for (const player of [ANN, BOB]) tokens[player.id] = (await env.playerTokens!.issue(player)).token;
});
after(async () => {
  if (!skip) await env.close();
});

/** A window of its own for `player`, the token saved through the page's form, the lobby live. */
async function openAs(open: RunContext['open'], player: { id: string }): Promise<Page> {
  const page = await open('/');
  await page.click(`${byTestId('settings')} summary`);
  await page.fill(byTestId('token-input'), tokens[player.id]!);
  await page.click(byTestId('token-save'));
  await waitForText(page, 'token-state', 'A token is set.');
  await page.goto(`${env.url}/`);
  await page.waitForSelector(`${byTestId('my-games-connection')}[data-state="live"]`);
  await page.waitForSelector(byTestId('challenge-form'), { state: 'visible' });
  return page;
}

test('a rated challenge to the rating change: ratings beside the names, then each side’s change', { skip }, t =>
  env.run(t, async ({ open }) => {
    const ann = await openAs(open, ANN);
    const bob = await openAs(open, BOB);

    // Ann challenges Bob to a rated 5+3, playing white.
    await ann.fill(byTestId('challenge-player'), 'bob');
    await ann.selectOption(byTestId('challenge-kind'), 'realtime');
    await ann.fill(byTestId('challenge-minutes'), '5');
    await ann.fill(byTestId('challenge-increment'), '3');
    await ann.selectOption(byTestId('challenge-color'), 'white');
    await ann.check(byTestId('challenge-rated'));
    await ann.click(byTestId('challenge-submit'));
    await bob.click(byTestId('challenge-accept'));
    for (const page of [ann, bob]) await page.waitForURL(/\/game\/[A-Za-z0-9]{8}$/);
    const id = new URL(ann.url()).pathname.split('/').at(-1)!;
    const game = JSON.parse((await env.api('GET', `/api/board/game/${id}`, undefined, tokens.ann)).body) as {
      rated?: boolean;
    };
    assert.equal(game.rated, true, `the game is rated: ${JSON.stringify(game)}`);
    for (const page of [ann, bob]) {
      await waitForText(page, 'rating-white', '1500?');
      await waitForText(page, 'rating-black', '1500?');
    }

    // Fool's mate: Bob wins; both windows show the changes, as the API has them.
    await clickMove(ann, 'f2', 'f3', 'white');
    await clickMove(bob, 'e7', 'e5', 'black');
    await clickMove(ann, 'g2', 'g4', 'white');
    await clickMove(bob, 'd8', 'h4', 'black');
    for (const page of [ann, bob]) await page.waitForSelector(byTestId('rating-diff-black'));
    const over = JSON.parse((await env.api('GET', `/api/board/game/${id}`, undefined, tokens.ann)).body) as {
      white: { ratingDiff: number };
      black: { ratingDiff: number };
    };
    assert.ok(over.white.ratingDiff < 0 && over.black.ratingDiff > 0, JSON.stringify(over));
    for (const page of [ann, bob]) {
      await waitForText(page, 'rating-diff-white', String(over.white.ratingDiff));
      await waitForText(page, 'rating-diff-black', `+${over.black.ratingDiff}`);
    }

    // Bob's player card, in his lobby: his blitz rating first, its history charted, the game among his recent ones.
    await bob.goto(`${env.url}/`);
    await bob.waitForSelector(byTestId('player-card'), { state: 'visible' });
    await waitForText(bob, 'player-card-name', 'Bob');
    const rows = await bob.locator(byTestId('player-card-perf')).allTextContents();
    assert.equal(rows[0], `Blitz${1500 + over.black.ratingDiff}?1 game`);
    assert.equal(await bob.locator(`${byTestId('player-card-chart')} polyline[data-perf="Blitz"]`).count(), 1);
    assert.equal(await bob.locator(byTestId('player-card-game')).count(), 1);
  }),
);
