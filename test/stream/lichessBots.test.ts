/**
 * Bots written the way lichess bots are written (test/helpers/lichessBot.ts: event stream, accept the challenge,
 * game stream, move) play on a real server process, knowing nothing of it but its base URL (issue 29, DECISIONS
 * §17): two of them play a whole game with a clock through a challenge; one plays a person who moves through the
 * seed's own API; their chat lines reach the other side. Every answer and line a bot gets is checked against
 * lichess's own schemas, and the bots' `problems` must stay empty.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, suite, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Chess, normalizeMove } from 'chessops/chess';
import { parseUci } from 'chessops/util';
import { ENDED_STATUSES } from '../../src/contract/vocabulary.ts';
import { assertLichess } from '../helpers/lichess.ts';
import { LichessBot, type BotGame, type GameStateEvent } from '../helpers/lichessBot.ts';
import { startServer, within, type ServerProcess } from '../helpers/server.ts';
import { clientOf } from '../helpers/client.ts';
import { waitUntil } from './helpers.ts';

const SERVICE = 'lichess-bots-service-token';
const GAME_MS = 20_000;

/** A bullet game, 1+1, the challenger white: the form lichess clients send. */
const BULLET_AS_WHITE = { 'clock.limit': '60', 'clock.increment': '1', color: 'white' };

let server: ServerProcess;
let dir: string;
const bots: LichessBot[] = [];

/** A token issued through the service's token API: a bot's (`bot: true`) or a person's. */
async function issue(id: string, displayName: string, bot: boolean): Promise<string> {
  const res = await clientOf(server.url, SERVICE).api.POST('/api/tokens', {
    body: { player: { id, displayName }, ...(bot ? { bot: true } : {}) },
  });
  if (res.response.status !== 201) throw new Error(`issue ${id}: ${res.response.status} ${JSON.stringify(res.error)}`);
  return res.data!.token;
}

async function startBot(id: string, name: string, options: { seed: number; moveCap?: number; greeting?: string }) {
  const bot = await LichessBot.start({ baseUrl: server.url, token: await issue(id, name, true), ...options });
  bots.push(bot);
  return bot;
}

/** The moves of a lichess gameState replayed with chessops from the start: each one legal, or the test fails. */
function replay(t: TestContext, moves: string): Chess {
  const pos = Chess.default();
  for (const uci of moves.split(' ').filter(Boolean)) {
    const move = parseUci(uci);
    t.assert.ok(move && pos.isLegal(normalizeMove(pos, move)), `${uci} is legal in ${moves}`);
    pos.play(normalizeMove(pos, move));
  }
  return pos;
}

/** The end of a game as the bot saw it on its game stream, and then on its event stream as `gameFinish`. */
async function ending(bot: LichessBot, gameId: string): Promise<{ state: GameStateEvent; game: BotGame }> {
  const game = bot.game(gameId);
  const state = await within(game.ended, GAME_MS, `${bot.id}: the end of ${gameId}`);
  await waitUntil(
    () => game.finish !== undefined,
    () => `${bot.id}: gameFinish of ${gameId}`,
  );
  return { state, game };
}

/** Waits until the challenge `id` has been accepted: its game, of the same id, then exists. */
async function accepted(token: string, id: string): Promise<void> {
  const deadline = performance.now() + GAME_MS;
  for (;;) {
    const shown = await clientOf(server.url, token).api.GET('/api/challenge/{id}/show', {
      params: { path: { id } },
    });
    if (shown.data?.status === 'accepted') return;
    if (performance.now() > deadline) {
      throw new Error(`challenge ${id} not accepted: ${JSON.stringify(shown.data ?? shown.error)}`);
    }
    await sleep(20);
  }
}

/**
 * The person's side of a game, through the seed's own API: moves (the first legal one listed) until `moves` are made
 * or the game ends, then (after `beforeResign`) resigns if it is still on; answers the seed's GameState of the end.
 */
async function personPlays(
  token: string,
  gameId: string,
  color: 'white' | 'black',
  moves: number,
  beforeResign: () => Promise<void> = async () => undefined,
) {
  const person = clientOf(server.url, token);
  const game = { params: { path: { gameId } } };
  const get = async () => {
    const res = await person.api.GET('/api/board/game/{gameId}', game);
    if (res.response.status !== 200) throw new Error(`GET game: ${res.response.status} ${JSON.stringify(res.error)}`);
    return res.data!.state;
  };
  const deadline = performance.now() + GAME_MS;
  let made = 0;
  for (;;) {
    if (performance.now() > deadline) throw new Error(`the person's game ${gameId} did not end`);
    const state = await get();
    if (ENDED_STATUSES.has(state.status)) return state;
    if (state.turn !== color) {
      await sleep(10);
      continue;
    }
    if (made === moves) {
      // On its own turn, so that no move of the bot's is on its way.
      await beforeResign();
      const resigned = await person.api.POST('/api/board/game/{gameId}/resign', game);
      if (resigned.response.status !== 200) {
        throw new Error(`resign: ${resigned.response.status} ${JSON.stringify(resigned.error)}`);
      }
      continue;
    }
    const legal = await person.unwrap(person.api.GET('/api/board/game/{gameId}/moves', game));
    const uci = legal.moves[0]!.uci;
    const moved = await person.api.POST('/api/board/game/{gameId}/move/{uci}', { params: { path: { gameId, uci } } });
    if (moved.response.status !== 200)
      throw new Error(`move ${uci}: ${moved.response.status} ${JSON.stringify(moved.error)}`);
    made += 1;
  }
}

