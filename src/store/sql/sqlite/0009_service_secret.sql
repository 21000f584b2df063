-- The service's own secret (DECISIONS §13a): made once with the store, the same for every process that opens it,
-- it signs what the service hands out and must recognise again (listing cursors).
CREATE TABLE service_secret (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  secret TEXT NOT NULL
);

INSERT INTO service_secret (id, secret) VALUES (1, lower(hex(randomblob(32))));
