"""What a bot's decision is charged: the referee's side of the fair clock (docs/protocol.md, "The clock").

A decision's think time runs from the moment its message is handed to the transport to the moment
the answer is read, minus the referee's own event-loop lag over that span (``LoopLag``): time the
referee spent on other work, or descheduled by a loaded host, is never the bot's. A remote bot's
network round trip is forgiven up to a quota (``LagQuota``), in the manner of lichess.
"""
from __future__ import annotations

import asyncio
import time

LAG_SAMPLE = 0.005  # seconds between the lag monitor's wake-ups
LAG_TOLERANCE = 0.001  # a timer's usual overshoot on an idle loop; not counted as lag

# lag compensation for remote bots: the quota starts at LAG_QUOTA_START, grows by LAG_QUOTA_GAIN
# per decision up to LAG_QUOTA_MAX; one decision is forgiven at most the seat's estimated round trip
LAG_QUOTA_START = 1.0
LAG_QUOTA_GAIN = 0.1
LAG_QUOTA_MAX = 2.0
ROUND_TRIP_WINDOW = 10  # the estimate is the fastest of this many recent answers


class LoopLag:
    """Accumulates the event loop's lag: how late a short timer fires, beyond its usual overshoot.

    ``now()`` is the lag so far, including the current timer's overshoot if it is already late, so a
    reading taken just after a stall already counts the stall."""

    def __init__(self, sample: float = LAG_SAMPLE) -> None:
        self.sample = sample
        self.total = 0.0
        self._due: float | None = None
        self._task: asyncio.Task | None = None

    def now(self) -> float:
        lag = self.total
        if self._due is not None:
            lag += max(0.0, time.monotonic() - self._due - LAG_TOLERANCE)
        return lag

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            self._due = time.monotonic() + self.sample
            await asyncio.sleep(self.sample)
            self.total += max(0.0, time.monotonic() - self._due - LAG_TOLERANCE)


class Stopwatch:
    """One decision's think time: started when the message is handed to the transport; paused
    while the seat is disconnected; the referee's lag over the span subtracted."""

    def __init__(self, lag: LoopLag) -> None:
        self.lag = lag
        self.started: tuple[float, float] | None = None  # (monotonic, lag) at the hand-off
        self.excluded = 0.0  # seconds not charged (the seat was disconnected)

    def start(self, at: float, lag_at: float) -> None:
        if self.started is None:
            self.started = (at, lag_at)

    def exclude(self, seconds: float) -> None:
        self.excluded += seconds

    def elapsed(self, at: float | None = None, lag_at: float | None = None) -> float:
        if self.started is None:
            return 0.0
        at = time.monotonic() if at is None else at
        lag_at = self.lag.now() if lag_at is None else lag_at
        return max(0.0, (at - self.started[0]) - (lag_at - self.started[1]) - self.excluded)


class LagQuota:
    """Lag compensation for a remote seat: forgives up to its estimated network round trip per
    decision (the fastest of its recent answers, which is at most its network delay plus its
    quickest thinking), drawn from a quota that refills a little each decision."""

    def __init__(self) -> None:
        self.quota = LAG_QUOTA_START
        self.recent: list[float] = []

    def compensate(self, think_time: float, excess: float) -> float:
        """Seconds forgiven of ``excess`` (time over the move limit) for a decision that took
        ``think_time``; records the answer for the round-trip estimate."""
        self.recent = (self.recent + [think_time])[-ROUND_TRIP_WINDOW:]
        self.quota = min(LAG_QUOTA_MAX, self.quota + LAG_QUOTA_GAIN)
        if excess <= 0:
            return 0.0
        forgiven = min(excess, min(self.recent), self.quota)
        self.quota -= forgiven
        return forgiven
