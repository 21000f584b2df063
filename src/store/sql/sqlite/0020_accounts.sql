-- Accounts (DECISIONS §20): a person's id is the username in lower case; a closed account keeps its row (closed_at),
-- so that its id is never given again. The password is kept only as its memory-hard hash, its parameters with it.
-- Times are ms since the epoch.
CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  display_name TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  closed_at INTEGER
) WITHOUT ROWID;

-- Sessions: only the SHA-256 of the cookie's id is kept, so that every instance knows a session and none can give
-- it away. An ended session keeps its row, marked ended.
CREATE TABLE account_sessions (
  hash TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id),
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  ended INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

CREATE INDEX account_sessions_account ON account_sessions (account_id);

-- Failed sign-ins, one row each, counted per key (an account's, an address's) within a window by every instance.
CREATE TABLE sign_in_failures (
  key TEXT NOT NULL,
  at INTEGER NOT NULL
);

CREATE INDEX sign_in_failures_key ON sign_in_failures (key, at);

-- OAuth authorization codes: the SHA-256 of the code, what it is bound to, when it was used and the token it gave
-- (revoked when the code is used again).
CREATE TABLE oauth_codes (
  hash TEXT PRIMARY KEY,
  client_id TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  challenge TEXT NOT NULL,
  scopes TEXT NOT NULL,
  account_id TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER,
  token_id TEXT
) WITHOUT ROWID;

-- Tokens with scopes: personal tokens and OAuth tokens are player tokens with their scopes (comma-separated; NULL
-- for the operator's, which keep every scope), a description, the client that holds them, an expiry and when they
-- were last used.
ALTER TABLE player_tokens ADD COLUMN scopes TEXT;
ALTER TABLE player_tokens ADD COLUMN description TEXT;
ALTER TABLE player_tokens ADD COLUMN client_id TEXT;
ALTER TABLE player_tokens ADD COLUMN expires_at INTEGER;
ALTER TABLE player_tokens ADD COLUMN last_used_at INTEGER;
