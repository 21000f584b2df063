-- Who holds a real-time seek (DECISIONS §16a): the store, one per process, whose process keeps its request open;
-- NULL for a correspondence seek, which no request holds. A process that opens the file withdraws the real-time
-- seeks held by the one before it (killed or restarted), so that they are never paired, even before their lease
-- lapses. The real-time seeks open before this migration have no holder to tell: they are withdrawn.
ALTER TABLE seeks ADD COLUMN holder TEXT;
UPDATE seeks SET status = 'withdrawn' WHERE status = 'open' AND alive_until < 9007199254740991;

-- A player's open seeks, counted at each new one: one real-time seek at most, ten correspondence ones.
CREATE INDEX seeks_open_of_player ON seeks (player_id) WHERE status = 'open';
