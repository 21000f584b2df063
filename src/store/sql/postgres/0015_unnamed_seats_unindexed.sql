-- A seat no one named holds its colour's default player (white `p1`, black `p2`): every game between unnamed players
-- has both. The seat indexes are ordered by seq, which every change of a game moves, so each move of such a game
-- moved its entries in two indexes that no list of a named player reads. They leave those seats out from now on: a
-- list of a named player reads them as before (its query says that the seat is not the default, which is what lets
-- PostgreSQL use an index of part of the table), a list of a default player reads the index of every game (games_ended).
DROP INDEX games_white;
DROP INDEX games_black;
CREATE INDEX games_white ON games (white_id, ended, seq) WHERE white_id <> 'p1';
CREATE INDEX games_black ON games (black_id, ended, seq) WHERE black_id <> 'p2';
