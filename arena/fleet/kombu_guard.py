"""A guard against kombu's known crash when the worker loses Redis for more than a moment: while the
consumer restarts, a pending acknowledgement reaches a channel whose connection was already closed,
and kombu's Redis transport reads the closed connection's parameters (``self.connection.client`` is
None) — ``CRITICAL ... Unrecoverable error: AttributeError("'NoneType' object has no attribute
'hostname'")`` — which ends the whole worker (celery/kombu issue #582 and later reports; seen with
kombu 5.7.0 on a Redis down for 8 s, tests/test_faults_e2e.py).

Here that read raises the transport's own ``ConnectionError`` instead: the acknowledgement fails as
a lost connection does (logged as "Couldn't ack"), and the worker reconnects when Redis is back.
The message it could not acknowledge comes back after the visibility timeout or, sooner, from the
reconciler (the database is the truth about what must be played; a duplicate task finds its match
claimed or recorded and does nothing). Whatever supervises a worker restarts it all the same if
another unrecoverable error ends it (``tournament run``; compose's ``restart: unless-stopped``)."""
from __future__ import annotations

import redis
from kombu.transport import redis as kombu_redis

_original = kombu_redis.Channel._connparams


def _connparams(self, asynchronous: bool = False):
    if getattr(self.connection, "client", None) is None:  # the connection is closed: Redis was lost
        raise redis.exceptions.ConnectionError("the broker connection was closed (Redis lost)")
    return _original(self, asynchronous)


def install() -> None:
    """Guard kombu's Redis channels in this process (idempotent)."""
    kombu_redis.Channel._connparams = _connparams
