-- A player's games (DECISIONS §13): the seats, whether the game is over and its place in the order of changes
-- (seq: every write gives its game the next one), indexed so that a page of a player's games, or of all games, of
-- one status costs the same however many games are stored. `ended` stays NULL here for the games already stored:
-- whether a game is over depends on its position, so the store works it out from each game as it opens the file.
ALTER TABLE games ADD COLUMN white_id TEXT;
ALTER TABLE games ADD COLUMN black_id TEXT;
ALTER TABLE games ADD COLUMN ended INTEGER;
ALTER TABLE games ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;

UPDATE games SET white_id = json_extract(data, '$.white.id'), black_id = json_extract(data, '$.black.id');

-- The games stored so far take their places in the order of their last change.
CREATE TEMP TABLE game_order (id TEXT PRIMARY KEY, n INTEGER NOT NULL);
INSERT INTO game_order (id, n) SELECT id, row_number() OVER (ORDER BY updated_at, id) FROM games;
UPDATE games SET seq = (SELECT n FROM game_order WHERE game_order.id = games.id);
DROP TABLE game_order;

CREATE INDEX games_white ON games (white_id, ended, seq);
CREATE INDEX games_black ON games (black_id, ended, seq);
CREATE INDEX games_ended ON games (ended, seq);
