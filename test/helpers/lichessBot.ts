/**
 * A bot written the way lichess bots are written (lichess-bot, berserk): it knows a base URL and a token and
 * nothing of this service but lichess's Bot API. It reads its account, follows `GET /api/stream/event`, accepts
 * (or declines) the challenges made to it, follows each started game on `GET /api/bot/game/stream/{id}`, plays
 * whenever the moves say it is its turn, greets its opponent in the game's chat, and stops following a game when
 * it ends. Every answer and every line it gets is checked against lichess's own JSON schemas; what does not
 * validate, or answers an error, is kept in `problems` instead of thrown, as a bot would log it and go on.
 *
 * ```ts
 * const bot = await LichessBot.start({ baseUrl, token, seed: 1 });
 * const game = await bot.game(gameId).ended; // the last gameState
 * bot.stop();
 * assert.deepEqual(bot.problems, []);
 * ```
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Chess, normalizeMove } from 'chessops/chess';
import { INITIAL_FEN, makeFen, parseFen } from 'chessops/fen';
import { makeSquare, parseUci, squareFile, squareRank } from 'chessops/util';
import type { Color, NormalMove, Role } from 'chessops/types';
import { lichessErrors } from './lichess.ts';

/** lichess's fields the bot reads (`@lichess-org/types`): nothing of the service's own shapes. */
export interface GameStateEvent {
  type: 'gameState';
  moves: string;
  wtime: number;
  btime: number;
  winc: number;
  binc: number;
  status: string;
  winner?: 'white' | 'black';
}

export interface ChatLineEvent {
  type: 'chatLine';
  room: 'player' | 'spectator';
  username: string;
  text: string;
}

interface GameFullEvent {
  type: 'gameFull';
  id: string;
  initialFen: string;
  white: { id?: string | null; name?: string };
  black: { id?: string | null; name?: string };
  state: Omit<GameStateEvent, 'type'> & { type?: 'gameState' };
}

export interface ChallengeJson {
  id: string;
  status: string;
  challenger: { id: string; name: string };
  destUser: { id: string; name: string } | null;
  speed: string;
  timeControl: { type: string; limit?: number; increment?: number };
  direction?: 'in' | 'out';
}

export interface GameEventInfo {
  gameId: string;
  fullId: string;
  color?: 'white' | 'black';
  status?: { id: number; name: string };
  winner?: 'white' | 'black';
}

/** What the bot does with a challenge made to it: accept it, or decline it with one of lichess's reasons. */
export type ChallengePolicy = (challenge: ChallengeJson) => 'accept' | { decline: string };

export interface BotOptions {
  baseUrl: string; // the only thing that differs from playing on lichess, e.g. http://127.0.0.1:8080
  token: string;
  seed?: number; // the order in which quiet moves are tried; the same seed plays the same game, e.g. 1
  moveCap?: number; // resigns instead of playing its move number moveCap + 1; e.g. 40 (default: never)
  greeting?: string | undefined; // said in the player room once the opponent is at the board; none: silent
  policy?: ChallengePolicy; // default: accept every standard challenge, decline the others
}

/** One game as the bot followed it. */
export interface BotGame {
  id: string;
  color: Color | undefined; // from gameFull's players and the account's id
  full: GameFullEvent | undefined;
  states: GameStateEvent[]; // the gameFull's state first, then each gameState, as received
  chat: ChatLineEvent[]; // every chatLine received
  opponentGone: { gone: boolean; claimWinInSeconds?: number }[];
  moved: string[]; // the moves it played, UCI
  greeted: boolean;
  finish: GameEventInfo | undefined; // the game of the gameFinish event
  /** Resolves with the first gameState whose status is an end (neither `created` nor `started`). */
  ended: Promise<GameStateEvent>;
}

/** The whole body of an answer. */
async function text(res: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of res) body += String(chunk);
  return body;
}

/** A game with what the bot needs to end following it. */
type Followed = BotGame & { resolve: (state: GameStateEvent) => void; stream: AbortController };

/** The statuses of a game still being played, in lichess's names. */
const PLAYING = new Set(['created', 'started']);

