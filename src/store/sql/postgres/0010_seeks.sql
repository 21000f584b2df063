-- Seeks (DECISIONS §16): what a seek is as JSON in `data`; what becomes of it in columns of its own. A pairing is a
-- claim of two open seeks in one transaction, so that each seek is paired at most once. A real-time seek lives while
-- its instance keeps it alive (`alive_until`); a correspondence one until it is paired or withdrawn.
CREATE TABLE seeks (
  id TEXT PRIMARY KEY,
  player_id TEXT NOT NULL,
  pool TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  alive_until BIGINT NOT NULL,
  game_id TEXT,
  paired_at BIGINT,
  game_color TEXT,
  data TEXT NOT NULL
);

-- The open seeks of a pool, oldest first; the pairings a crash may have left without their game.
CREATE INDEX seeks_open ON seeks (pool, created_at, id) WHERE status = 'open';
CREATE INDEX seeks_paired ON seeks (paired_at) WHERE status = 'paired';
-- The accepted challenges a crash may have left without their game.
CREATE INDEX challenges_accepted ON challenges (created_at) WHERE status = 'accepted';
