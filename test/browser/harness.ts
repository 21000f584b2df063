/**
 * Browser tests of the board page: the app on a real port (in-memory SQLite), one headless Chromium (the
 * Debian package, driven by playwright-core) shared by the tests of a file, a fresh browser context (its own
 * storage) per page. A failing test leaves a screenshot of each of its pages in test-artifacts/browser/.
 * Every page is also checked for script errors and Content-Security-Policy violations when its test ends.
 *
 * ```ts
 * const chromium = findExecutable('chromium');
 * const skip = skipReason('chromium', chromium);
 * let env: BrowserEnv;
 * before(async () => { if (!skip) env = await startBrowserEnv(chromium!); });
 * after(() => env?.close());
 * test('plays', { skip }, t => env.run(t, async ({ open }) => { const page = await open('/'); ... }));
 * ```
 */
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { buildWeb } from '../../scripts/build.ts';
import { buildApp, type AppDeps } from '../../src/http/app.ts';
import { GameExports } from '../../src/service/gameExports.ts';
import { GameService } from '../../src/service/games.ts';
import { ChangeFeed } from '../../src/bus/feed.ts';
import { PlayerFeed } from '../../src/bus/players.ts';
import { newGameId } from '../../src/service/ids.ts';
import { ChallengeService } from '../../src/service/challenges.ts';
import { SeekService } from '../../src/service/seeks.ts';
import { ChatService } from '../../src/service/chat.ts';
import { PlayerTokens } from '../../src/service/tokens.ts';
import { SqliteGameStore } from '../../src/store/sqlite.ts';
import { EngineMoves } from '../../src/service/engineMoves.ts';
import { Accounts } from '../../src/service/accounts.ts';
import { OAuth } from '../../src/service/oauth.ts';
import { PasswordHasher } from '../../src/service/passwords.ts';
import { TEST_SCRYPT } from '../helpers/app.ts';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/browser/', import.meta.url));

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface OpenOptions {
  viewport?: { width: number; height: number };
}

export interface RunContext {
  /** A new page (in its own browser context) at `path` of the app. */
  open: (path: string, options?: OpenOptions) => Promise<Page>;
}

export interface BrowserEnv {
  url: string;
  app: FastifyInstance;
  /** The player tokens the app knows: those given, or with `challenges`, those of the app's own store. */
  playerTokens: PlayerTokens | undefined;
  /** The app's store, to look behind the page (e.g. which seeks are open). */
  store: SqliteGameStore;
  browser: Browser;
  /** Runs a test body; on failure saves screenshots of its pages; always closes them. */
  run(t: TestContext, body: (context: RunContext) => Promise<void>): Promise<void>;
  /**
   * The API from another client (app.inject): for setting up games and changing them behind a page's back.
   * Sends `token` as a bearer token when given.
   */
  api(method: 'GET' | 'POST', path: string, payload?: object, token?: string): Promise<LightMyRequestResponse>;
  /** Cuts every open TCP connection to the server (streams included), as a network drop would. */
  dropConnections(): void;
  close(): Promise<void>;
}

/**
 * Settings of the app under test besides its store (e.g. `tokens`). With `engine`, the computer opponent
 * (DECISIONS §18): `POST /api/challenge/ai`, and the engine's turns played on the app's store, as the server does.
 */
export type AppOptions = Omit<
  AppDeps,
  'games' | 'store' | 'bus' | 'players' | 'challenges' | 'seeks' | 'chat' | 'exports'
> & {
  /**
   * Challenges and seeks (DECISIONS §16), kept in the app's store; the players challenges know are those whose
   * tokens that store issued, so the app's player tokens are the store's own (env.playerTokens) unless
   * `playerTokens` is given.
   */
  challenges?: boolean;
  /** Accounts and OAuth (DECISIONS §20) on the app's store, with fast password hashes; implies `challenges`. */
  withAccounts?: boolean;
};

