/// <reference lib="dom" />
// (the functions given to page.evaluate run in the browser)
/**
 * The board page in a real browser: a person creates, plays, imports and follows games through the page,
 * which talks to the service only through its public API and stream. Needs Chromium (Debian package
 * `chromium`); without it these tests are skipped with a notice, or fail when CI_REQUIRE_EXTERNAL=1.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { findExecutable, skipReason } from '../helpers/external.ts';
import {
  byTestId,
  clickMove,
  dragMove,
  gameIdOf,
  startBrowserEnv,
  typeMove,
  waitForFen,
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

const AFTER_E4 = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';
const AFTER_E4_E5 = 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2';
const AFTER_NF3 = 'rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2';

test('a short game by clicking squares ends in mate; a promotion goes through the picker', { skip }, t =>
  env.run(t, async ({ open }) => {
    const page = await open('/');
    await waitForText(page, 'status', 'No game yet');
    await page.click(byTestId('create-game'));
    await page.waitForURL(/\/game\/[A-Za-z0-9]{8}$/);
    await waitLive(page);
    await waitForText(page, 'turn', 'White to move');

    // Fool's mate, every move by two clicks.
    await clickMove(page, 'f2', 'f3', 'white');
    await waitForText(page, 'turn', 'Black to move');
    await clickMove(page, 'e7', 'e5', 'black');
    await clickMove(page, 'g2', 'g4', 'white');
    await clickMove(page, 'd8', 'h4', 'black');
    await waitForText(page, 'status', 'Checkmate');
    await waitForText(page, 'result', 'Black wins');
    await waitForText(page, 'turn', 'Game over');
    await waitForFen(page, 'rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3');
    await waitForText(page, 'moves', /1\.\s*f3\s*e5\s*2\.\s*g4\s*Qh4#/);
    assert.equal(await page.locator(`${byTestId('status')}`).getAttribute('data-status'), 'checkmate');
    assert.equal(await page.locator(`${byTestId('board')} square.check`).count(), 1, 'the mated king is marked');
    assert.equal(await page.locator(`${byTestId('board')} square.last-move`).count(), 2, 'the last move is marked');
    assert.ok(await page.isDisabled(byTestId('resign')), 'no resigning after mate');
    assert.ok(await page.isDisabled(byTestId('draw-offer')));
    assert.ok(await page.isEnabled(byTestId('undo')), 'a mate can be taken back');
    assert.ok(await page.isDisabled(byTestId('move-input')));
    const mated = gameIdOf(page);

    // A position with a pawn on the seventh rank, from the import form; promote by clicking, pick the queen.
    await page.click(`${byTestId('import')} summary`);
    await page.fill(byTestId('import-fen-input'), '7k/P7/8/8/8/8/8/K7 w - - 0 1');
    await page.click(byTestId('import-fen-submit'));
    await page.waitForURL(url => !url.pathname.endsWith(mated));
    await waitForFen(page, '7k/P7/8/8/8/8/8/K7 w - - 0 1');
    await clickMove(page, 'a7', 'a8', 'white');
    await page.waitForSelector(`${byTestId('promotion')}:not([hidden])`);
    assert.equal(await page.locator(`${byTestId('promotion')} button`).count(), 4);
    await page.click(byTestId('promote-q'));
    await waitForFen(page, 'Q6k/8/8/8/8/8/8/K7 b - - 0 1');
    await waitForText(page, 'status', 'Black is in check');
    assert.ok(await page.locator(byTestId('promotion')).isHidden());
    await waitForText(page, 'moves', /1\.\s*a8=Q\+/);
    assert.equal(await page.locator(`${byTestId('board')} square.check`).count(), 1, 'the checked king is marked');
  }),
);

test('two pages on one game stay in sync through the stream; flip, draw offer, decline and accept', { skip }, t =>
  env.run(t, async ({ open }) => {
    const first = await open('/');
    await first.fill(byTestId('white-name'), 'Ann');
    await first.fill(byTestId('black-name'), 'Bob');
    await first.click(byTestId('create-game'));
    await first.waitForURL(/\/game\/[A-Za-z0-9]{8}$/);
    const path = new URL(first.url()).pathname;
    const second = await open(path);
    await Promise.all([waitLive(first), waitLive(second)]);
    await waitForText(second, 'player-white', 'Ann');
    await waitForText(second, 'player-black', 'Bob');

    await dragMove(first, 'e2', 'e4', 'white');
    await waitForFen(second, AFTER_E4);

    // The second player turns the board (black at the bottom) and answers by clicking.
    await second.click(byTestId('flip'));
    await second.waitForSelector(`${byTestId('board')}.orientation-black`);
    await clickMove(second, 'e7', 'e5', 'black');
    await waitForFen(first, AFTER_E4_E5);
    await waitForText(first, 'moves', /1\.\s*e4\s*e5/);

    await first.click(byTestId('draw-offer'));
    await waitForText(second, 'status', 'White offers a draw');
    assert.ok(await second.isEnabled(byTestId('draw-accept')));
    assert.ok(await second.isDisabled(byTestId('draw-offer')));
    await second.click(byTestId('draw-decline'));
    await waitForText(first, 'status', 'In progress');
    assert.ok(await first.isDisabled(byTestId('draw-accept')));

    await first.click(byTestId('draw-offer'));
    await waitForText(second, 'status', 'White offers a draw');
    await second.click(byTestId('draw-accept'));
    for (const page of [first, second]) {
      await waitForText(page, 'status', 'Draw');
      await waitForText(page, 'result', 'Draw');
      await waitForText(page, 'turn', 'Game over');
      assert.ok(await page.isDisabled(byTestId('undo')), 'an agreed draw is final');
    }
  }),
);

test('resignation and a fifty-move claim end games; the buttons follow the status', { skip }, t =>
  env.run(t, async ({ open }) => {
    const imported = await env.api('POST', '/api/board/game/import/fen', { fen: '4k3/8/8/8/8/8/8/4K2R w K - 100 80' });
    const id = (JSON.parse(imported.body) as { gameId: string }).gameId;
    const page = await open(`/game/${id}`);
    await waitForText(page, 'status', 'Fifty-move rule: a draw can be claimed');
    assert.ok(await page.isEnabled(byTestId('draw-claim')));
    await page.click(byTestId('draw-claim'));
    await waitForText(page, 'status', 'Draw');
    assert.ok(await page.isDisabled(byTestId('draw-claim')));
    assert.ok(await page.isDisabled(byTestId('resign')));

    await page.click(byTestId('create-game'));
    await page.waitForURL(url => !url.pathname.endsWith(id));
    await waitLive(page);
    assert.ok(await page.isDisabled(byTestId('draw-claim')), 'no claim before the fifty-move rule');
    await page.click(byTestId('resign'));
    await waitForText(page, 'resign', 'Confirm resign'); // a second click resigns
    await waitForText(page, 'status', 'In progress');
    await page.click(byTestId('resign'));
    await waitForText(page, 'status', 'White resigned');
    await waitForText(page, 'result', 'Black wins');
    await waitForText(page, 'player-black', 'Player 2');
    assert.equal(await page.locator(`${byTestId('player-bottom')} .tag.winner`).count(), 0);
    assert.equal(await page.locator(`${byTestId('player-top')} .tag.winner`).count(), 1, 'the winner is marked');
    assert.ok(await page.isDisabled(byTestId('draw-offer')));
  }),
);

test('undo and redo follow undoAvailable and redoAvailable; the PGN downloads', { skip }, t =>
  env.run(t, async ({ open }) => {
    const page = await open('/');
    await page.click(byTestId('create-game'));
    await waitLive(page);
    assert.ok(await page.isDisabled(byTestId('undo')));
    assert.ok(await page.isDisabled(byTestId('redo')));
    await typeMove(page, 'e4'); // SAN
    await waitForFen(page, AFTER_E4);
    await typeMove(page, 'e7e5'); // UCI
    await waitForFen(page, AFTER_E4_E5);
    await typeMove(page, 'Nf3');
    await waitForFen(page, AFTER_NF3);

    await page.click(byTestId('undo'));
    await waitForFen(page, AFTER_E4_E5);
    assert.ok(await page.isEnabled(byTestId('redo')));
    await page.click(byTestId('undo'));
    await waitForFen(page, AFTER_E4);
    await page.click(byTestId('redo'));
    await waitForFen(page, AFTER_E4_E5);
    await page.click(byTestId('redo'));
    await waitForFen(page, AFTER_NF3);
    await page.waitForSelector(`${byTestId('redo')}:disabled`);
    await waitForText(page, 'moves', /1\.\s*e4\s*e5\s*2\.\s*Nf3/);

    const [download] = await Promise.all([page.waitForEvent('download'), page.click(byTestId('download-pgn'))]);
    assert.equal(download.suggestedFilename(), `game-${new URL(page.url()).pathname.split('/').at(-1)}.pgn`);
    const stream = await download.createReadStream();
    let pgn = '';
    for await (const chunk of stream) pgn += String(chunk);
    assert.match(pgn, /^\[Event "Casual game"\]/);
    assert.match(pgn, /1\. e4 e5 2\. Nf3 \*/);
  }),
);

