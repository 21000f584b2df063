-- A player's games (DECISIONS §13): the seats, whether the game is over and its place in the order of changes
-- (seq: every write gives its game the next value of games_seq), indexed so that a page of a player's games, or of
-- all games, of one status costs the same however many games are stored. `ended` stays NULL here for the games
-- already stored: whether a game is over depends on its position, so the store works it out from each game as it
-- opens the database.
ALTER TABLE games ADD COLUMN white_id TEXT;
ALTER TABLE games ADD COLUMN black_id TEXT;
ALTER TABLE games ADD COLUMN ended SMALLINT;
ALTER TABLE games ADD COLUMN seq BIGINT NOT NULL DEFAULT 0;
CREATE SEQUENCE games_seq;

UPDATE games SET white_id = data::jsonb -> 'white' ->> 'id', black_id = data::jsonb -> 'black' ->> 'id';

-- The games stored so far take their places in the order of their last change.
UPDATE games SET seq = ordered.n
FROM (SELECT id, row_number() OVER (ORDER BY updated_at, id) AS n FROM games) AS ordered
WHERE ordered.id = games.id;
SELECT setval('games_seq', (SELECT coalesce(max(seq), 0) + 1 FROM games), false);

CREATE INDEX games_white ON games (white_id, ended, seq);
CREATE INDEX games_black ON games (black_id, ended, seq);
CREATE INDEX games_ended ON games (ended, seq);
