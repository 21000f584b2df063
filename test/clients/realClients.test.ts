/**
 * lichess's own clients, unchanged, against a real server process (issue 41, DECISIONS §16a): berserk (lichess's
 * Python client) making its challenge, board and bot calls (test/clients/berserk_calls.py), and lichess-bot (the
 * most used bot framework) accepting a challenge and playing a whole game with Debian's Stockfish, chatting, with
 * only the base URL changed.
 *
 * Their sources are not in this repository: set LICHESS_CLIENTS_DIR to a folder holding checkouts of
 * lichess-org/berserk (`berserk/`), lichess-bot-devs/lichess-bot (`lichess-bot/`), niklasf/python-chess
 * (`python-chess/`) and python/typing_extensions (`typing_extensions/`, for the names Debian's older copy lacks), and
 * install Debian's python3-requests, python3-yaml, python3-backoff, python3-rich, python3-deprecated and
 * python3-dateutil. Run with `npm run test:clients` (docs/api.md, The lichess dialect). Without the folder the
 * tests are skipped with a notice; this suite is not part of `npm test`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, suite, test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ENDED_STATUSES, type GameStatus } from '../../src/contract/vocabulary.ts';
import { findExecutable } from '../helpers/external.ts';
import { startServer, type ServerProcess } from '../helpers/server.ts';

const CLIENTS = process.env.LICHESS_CLIENTS_DIR;
// Debian's Python, whose packages the clients' dependencies come from (another python3 may come first on the PATH).
const PYTHON = process.env.PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : findExecutable('python3'));
const STOCKFISH = findExecutable('stockfish');
const SERVICE = 'real-clients-service-token';
const HERE = fileURLToPath(new URL('.', import.meta.url));

const missing = [
  ...(CLIENTS === undefined ? ['LICHESS_CLIENTS_DIR'] : []),
  ...(CLIENTS !== undefined
    ? ['berserk', 'lichess-bot', 'python-chess', 'typing_extensions'].filter(name => !existsSync(join(CLIENTS, name)))
    : []),
  ...(PYTHON ? [] : ['python3']),
  ...(STOCKFISH ? [] : ['stockfish']),
];
const skip =
  missing.length === 0 ? false : `lichess's clients are not available (missing: ${missing.join(', ')}): SKIPPED`;
if (skip) process.stderr.write(`\n*** ${skip}\n\n`);

let server: ServerProcess;
let dir: string;
let site: string; // what the clients need besides their sources: berserk's metadata and a stand-in for ndjson

/** Runs a Python program with the clients on its path; resolves with its exit code and output. */
function python(args: string[], env: Record<string, string>, cwd: string, timeoutMs: number) {
  const path = [
    site,
    join(CLIENTS!, 'typing_extensions', 'src'),
    join(CLIENTS!, 'python-chess'),
    join(CLIENTS!, 'berserk'),
  ];
  const child = spawn(PYTHON!, args, {
    cwd,
    env: { ...process.env, ...env, PYTHONPATH: path.join(':'), PYTHONUNBUFFERED: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: lichess-bot's engine and worker processes end with it (kill below)
  });
  const kill = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  };
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const timer = setTimeout(kill, timeoutMs);
  const done = new Promise<{ code: number | null; output: () => string }>(resolve =>
    child.on('close', code => {
      clearTimeout(timer);
      resolve({ code, output: () => output });
    }),
  );
  return { child, kill, done, output: () => output };
}

async function api(method: string, path: string, token: string, body?: Record<string, string>): Promise<unknown> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    ...(body ? { body: new URLSearchParams(body).toString() } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

async function issue(id: string, name: string, bot = false): Promise<string> {
  const res = await fetch(`${server.url}/api/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${SERVICE}`, 'content-type': 'application/json' },
    body: JSON.stringify({ player: { id, displayName: name }, ...(bot ? { bot: true } : {}) }),
  });
  return ((await res.json()) as { token: string }).token;
}