test('a PGN import opens the game at its final position with its players and moves', { skip }, t =>
  env.run(t, async ({ open }) => {
    const page = await open('/');
    await page.click(`${byTestId('import')} summary`);
    await page.fill(
      byTestId('import-pgn-input'),
      '[Event "Club"]\n[White "Carla"]\n[Black "Dan"]\n\n1. e4 e5 2. Nf3 Nc6 {the usual} 3. Bb5 a6 *\n',
    );
    await page.click(byTestId('import-pgn-submit'));
    await page.waitForURL(/\/game\/[A-Za-z0-9]{8}$/);
    await waitForFen(page, 'r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4');
    await waitForText(page, 'player-white', 'Carla');
    await waitForText(page, 'player-black', 'Dan');
    await waitForText(page, 'moves', /3\.\s*Bb5\s*a6$/);
    await waitForText(page, 'status', 'In progress');
    assert.ok(await page.isEnabled(byTestId('undo')), 'every replayed move can be undone');

    // Back to the start page and forward again: the address drives the page.
    await page.goBack();
    await waitForText(page, 'status', 'No game yet');
    await page.goForward();
    await waitForText(page, 'player-white', 'Carla');
  }),
);

test('rejected actions show the API message: a typed move, a bad FEN, an unknown or malformed game id', { skip }, t =>
  env.run(t, async ({ open }) => {
    const page = await open('/');
    await page.click(byTestId('create-game'));
    await waitLive(page);
    const id = gameIdOf(page);
    const rejected = await env.api('POST', `/api/board/game/${id}/move/e2e5`);
    assert.equal(rejected.statusCode, 400);
    const message = (JSON.parse(rejected.body) as { message: string }).message;
    await typeMove(page, 'e2e5');
    await waitForText(page, 'error', message);
    assert.equal(await page.locator(byTestId('error')).getAttribute('data-code'), 'INVALID_MOVE');
    assert.equal(await page.inputValue(byTestId('move-input')), 'e2e5', 'the rejected move stays for correction');
    await typeMove(page, 'Nf6'); // SAN that is not legal for white here: judged on the page
    await waitForText(page, 'error', /'Nf6' is not a legal move for white/);
    await typeMove(page, 'd4');
    await waitForFen(page, 'rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1');
    assert.ok(await page.locator(byTestId('error')).isHidden(), 'a success clears the error');

    await page.click(`${byTestId('import')} summary`);
    await page.fill(byTestId('import-fen-input'), '8/8/8/8/8/8/8/8 w - - 0 1');
    await page.click(byTestId('import-fen-submit'));
    const fenAnswer = await env.api('POST', '/api/board/game/import/fen', { fen: '8/8/8/8/8/8/8/8 w - - 0 1' });
    await waitForText(page, 'import-fen-error', (JSON.parse(fenAnswer.body) as { message: string }).message);
    assert.equal(gameIdOf(page), id, 'a failed import keeps the game');

    const unknown = await open('/game/zzzzzzzz');
    await waitForText(unknown, 'error', 'game zzzzzzzz does not exist');
    await waitForText(unknown, 'status', 'Game not available');
    const malformed = await open('/game/abc');
    await waitForText(malformed, 'error', "'abc' is not a game id: expected 8 letters or digits");
  }),
);

