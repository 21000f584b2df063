-- Who holds a real-time seek (DECISIONS §16a): the instance whose process keeps its request open, by the id of that
-- instance's store; NULL for a correspondence seek, which no request holds. A seek whose holder is no longer
-- connected to the database (its process was killed or restarted) is never paired, even before its lease lapses.
-- The real-time seeks open before this migration have no holder to tell: they are withdrawn.
ALTER TABLE seeks ADD COLUMN holder TEXT;
UPDATE seeks SET status = 'withdrawn' WHERE status = 'open' AND alive_until < 9007199254740991;

-- A player's open seeks, counted at each new one: one real-time seek at most, ten correspondence ones.
CREATE INDEX seeks_open_of_player ON seeks (player_id) WHERE status = 'open';
