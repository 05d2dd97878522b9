"""A seat's inbox (referee/inbox.py): the referee's waits for answers, on one shared timer."""
from __future__ import annotations

import asyncio
import time

import pytest

from referee import inbox as inbox_module
from referee.inbox import Deadlines, Inbox


def run(coroutine):
    return asyncio.run(coroutine)


def test_an_item_already_there_is_taken_without_waiting() -> None:
    async def scenario():
        box = Inbox(Deadlines())
        box.put_nowait("answer")
        return await box.get(0.0), box.qsize()

    assert run(scenario()) == ("answer", 0)


def test_a_wait_ends_with_the_item_that_comes_or_at_its_deadline() -> None:
    async def scenario():
        box = Inbox(Deadlines())
        loop = asyncio.get_running_loop()
        loop.call_later(0.02, box.put_nowait, "late but in time")
        started = time.monotonic()
        got = await box.get(5.0)
        answered_in = time.monotonic() - started
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            await box.get(0.05)
        return got, answered_in, time.monotonic() - started

    got, answered_in, timed_out_in = run(scenario())
    assert got == "late but in time" and answered_in < 1.0
    assert 0.04 <= timed_out_in < 1.0


def test_items_come_out_in_the_order_they_were_put() -> None:
    async def scenario():
        box = Inbox(Deadlines())
        for item in ("a", "b", "c"):
            box.put_nowait(item)
        return [await box.get(1.0) for _ in range(3)]

    assert run(scenario()) == ["a", "b", "c"]


def test_wake_by_brings_a_long_wait_to_its_nearer_deadline() -> None:
    """The referee waits for a decision's hand-over with a long limit, then the clock starts and the
    wait must end by the decision's own limit."""
    async def scenario():
        box = Inbox(Deadlines())
        asyncio.get_running_loop().call_later(0.01, box.wake_by, 0.05)
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            await box.get(30.0)
        return time.monotonic() - started

    assert run(scenario()) < 5.0


def test_many_inboxes_share_one_timer_and_each_times_out_at_its_own_deadline() -> None:
    async def scenario():
        deadlines = Deadlines()  # one timer for all five
        boxes = [Inbox(deadlines) for _ in range(5)]
        ends: dict[int, float] = {}
        started = time.monotonic()

        async def wait(index: int) -> None:
            with pytest.raises(TimeoutError):
                await boxes[index].get(0.03 * (index + 1))
            ends[index] = time.monotonic() - started

        await asyncio.gather(*(wait(i) for i in range(5)))
        return ends

    ends = run(scenario())
    assert sorted(ends, key=ends.get) == [0, 1, 2, 3, 4]  # in deadline order
    assert all(ends[i] >= 0.03 * (i + 1) - 0.005 for i in ends)


def test_answered_and_cancelled_waits_do_not_pile_up(monkeypatch) -> None:
    """A referee answering thousands of decisions a second leaves their deadlines behind: settled
    waits are dropped once the heap passes COMPACT_AT, and a cancelled wait never fires."""
    monkeypatch.setattr(inbox_module, "COMPACT_AT", 50)

    async def scenario():
        deadlines = Deadlines()
        box = Inbox(deadlines)
        for n in range(500):
            asyncio.get_running_loop().call_soon(box.put_nowait, n)
            assert await box.get(60.0) == n
        waiting = asyncio.ensure_future(Inbox(deadlines).get(0.01))
        await asyncio.sleep(0)
        waiting.cancel()
        await asyncio.sleep(0.05)  # its deadline passes: nothing is settled twice
        return len(deadlines.heap), waiting.cancelled()

    size, cancelled = run(scenario())
    assert size <= 50 and cancelled


def test_many_waits_at_once_compact_in_proportion(monkeypatch) -> None:
    """More waits at once than COMPACT_AT: a compaction leaves them all, and the next waits until
    the heap has doubled (not one compaction per wait)."""
    monkeypatch.setattr(inbox_module, "COMPACT_AT", 8)

    async def scenario():
        deadlines = Deadlines()
        compactions = 0
        heapify = inbox_module.heapq.heapify

        def counting(heap):
            nonlocal compactions
            compactions += 1
            heapify(heap)

        monkeypatch.setattr(inbox_module.heapq, "heapify", counting)
        waits = [asyncio.ensure_future(Inbox(deadlines).get(60.0)) for _ in range(100)]
        await asyncio.sleep(0)
        for wait in waits:
            wait.cancel()
        await asyncio.gather(*waits, return_exceptions=True)
        return compactions, len(deadlines.heap)

    compactions, size = run(scenario())
    assert compactions <= 4 and size == 100  # 8, 16, 32, 64: each left every wait still open
