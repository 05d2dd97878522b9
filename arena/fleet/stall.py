"""A command that waits for matches (``tournament run``, ``ladder run``) never waits silently: when
no match has finished for ``PARLOUR_STALL_NOTICE`` seconds it says why, as far as the platform can
tell — Redis not answering, no live worker, the referee unreachable — and says it again every
``PARLOUR_STALL_NOTICE`` seconds for as long as it lasts."""
from __future__ import annotations

import time
from collections.abc import Hashable

from django.conf import settings


def diagnose() -> str:
    """What stops matches from being played, from Redis, the workers' heartbeats and the referee."""
    from ..models import Match
    from .broker import connection
    from .heartbeats import alive_workers, reachable

    try:
        connection().ping()
    except Exception as exc:  # noqa: BLE001 - any failure to answer is the finding
        return f"Redis does not answer ({exc})"
    reasons = []
    workers = alive_workers()
    if not workers:
        reasons.append("no live worker (no worker heartbeat in Redis)")
    referee = settings.REFEREE_ADDRESS
    if referee and not reachable(referee):
        reasons.append(f"the referee at {referee} is unreachable")
    elif workers and not any(w.get("referee_reachable") for w in workers.values()):
        reasons.append("no live worker reaches its referee")
    running = Match.objects.filter(status=Match.RUNNING).count()
    retried = Match.objects.filter(status=Match.SCHEDULED, failures__gt=0).count()
    counts = f"{running} running, {retried} waiting to be tried again after a platform failure"
    return "; ".join(reasons + [counts]) if reasons else f"{len(workers)} live worker(s), {counts}"


class StallWatch:
    """Fed the command's progress (anything that changes when a match ends); returns a line to print
    once it has not changed for ``after`` seconds, then again every ``after`` seconds."""

    def __init__(self, after: float | None = None) -> None:
        self.after = settings.PARLOUR_STALL_NOTICE if after is None else after
        self.last: Hashable = None
        self.since = self.said = time.monotonic()

    def check(self, progress: Hashable) -> str | None:
        now = time.monotonic()
        if progress != self.last:
            self.last, self.since, self.said = progress, now, now
            return None
        if now - self.said < self.after:
            return None
        self.said = now
        try:
            why = diagnose()
        except Exception as exc:  # noqa: BLE001 - the database itself may be the reason
            why = f"the platform's state cannot be read ({exc})"
        return f"no match finished for {now - self.since:.0f} s: {why}"
