"""An adaptive concurrency limit in the manner of TCP Vegas (as Netflix's concurrency-limits applies it to
servers): the number of requests a process handles at once follows the time they take, instead of a number set
at deploy time.

The idea: the fastest a request is answered (``no_load``: the least window time seen lately) is its cost
without waiting; when the recent time (``rtt``: a window's mean) grows above it, requests queue inside the
process (for the event loop, a Redis connection, the CPU), and ``limit * (1 - no_load / rtt)`` estimates how
many.  Fewer than ``alpha`` queued: the limit grows by about log10(limit) (there is room); more than ``beta``: it
shrinks by as much; in between it holds.  The limit stays within [``floor``, ``ceiling``] (the ceiling is
``BENTHIC_ADMISSION_LIMIT``: adapting only ever admits less than the static limit would) and grows only
while it is used (half or more of it in flight), so an idle process does not drift to the ceiling.

``no_load`` is the least window mean over the last ``memory_s`` seconds (5 minutes), so the baseline follows a
process whose work got dearer (a bigger game mix, a slower Redis) instead of shrinking the limit for ever.  The
price: an overload that stands longer than that becomes the baseline, and the limit climbs back to its ceiling
(the static limit, with the bounded queue's short waits, then bounds latency as it does without adapting).

Pure: the caller gives every sample and the monotonic time (``benthic.service.admission`` feeds it the time
each admitted request held its slot, and applies the limit); no I/O, no clock of its own.  No well-kept Python
package offers this for servers (the ones found limit outbound calls); the algorithm is small.
"""

from __future__ import annotations

import collections
import math


class VegasLimit:
    def __init__(self, floor: int, ceiling: int, window_s: float = 0.25, min_samples: int = 10,
                 memory_s: float = 300.0) -> None:
        if not 1 <= floor <= ceiling:
            raise ValueError(f"adaptive limit: need 1 <= floor ({floor}) <= ceiling ({ceiling})")
        self.floor = floor
        self.ceiling = ceiling
        self.window_s = window_s
        self.min_samples = min_samples
        self.memory_s = memory_s
        self.limit = float(ceiling)
        self._window_start: float | None = None
        self._window_sum = 0.0
        self._window_count = 0
        self._window_peak_in_flight = 0
        self._no_load: collections.deque[tuple[float, float]] = collections.deque()  # (time, window mean), rising

    @property
    def current(self) -> int:
        return max(self.floor, min(self.ceiling, int(self.limit)))

    @property
    def no_load_s(self) -> float | None:
        return self._no_load[0][1] if self._no_load else None

    def sample(self, held_s: float, in_flight: int, now: float) -> int:
        """Record one admitted request's time in its slot (``in_flight``: requests in flight as it ended);
        the limit now."""
        if self._window_start is None:
            self._window_start = now
        self._window_sum += held_s
        self._window_count += 1
        self._window_peak_in_flight = max(self._window_peak_in_flight, in_flight)
        if now - self._window_start >= self.window_s and self._window_count >= self.min_samples:
            self._close_window(now)
        return self.current

    def _close_window(self, now: float) -> None:
        rtt = self._window_sum / self._window_count
        used = self._window_peak_in_flight
        self._window_start, self._window_sum, self._window_count, self._window_peak_in_flight = now, 0.0, 0, 0
        # The least mean of the last memory_s seconds: a deque kept rising, oldest first (a sliding minimum).
        while self._no_load and self._no_load[-1][1] >= rtt:
            self._no_load.pop()
        self._no_load.append((now, rtt))
        while self._no_load[0][0] < now - self.memory_s:
            self._no_load.popleft()
        no_load = self._no_load[0][1]
        if rtt <= 0:
            return
        limit = self.limit
        step = max(1.0, math.log10(limit))
        queued = limit * (1 - no_load / rtt)
        if queued < 3 * step:
            if used * 2 >= limit:  # only a limit in use is evidence that more would be served in time
                limit += step
        elif queued > 6 * step:
            limit -= step
        self.limit = max(float(self.floor), min(float(self.ceiling), limit))
