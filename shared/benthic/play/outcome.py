"""A command's outcome, counted once in ``benthic_commands_total{game_type, command, outcome, code}``."""

from __future__ import annotations

from types import TracebackType

from benthic.errors import ApiError
from benthic.rules import GameNotSupported
from benthic.runtime.telemetry import COMMANDS, series


class CommandOutcome:
    """One command's outcome, recorded where it is learnt and counted when the ``with`` block ends.

    Outcomes: ``accepted``, ``duplicate`` (a repeated command id), ``rejected`` (its code), ``conflict``
    (``version_conflict``, ``too_many_conflicts``), ``not_supported`` (the engine refuses the game's fold) and
    ``error`` (``internal_error``).  The first outcome recorded stands.  A command that ends with none recorded is
    not counted: it was refused before it reached its game (its token, its game unknown, the store unavailable).
    """

    __slots__ = ("game_type", "command", "_recorded")

    def __init__(self, game_type: str, command: str = "") -> None:
        self.game_type = game_type
        self.command = command  # the command's name, once decoded
        self._recorded: tuple[str, str] | None = None

    def record(self, outcome: str, code: str = "") -> None:
        if self._recorded is None:
            self._recorded = (outcome, code)

    def refuse(self, outcome: str, error: ApiError) -> ApiError:
        """Record the refusal ``error`` (by its code) and return it, to be raised."""
        self.record(outcome, error.code)
        return error

    def failed(self, error: BaseException) -> None:
        """Record an unexpected failure: a fold the engine refuses (answered 503), or any other exception but an
        ApiError (whose outcome is recorded where it is refused, or not at all) and a cancellation."""
        if isinstance(error, GameNotSupported):
            self.record("not_supported", error.code)
        elif isinstance(error, Exception) and not isinstance(error, ApiError):
            self.record("error", "internal_error")

    def __enter__(self) -> CommandOutcome:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self._recorded is not None:
            series(COMMANDS, self.game_type, self.command, *self._recorded).inc()
