-- A player's games as lichess exports them (DECISIONS §22): one entry per player of each game (a practice board's
-- player holds both seats: one entry, color 'both', its own opponent), written with the game and never changed,
-- keyed by the player and the game's creation time (ties by id) so that a page of any filter of a player's games is
-- read in order from the key; the second index serves `vs`. perf is lichess's speed of the clock (limit + 40 x
-- increment, in seconds; days and no clock: correspondence); rated is the record's `rated` (absent: casual).
CREATE TABLE player_games (
  player_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  game_id TEXT NOT NULL,
  color TEXT NOT NULL, -- 'white', 'black' or 'both'
  opponent_id TEXT NOT NULL,
  perf TEXT NOT NULL,
  rated INTEGER NOT NULL,
  PRIMARY KEY (player_id, created_at, game_id)
) WITHOUT ROWID;

-- The games stored so far get their entries.
WITH g AS (
  SELECT id, created_at, white_id, black_id,
         json_extract(data, '$.clock.control.initial') / 1000.0 + 40 * json_extract(data, '$.clock.control.increment') / 1000.0 AS estimate,
         coalesce(json_extract(data, '$.rated'), 0) AS rated
  FROM games
), s AS (
  SELECT id, created_at, white_id, black_id, rated,
         CASE WHEN estimate IS NULL THEN 'correspondence' WHEN estimate < 30 THEN 'ultraBullet'
              WHEN estimate < 180 THEN 'bullet' WHEN estimate < 480 THEN 'blitz' WHEN estimate < 1500 THEN 'rapid'
              ELSE 'classical' END AS perf
  FROM g
)
INSERT INTO player_games (player_id, created_at, game_id, color, opponent_id, perf, rated)
SELECT white_id, created_at, id, CASE WHEN white_id = black_id THEN 'both' ELSE 'white' END, black_id, perf, rated FROM s
UNION ALL
SELECT black_id, created_at, id, 'black', white_id, perf, rated FROM s WHERE black_id <> white_id;

CREATE INDEX player_games_vs ON player_games (player_id, opponent_id, created_at, game_id);
