/**
 * A game as lichess exports it (DECISIONS §22): its GameJson (lichess's published schema) and its PGN with lichess's
 * tags, each with the options of lichess's export (`moves`, `tags`, `clocks`, `pgnInJson`, `lastFen`). Pure views of
 * a game; the players of GameJson and the PGN's tags are one small function each (`exportPlayersOf`, `pgnTagsOf`),
 * where the ratings of DECISIONS §21 belong.
 *
 * ```ts
 * exportPgnOf(game, { site: 'https://chess.example.org/game/AbCd1234', moves: true, tags: true, clocks: true });
 * gameJsonOf(game, { site, moves: true, tags: true, clocks: false, pgnInJson: false, lastFen: false });
 * ```
 */
import type { ExportPlayer, GameJson } from '../contract/gameExport.ts';
import type { PlayerInfo } from '../contract/shapes.ts';
import { PERF_NAMES } from '../contract/vocabulary.ts';
import { isCorrespondence } from './clock.ts';
import { engineLevelOf } from './engineSeat.ts';
import type { Game, SeatRating } from './game.ts';
import { lichessStatus, speedOfControl } from './lichess.ts';
import { ratingTags } from './ratings.ts';
import { INITIAL_FEN, makePgnText } from './notation.ts';
import { isOver, resultToken, statusOf, winnerOf } from './status.ts';

/** What an export includes (lichess's parameters, their defaults given by the caller) and the game's address. */
export interface ExportInclude {
  readonly site: string; // the game's address, e.g. 'https://chess.example.org/game/AbCd1234'
  readonly moves: boolean;
  readonly tags: boolean;
  readonly clocks: boolean;
  readonly pgnInJson: boolean;
  readonly lastFen: boolean;
}

/** lichess's defaults of a player's games (GET /api/games/user); one game's export has clocks too. */
export const EXPORT_DEFAULTS: Omit<ExportInclude, 'site'> = {
  moves: true,
  tags: true,
  clocks: false,
  pgnInJson: false,
  lastFen: false,
};

const twoDigits = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * The `[%clk h:mm:ss]` comment of a time left, in whole seconds rounded down, as chessops's makeComment writes it
 * (written here: an export writes one per move of every game, and makeComment costs forty times as much).
 */
export function clockComment(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(seconds / 3600);
  return `[%clk ${hours}:${twoDigits(Math.floor(seconds / 60) % 60)}:${twoDigits(seconds % 60)}]`;
}

/** `YYYY.MM.DD` of an ISO time, as PGN writes dates. */
const pgnDate = (iso: string): string => iso.slice(0, 10).replace(/-/g, '.');

/** lichess's Termination tag: how the game ended, or Unterminated while it goes on. */
function terminationOf(game: Game): string {
  if (!isOver(game)) return 'Unterminated';
  const status = statusOf(game);
  if (status === 'aborted') return 'Abandoned';
  if (status === 'outOfTime' || status === 'timeout') return 'Time forfeit';
  return 'Normal';
}

/**
 * The PGN tags of a game, in lichess's order: the seven of the roster, GameId, the time as UTC, the variant, the
 * time control, the termination, and SetUp/FEN for a game from a position; a rated game's ratings (WhiteElo,
 * BlackElo, WhiteRatingDiff, BlackRatingDiff, DECISIONS §21) after UTCTime, as lichess writes them.
 */
export function pgnTagsOf(game: Game, site: string): Array<[string, string]> {
  const { record } = game;
  const control = record.clock?.control;
  const fromPosition = record.startFen !== INITIAL_FEN;
  const timeControl =
    control && !isCorrespondence(control) ? `${control.initial / 1000}+${control.increment / 1000}` : '-';
  const tags: Array<[string, string]> = [
    ['Event', `${record.rated ? 'Rated' : 'Casual'} ${PERF_NAMES[speedOfControl(control)]} game`],
    ['Site', site],
    ['Date', pgnDate(record.createdAt)],
    ['Round', '-'],
    ['White', record.white.displayName],
    ['Black', record.black.displayName],
    ['Result', resultToken(game)],
    ['GameId', record.id],
    ['UTCDate', pgnDate(record.createdAt)],
    ['UTCTime', record.createdAt.slice(11, 19)],
    ...(ratingTags(record)?.tags ?? []),
    ['Variant', fromPosition ? 'From Position' : 'Standard'],
    ['TimeControl', timeControl],
    ['Termination', terminationOf(game)],
  ];
  if (fromPosition) tags.push(['FEN', record.startFen], ['SetUp', '1']);
  return tags;
}

