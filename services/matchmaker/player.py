"""A player's folded state in the matchmaker: blocks and vacations (pure, no I/O).

The vacation budget follows a policy (``VacationPolicy``, from the settings), in the manner of chess.com's daily
games: ``initial_days`` are granted at the first vacation, ``days_per_month`` more every 30 days after it, the
balance never above ``cap_days``; a vacation is asked for in whole days, at most the balance; when it ends (the
player returns, moves, or its days run out) it is charged the days it lasted, rounded up, at least
``min_charge_days``, at most the days asked for.  All from the events' times: the same stream folds to the same
budget anywhere."""

from __future__ import annotations

from dataclasses import dataclass, field

from services.matchmaker import events as ev

DAY_MS = 86_400_000
MONTH_MS = 30 * DAY_MS


@dataclass(frozen=True)
class VacationPolicy:
    initial_days: int = 10
    days_per_month: int = 3
    cap_days: int = 30
    min_charge_days: int = 1

    def charge(self, started: int, ended: int, days: int) -> int:
        lasted = max(0, ended - started)
        return min(days, max(self.min_charge_days, -(-lasted // DAY_MS)))


@dataclass
class Vacation:
    started: ev.VacationStarted
    ended: ev.VacationEnded | None = None

    @property
    def number(self) -> int:
        return self.started.number


@dataclass
class PlayerState:
    policy: VacationPolicy
    version: int = 0
    blocks: set[str] = field(default_factory=set)
    vacations: list[Vacation] = field(default_factory=list)
    first_use: int | None = None
    balance: int = 0
    accrued: int = 0  # months of accrual applied

    def apply_all(self, version: int, events: list[ev.Event]) -> None:
        for event in events:
            self.apply(event)
        self.version = version

    def apply(self, event: ev.Event) -> None:
        if isinstance(event, ev.BlockAdded):
            self.blocks.add(event.player_id)
        elif isinstance(event, ev.BlockRemoved):
            self.blocks.discard(event.player_id)
        elif isinstance(event, ev.VacationStarted):
            if self.first_use is None:
                self.first_use = event.at
                self.balance = min(self.policy.cap_days, self.policy.initial_days)
            self._accrue(event.at)
            self.vacations.append(Vacation(event))
        elif isinstance(event, ev.VacationEnded):
            vacation = self.current_record()
            if vacation is not None and vacation.number == event.number:
                self._accrue(event.at)
                vacation.ended = event
                self.balance = max(0, self.balance - event.charged)

    def _accrue(self, at: int) -> None:
        self.balance, self.accrued = self._accrued(at)

    def _accrued(self, at: int) -> tuple[int, int]:
        if self.first_use is None:
            return self.balance, self.accrued
        months = max(0, (at - self.first_use) // MONTH_MS)
        if months <= self.accrued:
            return self.balance, self.accrued
        return min(self.policy.cap_days, self.balance + self.policy.days_per_month * (months - self.accrued)), months

    # --- reading ----------------------------------------------------------------------------------------------
    def current_record(self) -> Vacation | None:
        """The newest vacation if it has no end event yet (it may have run out: see :meth:`on_vacation`)."""
        if self.vacations and self.vacations[-1].ended is None:
            return self.vacations[-1]
        return None

    def on_vacation(self, now: int) -> Vacation | None:
        current = self.current_record()
        return current if current is not None and now < current.started.until else None

    def available(self, now: int) -> int:
        """Days the player may take now: the balance with the accrual up to now (nothing while on vacation)."""
        if self.first_use is None:
            return min(self.policy.cap_days, self.policy.initial_days)
        if self.current_record() is not None:
            return 0
        return self._accrued(now)[0]

    def next_vacation(self) -> int:
        return len(self.vacations) + 1