test('after a dropped connection the page reconnects and shows what changed meanwhile', { skip }, t =>
  env.run(t, async ({ open }) => {
    const created = await env.api('POST', '/api/board/game');
    const id = (JSON.parse(created.body) as { gameId: string }).gameId;
    const page = await open(`/game/${id}`);
    await waitLive(page);
    await waitMovable(page, 'white');
    env.dropConnections();
    await page.waitForSelector(`${byTestId('connection')}[data-state="reconnecting"]`);
    const moved = await env.api('POST', `/api/board/game/${id}/move/e2e4`);
    assert.equal(moved.statusCode, 200);
    await waitForFen(page, AFTER_E4);
    await waitLive(page);
    await waitMovable(page, 'black');
  }),
);

test('on a phone-sized screen, by keyboard: SAN in the move box, the picker for a pending promotion', { skip }, t =>
  env.run(t, async ({ open }) => {
    const page = await open('/', { viewport: { width: 375, height: 740 } });
    await page.focus(byTestId('create-game'));
    await page.keyboard.press('Enter');
    await waitLive(page);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 375, `no sideways scrolling (page is ${width}px wide)`);
    const board = await page.locator(byTestId('board')).boundingBox();
    assert.ok(board && board.width >= 300 && board.x >= 0 && board.x + board.width <= 375, 'the board fits');

    await page.focus(byTestId('move-input'));
    await page.keyboard.type('Nf3');
    await page.keyboard.press('Enter');
    await waitForFen(page, 'rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1');

    // A pawn move to the last rank without a piece: the API holds it as promotionPending, the picker asks.
    const imported = await env.api('POST', '/api/board/game/import/fen', { fen: '4k3/1P6/8/8/8/8/8/4K3 w - - 0 1' });
    const id = (JSON.parse(imported.body) as { gameId: string }).gameId;
    await page.goto(`${env.url}/game/${id}`);
    await waitLive(page);
    await page.focus(byTestId('move-input'));
    await page.keyboard.type('b7b8');
    await page.keyboard.press('Enter');
    await waitForText(page, 'status', 'Promotion: choose a piece');
    await page.waitForSelector(`${byTestId('promotion')}:not([hidden])`);
    await page.keyboard.press('n');
    await waitForFen(page, '1N2k3/8/8/8/8/8/8/4K3 b - - 0 1');
    assert.ok(await page.locator(byTestId('promotion')).isHidden());
  }),
);
