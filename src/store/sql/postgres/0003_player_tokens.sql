-- Player tokens (DECISIONS §13): the secret is never stored, only its SHA-256 digest. A revoked token stays, with
-- its revocation time, so that "a token was ever issued" (authentication stays on) survives revoking them all.
CREATE TABLE player_tokens (
  id TEXT PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  player_id TEXT NOT NULL,
  display_name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  revoked_at TIMESTAMPTZ
);

CREATE INDEX player_tokens_player ON player_tokens (player_id, created_at);