/** lichess's schema of each line type, on the event stream and on a game stream. */
const EVENT_SCHEMAS: Record<string, string> = {
  gameStart: 'GameStartEvent',
  gameFinish: 'GameFinishEvent',
  challenge: 'ChallengeEvent',
  challengeCanceled: 'ChallengeCanceledEvent',
  challengeDeclined: 'ChallengeDeclinedEvent',
};
const GAME_SCHEMAS: Record<string, string> = {
  gameFull: 'GameFullEvent',
  gameState: 'GameStateEvent',
  chatLine: 'ChatLineEvent',
  opponentGone: 'OpponentGoneEvent',
};

/** How long a game stream may take, after the event stream's gameFinish, to bring the game's end. */
const FINISH_GRACE_MS = 5000;

const VALUES: Record<Role, number> = { pawn: 1, knight: 3, bishop: 3, rook: 5, queen: 9, king: 0 };

export class LichessBot {
  readonly options: BotOptions;
  id = ''; // from GET /api/account
  username = '';
  title: string | undefined;
  account: unknown;
  /** Every non-empty line of the event stream, parsed. */
  readonly events: any[] = [];
  /** Answers and lines that broke lichess's schema or were errors, and failures of its own. */
  readonly problems: string[] = [];
  /** The challenges it answered, and how. */
  readonly answered: { id: string; answer: 'accept' | 'decline'; status: number }[] = [];
  private readonly games = new Map<string, Followed>();
  private readonly controllers = new Set<AbortController>();
  private random: () => number;
  private stopped = false;

