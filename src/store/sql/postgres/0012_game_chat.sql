-- Games' chat (DECISIONS §17): each line kept with its game, numbered in the game's order (`seq`, both rooms), with
-- its writer's id and display name as they were. A room keeps its latest lines only; a player's lines are counted by
-- time for the rate limit, across games.
CREATE TABLE game_chat (
  game_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  room TEXT NOT NULL,
  player_id TEXT NOT NULL,
  username TEXT NOT NULL,
  text TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (game_id, seq)
);

CREATE INDEX game_chat_room ON game_chat (game_id, room, seq);
CREATE INDEX game_chat_player ON game_chat (player_id, created_at);
