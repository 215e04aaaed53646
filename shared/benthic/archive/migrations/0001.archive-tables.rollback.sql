DROP TABLE IF EXISTS archived_players;
DROP TABLE IF EXISTS archived_games;
