/**
 * The lichess dialect's views of the domain (DECISIONS §17), as tables: every seed status to lichess's name, the
 * speeds, the times of an untimed game, `fullId`, and what `draw/yes|no` and `takeback/yes|no` mean for each side;
 * a move with `offeringDraw` (DECISIONS §16a), and the game paths as lichess's clients write them.
 */
import { test, type TestContext } from 'node:test';
import { GAME_STATUSES } from '../../src/contract/vocabulary.ts';
import {
  drawActionOf,
  fullIdOf,
  lichessGameState,
  lichessStatus,
  speedOfClock,
  takebackActionOf,
  withQueenPromotion,
} from '../../src/domain/lichess.ts';
import { gameFromFen, newGame, type Game } from '../../src/domain/game.ts';
import { playerActor, SERVICE } from '../../src/domain/seats.ts';
import {
  claimOpponentGone,
  deadlineOfGame,
  drawAction,
  makeMove,
  moveOfferingDraw,
  takebackAction,
} from '../../src/domain/transitions.ts';
import { lichessUrl } from '../../src/http/lichessPaths.ts';
import { statusOf, winnerOf } from '../../src/domain/status.ts';
import { gameStateOf } from '../../src/domain/views.ts';
import { assertLichess } from '../helpers/lichess.ts';

const ANN = { id: 'ann', displayName: 'Ann' };
const BOB = { id: 'bob', displayName: 'Bob' };

test("every seed status has lichess's name: mate, outoftime, draw for every draw, started while in progress", (t: TestContext) => {
  const names = Object.fromEntries(GAME_STATUSES.map(status => [status, lichessStatus(status)]));
  t.assert.deepEqual(names, {
    started: 'started',
    check: 'started',
    checkmate: 'mate',
    stalemate: 'stalemate',
    resign: 'resign',
    draw: 'draw',
    drawOffered: 'started',
    fiftyMoveAvailable: 'started',
    promotionPending: 'started',
    insufficientMaterial: 'draw',
    outOfTime: 'outoftime',
    aborted: 'aborted',
    timeout: 'timeout',
  });
});

test("speeds are lichess's estimate: limit + 40 × increment", (t: TestContext) => {
  const cases: [number | null, number, string][] = [
    [15, 0, 'ultraBullet'],
    [60, 0, 'bullet'],
    [120, 1, 'bullet'],
    [120, 2, 'blitz'],
    [180, 2, 'blitz'],
    [600, 0, 'rapid'],
    [900, 10, 'rapid'],
    [900, 15, 'classical'],
    [null, 0, 'correspondence'],
  ];
  for (const [limit, increment, speed] of cases) t.assert.equal(speedOfClock(limit, increment), speed);
});

const game = (): Game => newGame({ id: 'AbCd1234', createdAt: '2026-01-31T12:00:00.000Z', white: ANN, black: BOB });
const after = (start: Game, ...changes: ((g: Game) => { ok: boolean; value?: { game: Game } })[]): Game =>
  changes.reduce((g, change) => {
    const result = change(g);
    if (!result.ok) throw new Error('change refused');
    return result.value!.game;
  }, start);

test("an untimed game's state: lichess's large times, flags only when set, lichess-valid", (t: TestContext) => {
  const played = after(
    game(),
    g => makeMove(g, 'e2e4', SERVICE),
    g => drawAction(g, 'offer', playerActor(BOB)),
  );
  const state = lichessGameState(gameStateOf(played));
  assertLichess('GameStateEvent', state);
  t.assert.deepEqual(state, {
    type: 'gameState',
    moves: 'e2e4',
    wtime: 2_147_483_647,
    btime: 2_147_483_647,
    winc: 0,
    binc: 0,
    status: 'started',
    bdraw: true,
  });
});

test('fullId: the game id and 4 characters, fixed per player and game', (t: TestContext) => {
  t.assert.match(fullIdOf('AbCd1234', 'ann'), /^AbCd1234[A-Za-z0-9]{4}$/);
  t.assert.equal(fullIdOf('AbCd1234', 'ann'), fullIdOf('AbCd1234', 'ann'));
  t.assert.notEqual(fullIdOf('AbCd1234', 'ann'), fullIdOf('AbCd1234', 'bob'));
  t.assert.notEqual(fullIdOf('AbCd1234', 'ann'), fullIdOf('AbCd1235', 'ann'));
});

test('yes and no: offer, accept, decline, or nothing to do, for each side', (t: TestContext) => {
  const [ann, bob] = [playerActor(ANN), playerActor(BOB)];
  const start = after(game(), g => makeMove(g, 'e2e4', SERVICE));
  t.assert.deepEqual(
    [drawActionOf(start, true, ann), drawActionOf(start, false, ann)],
    ['offer', undefined],
    'no offer: yes offers, no does nothing',
  );
  const offered = after(start, g => drawAction(g, 'offer', ann));
  t.assert.deepEqual(
    [drawActionOf(offered, true, ann), drawActionOf(offered, false, ann)],
    [undefined, undefined],
    'own offer',
  );
  t.assert.deepEqual([drawActionOf(offered, true, bob), drawActionOf(offered, false, bob)], ['accept', 'decline']);
  t.assert.equal(drawActionOf(offered, true, SERVICE), 'accept', 'an actor holding both sides answers');
  const takeback = after(start, g => takebackAction(g, 'offer', ann));
  t.assert.deepEqual(
    [
      takebackActionOf(takeback, true, ann),
      takebackActionOf(takeback, true, bob),
      takebackActionOf(takeback, false, bob),
    ],
    [undefined, 'accept', 'decline'],
  );
  t.assert.equal(takebackActionOf(start, true, ann), 'offer');
});

