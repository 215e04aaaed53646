"""The play path: how a command becomes commits in a game's stream, for every service that writes to games
(the command service for players, the bots service for bots and clocks), over the event store.

``PlayPath.play(engine, game_id, seat, command, command_id, expected_version, actor)`` decides a seat's
command against the game's folded state and appends its events (``Played``: the versions, the events as the
seat sees them, the state after).  It guarantees:

- optimistic concurrency: the events are appended with the version they were decided on, and the store refuses
  the append when anything else (another replica, another service) appended meanwhile; the command is then
  decided again on the reloaded state, up to ``conflict_retries`` more times (then 409 ``too_many_conflicts``);
- reload and retry: the state is this process's cached one when the caller's ``expected_version`` is not ahead
  of it; a refusal a stale cached state may explain (``version_conflict``, ``seat_taken_over``/``seat_resigned``,
  a rule violation) is decided once more on a freshly loaded state before it is answered;
- idempotent ``command_id``: a command id committed before answers its first commit (``duplicate``), never a
  second one, including when a refusal (game over, stale version, rule) meets a command already committed;
- ``expected_version`` pins the state: a command decided on another version is refused 409 ``version_conflict``;
- one write at a time per game within a process (a lock per game), so the cache is not raced.

``PlayPath.platform`` appends the platform's own commits (``platform_commits``: resign, reclaim, abort, clock
expiry, clocks started) under the same lock and expected version; ``PlayPath.undo`` takes back a seat's last
commit (``benthic.game.undo``: ``command_undone``) the same way, its command id idempotent as a command's.
``CommandOutcome`` counts each command's outcome once in ``benthic_commands_total``.  ``PlayerGames`` keeps each
player's list of unfinished games (the lobby's cap; a game leaves its players' lists when it ends).

Imports the library below it (benthic.rules, game, store, service, trust), never the services.
"""

from benthic.play import platform_commits
from benthic.play.outcome import CommandOutcome
from benthic.play.path import Played, PlayPath, Undone
from benthic.play.platform_commits import PlatformCommit
from benthic.play.players import PlayerGames

__all__ = ["CommandOutcome", "PlatformCommit", "Played", "PlayPath", "PlayerGames", "Undone", "platform_commits"]
