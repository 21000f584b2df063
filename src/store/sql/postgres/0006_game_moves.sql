-- Writes that do not grow with the game: a game's moves leave its `data` JSON for rows of their own, so that a
-- change writes the games row (small) and only the moves rows that changed (see src/store/rows.ts). A row per move
-- of the game's line: the moves played (ply 0, 1, ...), then the moves undone in the order they would be redone;
-- `clock` is the mover's time left after a played move of a clocked game. `data.cursor` counts the moves played.
CREATE TABLE game_moves (
  game_id TEXT NOT NULL,
  ply INTEGER NOT NULL,
  uci TEXT NOT NULL,
  clock BIGINT,
  PRIMARY KEY (game_id, ply)
);

INSERT INTO game_moves (game_id, ply, uci, clock)
SELECT g.id, m.n - 1, m.uci, (g.data::jsonb -> 'moveClocks' ->> (m.n - 1)::int)::bigint
FROM games AS g, jsonb_array_elements_text(g.data::jsonb -> 'moves') WITH ORDINALITY AS m (uci, n);

INSERT INTO game_moves (game_id, ply, uci, clock)
SELECT g.id, jsonb_array_length(g.data::jsonb -> 'moves') + jsonb_array_length(g.data::jsonb -> 'redo') - r.n, r.uci, NULL
FROM games AS g, jsonb_array_elements_text(g.data::jsonb -> 'redo') WITH ORDINALITY AS r (uci, n);

UPDATE games
SET data = ((data::jsonb - 'moves' - 'redo' - 'moveClocks') || jsonb_build_object('cursor', jsonb_array_length(data::jsonb -> 'moves')))::text;
