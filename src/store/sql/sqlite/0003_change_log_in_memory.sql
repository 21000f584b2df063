-- The change log moved into the store's memory (see src/store/recentChanges.ts): only the process that wrote a
-- change ever read it back, and writing it beside each change doubled the cost of a move.
DROP TABLE game_changes;
