/**
 * Which games are rated and how (DECISIONS §21): a rated game is rated once, by the change that ends it with a
 * result, not when aborted nor before both sides moved; its record keeps each side's rating and change; its PGN
 * carries lichess's rating tags; and the ratings' views validate against lichess's own schemas.
 */
import { suite, test, type TestContext } from 'node:test';
import { newGame, type Game } from '../../src/domain/game.ts';
import { newPerf, ratedGame, type Perf } from '../../src/domain/glicko.ts';
import { eventGameOf, gameEventInfoOf, lichessGameFull } from '../../src/domain/lichess.ts';
import {
  lichessLeaderboard,
  lichessPerfsOf,
  lichessRatingHistory,
  lichessUserOf,
} from '../../src/domain/lichessRatings.ts';
import { exportPgn } from '../../src/domain/pgn.ts';
import { gameRatingsOf, perfIn, ratedEndOf, ratesGame, type PlayerPerf } from '../../src/domain/ratings.ts';
import { abort, makeMove, resign, undo } from '../../src/domain/transitions.ts';
import type { Change } from '../../src/domain/game.ts';
import type { Result } from '../../src/domain/errors.ts';
import { playerActor } from '../../src/domain/seats.ts';
import { assertLichess } from '../helpers/lichess.ts';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const ANN = { id: 'ann', displayName: 'Ann' };
const BOB = { id: 'bob', displayName: 'Bob' };
const BLITZ = { initial: 300_000, increment: 3_000 };

const established = (rating: number): Perf => ({
  glicko: { rating, deviation: 60, volatility: 0.06 },
  games: 40,
  recent: [rating, rating - 20],
  latest: T0 - 86_400_000,
});
const PERFS = { white: established(1720), black: newPerf() };

const ratedBlitz = (rated = true): Game =>
  newGame({
    id: 'AbCd1234',
    createdAt: new Date(T0).toISOString(),
    white: ANN,
    black: BOB,
    clock: BLITZ,
    rated,
    ratings: gameRatingsOf(PERFS, T0),
  });

function then(game: Game, ...steps: Array<(game: Game) => Result<Change>>): Game {
  for (const step of steps) {
    const result = step(game);
    if (!result.ok) throw result.error;
    game = result.value.game;
  }
  return game;
}

const move =
  (uci: string, who = ANN, at = T0 + 1000) =>
  (game: Game) =>
    makeMove(game, uci, playerActor(who), at);

suite('which ends rate a game', () => {
  test('a rated game ended by a result after both sides moved: rated, each side its change', (t: TestContext) => {
    const before = then(ratedBlitz(), move('e2e4'), move('e7e5', BOB));
    const ended = then(before, g => resign(g, playerActor(BOB), T0 + 5000));
    t.assert.equal(ratesGame(before, ended), true);
    const rated = ratedEndOf(before, ended, PERFS, T0 + 5000)!;
    const expected = ratedGame(PERFS, 'white', T0 + 5000);
    t.assert.deepEqual(rated.end.sides[0], { player: ANN, before: PERFS.white, after: expected.white });
    t.assert.deepEqual(rated.end.sides[1], { player: BOB, before: PERFS.black, after: expected.black });
    t.assert.deepEqual([rated.end.perfType, rated.end.day], ['blitz', '2026-03-01']);
    t.assert.deepEqual(rated.game.record.ratings, {
      white: { rating: 1720, provisional: false, ratingDiff: Math.trunc(expected.white.glicko.rating) - 1720 },
      black: { rating: 1500, provisional: true, ratingDiff: Math.trunc(expected.black.glicko.rating) - 1500 },
      ratedAt: T0 + 5000,
    });
    // Once rated, no later change rates it again.
    t.assert.equal(ratesGame(rated.game, rated.game), false);
  });

  test('not rated: a casual game, an abort, an end before both moved, a change that does not end it', (t: TestContext) => {
    const casual = then(ratedBlitz(false), move('e2e4'), move('e7e5', BOB));
    t.assert.equal(
      ratesGame(
        casual,
        then(casual, g => resign(g, playerActor(BOB), T0 + 5000)),
      ),
      false,
    );
    const fresh = ratedBlitz();
    t.assert.equal(
      ratesGame(
        fresh,
        then(fresh, g => abort(g, playerActor(ANN), T0 + 1000)),
      ),
      false,
    );
    const oneMove = then(fresh, move('e2e4'));
    t.assert.equal(
      ratesGame(
        oneMove,
        then(oneMove, g => resign(g, playerActor(BOB), T0 + 2000)),
      ),
      false,
    );
    const both = then(fresh, move('e2e4'), move('e7e5', BOB));
    t.assert.equal(ratesGame(both, then(both, move('g1f3', ANN, T0 + 3000))), false);
    t.assert.equal(ratedEndOf(both, then(both, move('g1f3', ANN, T0 + 3000)), PERFS, T0), undefined);
  });

  test('undo is refused in a rated game, for the service too', (t: TestContext) => {
    const played = then(ratedBlitz(), move('e2e4'));
    const refused = undo(played, undefined, T0 + 2000);
    t.assert.equal(!refused.ok && refused.error.code, 'NOT_ALLOWED_IN_RATED');
    t.assert.equal(undo(then(ratedBlitz(false), move('e2e4')), undefined, T0 + 2000).ok, true);
  });

  test('a perf not stored is a new player’s', (t: TestContext) => {
    const stored: PlayerPerf[] = [{ player: ANN, perfType: 'blitz', perf: PERFS.white }];
    t.assert.deepEqual(perfIn(stored, 'ann', 'blitz'), PERFS.white);
    t.assert.deepEqual(perfIn(stored, 'ann', 'bullet'), newPerf());
    t.assert.deepEqual(perfIn(stored, 'bob', 'blitz'), newPerf());
  });
});

