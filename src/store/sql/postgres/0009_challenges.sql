-- Challenges (DECISIONS §16): the whole challenge as JSON in `data`, beside the columns it is found by. A change is
-- a claim: an update conditional on the version read and on the status still `created`, so that each pending
-- challenge is accepted, declined, canceled or expired once, whatever the number of racing requests.
CREATE TABLE challenges (
  id TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  status TEXT NOT NULL,
  challenger_id TEXT NOT NULL,
  dest_id TEXT,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  data TEXT NOT NULL
);

-- The pending ones only: a player's in and out, and the soonest to expire.
CREATE INDEX challenges_pending_out ON challenges (challenger_id, created_at) WHERE status = 'created';
CREATE INDEX challenges_pending_in ON challenges (dest_id, created_at) WHERE status = 'created';
CREATE INDEX challenges_pending_expiry ON challenges (expires_at) WHERE status = 'created';
