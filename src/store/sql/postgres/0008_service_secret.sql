-- The service's own secret (DECISIONS §13a): made once with the store, the same for every instance that shares it,
-- it signs what the service hands out and must recognise again (listing cursors). gen_random_uuid() draws from the
-- server's strong random source; two of them carry 244 random bits.
CREATE TABLE service_secret (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  secret TEXT NOT NULL
);

INSERT INTO service_secret (id, secret) VALUES (1, replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
