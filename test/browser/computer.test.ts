/// <reference lib="dom" />
// (the functions given to page.evaluate run in the browser)
/**
 * Playing the computer from the board page (DECISIONS §18), with authentication off, as after `npm start`: the
 * "Play the computer" form starts a game against the engine and opens it on the person's side; the person moves by
 * clicking, the engine's reply comes on the game's stream without a reload, and the engine's pieces never move from
 * the page, even though a page without a token acts for any side. The engine is a stand-in that plays the first
 * legal move (test/helpers/engine.ts), so the test does not wait on a real engine's search.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Chess } from 'chessops/chess';
import { makeFen } from 'chessops/fen';
import { parseUci } from 'chessops/util';
import type { Page } from 'playwright-core';
import type { EnginePool } from '../../src/engine/index.ts';
import { FirstMoveEngine } from '../helpers/engine.ts';
import { findExecutable, skipReason } from '../helpers/external.ts';
import {
  byTestId,
  clickMove,
  clickSquare,
  gameIdOf,
  startBrowserEnv,
  waitForFen,
  waitForText,
  waitLive,
  waitMovable,
  type BrowserEnv,
} from './harness.ts';

const chromiumPath = findExecutable('chromium');
const skip = skipReason('chromium', chromiumPath);

const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

/** The engine of the test running; the app asks it through `pool`. */
let engine = new FirstMoveEngine();
const pool: EnginePool = {
  available: () => engine.available(),
  search: (request, signal) => engine.search(request, signal),
  close: () => Promise.resolve(),
};

let env: BrowserEnv;
before(async () => {
  if (!skip) env = await startBrowserEnv(chromiumPath!, { engine: pool });
});
after(async () => {
  if (!skip) await env.close();
});

/** The stand-in's move after `moves` from the start, and the FEN it leaves, worked out here as the service would. */
async function engineReply(moves: string[]): Promise<{ uci: string; fen: string }> {
  const { uci } = await new FirstMoveEngine().search({ fen: START_FEN, moves, level: 1 });
  const pos = Chess.default();
  for (const move of [...moves, uci]) pos.play(parseUci(move)!);
  return { uci, fen: makeFen(pos.toSetup()) };
}

interface ComputerForm {
  level: number;
  color: 'random' | 'white' | 'black';
  control: { minutes: number; increment: number } | 'unlimited';
}

/** Fills the "Play the computer" form as a person would (the level by its label in the "Level" group) and starts. */
async function playComputer(page: Page, form: ComputerForm): Promise<void> {
  await page
    .getByRole('group', { name: 'Level' })
    .getByRole('radio', { name: String(form.level) })
    .check();
  if (form.control === 'unlimited') {
    await page.selectOption(byTestId('computer-kind'), 'unlimited');
  } else {
    await page.selectOption(byTestId('computer-kind'), 'realtime');
    await page.fill(byTestId('computer-minutes'), String(form.control.minutes));
    await page.fill(byTestId('computer-increment'), String(form.control.increment));
  }
  await page.selectOption(byTestId('computer-color'), form.color);
  await page.click(byTestId('computer-submit'));
}

/** The game as the API shows it. */
async function gameOf(
  id: string,
): Promise<{ white: object; black: object; clock: unknown; state: { moves: string[] } }> {
  const res = await env.api('GET', `/api/board/game/${id}`);
  assert.equal(res.statusCode, 200, res.body);
  return JSON.parse(res.body) as Awaited<ReturnType<typeof gameOf>>;
}