suite('ratings shown in lichess shapes', () => {
  const before = then(ratedBlitz(), move('e2e4'), move('e7e5', BOB));
  const ended = then(before, g => resign(g, playerActor(ANN), T0 + 5000));
  const { game } = ratedEndOf(before, ended, PERFS, T0 + 5000)!;
  const diffs = game.record.ratings!;

  test('gameFull: rated, both sides with their ratings; gameFinish: the player’s and the opponent’s change', (t: TestContext) => {
    const full = lichessGameFull(game, T0 + 6000);
    assertLichess('GameFullEvent', full);
    t.assert.equal(full.rated, true);
    t.assert.deepEqual([full.white.rating, full.white.provisional], [1720, false]);
    t.assert.deepEqual([full.black.rating, full.black.provisional], [1500, true]);
    const info = gameEventInfoOf(eventGameOf(game, T0 + 6000), 'bob', T0 + 6000);
    assertLichess('GameEventInfo', info);
    t.assert.deepEqual(
      [info.rated, info.rating, info.ratingDiff, info.opponent],
      [
        true,
        1500,
        diffs.black.ratingDiff,
        { id: 'ann', username: 'Ann', rating: 1720, ratingDiff: diffs.white.ratingDiff },
      ],
    );
    assertLichess('GameFinishEvent', { type: 'gameFinish', game: info });
  });

  test('PGN: the rated Event, both Elos and their signed changes', (t: TestContext) => {
    const pgn = exportPgn(game, { site: 'https://chess.example.org/game/AbCd1234' });
    t.assert.match(pgn, /^\[Event "Rated Blitz game"\]$/m);
    t.assert.match(pgn, /^\[WhiteElo "1720"\]\n\[BlackElo "1500"\]\n/m);
    const signed = (diff: number) => (diff > 0 ? `+${diff}` : String(diff));
    t.assert.ok(diffs.white.ratingDiff! < 0 && diffs.black.ratingDiff! > 0, 'Ann resigned');
    t.assert.match(pgn, new RegExp(`^\\[WhiteRatingDiff "${signed(diffs.white.ratingDiff!)}"\\]$`, 'm'));
    t.assert.match(pgn, new RegExp(`^\\[BlackRatingDiff "\\${signed(diffs.black.ratingDiff!)}"\\]$`, 'm'));
    const casual = exportPgn(then(ratedBlitz(false), move('e2e4')), { site: 'x' });
    t.assert.match(casual, /^\[Event "Casual game"\]$/m);
    t.assert.doesNotMatch(casual, /Elo/);
  });

  test('User, Perf, RatingHistory and Leaderboard', (t: TestContext) => {
    const stored: PlayerPerf[] = [{ player: ANN, perfType: 'blitz', perf: PERFS.white }];
    const user = lichessUserOf(ANN, stored, T0, false);
    assertLichess('User', user);
    t.assert.deepEqual(user.perfs.blitz, { games: 40, rating: 1720, rd: 60, prog: 20 });
    t.assert.deepEqual(user.perfs.bullet, { games: 0, rating: 1500, rd: 500, prog: 0, prov: true });
    t.assert.deepEqual(Object.keys(lichessPerfsOf(stored, 'ann', T0)).length, 6);
    const history = lichessRatingHistory([
      { perfType: 'blitz', day: '2026-03-01', rating: 1700 },
      { perfType: 'blitz', day: '2026-12-31', rating: 1720 },
    ]);
    assertLichess('RatingHistory', history);
    t.assert.deepEqual(history.find(h => h.name === 'Blitz')!.points, [
      [2026, 2, 1, 1700],
      [2026, 11, 31, 1720],
    ]);
    t.assert.deepEqual(history.find(h => h.name === 'Bullet')!.points, []);
    const top = lichessLeaderboard(stored);
    assertLichess('Leaderboard', top);
    t.assert.deepEqual(top.users[0], { id: 'ann', username: 'Ann', perfs: { blitz: { rating: 1720, progress: 20 } } });
  });
});
