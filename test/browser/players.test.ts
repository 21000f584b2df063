/// <reference lib="dom" />
// (the functions given to page.evaluate run in the browser)
/**
 * The board page with player tokens (DECISIONS §13): two people in two windows (two browser contexts, so two
 * token stores), each holding one side, and a third person with no seat. Each window says which side it holds,
 * lets its player move only their own pieces on their own turn, and shows only the actions the service would
 * accept from that player: takebacks and draws offered in one window are answered in the other. A game between two
 * players is paired by the service token, as an operator would (DECISIONS §13a); a player's own form makes only
 * practice boards, and says how to play someone else.
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
  clickSquare,
  gameIdOf,
  startBrowserEnv,
  typeMove,
  waitForFen,
  waitForText,
  waitLive,
  waitMovable,
  type BrowserEnv,
  type RunContext,
} from './harness.ts';

const chromiumPath = findExecutable('chromium');
const skip = skipReason('chromium', chromiumPath);

const SERVICE = 'browser-players-service-token';
const ANN = { id: 'ann', displayName: 'Ann' };
const BOB = { id: 'bob', displayName: 'Bob' };
const CID = { id: 'cid', displayName: 'Cid' };

let env: BrowserEnv;
const tokens: Record<string, string> = {};
before(async () => {
  if (skip) return;
  const playerTokens = new PlayerTokens({ store: new MemoryGameStore(), now: Date.now });
  env = await startBrowserEnv(chromiumPath!, { playerTokens, tokens: [SERVICE] });
  for (const player of [ANN, BOB, CID]) tokens[player.id] = (await playerTokens.issue(player)).token;
});
after(async () => {
  if (!skip) await env.close();
});

const AFTER_E4 = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';
const AFTER_E4_E5 = 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2';
const AFTER_NF3 = 'rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2';

/** Every button that changes a game, and the move box's. */
const ACTIONS = [
  'undo',
  'redo',
  'resign',
  'draw-offer',
  'draw-accept',
  'draw-decline',
  'draw-claim',
  'takeback-offer',
  'takeback-accept',
  'takeback-decline',
  'abort',
  'move-submit',
];

/** A game between two players, paired by the service token as an operator would; its id. */
async function paired(white: typeof ANN, black: typeof ANN, clock?: object): Promise<string> {
  const created = await env.api('POST', '/api/board/game', { white, black, ...(clock ? { clock } : {}) }, SERVICE);
  assert.equal(created.statusCode, 201, created.body);
  return (JSON.parse(created.body) as { gameId: string }).gameId;
}

/** A game of Ann (white) against Bob, with `moves` played by whoever is to move. */
async function annVersusBob(moves: string[] = []): Promise<string> {
  const id = await paired(ANN, BOB);
  for (const [index, uci] of moves.entries()) {
    const token = index % 2 === 0 ? tokens.ann : tokens.bob;
    const res = await env.api('POST', `/api/board/game/${id}/move/${uci}`, undefined, token);
    assert.equal(res.statusCode, 200, res.body);
  }
  return id;
}

/** A window of its own for `player`: the token saved through the page's form, then `path` opened (and followed). */
async function openAs(open: RunContext['open'], player: { id: string }, path: string): Promise<Page> {
  const page = await open('/');
  await page.click(`${byTestId('settings')} summary`);
  await page.fill(byTestId('token-input'), tokens[player.id]!);
  await page.click(byTestId('token-save'));
  await waitForText(page, 'token-state', 'A token is set.');
  await page.goto(`${env.url}${path}`);
  if (path !== '/') await waitLive(page);
  return page;
}

/** A game as the API shows it (to Ann, who plays in every game made here). */
async function gameOf(id: string): Promise<Record<string, unknown>> {
  const res = await env.api('GET', `/api/board/game/${id}`, undefined, tokens.ann);
  assert.equal(res.statusCode, 200, res.body);
  return JSON.parse(res.body) as Record<string, unknown>;
}

/** The action buttons a page shows. */
const shownActions = async (page: Page): Promise<string[]> => {
  const shown: string[] = [];
  for (const testid of ACTIONS) if (await page.locator(byTestId(testid)).isVisible()) shown.push(testid);
  return shown;
};

/** Waits until the page shows exactly these action buttons (they follow the stream, so not at once). */
async function waitForActions(page: Page, expected: string[]): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const shown = await shownActions(page);
    if (JSON.stringify(shown) === JSON.stringify(expected)) return;
    if (Date.now() > deadline) assert.deepEqual(shown, expected, 'the action buttons shown');
    await page.waitForTimeout(25);
  }
}

