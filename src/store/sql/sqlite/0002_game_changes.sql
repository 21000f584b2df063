-- The change log: one row per committed change with the event streams send for it, kept for a while so that
-- a stream that missed announcements can catch up (see CHANGE_LOG_RETENTION_MS).
CREATE TABLE game_changes (
  game_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  created_at INTEGER NOT NULL, -- milliseconds since the epoch
  event TEXT NOT NULL, -- JSON: the gameState event
  PRIMARY KEY (game_id, version)
) WITHOUT ROWID;

CREATE INDEX game_changes_created_at ON game_changes (created_at);
