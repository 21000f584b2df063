-- The computer's turns (DECISIONS §18): which instance searches the engine's move in a game, at which version, until
-- when (a lease, renewed while it searches). An instance takes a turn when none holds it, when the game has moved on
-- since, or when the holder's lease has lapsed (it died): so one instance searches, and another takes over.
CREATE TABLE engine_turns (
  game_id TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  instance_id TEXT NOT NULL,
  until INTEGER NOT NULL
) WITHOUT ROWID;
