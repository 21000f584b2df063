CREATE TABLE games (
  id TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  data TEXT NOT NULL -- JSON: players, start FEN, moves, redo stack, pending flags, result
);
