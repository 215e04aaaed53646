"""Ending a process that runs local servers (``LocalPlatform``, ``PrivateRedis``, ``PrivatePostgres``...) with a
signal, not only with Ctrl-C.

Python ends at once on SIGTERM or SIGHUP: no ``finally`` and no ``__exit__`` runs, so the servers the process
started (each service, redis-server, postgres) live on.  :func:`stop_servers_on_signals` makes SIGTERM and SIGHUP
raise ``SystemExit`` in the main thread instead, and SIGINT ``KeyboardInterrupt`` as always, so the ``with`` blocks
unwind and stop them, from plain code as from inside ``asyncio.run`` or ``uvloop.run``.  Any of these signals
coming after the first is ignored, so that clean-up runs to its end (Ctrl-C sends SIGINT to the whole process
group, a supervisor may follow with SIGTERM); SIGKILL still ends the process at once."""

from __future__ import annotations

import signal
import threading
from types import FrameType

STOPPING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _stop(signum: int, _frame: FrameType | None) -> None:
    for stopping in STOPPING_SIGNALS:
        signal.signal(stopping, signal.SIG_IGN)
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise SystemExit(128 + signum)


def stop_servers_on_signals() -> None:
    """SIGINT, SIGTERM and SIGHUP end the process as an exception does (``KeyboardInterrupt``; ``SystemExit``
    with status 128 + the signal's number), once, so the servers it started stop with it.  Call it from the main
    thread before starting them."""
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("signal handlers are set from the main thread")
    for stopping in STOPPING_SIGNALS:
        signal.signal(stopping, _stop)
