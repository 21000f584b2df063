-- Writes that do not grow with the game: a game's moves leave its `data` JSON for rows of their own, so that a
-- change writes the games row (small) and only the moves rows that changed (see src/store/rows.ts). A row per move
-- of the game's line: the moves played (ply 0, 1, ...), then the moves undone in the order they would be redone;
-- `clock` is the mover's time left after a played move of a clocked game. `data.cursor` counts the moves played.
CREATE TABLE game_moves (
  game_id TEXT NOT NULL,
  ply INTEGER NOT NULL,
  uci TEXT NOT NULL,
  clock INTEGER,
  PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;

INSERT INTO game_moves (game_id, ply, uci, clock)
SELECT g.id, CAST(m.key AS INTEGER), m.value, json_extract(g.data, '$.moveClocks[' || m.key || ']')
FROM games AS g, json_each(g.data, '$.moves') AS m;

INSERT INTO game_moves (game_id, ply, uci, clock)
SELECT g.id, json_array_length(g.data, '$.moves') + json_array_length(g.data, '$.redo') - 1 - CAST(r.key AS INTEGER),
       r.value, NULL
FROM games AS g, json_each(g.data, '$.redo') AS r;

UPDATE games
SET data = json_set(json_remove(data, '$.moves', '$.redo', '$.moveClocks'), '$.cursor', json_array_length(data, '$.moves'));