test('two players in two windows: each holds its side and moves only its pieces; a spectator follows', { skip }, t =>
  env.run(t, async ({ open }) => {
    const id = await paired(ANN, BOB);
    const ann = await openAs(open, ANN, `/game/${id}`);
    const game = await gameOf(id);
    assert.deepEqual([game.white, game.black, game.clock], [ANN, BOB, null], 'Ann against Bob');
    const bob = await openAs(open, BOB, `/game/${id}`);
    const cid = await openAs(open, CID, `/game/${id}`);
    await waitForText(ann, 'seat', 'You play white');
    await waitForText(bob, 'seat', 'You play black');
    await waitForText(cid, 'seat', 'You are watching');
    await bob.waitForSelector(`${byTestId('board')}.orientation-black`); // Bob's own side at the bottom
    assert.equal(await ann.locator(`${byTestId('player-bottom')} .tag.you`).count(), 1, "Ann's row says you");
    assert.equal(await cid.locator('.player .tag.you').count(), 0, 'a spectator has no row of their own');

    // White's turn: only Ann can move. Bob's click on his own pawn sends nothing, his move box is off.
    await waitMovable(ann, 'white');
    await waitForActions(ann, ['resign', 'draw-offer', 'move-submit']);
    await waitForActions(bob, ['resign', 'draw-offer', 'move-submit']);
    await waitForActions(cid, []);
    assert.equal(await bob.getAttribute(byTestId('board'), 'data-movable'), '');
    assert.ok(await bob.isDisabled(byTestId('move-input')));
    assert.ok(await cid.locator(byTestId('move-form')).isHidden(), 'a spectator has no move box');
    await clickSquare(bob, 'e7');
    await clickSquare(bob, 'e5');
    await clickMove(ann, 'e2', 'e4', 'white');
    for (const page of [ann, bob, cid]) await waitForFen(page, AFTER_E4);
    assert.ok(await bob.locator(byTestId('error')).isHidden(), 'nothing was sent for Bob out of turn');

    // Black's turn: now Bob moves, Ann cannot; Ann may ask to take her move back, nobody may undo.
    await waitMovable(bob, 'black');
    assert.equal(await ann.getAttribute(byTestId('board'), 'data-movable'), '');
    assert.ok(await ann.isDisabled(byTestId('move-input')));
    await waitForActions(ann, ['resign', 'draw-offer', 'takeback-offer', 'move-submit']);
    await clickMove(bob, 'e7', 'e5', 'black');
    for (const page of [ann, bob, cid]) await waitForFen(page, AFTER_E4_E5);
    await typeMove(ann, 'Nf3');
    await waitForFen(cid, AFTER_NF3);
    await waitForText(cid, 'moves', /1\.\s*e4\s*e5\s*2\.\s*Nf3/);
    await waitForActions(cid, []);
    assert.ok(await cid.isVisible(byTestId('flip')), 'a spectator may still turn the board');
    assert.equal(await cid.getAttribute(byTestId('board'), 'data-movable'), '');
  }),
);

test('a takeback and a draw offered in one window are answered in the other; the spectator sees them', { skip }, t =>
  env.run(t, async ({ open }) => {
    const id = await annVersusBob(['e2e4', 'e7e5', 'g1f3']);
    const ann = await openAs(open, ANN, `/game/${id}`);
    const bob = await openAs(open, BOB, `/game/${id}`);
    const cid = await openAs(open, CID, `/game/${id}`);
    await waitForFen(ann, AFTER_NF3);

    // Ann asks to take Nf3 back; Bob declines, then accepts her second request.
    await waitForActions(ann, ['resign', 'draw-offer', 'takeback-offer', 'move-submit']);
    await ann.click(byTestId('takeback-offer'));
    for (const page of [ann, bob, cid]) await waitForText(page, 'offers', 'White offers a takeback');
    await waitForActions(ann, ['resign', 'draw-offer', 'move-submit']);
    await waitForActions(bob, ['resign', 'draw-offer', 'takeback-accept', 'takeback-decline', 'move-submit']);
    await waitForActions(cid, []);
    await bob.click(byTestId('takeback-decline'));
    await ann.waitForSelector(`${byTestId('offers')}[hidden]`, { state: 'attached' });
    await waitForActions(bob, ['resign', 'draw-offer', 'takeback-offer', 'move-submit']);
    await ann.click(byTestId('takeback-offer'));
    await waitForText(bob, 'offers', 'White offers a takeback');
    await bob.click(byTestId('takeback-accept'));
    for (const page of [ann, bob, cid]) await waitForFen(page, AFTER_E4_E5);
    await waitMovable(ann, 'white');
    await waitForText(cid, 'moves', /^1\.\s*e4\s*e5$/);

    // Bob offers a draw on White's turn; Ann accepts it.
    await bob.click(byTestId('draw-offer'));
    for (const page of [ann, bob, cid]) await waitForText(page, 'status', 'Black offers a draw');
    await waitForActions(ann, ['resign', 'draw-accept', 'draw-decline', 'takeback-offer', 'move-submit']);
    await waitForActions(bob, ['resign', 'takeback-offer', 'move-submit']);
    await waitForActions(cid, []);
    await ann.click(byTestId('draw-accept'));
    for (const page of [ann, bob, cid]) {
      await waitForText(page, 'status', 'Draw');
      await waitForText(page, 'result', 'Draw');
      await waitForActions(page, page === cid ? [] : ['move-submit']);
    }
    assert.ok(await ann.isDisabled(byTestId('move-input')), 'the game is over');
  }),
);

