/// <reference lib="dom" />
// (the functions given to page.evaluate run in the browser)
/**
 * Clocks on the board page (DECISIONS §14): a time control chosen in the forms, two clocks at the players' rows
 * that count down for the side to move once both sides have moved, the flag the service raises by itself reaching
 * the page through its stream, and the Abort button before both sides have moved.
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
  waitForText,
  waitLive,
  waitMovable,
  type BrowserEnv,
} from './harness.ts';

const chromiumPath = findExecutable('chromium');
const skip = skipReason('chromium', chromiumPath);

let env: BrowserEnv;
before(async () => {
  if (!skip) env = await startBrowserEnv(chromiumPath!);
});
after(async () => {
  if (!skip) await env.close();
});

/** A clock's text in milliseconds ('2:59', '1:00:00', '0:09.3'). */
function clockMs(text: string): number {
  const match = /^(?:(\d+):)?(\d+):(\d\d)(?:\.(\d))?$/.exec(text.trim());
  assert.ok(match, `${JSON.stringify(text)} is no clock`);
  const [, hours = '0', minutes, seconds, tenths = '0'] = match;
  return ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000 + Number(tenths) * 100;
}

const clockText = async (page: Page, color: 'white' | 'black') =>
  ((await page.locator(byTestId(`clock-${color}`)).textContent()) ?? '').trim();

const isRunning = async (page: Page, color: 'white' | 'black') =>
  (await page.getAttribute(byTestId(`clock-${color}`), 'data-running')) === 'true';

/** A game made through the API (as another client would), its id. */
async function created(path: string, body: object): Promise<string> {
  const res = await env.api('POST', `/api/board/game${path}`, body);
  assert.equal(res.statusCode, 201, res.body);
  return (JSON.parse(res.body) as { gameId: string }).gameId;
}

async function moveByApi(id: string, uci: string): Promise<void> {
  const res = await env.api('POST', `/api/board/game/${id}/move/${uci}`);
  assert.equal(res.statusCode, 200, res.body);
}

test("a time control from the form: no clock runs before both first moves, then the side to move's", { skip }, t =>
  env.run(t, async ({ open }) => {
    const page = await open('/');
    await page.selectOption(byTestId('time-control'), '3+2');
    await page.click(byTestId('create-game'));
    await page.waitForURL(/\/game\/[A-Za-z0-9]{8}$/);
    await waitLive(page);
    const game = JSON.parse((await env.api('GET', `/api/board/game/${gameIdOf(page)}`)).body) as { clock: unknown };
    assert.deepEqual(game.clock, { initial: 180_000, increment: 2_000 }, 'the form sent the time control in ms');

    // 1. Before both sides have moved, nothing runs; the side to move's clock is highlighted; Abort is offered.
    await waitForText(page, 'clock-white', '3:00');
    await waitForText(page, 'clock-black', '3:00');
    assert.ok(await page.locator(`${byTestId('clock-white')}.active`).isVisible(), "the side to move's clock");
    assert.ok(await page.locator(byTestId('abort')).isVisible());
    await clickMove(page, 'e2', 'e4', 'white');
    await page.waitForSelector(`${byTestId('clock-black')}.active`);
    await page.waitForTimeout(1200);
    assert.equal(await clockText(page, 'black'), '3:00', "black's first move is untimed");
    assert.equal(await isRunning(page, 'black'), false);

    // 2. Black's first move starts White's clock: it counts down, Black's does not; Abort goes.
    await clickMove(page, 'e7', 'e5', 'black');
    await page.waitForSelector(`${byTestId('clock-white')}[data-running="true"]`);
    await page.waitForSelector(`${byTestId('abort')}[hidden]`, { state: 'attached' });
    const white = clockMs(await clockText(page, 'white'));
    const black = await clockText(page, 'black');
    await page.waitForTimeout(1500);
    const whiteLater = clockMs(await clockText(page, 'white'));
    assert.ok(whiteLater < white, `white's clock runs: ${white} then ${whiteLater}`);
    assert.ok(white - whiteLater <= 2500, `about the time waited: ${white} then ${whiteLater}`);
    assert.equal(await clockText(page, 'black'), black, "black's clock stands");
    assert.equal(await isRunning(page, 'black'), false);

    // 3. White moves: its increment is added, and Black's clock runs.
    await clickMove(page, 'g1', 'f3', 'white');
    await page.waitForSelector(`${byTestId('clock-black')}[data-running="true"]`);
    assert.equal(await isRunning(page, 'white'), false);
    const whiteAfterMove = clockMs(await clockText(page, 'white'));
    assert.ok(whiteAfterMove > whiteLater, `the increment: ${whiteLater} then ${whiteAfterMove}`);
    const blackRunning = clockMs(await clockText(page, 'black'));
    await page.waitForTimeout(1200);
    assert.ok(clockMs(await clockText(page, 'black')) < blackRunning, "black's clock runs now");
  }),
);