suite("lichess's clients, unchanged", { skip }, () => {
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'real-clients-'));
    site = join(dir, 'site');
    mkdirSync(join(site, 'berserk-0.0.0.dist-info'), { recursive: true });
    // berserk reads its version and author from its installed metadata.
    writeFileSync(
      join(site, 'berserk-0.0.0.dist-info', 'METADATA'),
      'Metadata-Version: 2.1\nName: berserk\nVersion: 0.0.0\nAuthor-email: Lichess <contact@lichess.org>\n',
    );
    // berserk parses NDJSON answers with the `ndjson` package's decoder, which Debian does not package.
    writeFileSync(
      join(site, 'ndjson.py'),
      [
        'import json',
        'class Decoder(json.JSONDecoder):',
        '    def decode(self, s, *args, **kwargs):',
        "        return super().decode('[' + ','.join(l for l in s.splitlines() if l.strip()) + ']', *args, **kwargs)",
        '',
      ].join('\n'),
    );
    server = await startServer({
      DATABASE_URL: join(dir, 'chess.sqlite'),
      API_TOKENS: SERVICE,
      RATE_LIMIT_MAX: '0',
    });
  });
  after(async () => {
    await (server as ServerProcess | undefined)?.stop('SIGTERM'); // unset when the start failed
    rmSync(dir, { recursive: true, force: true });
  });

  test("berserk's challenge, board and bot calls answer as lichess's do", async (t: TestContext) => {
    const env = {
      BASE_URL: server.url,
      ANN: await issue('ann', 'Ann'),
      BOB: await issue('bob', 'Bob'),
      BOT: await issue('botty', 'Botty', true),
    };
    const run = python([join(HERE, 'berserk_calls.py')], env, dir, 120_000);
    const { code, output } = await run.done;
    const lines = output()
      .split('\n')
      .filter(line => line.startsWith('{'))
      .map(line => JSON.parse(line) as { call?: string; ok?: boolean; failures?: string[] });
    const failed = lines.filter(line => line.ok === false).map(line => line.call);
    t.assert.deepEqual(failed, [], output());
    t.assert.deepEqual(lines.at(-1)?.failures, [], output());
    t.assert.ok(lines.filter(line => line.ok).length >= 30, output());
    t.assert.equal(code, 0, output());
  });

  test('lichess-bot accepts a challenge, plays a whole game with Stockfish and chats', async (t: TestContext) => {
    const botToken = await issue('stocky', 'Stocky', true);
    const ann = await issue('carol', 'Carol');
    const engines = join(dir, 'engines');
    mkdirSync(engines, { recursive: true });
    const config = join(dir, 'lichess-bot.yml');
    writeFileSync(
      config,
      [
        `token: "${botToken}"`,
        `url: "${server.url}/"`,
        'engine:',
        `  dir: "${engines}"`,
        `  name: "stockfish"`,
        '  protocol: "uci"',
        '  ponder: false',
        '  polyglot: {enabled: false}',
        '  draw_or_resign: {resign_enabled: false, offer_draw_enabled: false}',
        '  online_moves:',
        '    chessdb_book: {enabled: false}',
        '    lichess_cloud_analysis: {enabled: false}',
        '    lichess_opening_explorer: {enabled: false}',
        '    online_egtb: {enabled: false}',
        '  lichess_bot_tbs: {syzygy: {enabled: false}, gaviota: {enabled: false}}',
        '  uci_options: {Threads: 1, Hash: 16}',
        'abort_time: 30',
        'fake_think_time: false',
        'rate_limiting_delays: false',
        'move_overhead: 1000',
        'max_takebacks_accepted: 0',
        'quit_after_all_games_finish: false',
        'correspondence: {move_time: 1, checkin_period: 300, disconnect_time: 150, ponder: false}',
        'challenge:',
        '  concurrency: 1',
        '  sort_by: "best"',
        '  accept_bot: true',
        '  max_increment: 180',
        '  min_increment: 0',
        '  max_base: 315360000',
        '  min_base: 0',
        '  variants: [standard]',
        '  time_controls: [bullet, blitz, rapid, classical]',
        '  modes: [casual, rated]',
        'greeting: {hello: "Hi! I am {me}.", goodbye: "Good game!", hello_spectators: "", goodbye_spectators: ""}',
        'matchmaking: {allow_matchmaking: false}',
        '',
      ].join('\n'),
    );
    writeFileSync(join(engines, 'stockfish'), `#!/bin/sh\nexec ${STOCKFISH} "$@"\n`, { mode: 0o755 });
    const bot = python(
      ['lichess-bot.py', '--config', config, '--disable_auto_logging'],
      {},
      join(CLIENTS!, 'lichess-bot'),
      300_000,
    );
    t.after(bot.kill);
    // lichess-bot checks its token (POST /api/token/test) and account, then follows its event stream.
    const until = (ms: number) => performance.now() + ms;
    for (const end = until(60_000); !/awaiting challenges/.test(bot.output());) {
      if (performance.now() > end || bot.child.exitCode !== null)
        throw new Error(`lichess-bot did not start:\n${bot.output()}`);
      await new Promise(resolve => setTimeout(resolve, 200));
    }
    const challenge = (await api('POST', '/api/challenge/stocky', ann, {
      'clock.limit': '60',
      'clock.increment': '1',
      color: 'white',
    })) as { id: string };
    // Carol plays the first legal move in the list of each position until the game ends.
    type State = { status: string; turn: string; moves: string[]; winner?: string };
    let state: State | undefined;
    for (const end = until(240_000); ;) {
      if (performance.now() > end) throw new Error(`the game did not end: ${JSON.stringify(state)}\n${bot.output()}`);
      const shown = (await api('GET', `/api/challenge/${challenge.id}/show`, ann)) as { status: string };
      if (shown.status === 'accepted') {
        state = ((await api('GET', `/api/board/game/${challenge.id}`, ann)) as { state: State }).state;
        if (ENDED_STATUSES.has(state.status as GameStatus)) break;
        if (state.turn === 'white') {
          const { moves } = (await api('GET', `/api/board/game/${challenge.id}/moves`, ann)) as {
            moves: { uci: string }[];
          };
          await api('POST', `/api/board/game/${challenge.id}/move/${moves[0]!.uci}`, ann);
          continue;
        }
      }
      await new Promise(resolve => setTimeout(resolve, 100));
    }
    t.assert.ok(state.moves.length >= 4, JSON.stringify(state));
    // Stockfish against the first legal move of every position: a mate, with the bot's side (black) the winner.
    t.assert.deepEqual([state.status, state.winner], ['checkmate', 'black'], JSON.stringify(state));
    const chat = (await api('GET', `/api/board/game/${challenge.id}/chat`, ann)) as { text: string; user: string }[];
    for (const end = until(10_000); !chat.some(line => line.text === 'Good game!') && performance.now() < end;) {
      await new Promise(resolve => setTimeout(resolve, 200));
      chat.splice(0, chat.length, ...((await api('GET', `/api/board/game/${challenge.id}/chat`, ann)) as typeof chat));
    }
    t.assert.deepEqual(
      chat.map(line => [line.user, line.text]),
      [
        ['Stocky', 'Hi! I am Stocky.'],
        ['Stocky', 'Good game!'],
      ],
    );
    t.assert.doesNotMatch(bot.output(), /Traceback|Control stream error|Game stream error/, bot.output());
  });
});
