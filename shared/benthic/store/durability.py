"""When a write counts as acknowledged: on the primary alone, or once Redis confirms it reached replicas.

With ``BENTHIC_REDIS_ACK_REPLICAS`` N > 0 every write that a caller is told succeeded (an append, a create, a
join, the archiver's deletion) is followed, on the same connection, by ``WAIT N timeout`` (or, with
``BENTHIC_REDIS_ACK_FSYNC``, ``WAITAOF 1 N timeout``: also fsynced on the primary and on N replicas).  ``WAIT``
covers every earlier write of its connection, so one ``WAIT`` at the end of a pipeline confirms the whole
pipeline.  A Lua script cannot wait itself (``WAIT`` inside a script does not block), which is why it is a
separate command after the script.

A write whose confirmation does not come in time raises :class:`DurabilityUnconfirmed`: it may or may not
survive a failover, so the caller is answered 503 ``durability_unconfirmed`` and may send the same command id
again (it is then applied once, or answered as the duplicate it is: the duplicate's answer is confirmed the
same way, because the scripts write on that path too, see ``append.lua``).  Nothing is acknowledged that the
confirmation did not cover.
"""

from __future__ import annotations

from typing import Any

import msgspec


class Ack(msgspec.Struct, frozen=True):
    replicas: int = 0
    timeout_ms: int = 1000
    fsync: bool = False

    @property
    def waits(self) -> bool:
        return self.replicas > 0 or self.fsync

    def command(self) -> tuple[Any, ...]:
        """The confirming command, sent after the writes on their connection."""
        if self.fsync:
            return ("WAITAOF", 1, self.replicas, self.timeout_ms)
        return ("WAIT", self.replicas, self.timeout_ms)

    def confirmed(self, reply: Any) -> bool:
        """Whether the reply of :meth:`command` confirms the writes before it."""
        if isinstance(reply, Exception):
            return False
        if self.fsync:
            local, replicas = (int(x) for x in reply)
            return local >= 1 and replicas >= self.replicas
        return int(reply) >= self.replicas


NO_ACK = Ack()


class DurabilityUnconfirmed(Exception):
    """A write was made on the primary but its replication (or fsync) was not confirmed in time.  ``result`` is
    what the write itself answered (a caller may know from it that nothing was written, e.g. a version
    conflict); ``reply`` what the confirming command did."""

    def __init__(self, ack: Ack, reply: Any, result: Any = None) -> None:
        super().__init__(f"the write was not confirmed on {ack.replicas} replica(s) within {ack.timeout_ms} ms "
                         f"({reply!r})")
        self.ack = ack
        self.reply = reply
        self.result = result