test('a flag falls: the service ends the game, the page shows it from its stream with no request', { skip }, t =>
  env.run(t, async ({ open }) => {
    const id = await created('', { clock: { initial: 1000, increment: 0 } });
    const page = await open(`/game/${id}`);
    await waitLive(page);
    await waitForText(page, 'clock-white', '0:01.0');
    assert.ok(await page.locator(`${byTestId('clock-white')}.low`).isVisible(), 'a second is little time');

    // 1. Both first moves (from another client); from then on, only the legal moves of the new position are asked.
    const requests: string[] = [];
    page.on('request', request => requests.push(new URL(request.url()).pathname));
    await moveByApi(id, 'e2e4');
    await moveByApi(id, 'e7e5');

    // 2. White's second runs out; the service flags it, and the stream brings the end.
    await waitForText(page, 'result', 'White ran out of time · Black wins', 4000);
    await waitForText(page, 'status', 'Out of time');
    await waitForText(page, 'clock-white', '0:00.0');
    assert.equal(await isRunning(page, 'white'), false);
    assert.equal(await isRunning(page, 'black'), false);
    assert.ok(await page.locator(`${byTestId('player-top')} .tag.winner`).isVisible(), 'Black is the winner');
    assert.deepEqual(
      requests.filter(path => !path.endsWith('/moves')),
      [],
      'the page learned of the flag from its stream',
    );
    const ended = JSON.parse((await env.api('GET', `/api/board/game/${id}`)).body) as { state: { status: string } };
    assert.equal(ended.state.status, 'outOfTime');
  }),
);

test('the Abort button ends a clocked game before both sides have moved', { skip }, t =>
  env.run(t, async ({ open }) => {
    const id = await created('', { clock: { initial: 60_000, increment: 0 } });
    const page = await open(`/game/${id}`);
    await waitLive(page);
    await clickMove(page, 'd2', 'd4', 'white');
    await waitMovable(page, 'black');
    assert.ok(await page.locator(byTestId('abort')).isVisible(), 'abortable while Black has not moved');
    await page.click(byTestId('abort'));
    await waitForText(page, 'status', 'Aborted');
    await waitForText(page, 'result', 'No result');
    await page.waitForSelector(`${byTestId('abort')}[hidden]`, { state: 'attached' });
    assert.ok(await page.locator(byTestId('resign')).isHidden(), 'the game is over');
    assert.equal(await isRunning(page, 'black'), false);
    const ended = JSON.parse((await env.api('GET', `/api/board/game/${id}`)).body) as { state: { status: string } };
    assert.equal(ended.state.status, 'aborted');

    // An untimed game has neither clocks nor Abort.
    const untimed = await created('', {});
    await page.goto(`${env.url}/game/${untimed}`);
    await waitLive(page);
    await waitForText(page, 'turn', 'White to move');
    assert.equal(await page.locator('.player .clock').count(), 0);
    assert.ok(await page.locator(byTestId('abort')).isHidden());
  }),
);

test('correspondence: the deadline in words; a PGN imported with a time control runs at once', { skip }, t =>
  env.run(t, async ({ open }) => {
    const page = await open('/');
    await page.selectOption(byTestId('time-control'), '3d');
    await page.click(byTestId('create-game'));
    await page.waitForURL(/\/game\/[A-Za-z0-9]{8}$/);
    await waitLive(page);
    await waitForText(page, 'clock-white', '3 days per move');
    await clickMove(page, 'e2', 'e4', 'white');
    await clickMove(page, 'e7', 'e5', 'black');
    await waitForText(page, 'clock-white', '2 days 23 h left');
    await waitForText(page, 'clock-black', '3 days per move');
    assert.equal(await isRunning(page, 'white'), true);

    // A PGN's moves count as first moves: its clock runs from the import.
    await page.click(`${byTestId('import')} summary`);
    await page.selectOption(byTestId('import-time-control'), '5+3');
    await page.fill(byTestId('import-pgn-input'), '1. e4 e5 2. Nf3 *');
    await page.click(byTestId('import-pgn-submit'));
    await waitForText(page, 'moves', /1\.\s*e4\s*e5\s*2\.\s*Nf3/);
    await page.waitForSelector(`${byTestId('clock-black')}[data-running="true"]`);
    await waitForText(page, 'clock-white', '5:00');
    const game = JSON.parse((await env.api('GET', `/api/board/game/${gameIdOf(page)}`)).body) as { clock: unknown };
    assert.deepEqual(game.clock, { initial: 300_000, increment: 3_000 });
  }),
);