test("lichess's promotion: a pawn's move to the last rank without a piece is a queen; nothing else changes", (t: TestContext) => {
  const result = gameFromFen(
    { id: 'AbCd1234', createdAt: '2026-01-31T12:00:00.000Z' },
    '4k3/P7/8/8/8/8/p7/4K3 w - - 0 1',
  );
  if (!result.ok) throw result.error;
  const position = result.value;
  t.assert.equal(withQueenPromotion(position, 'a7a8'), 'a7a8q');
  t.assert.equal(withQueenPromotion(position, 'a7a8n'), 'a7a8n');
  t.assert.equal(withQueenPromotion(position, 'e1e2'), 'e1e2');
  t.assert.equal(withQueenPromotion(position, 'a2a1'), 'a2a1q', 'a black pawn on its last rank too');
  t.assert.equal(withQueenPromotion(position, 'h7h8'), 'h7h8', 'no pawn there');
});

test('claims after the opponent left: a real-time game, a player, 30 s gone; a win is timeout, a draw is draw', (t: TestContext) => {
  const timed = newGame({
    id: 'AbCd1234',
    createdAt: '2026-01-31T12:00:00.000Z',
    white: ANN,
    black: BOB,
    clock: { initial: 300_000, increment: 0 },
  });
  const start = Date.parse('2026-01-31T12:00:00.000Z');
  // Claims are made on the opponent's turn (DECISIONS §16a): Ann's after Nf3, Bob's before it.
  const annToMove = after(
    timed,
    g => makeMove(g, 'e2e4', playerActor(ANN), start + 1000),
    g => makeMove(g, 'e7e5', playerActor(BOB), start + 2000),
  );
  const played = after(annToMove, g => makeMove(g, 'g1f3', playerActor(ANN), start + 3000));
  const [ann, bob] = [playerActor(ANN), playerActor(BOB)];
  const claim = (game: Game, kind: 'victory' | 'draw', actor: typeof ann, since: number | undefined, at: number) => {
    const result = claimOpponentGone(game, kind, actor, since, at);
    return result.ok ? statusOf(result.value.game) : result.error.code;
  };
  const gone = start + 5000;
  t.assert.equal(claim(played, 'victory', ann, undefined, gone + 60_000), 'CLAIM_NOT_AVAILABLE', 'still there');
  t.assert.equal(claim(played, 'victory', ann, gone, gone + 29_999), 'CLAIM_NOT_AVAILABLE', 'too soon');
  t.assert.equal(claim(played, 'victory', ann, gone, gone + 30_000), 'timeout');
  t.assert.equal(claim(played, 'draw', ann, gone, gone + 30_000), 'draw');
  t.assert.equal(claim(played, 'victory', SERVICE, gone, gone + 30_000), 'NOT_A_PLAYER', 'both sides');
  t.assert.equal(claim(annToMove, 'victory', ann, gone, gone + 30_000), 'CLAIM_NOT_AVAILABLE', 'her own turn');
  const won = claimOpponentGone(annToMove, 'victory', bob, gone, gone + 30_000);
  if (!won.ok) throw won.error;
  t.assert.equal(winnerOf(won.value.game), 'black');
  t.assert.equal(claim(won.value.game, 'victory', ann, gone, gone + 31_000), 'GAME_OVER');
  t.assert.equal(claim(game(), 'victory', ann, 0, Date.now()), 'CLAIM_NOT_AVAILABLE', 'an untimed game');
});

