-- The archive of finished games: one row per game with its event log and final read models compressed,
-- and one row per seated player to find a player's games.
-- Written to be re-runnable (IF NOT EXISTS): yoyo records a migration in a second transaction after
-- applying it, so a process killed between the two re-applies it at its next start.

CREATE TABLE IF NOT EXISTS archived_games (
    game_id               text        PRIMARY KEY,
    game_type             text        NOT NULL,
    engine_version        text        NOT NULL,
    options               jsonb       NOT NULL,
    seats                 jsonb       NOT NULL,   -- [{"player_id", "name"} or null, ...] by seat
    created_at            timestamptz NOT NULL,
    finished_at           timestamptz NOT NULL,
    archived_at           timestamptz NOT NULL DEFAULT now(),
    last_version          integer     NOT NULL,
    event_count           integer     NOT NULL,
    digest                text        NOT NULL,   -- benthic.events.event_digest of the whole stream
    codec                 text        NOT NULL,   -- how events and read_models are packed
    events                bytea       NOT NULL,
    events_raw_bytes      integer     NOT NULL,
    read_models           bytea       NOT NULL,
    read_models_raw_bytes integer     NOT NULL,
    read_models_digest    text        NOT NULL
);

-- Already compressed: PostgreSQL's own TOAST compression would only waste CPU on them.
ALTER TABLE archived_games ALTER COLUMN events SET STORAGE EXTERNAL;
ALTER TABLE archived_games ALTER COLUMN read_models SET STORAGE EXTERNAL;

CREATE INDEX IF NOT EXISTS archived_games_by_type_finished ON archived_games (game_type, finished_at DESC);
CREATE INDEX IF NOT EXISTS archived_games_by_finished ON archived_games (finished_at);

CREATE TABLE IF NOT EXISTS archived_players (
    game_id     text        NOT NULL REFERENCES archived_games (game_id) ON DELETE CASCADE,
    seat        smallint    NOT NULL,
    player_id   text        NOT NULL,
    game_type   text        NOT NULL,
    finished_at timestamptz NOT NULL,
    PRIMARY KEY (game_id, seat)
);

CREATE INDEX IF NOT EXISTS archived_players_by_player ON archived_players (player_id, finished_at DESC);
