-- One row that the store rewrites to learn whether the database can be written (the readiness check after a
-- failed write, and at open): a full disk or a read-only file shows here before any game is lost to it.
CREATE TABLE write_probe (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  written_at TEXT NOT NULL
);