test('a game a player starts alone is a practice board: both sides, with undo and redo', { skip }, t =>
  env.run(t, async ({ open }) => {
    const page = await openAs(open, ANN, '/');
    await page.click(byTestId('create-game'));
    await page.waitForURL(/\/game\/[A-Za-z0-9]{8}$/);
    await waitLive(page);
    await waitForText(page, 'seat', 'You play both sides');
    await waitForText(page, 'player-black', 'Ann');
    await typeMove(page, 'e4');
    await waitForFen(page, AFTER_E4);
    await clickMove(page, 'e7', 'e5', 'black');
    await waitForFen(page, AFTER_E4_E5);
    await waitForActions(page, ['undo', 'redo', 'resign', 'draw-offer', 'move-submit']);
    assert.ok(await page.isDisabled(byTestId('redo')));
    await page.click(byTestId('undo'));
    await waitForFen(page, AFTER_E4);
    await page.click(byTestId('redo'));
    await waitForFen(page, AFTER_E4_E5);
  }),
);

test("a player's form makes a practice board, with a clock, and says to challenge anyone else", { skip }, t =>
  env.run(t, async ({ open }) => {
    const ann = await openAs(open, ANN, '/');
    await waitForText(ann, 'playing-as', /^You play as Ann: a game started here is a practice board.*challenge them/);
    assert.ok(await ann.locator(byTestId('names')).isHidden(), 'a player names nobody: the token seats them');
    await ann.selectOption(byTestId('time-control'), '5+3');
    await ann.click(byTestId('create-game'));
    await ann.waitForURL(/\/game\/[A-Za-z0-9]{8}$/);
    await waitLive(ann);
    const game = await gameOf(gameIdOf(ann));
    assert.deepEqual([game.white, game.black, game.clock], [ANN, ANN, { initial: 300_000, increment: 3_000 }]);
    await waitForText(ann, 'seat', 'You play both sides');
    await clickMove(ann, 'e2', 'e4', 'white');
    await clickMove(ann, 'e7', 'e5', 'black');
    await waitForFen(ann, AFTER_E4_E5);
  }),
);

test('a whole game paired with Ann as Black, with a clock: clocks and result in both windows', { skip }, t =>
  env.run(t, async ({ open }) => {
    const id = await paired(BOB, ANN, { initial: 300_000, increment: 3_000 });
    const ann = await openAs(open, ANN, `/game/${id}`);
    const game = await gameOf(id);
    assert.deepEqual([game.white, game.black, game.clock], [BOB, ANN, { initial: 300_000, increment: 3_000 }]);
    await waitForText(ann, 'seat', 'You play black');
    const bob = await openAs(open, BOB, `/game/${id}`);
    await waitForText(bob, 'seat', 'You play white');
    for (const page of [ann, bob]) {
      await waitForText(page, 'clock-white', '5:00');
      await waitForText(page, 'clock-black', '5:00');
    }

    // Until both have moved, either may abort and no clock runs; Black's first move starts White's clock.
    await waitForActions(ann, ['resign', 'draw-offer', 'abort', 'move-submit']);
    await clickMove(bob, 'f2', 'f3', 'white');
    await waitForActions(bob, ['resign', 'draw-offer', 'takeback-offer', 'abort', 'move-submit']);
    assert.equal(await ann.getAttribute(byTestId('clock-black'), 'data-running'), 'false');
    await clickMove(ann, 'e7', 'e5', 'black');
    for (const page of [ann, bob]) {
      await page.waitForSelector(`${byTestId('clock-white')}[data-running="true"]`);
      await page.waitForSelector(`${byTestId('abort')}[hidden]`, { state: 'attached' });
    }
    await clickMove(bob, 'g2', 'g4', 'white');
    await ann.waitForSelector(`${byTestId('clock-black')}[data-running="true"]`);
    await clickMove(ann, 'd8', 'h4', 'black');
    for (const page of [ann, bob]) {
      await waitForText(page, 'status', 'Checkmate');
      await waitForText(page, 'result', 'Black wins');
      await page.waitForSelector(`${byTestId('clock-black')}[data-running="false"]`);
      assert.equal(await page.getAttribute(byTestId('clock-white'), 'data-running'), 'false');
    }
  }),
);
