-- Bots (DECISIONS §17): the players made bots, for good (a token issued as a bot's, or an account upgraded). A
-- player token's lookup reads whether its player is one, so that every instance knows it within a lookup's life.
CREATE TABLE bots (
  player_id TEXT PRIMARY KEY,
  since TEXT NOT NULL
) WITHOUT ROWID;