test('a move offering a draw (DECISIONS §16a): one change; it agrees to a pending offer; a mate is the move alone', (t: TestContext) => {
  const start = Date.parse('2026-01-31T12:00:00.000Z');
  const [ann, bob] = [playerActor(ANN), playerActor(BOB)];
  const timed = newGame({
    id: 'AbCd1234',
    createdAt: '2026-01-31T12:00:00.000Z',
    white: ANN,
    black: BOB,
    clock: {
      initial: 300_000,
      increment: 0,
    },
  });
  const opened = after(timed, g => makeMove(g, 'e2e4', ann, start + 1000));
  // An offer with the move: the next version holds both, its event says so.
  const offered = moveOfferingDraw(opened, 'e7e5', bob, start + 2000);
  if (!offered.ok) throw offered.error;
  t.assert.equal(offered.value.game.record.version, opened.record.version + 1);
  t.assert.deepEqual(
    [offered.value.event.state.moves, offered.value.event.state.drawOfferedBy, statusOf(offered.value.game)],
    [['e2e4', 'e7e5'], 'black', 'drawOffered'],
  );
  // The opponent's offer pending: the move agrees to it, and the game is drawn with the move played.
  const agreed = moveOfferingDraw(offered.value.game, 'g1f3', ann, start + 5000);
  if (!agreed.ok) throw agreed.error;
  const drawn = agreed.value.game;
  t.assert.equal(drawn.record.version, offered.value.game.record.version + 1);
  t.assert.deepEqual(
    [drawn.record.result, drawn.record.drawOffer, drawn.record.moves.length],
    [{ kind: 'drawAgreed' }, null, 3],
  );
  t.assert.deepEqual([agreed.value.event.state.status, agreed.value.event.state.winner], ['draw', null]);
  t.assert.equal(deadlineOfGame(drawn), undefined, 'the clock stopped');
  t.assert.equal(lichessGameState(agreed.value.event.state).status, 'draw');
  // One's own offer pending: the move lets it go and offers again; a practice board's actor answers the other side.
  const own = after(game(), g => drawAction(g, 'offer', SERVICE));
  const again = after(own, g => moveOfferingDraw(g, 'e2e4', ann));
  t.assert.deepEqual([again.record.drawOffer, again.record.result], ['white', null]);
  const practice = after(again, g => moveOfferingDraw(g, 'e7e5', SERVICE));
  t.assert.equal(statusOf(practice), 'draw');

  // A move that ends the game is the move alone: no offer, no error, even with the opponent's offer pending.
  const mating = after(
    game(),
    g => makeMove(g, 'f2f3', SERVICE),
    g => makeMove(g, 'e7e5', SERVICE),
    g => makeMove(g, 'g2g4', SERVICE),
    g => drawAction(g, 'offer', ann),
  );
  t.assert.equal(mating.record.drawOffer, 'white');
  const mate = moveOfferingDraw(mating, 'd8h4', bob);
  if (!mate.ok) throw mate.error;
  t.assert.deepEqual(
    [statusOf(mate.value.game), winnerOf(mate.value.game), mate.value.game.record.drawOffer],
    ['checkmate', 'black', null],
  );
  // A refused move is refused; a promotion waiting for its piece is the move alone.
  const refused = moveOfferingDraw(game(), 'e2e5', ann);
  t.assert.equal(refused.ok ? 'ok' : refused.error.code, 'INVALID_MOVE');
  const pawn = gameFromFen({ id: 'AbCd1234', createdAt: '2026-01-31T12:00:00.000Z' }, '4k3/P7/8/8/8/8/8/4K3 w - - 0 1');
  if (!pawn.ok) throw pawn.error;
  const pending = after(pawn.value, g => moveOfferingDraw(g, 'a7a8', SERVICE));
  t.assert.deepEqual([statusOf(pending), pending.record.drawOffer], ['promotionPending', null]);
});

test("the game paths as lichess's clients write them: a trailing slash, and draw/takeback's boolean words", (t: TestContext) => {
  const cases: Array<[string, string]> = [
    ['/api/bot/game/AbCd1234/claim-victory/', '/api/bot/game/AbCd1234/claim-victory'],
    ['/api/board/game/AbCd1234/move/e2e4/?offeringDraw=true', '/api/board/game/AbCd1234/move/e2e4?offeringDraw=true'],
    ['/api/board/game/stream/AbCd1234/', '/api/board/game/stream/AbCd1234'],
    ['/api/board/game/AbCd1234/', '/api/board/game/AbCd1234'],
    ['/api/bot/game/AbCd1234/draw/1', '/api/bot/game/AbCd1234/draw/yes'],
    ['/api/bot/game/AbCd1234/draw/true?x=/', '/api/bot/game/AbCd1234/draw/yes?x=/'],
    ['/api/board/game/AbCd1234/takeback/0/', '/api/board/game/AbCd1234/takeback/no'],
    ['/api/board/game/AbCd1234/takeback/false', '/api/board/game/AbCd1234/takeback/no'],
    ['/api/%62ot/game/AbCd1234/draw/%31', '/api/%62ot/game/AbCd1234/draw/yes'],
    // Nothing else moves.
    ['/api/bot/game/AbCd1234/draw/yes', '/api/bot/game/AbCd1234/draw/yes'],
    ['/api/board/game/AbCd1234/draw/offer', '/api/board/game/AbCd1234/draw/offer'],
    ['/api/board/game/AbCd1234/draw/2', '/api/board/game/AbCd1234/draw/2'],
    ['/api/board/game/AbCd1234/move/1', '/api/board/game/AbCd1234/move/1'],
    ['/api/board/game/', '/api/board/game/'],
    ['/api/board/game/AbCd1234//', '/api/board/game/AbCd1234//'],
    ['/api/board/seek/', '/api/board/seek/'],
    ['/api/challenge/AbCd1234/accept/', '/api/challenge/AbCd1234/accept/'],
    ['/api/bot/game/%E0%A4%A/resign/', '/api/bot/game/%E0%A4%A/resign'],
    ['/', '/'],
  ];
  t.assert.deepEqual(
    cases.map(([url]) => [url, lichessUrl(url)]),
    cases,
  );
});
