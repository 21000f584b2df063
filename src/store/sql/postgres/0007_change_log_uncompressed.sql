-- A change's event is as long as its game (the state lists every move); above 2 KB PostgreSQL would compress it
-- before storing it out of line, on every change of a long game, for a log whose entries live an hour. Stored
-- out of line as it is, a change of a 400-ply game costs the database about what one of a 10-ply game does.
ALTER TABLE game_changes ALTER COLUMN event SET STORAGE EXTERNAL;
