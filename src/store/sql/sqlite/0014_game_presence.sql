-- Who is at a game (DECISIONS §17, opponent gone): a row per game, player and instance holding a stream of that
-- player's. While open, the instance renews `until` (a lease, so that a dead instance's streams lapse); once its last
-- stream closes, `until` is when it closed. A player is present while some row's `until` is ahead; gone since the
-- latest `until` otherwise.
CREATE TABLE game_presence (
  game_id TEXT NOT NULL,
  player_id TEXT NOT NULL,
  instance_id TEXT NOT NULL,
  open INTEGER NOT NULL,
  until INTEGER NOT NULL,
  PRIMARY KEY (game_id, player_id, instance_id)
) WITHOUT ROWID;

-- Old rows go: the prune reads them by their time.
CREATE INDEX game_presence_until ON game_presence (until);
