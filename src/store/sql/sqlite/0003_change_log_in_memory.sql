-- The change log moved into the store's memory (see src/store/recentChanges.ts): only the process that wrote a
-- change ever read it back, and writing it beside each change nearly doubled the cost of a move. A file migrated
-- this far cannot be opened by a version before it (its store expects the table).
DROP TABLE game_changes;
