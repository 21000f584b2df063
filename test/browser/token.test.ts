/// <reference lib="dom" />
// (the functions given to page.evaluate run in the browser)
/**
 * The board page against a service that requires bearer tokens (API_TOKENS): the page itself stays open, the
 * API's refusal is shown with the token field, and a saved token goes with every request and the stream.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { findExecutable, skipReason } from '../helpers/external.ts';
import { byTestId, startBrowserEnv, typeMove, waitForFen, waitForText, waitLive, type BrowserEnv } from './harness.ts';

const chromiumPath = findExecutable('chromium');
const skip = skipReason('chromium', chromiumPath);
const TOKEN = 'board-page-test-token';

let env: BrowserEnv;
before(async () => {
  if (!skip) env = await startBrowserEnv(chromiumPath!, { tokens: [TOKEN] });
});
after(async () => {
  if (!skip) await env.close();
});

const messageOf = (body: string) => (JSON.parse(body) as { message: string }).message;

test('with tokens required, the page asks for one and sends it as a bearer token', { skip }, t =>
  env.run(t, async ({ open }) => {
    const created = await env.api('POST', '/api/board/game', undefined, TOKEN);
    assert.equal(created.statusCode, 201);
    const id = (JSON.parse(created.body) as { gameId: string }).gameId;
    const missing = messageOf((await env.api('GET', `/api/board/game/${id}`)).body);
    const invalid = messageOf((await env.api('GET', `/api/board/game/${id}`, undefined, 'wrong')).body);

    const page = await open(`/game/${id}`);
    await waitForText(page, 'error', missing);
    assert.equal(await page.locator(byTestId('error')).getAttribute('data-code'), 'UNAUTHORIZED');
    assert.ok(await page.locator(byTestId('settings')).evaluate(details => (details as HTMLDetailsElement).open));

    await page.fill(byTestId('token-input'), 'wrong');
    await page.click(byTestId('token-save'));
    await waitForText(page, 'error', invalid);

    await page.fill(byTestId('token-input'), TOKEN);
    await page.click(byTestId('token-save'));
    await waitLive(page);
    await waitForText(page, 'status', 'In progress');
    await typeMove(page, 'e4');
    await waitForFen(page, 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1');
    assert.equal((await env.api('POST', `/api/board/game/${id}/move/e7e5`, undefined, TOKEN)).statusCode, 200);
    await waitForFen(page, 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2');

    await page.reload(); // the token is kept in the browser
    await waitLive(page);
    await waitForText(page, 'token-state', 'A token is set.');
  }),
);
