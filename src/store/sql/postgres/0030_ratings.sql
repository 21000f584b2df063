-- Ratings (DECISIONS §21): each player's Glicko-2 values per perf, as lila keeps them (`recent`: a JSON array of the
-- whole ratings after the last games, newest first; `latest`: the end of the last rated game, ms since the epoch),
-- and one history point per player, perf and UTC day, the last rating of that day. A perf is written only by the
-- end of a rated game, in the game's own transaction, checked on its games count (src/store/ratings.ts).
CREATE TABLE perfs (
  player_id TEXT NOT NULL,
  perf TEXT NOT NULL,
  name TEXT NOT NULL,
  rating DOUBLE PRECISION NOT NULL,
  deviation DOUBLE PRECISION NOT NULL,
  volatility DOUBLE PRECISION NOT NULL,
  games INTEGER NOT NULL,
  latest BIGINT,
  recent TEXT NOT NULL,
  PRIMARY KEY (player_id, perf)
);

-- The leaderboards: established players of a perf, best first.
CREATE INDEX perfs_top ON perfs (perf, rating DESC) WHERE deviation < 110;

CREATE TABLE rating_history (
  player_id TEXT NOT NULL,
  perf TEXT NOT NULL,
  day TEXT NOT NULL,
  rating INTEGER NOT NULL,
  PRIMARY KEY (player_id, perf, day)
);
