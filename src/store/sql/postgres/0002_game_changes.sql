-- The change log: one row per committed change with the event streams send for it, kept for a while so that
-- the streams of every instance can catch up from it (see CHANGE_LOG_RETENTION_MS).
CREATE TABLE game_changes (
  game_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  event TEXT NOT NULL, -- JSON: the gameState event
  PRIMARY KEY (game_id, version)
);

CREATE INDEX game_changes_created_at ON game_changes (created_at);