export async function startBrowserEnv(executablePath: string, options: AppOptions = {}): Promise<BrowserEnv> {
  await buildWeb({ ifStale: true });
  const store = SqliteGameStore.open(':memory:');
  const bus = new ChangeFeed(store);
  const players = new PlayerFeed(); // games starting and ending, for the players' event streams
  const games = new GameService({ store, ratings: store, bus, players, newId: newGameId, clock: () => new Date() });
  const { challenges: challengesAsked, withAccounts, ...deps } = options;
  const withChallenges = challengesAsked === true || withAccounts === true;
  const playerTokens = deps.playerTokens ?? (withChallenges ? new PlayerTokens({ store, now: Date.now }) : undefined);
  const challenges = withChallenges
    ? new ChallengeService({ store, ratings: store, games, players, ttlMs: 3_600_000 })
    : undefined;
  const seeks = withChallenges ? new SeekService({ store, ratings: store, games }) : undefined;
  const chat = new ChatService({ store, games }); // games' chat, kept in the app's store
  const accounts =
    withAccounts && playerTokens
      ? {
          accounts: new Accounts({
            store,
            tokens: playerTokens,
            passwords: new PasswordHasher(TEST_SCRYPT),
            now: Date.now,
          }),
          oauth: new OAuth({ store, tokens: playerTokens, now: Date.now }),
        }
      : undefined;
  const exports = new GameExports(store, games); // a player's games as lichess exports them
  const app = await buildApp({
    ...deps,
    ...(accounts ? { accounts } : {}),
    chat,
    exports,
    ...(playerTokens ? { playerTokens } : {}),
    ...(challenges ? { challenges } : {}),
    ...(seeks ? { seeks } : {}),
    games,
    store,
    ratings: store,
    bus,
    players,
  });
  const engineMoves = deps.engine && new EngineMoves({ games, store, engine: deps.engine, pollMs: 200 });
  if (engineMoves) {
    games.onCommitted = game => engineMoves.committed(game);
    engineMoves.start();
  }
  app.addHook('onClose', () => {
    challenges?.close();
    seeks?.close();
    engineMoves?.close();
  });
  const sockets = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, timeout: 20_000 });

  const run = async (t: TestContext, body: (context: RunContext) => Promise<void>) => {
    const contexts: BrowserContext[] = [];
    const pages: Page[] = [];
    const problems: string[] = [];
    const open = async (path: string, options: OpenOptions = {}) => {
      const context = await browser.newContext({ viewport: options.viewport ?? { width: 1200, height: 900 } });
      contexts.push(context);
      context.setDefaultTimeout(5000);
      const page = await context.newPage();
      pages.push(page);
      page.on('pageerror', error => problems.push(`page error: ${error.message}`));
      page.on('console', message => {
        const text = message.text();
        // A rejected API request is logged by the browser; the page shows it, and tests check that.
        if (message.type() === 'error' && !text.startsWith('Failed to load resource')) problems.push(text);
      });
      await page.goto(`${url}${path}`);
      return page;
    };
    try {
      await body({ open });
      assert.deepEqual(problems, [], 'the page logged errors');
    } catch (error) {
      await mkdir(ARTIFACTS, { recursive: true });
      const name = t.name.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 80);
      for (const [index, page] of pages.entries()) {
        const path = join(ARTIFACTS, `${name}-${index + 1}.png`);
        await page.screenshot({ path, fullPage: true }).catch(() => undefined);
        t.diagnostic(`screenshot: ${path}`);
      }
      throw error;
    } finally {
      for (const context of contexts) await context.close().catch(() => undefined);
    }
  };

  return {
    url,
    app,
    playerTokens,
    store,
    browser,
    run,
    api: (method, path, payload, token) =>
      app.inject({
        method,
        url: path,
        ...(payload ? { payload } : {}),
        ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
      }),
    dropConnections: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: async () => {
      await browser.close().catch(() => undefined);
      await app.close();
      await store.close();
    },
  };
}

// ------------------------------------------------------------------------------------------- page helpers

export const byTestId = (testid: string) => `[data-testid="${testid}"]`;

/** Waits until the element's text matches; fails with the last text seen. */
export async function waitForText(page: Page, testid: string, expected: string | RegExp, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  let last: string | null = null;
  for (;;) {
    last = await page.locator(byTestId(testid)).first().textContent();
    const text = (last ?? '').trim();
    if (typeof expected === 'string' ? text === expected : expected.test(text)) return text;
    if (Date.now() > deadline) {
      assert.fail(`[data-testid="${testid}"] should be ${String(expected)} but is ${JSON.stringify(last)}`);
    }
    await page.waitForTimeout(25);
  }
}

export const waitForFen = (page: Page, fen: string) => waitForText(page, 'fen', fen);

/** Waits until the page follows the game's stream. */
export async function waitLive(page: Page): Promise<void> {
  await page.waitForSelector(`${byTestId('connection')}[data-state="live"]`);
}

/** Waits until the pieces of `color` can be moved (the legal moves are loaded). */
export async function waitMovable(page: Page, color: 'white' | 'black'): Promise<void> {
  await page.waitForSelector(`${byTestId('board')}[data-movable="${color}"]`);
}

/** The centre of a square on screen, for the board's current orientation. */
export async function squareCenter(page: Page, square: string): Promise<{ x: number; y: number }> {
  const board = page.locator(`${byTestId('board')} cg-board`);
  const box = await board.boundingBox();
  assert.ok(box, 'the board is not visible');
  const white = await page.locator(byTestId('board')).evaluate(el => el.classList.contains('orientation-white'));
  const file = square.charCodeAt(0) - 97;
  const rank = Number(square[1]) - 1;
  const column = white ? file : 7 - file;
  const row = white ? 7 - rank : rank;
  return { x: box.x + ((column + 0.5) * box.width) / 8, y: box.y + ((row + 0.5) * box.height) / 8 };
}

export async function clickSquare(page: Page, square: string): Promise<void> {
  const { x, y } = await squareCenter(page, square);
  await page.mouse.click(x, y);
}

/** Plays a move by clicking its two squares, once the side to move can move. */
export async function clickMove(page: Page, from: string, to: string, color: 'white' | 'black'): Promise<void> {
  await waitMovable(page, color);
  await clickSquare(page, from);
  await clickSquare(page, to);
}

/** Plays a move by dragging the piece, once the side to move can move. */
export async function dragMove(page: Page, from: string, to: string, color: 'white' | 'black'): Promise<void> {
  await waitMovable(page, color);
  const start = await squareCenter(page, from);
  const end = await squareCenter(page, to);
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.mouse.move(end.x, end.y, { steps: 8 });
  await page.mouse.up();
}

/** Types a move into the move box and submits it with Enter. */
export async function typeMove(page: Page, move: string): Promise<void> {
  await page.fill(byTestId('move-input'), move);
  await page.press(byTestId('move-input'), 'Enter');
}

export const gameIdOf = (page: Page): string => {
  const match = /\/game\/([A-Za-z0-9]{8})$/.exec(new URL(page.url()).pathname);
  assert.ok(match, `the address ${page.url()} holds no game`);
  return match[1]!;
};