suite('lichess bots play here, unmodified but for the base URL', { timeout: 90_000 }, () => {
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chess-lichess-bots-'));
    server = await startServer({ DATABASE_URL: join(dir, 'chess.sqlite'), API_TOKENS: SERVICE, RATE_LIMIT_MAX: '0' });
  });
  after(async () => {
    for (const bot of bots) bot.stop();
    await server.stop('SIGTERM');

    rmSync(dir, { recursive: true, force: true });
  });

  test("a bot's account is lichess's UserExtended, titled BOT", async (t: TestContext) => {
    const bot = await startBot('account-bot', 'Account Bot', { seed: 1 });
    assertLichess('UserExtended', bot.account);
    t.assert.equal(bot.title, 'BOT');
    t.assert.equal(bot.id, 'account-bot');
    t.assert.equal(bot.username, 'Account Bot');
    t.assert.deepEqual(bot.problems, []);
  });

  test('two bots play a whole bullet game through a challenge, to its end', async (t: TestContext) => {
    // 1. Alpha challenges Beta as white, 1+1; Beta accepts on its event stream.
    const alpha = await startBot('alpha-bot', 'Alpha Bot', { seed: 11, moveCap: 60, greeting: 'good game, Beta' });
    const beta = await startBot('beta-bot', 'Beta Bot', { seed: 23, moveCap: 60, greeting: 'gl hf' });
    const challenge = await alpha.challenge(beta.id, BULLET_AS_WHITE);
    t.assert.equal(challenge.status, 'created');
    t.assert.equal(challenge.speed, 'bullet');
    // 2. Both play through the Bot API until the game ends; both see the same last state.
    const [a, b] = await Promise.all([ending(alpha, challenge.id), ending(beta, challenge.id)]);
    t.diagnostic(`${a.state.status} after ${a.state.moves.split(' ').length} plies, winner ${a.state.winner}`);
    t.assert.deepEqual(beta.answered, [{ id: challenge.id, answer: 'accept', status: 200 }]);
    t.assert.deepEqual(a.state, b.state);
    t.assert.ok(!['created', 'started'].includes(a.state.status), a.state.status);
    t.assert.deepEqual([a.game.color, b.game.color], ['white', 'black']);
    t.assert.deepEqual(a.game.full?.state.wtime, 60_000);
    // 3. A whole game: the moves are legal, each bot played its own, and the end agrees with the board.
    const moves = a.state.moves.split(' ');
    t.assert.ok(moves.length >= 10, `a game of ${moves.length} plies`);
    const pos = replay(t, a.state.moves);
    t.assert.deepEqual(
      moves.filter((_, i) => i % 2 === 0),
      a.game.moved.slice(0, Math.ceil(moves.length / 2)),
    );
    t.assert.deepEqual(
      moves.filter((_, i) => i % 2 === 1),
      b.game.moved.slice(0, Math.floor(moves.length / 2)),
    );
    if (a.state.status === 'mate') t.assert.ok(pos.isCheckmate());
    if (a.state.status === 'stalemate') t.assert.ok(pos.isStalemate());
    if (a.state.status === 'resign') t.assert.equal(a.state.winner, pos.turn === 'white' ? 'black' : 'white');
    // 4. The end reached both event streams, each seen from its own side.
    t.assert.equal(a.game.finish?.color, 'white');
    t.assert.equal(b.game.finish?.color, 'black');
    t.assert.equal(a.game.finish?.winner, a.state.winner);
    t.assert.equal(a.game.finish?.status?.name, a.state.status);
    // 5. Each greeting reached the other side as a chatLine of the player room.
    t.assert.deepEqual(a.game.chat, [
      { type: 'chatLine', room: 'player', username: 'Beta Bot', text: 'gl hf' },
      { type: 'chatLine', room: 'player', username: 'Alpha Bot', text: 'good game, Beta' },
    ]);
    t.assert.deepEqual(b.game.chat, a.game.chat);
    t.assert.deepEqual([...alpha.problems, ...beta.problems], []);
  });

  test("a bot plays a person who moves through the seed's own API", async (t: TestContext) => {
    // 1. Ann, a person, challenges Gamma as white; Gamma accepts on its event stream.
    const gamma = await startBot('gamma-bot', 'Gamma Bot', { seed: 5 });
    const ann = await issue('ann', 'Ann', false);
    // Sent raw, as a form: lichess clients send one, and the typed client speaks JSON.
    const res = await fetch(`${server.url}/api/challenge/${gamma.id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ann}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(BULLET_AS_WHITE).toString(),
    });
    t.assert.equal(res.status, 200);
    const { id: gameId } = (await res.json()) as { id: string };
    await accepted(ann, gameId);
    // 2. Ann moves with the seed's paths and resigns after eight moves (unless mated first); Gamma plays on the Bot
    // API and sees the end.
    const last = await personPlays(ann, gameId, 'white', 8);
    const { state, game } = await ending(gamma, gameId);
    t.assert.deepEqual(gamma.answered, [{ id: gameId, answer: 'accept', status: 200 }]);
    t.assert.equal(game.color, 'black');
    t.assert.equal(state.moves, last.moves.join(' '));
    t.assert.equal(state.status, last.status === 'checkmate' ? 'mate' : last.status);
    t.assert.equal(state.winner, 'black');
    replay(t, state.moves);
    t.assert.deepEqual(gamma.problems, []);
  });

  test('chat lines reach the other side: between two bots, and between a bot and a person', async (t: TestContext) => {
    // 1. Two bots greet each other once the other is at the board; each line reaches the other as a chatLine.
    const delta = await startBot('delta-bot', 'Delta Bot', {
      seed: 3,
      moveCap: 6,
      greeting: 'good luck, from Delta',
    });
    const eps = await startBot('epsilon-bot', 'Epsilon Bot', { seed: 4, moveCap: 6, greeting: 'have fun, Epsilon' });
    const challenge = await delta.challenge(eps.id, BULLET_AS_WHITE);
    const [d, e] = await Promise.all([ending(delta, challenge.id), ending(eps, challenge.id)]);
    t.assert.deepEqual(
      d.game.chat.filter(line => line.username !== delta.username),
      [{ type: 'chatLine', room: 'player', username: 'Epsilon Bot', text: 'have fun, Epsilon' }],
    );
    t.assert.deepEqual(
      e.game.chat.filter(line => line.username !== eps.username),
      [{ type: 'chatLine', room: 'player', username: 'Delta Bot', text: 'good luck, from Delta' }],
    );
    t.assert.deepEqual([...delta.problems, ...eps.problems], []);

    // 2. A bot and a person: the person reads the bot's greeting in the game's chat, answers, and the bot gets it.
    const zeta = await startBot('zeta-bot', 'Zeta Bot', { seed: 6, greeting: 'hello, human' });
    const bob = await issue('bob', 'Bob', false);
    const asBob = clientOf(server.url, bob);
    const made = await asBob.api.POST('/api/challenge/{playerId}', {
      params: { path: { playerId: zeta.id } },
      body: { color: 'white' },
    });
    t.assert.equal(made.response.status, 200);
    const gameId = made.data!.id;
    await accepted(bob, gameId);
    const chat = async () => {
      const lines = await asBob.unwrap(
        asBob.api.GET('/api/board/game/{gameId}/chat', { params: { path: { gameId } } }),
      );
      assertLichess('PlayerGameChat', lines);
      return lines;
    };
    const talk = async () => {
      let seen: { user: string; text: string }[] = [];
      const deadline = performance.now() + GAME_MS;
      while (!seen.some(line => line.user === 'Zeta Bot')) {
        if (performance.now() > deadline) throw new Error(`no greeting from the bot: ${JSON.stringify(seen)}`);
        seen = await chat();
        await sleep(20);
      }
      t.assert.deepEqual(seen, [{ user: 'Zeta Bot', text: 'hello, human' }]);
      // Said as a form, as lichess clients say it (raw: the typed client speaks JSON).
      const said = await fetch(`${server.url}/api/board/game/${gameId}/chat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bob}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'room=player&text=thanks%2C%20bot',
      });
      t.assert.equal(said.status, 200);
      await waitUntil(
        () => zeta.game(gameId).chat.some(line => line.username === 'Bob'),
        () => `Bob's line on the bot's stream: ${JSON.stringify(zeta.game(gameId).chat)}`,
      );
      t.assert.deepEqual(zeta.game(gameId).chat, [
        { type: 'chatLine', room: 'player', username: 'Zeta Bot', text: 'hello, human' },
        { type: 'chatLine', room: 'player', username: 'Bob', text: 'thanks, bot' },
      ]);
    };
    // Bob moves, and before he resigns (the bot has greeted him after his first move) he reads the chat and answers.
    await personPlays(bob, gameId, 'white', 4, talk);
    await ending(zeta, gameId);
    t.assert.deepEqual(zeta.problems, []);
  });
});