  private constructor(options: BotOptions) {
    this.options = options;
    let seed = options.seed ?? 1;
    this.random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) / 0x1000000;
    };
  }

  /** Reads the account and opens the event stream; resolves once the stream has answered. */
  static async start(options: BotOptions): Promise<LichessBot> {
    const bot = new LichessBot(options);
    const account = await bot.request('GET', '/api/account', undefined, 'UserExtended');
    if (account.status !== 200) throw new Error(`GET /api/account: ${account.status} ${JSON.stringify(account.body)}`);
    bot.account = account.body;
    bot.id = account.body.id;
    bot.username = account.body.username;
    bot.title = account.body.title;
    await bot.follow('/api/stream/event', EVENT_SCHEMAS, line => bot.onEvent(line));
    return bot;
  }

  /** The game `id` as the bot follows it (created on first use, so a test may wait before its gameStart). */
  game(id: string): BotGame {
    return this.followed(id);
  }

  private followed(id: string): Followed {
    let game = this.games.get(id);
    if (!game) {
      let resolve: (state: GameStateEvent) => void = () => undefined;
      const ended = new Promise<GameStateEvent>(settle => (resolve = settle));
      game = {
        id,
        color: undefined,
        full: undefined,
        states: [],
        chat: [],
        opponentGone: [],
        moved: [],
        greeted: false,
        finish: undefined,
        ended,
        resolve,
        stream: new AbortController(),
      };
      this.games.set(id, game);
    }
    return game;
  }

  /** `POST /api/challenge/{userId}` with a form body, as lichess clients send it; the ChallengeJson. */
  async challenge(userId: string, form: Record<string, string>): Promise<ChallengeJson> {
    const res = await this.request('POST', `/api/challenge/${userId}`, form, 'ChallengeJson');
    if (res.status !== 200) throw new Error(`challenge ${userId}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** Closes every stream. */
  stop(): void {
    this.stopped = true;
    for (const controller of this.controllers) controller.abort();
  }

  /**
   * A request with the bot's token; a body goes as a form. The answer is checked against lichess's `schema` when it
   * is a success, and against lichess's Error otherwise.
   */
  async request(
    method: 'GET' | 'POST',
    path: string,
    form: Record<string, string> | undefined,
    schema: string,
  ): Promise<{ status: number; body: any }> {
    const res = await fetch(`${this.options.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.options.token}`,
        ...(form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(form === undefined ? {} : { body: new URLSearchParams(form).toString() }),
    });
    const text = await res.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      this.problems.push(`${method} ${path}: ${res.status}, not JSON: ${text.slice(0, 200)}`);
      return { status: res.status, body: text };
    }
    const ok = res.status >= 200 && res.status < 300;
    if (!ok) this.problems.push(`${method} ${path}: ${res.status} ${text}`);
    this.check(ok ? schema : 'Error', body, `${method} ${path}`);
    return { status: res.status, body };
  }

  private check(schema: string, value: unknown, where: string): void {
    const errors = lichessErrors(schema, value);
    if (errors !== undefined)
      this.problems.push(`${where}: not lichess's ${schema}: ${errors}: ${JSON.stringify(value)}`);
  }

  /**
   * Opens an NDJSON stream and hands each line to `onLine`, one at a time and in order (a line's handling may
   * await requests; the next line waits, as in lichess-bot). Resolves once the stream's head is in.
   */
  private async follow(
    path: string,
    schemas: Record<string, string>,
    onLine: (line: any) => Promise<void>,
    controller = new AbortController(),
  ): Promise<void> {
    this.controllers.add(controller);
    // A connection of its own, closed when the bot stops following (as a streaming client's session does).
    const res = await new Promise<IncomingMessage | undefined>(resolve => {
      const req = httpRequest(`${this.options.baseUrl}${path}`, {
        agent: false,
        headers: { authorization: `Bearer ${this.options.token}`, accept: 'application/x-ndjson' },
        signal: controller.signal,
      });
      req.once('response', resolve);
      req.once('error', error => {
        if (!controller.signal.aborted) this.problems.push(`GET ${path}: ${String(error)}`);
        resolve(undefined);
      });
      req.end();
    });
    if (res === undefined || res.statusCode !== 200) {
      if (res) this.problems.push(`GET ${path}: ${res.statusCode} ${await text(res)}`);
      this.controllers.delete(controller);
      return;
    }
    void (async () => {
      res.setEncoding('utf8');
      let buffered = '';
      try {
        for await (const chunk of res) {
          buffered += chunk as string;
          for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
            const text = buffered.slice(0, newline).trim();
            buffered = buffered.slice(newline + 1);
            if (text === '') continue; // a heartbeat
            const line = JSON.parse(text);
            const schema = schemas[line?.type];
            if (schema === undefined) this.problems.push(`${path}: a line lichess does not send: ${text}`);
            else this.check(schema, line, path);
            await onLine(line);
          }
        }
      } catch (error) {
        if (!controller.signal.aborted) this.problems.push(`${path}: ${String(error)}`);
      } finally {
        this.controllers.delete(controller);
      }
    })();
  }

  private async onEvent(line: any): Promise<void> {
    this.events.push(line);
    switch (line.type) {
      case 'challenge': {
        const challenge = line.challenge as ChallengeJson;
        if (challenge.destUser?.id !== this.id || challenge.status !== 'created') return;
        const policy = this.options.policy ?? (() => 'accept' as const);
        const answer = policy(challenge);
        if (answer === 'accept') {
          const res = await this.request('POST', `/api/challenge/${challenge.id}/accept`, undefined, 'Ok');
          this.answered.push({ id: challenge.id, answer: 'accept', status: res.status });
        } else {
          const res = await this.request(
            'POST',
            `/api/challenge/${challenge.id}/decline`,
            { reason: answer.decline },
            'Ok',
          );
          this.answered.push({ id: challenge.id, answer: 'decline', status: res.status });
        }
        return;
      }
      case 'gameStart': {
        const info = line.game as GameEventInfo;
        const game = this.followed(info.gameId);
        if (game.full !== undefined || this.stopped) return;
        await this.follow(
          `/api/bot/game/stream/${info.gameId}`,
          GAME_SCHEMAS,
          gameLine => this.onGameLine(game, gameLine),
          game.stream,
        );
        return;
      }
      case 'gameFinish': {
        const info = line.game as GameEventInfo;
        const game = this.followed(info.gameId);
        game.finish = info;
        // The game's own stream brings its last state too; a stream that does not is closed after a while.
        setTimeout(() => game.stream.abort(), FINISH_GRACE_MS).unref();
        return;
      }
      default:
        return;
    }
  }

  private async onGameLine(game: Followed, line: any): Promise<void> {
    switch (line.type) {
      case 'gameFull': {
        const full = line as GameFullEvent;
        game.full = full;
        game.color = full.white.id === this.id ? 'white' : full.black.id === this.id ? 'black' : undefined;
        return this.onState(game, { ...full.state, type: 'gameState' });
      }
      case 'gameState':
        return this.onState(game, line as GameStateEvent);
      case 'chatLine':
        game.chat.push(line as ChatLineEvent);
        return;
      case 'opponentGone':
        game.opponentGone.push(line);
        return;
      default:
        return;
    }
  }

  private async onState(game: Followed, state: GameStateEvent): Promise<void> {
    game.states.push(state);
    if (!PLAYING.has(state.status)) {
      game.resolve(state);
      game.stream.abort();
      return;
    }
    if (game.color === undefined || game.full === undefined) return;
    const position = this.replay(game.full.initialFen, state.moves);
    if (position === undefined) return;
    const moves = state.moves === '' ? [] : state.moves.split(' ');
    // Greet once the opponent is at the board: a chat line reaches only the streams open when it is written, and an
    // opponent who has moved follows the game. The moves it did not play are the opponent's.
    if (this.options.greeting !== undefined && !game.greeted && moves.length > game.moved.length) {
      game.greeted = true;
      await this.request(
        'POST',
        `/api/bot/game/${game.id}/chat`,
        { room: 'player', text: this.options.greeting },
        'Ok',
      );
    }
    if (position.turn !== game.color) return;
    if (this.options.moveCap !== undefined && game.moved.length >= this.options.moveCap) {
      await this.request('POST', `/api/bot/game/${game.id}/resign`, undefined, 'Ok');
      return;
    }
    const uci = this.choose(position);
    if (uci === undefined) return; // the game is over on the board; its end is on its way
    game.moved.push(uci);
    await this.request('POST', `/api/bot/game/${game.id}/move/${uci}`, undefined, 'Ok');
  }

  /** The position after `moves` (lichess's space-separated UCI) from `initialFen` (`startpos` or a FEN). */
  private replay(initialFen: string, moves: string): Chess | undefined {
    const setup = parseFen(initialFen === 'startpos' ? INITIAL_FEN : initialFen);
    const position = setup.isOk ? Chess.fromSetup(setup.value) : undefined;
    if (!position?.isOk) {
      this.problems.push(`initialFen not a position: ${initialFen}`);
      return undefined;
    }
    const pos = position.value;
    for (const uci of moves === '' ? [] : moves.split(' ')) {
      const move = parseUci(uci);
      if (!move || !pos.isLegal(normalizeMove(pos, move))) {
        this.problems.push(`an illegal move ${uci} in "${moves}" at ${makeFen(pos.toSetup())}`);
        return undefined;
      }
      pos.play(normalizeMove(pos, move));
    }
    return pos;
  }

  /**
   * The move to play, in lichess's UCI (castling as the king's two-square move): a mate in one if there is one, else
   * the capture of the most valuable piece, else a quiet move drawn with the seed. undefined when there is no move.
   */
  private choose(pos: Chess): string | undefined {
    const candidates: { uci: string; move: NormalMove; gain: number }[] = [];
    for (const [from, dests] of pos.allDests()) {
      for (const to of dests) {
        const piece = pos.board.get(from)!;
        const target = pos.board.get(to);
        const castles = piece.role === 'king' && target?.color === piece.color;
        const lastRank = piece.role === 'pawn' && (squareRank(to) === 0 || squareRank(to) === 7);
        const move: NormalMove = { from, to, ...(lastRank ? { promotion: 'queen' as const } : {}) };
        // chessops moves the king onto its rook to castle; lichess's UCI moves it two squares.
        const shownTo = makeSquare(castles ? squareRank(from) * 8 + (squareFile(to) > squareFile(from) ? 6 : 2) : to);
        const uci = `${makeSquare(from)}${shownTo}${lastRank ? 'q' : ''}`;
        const gain = castles || target === undefined ? (lastRank ? 8 : 0) : VALUES[target.role];
        candidates.push({ uci, move, gain });
      }
    }
    if (candidates.length === 0) return undefined;
    const mate = candidates.find(({ move }) => {
      const after = pos.clone();
      after.play(move);
      return after.isCheckmate();
    });
    if (mate) return mate.uci;
    const best = Math.max(...candidates.map(c => c.gain));
    const pool = candidates.filter(c => c.gain === best);
    return pool[Math.floor(this.random() * pool.length)]!.uci;
  }
}