test(
  'level 2, white, 5+0: the person moves by clicking, the engine replies by itself; its pieces never move',
  { skip },
  t =>
    env.run(t, async ({ open }) => {
      engine = new FirstMoveEngine(600); // long enough to try the engine's pieces while it thinks
      const page = await open('/');
      await playComputer(page, { level: 2, color: 'white', control: { minutes: 5, increment: 0 } });

      // 1. The game opens on the person's side, against the engine's seat.
      await page.waitForURL(/\/game\/[A-Za-z0-9]{8}$/);
      const id = gameIdOf(page);
      await waitLive(page);
      await page.waitForSelector(`${byTestId('board')}.orientation-white`);
      await waitForText(page, 'player-black', 'Stockfish level 2');
      await waitForText(page, 'seat', 'You play white');
      assert.equal(
        await page.locator(`${byTestId('player-top')} .tag.computer`).count(),
        1,
        'the top row is the engine',
      );
      assert.equal(await page.locator(`${byTestId('player-bottom')} .tag.you`).count(), 1, "the person's row says you");
      for (const action of ['draw-offer', 'takeback-offer']) {
        assert.equal(await page.locator(byTestId(action)).isVisible(), false, `no ${action}: the engine answers none`);
      }
      const game = await gameOf(id);
      assert.deepEqual(game.black, { id: 'stockfish', displayName: 'Stockfish level 2' });
      assert.deepEqual(game.clock, { initial: 300_000, increment: 0 }, 'the clock chosen: 5+0');
      await page.evaluate(() => ((window as unknown as { sameWindow: boolean }).sameWindow = true));

      // 2. The person plays e2e4 by clicking; while the engine thinks, its pieces cannot be moved.
      await clickMove(page, 'e2', 'e4', 'white');
      await waitForFen(page, 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1');
      assert.equal(await page.locator(byTestId('board')).getAttribute('data-movable'), '', 'black is not movable');
      assert.equal(await page.locator(byTestId('move-input')).isDisabled(), true, 'the move box waits too');
      await clickSquare(page, 'e7');
      await clickSquare(page, 'e5');

      // 3. The engine's reply arrives on the stream, in the same window, and the person is to move again.
      const reply = await engineReply(['e2e4']);
      assert.notEqual(reply.uci, 'e7e5', 'the reply differs from the move tried for the engine');
      await waitForFen(page, reply.fen);
      await waitMovable(page, 'white');
      assert.equal(await page.locator(`${byTestId('moves')} .san:not(.empty)`).count(), 2, 'two moves listed');
      assert.equal(
        await page.evaluate(() => (window as unknown as { sameWindow?: boolean }).sameWindow),
        true,
        'no reload',
      );
      assert.deepEqual((await gameOf(id)).state.moves, ['e2e4', reply.uci], "the engine's move, not the page's");
    }),
);

test('colour black: the engine moves first and the board shows it, the person to move at the bottom', { skip }, t =>
  env.run(t, async ({ open }) => {
    engine = new FirstMoveEngine();
    const page = await open('/');
    // The level chosen with the keyboard: from the default (3) one to the right.
    await page.focus(byTestId('computer-level-3'));
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.locator(byTestId('computer-level-4')).isChecked(), true, 'arrow keys choose the level');
    await page.selectOption(byTestId('computer-kind'), 'unlimited');
    await page.selectOption(byTestId('computer-color'), 'black');
    await page.click(byTestId('computer-submit'));

    await page.waitForURL(/\/game\/[A-Za-z0-9]{8}$/);
    const id = gameIdOf(page);
    await page.waitForSelector(`${byTestId('board')}.orientation-black`);
    await waitForText(page, 'player-white', 'Stockfish level 4');
    await waitForText(page, 'seat', 'You play black');
    const first = await engineReply([]);
    await waitForFen(page, first.fen);
    await waitMovable(page, 'black');
    const game = await gameOf(id);
    assert.deepEqual(game.white, { id: 'stockfish', displayName: 'Stockfish level 4' });
    assert.deepEqual([game.clock, game.state.moves], [null, [first.uci]], 'unlimited; the engine moved first');
  }),
);

test('no engine can start: the form shows the 503 and no game opens', { skip }, t =>
  env.run(t, async ({ open }) => {
    engine = new FirstMoveEngine();
    engine.up = false;
    const page = await open('/');
    await playComputer(page, { level: 2, color: 'white', control: { minutes: 5, increment: 0 } });
    await page.waitForSelector(`${byTestId('computer-error')}[data-code="UNAVAILABLE"]`);
    await waitForText(page, 'computer-error', /computer opponent is unavailable/);
    assert.equal(new URL(page.url()).pathname, '/', 'still in the lobby');
    assert.equal(await page.locator('body.no-game').count(), 1, 'no game on the board');
    assert.equal(await page.locator(byTestId('computer-submit')).isDisabled(), false, 'the form can be sent again');
  }),
);