/** The PGN of a game as lichess exports it: its tags (`tags`), its moves (`moves`) with `[%clk]` comments (`clocks`). */
export function exportPgnOf(game: Game, include: Pick<ExportInclude, 'site' | 'moves' | 'tags' | 'clocks'>): string {
  const { record } = game;
  const control = record.clock?.control;
  const withClocks = include.moves && include.clocks && control !== undefined && !isCorrespondence(control);
  const comments = withClocks ? record.moveClocks.map(clockComment) : undefined;
  const text = makePgnText({
    tags: include.tags ? pgnTagsOf(game, include.site) : [],
    startPly: game.startPly,
    sans: include.moves ? game.sans : [],
    result: resultToken(game),
    comments,
  });
  return include.tags ? text : text.replace(/^\n\n/, '');
}

/**
 * A seat as lichess's GamePlayerUser: the player, their rating as the game began (a rated game's, DECISIONS §21;
 * lichess's neutral 1500 where none was recorded) and its change once rated, the computer's level.
 */
export function exportPlayerOf(player: PlayerInfo, rating?: SeatRating): ExportPlayer {
  const user = { id: player.id, name: player.displayName };
  const seat: ExportPlayer = rating
    ? {
        user,
        rating: rating.rating,
        ...(rating.ratingDiff === undefined ? {} : { ratingDiff: rating.ratingDiff }),
        ...(rating.provisional ? { provisional: true } : {}),
      }
    : { user, rating: 1500, provisional: true };
  const level = engineLevelOf(player);
  return level === undefined ? seat : { ...seat, aiLevel: level };
}

/** The players of a game's GameJson. */
export const exportPlayersOf = (game: Game): GameJson['players'] => ({
  white: exportPlayerOf(game.record.white, game.record.ratings?.white),
  black: exportPlayerOf(game.record.black, game.record.ratings?.black),
});

/** A game as lichess's GameJson, with what `include` asks for. */
export function gameJsonOf(game: Game, include: ExportInclude): GameJson {
  const { record } = game;
  const control = record.clock?.control;
  const speed = speedOfControl(control);
  const createdAt = Date.parse(record.createdAt);
  const engine = engineLevelOf(record.white) !== undefined || engineLevelOf(record.black) !== undefined;
  const json: GameJson = {
    id: record.id,
    rated: record.rated === true,
    variant: record.startFen === INITIAL_FEN ? 'standard' : 'fromPosition',
    speed,
    perf: speed,
    createdAt,
    lastMoveAt: Math.max(createdAt, record.clock?.since ?? createdAt),
    status: lichessStatus(statusOf(game)),
    source: record.source ?? (engine ? 'ai' : 'friend'),
    players: exportPlayersOf(game),
  };
  if (record.startFen !== INITIAL_FEN) json.initialFen = record.startFen;
  const winner = winnerOf(game);
  if (winner) json.winner = winner;
  if (include.moves) json.moves = game.sans.join(' ');
  if (include.pgnInJson) json.pgn = exportPgnOf(game, include);
  if (control && isCorrespondence(control)) json.daysPerTurn = control.daysPerMove;
  if (control && !isCorrespondence(control)) {
    const [initial, increment] = [Math.floor(control.initial / 1000), Math.floor(control.increment / 1000)];
    json.clock = { initial, increment, totalTime: initial + 40 * increment };
    if (include.clocks) json.clocks = record.moveClocks.map(ms => Math.floor(ms / 10));
  }
  if (include.lastFen) json.lastFen = game.fen;
  return json;
}
