-- Clocks (DECISIONS §14): when a game's clock calls for the service to act (a flag, or an abort), in ms since the
-- epoch; null for every other game. Every instance arms its timers from it at start.
ALTER TABLE games ADD COLUMN deadline BIGINT;

CREATE INDEX games_deadline ON games (deadline) WHERE deadline IS NOT NULL;
