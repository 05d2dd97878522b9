"""Cores for thinking matches: a worker plays at most one match with a thinking bot per core.

A worker plays more matches at once than it has cores (``PARLOUR_WORKERS``, arena.fleet.processes): a
match on the platform mostly waits (for the referee, its bots' messages, the database), and the
seats of instant house bots and of remote bots (they think on their authors' machines) cost the
worker little CPU. A bot that thinks *here* — an uploaded version in its sandbox, ``mcts`` — is
timed by the wall clock and may use up to one core (docs/security.md), so a match with one waits
for a core of its own before its bots start: the worker's main process hands out
``PARLOUR_THINKING_MATCHES`` of them (default: one per core the worker may use) on the house
bots' socket (arena.bots.keeper: ``core`` and ``core_free``), and takes one back when its pool
process hands it back or dies.

While it waits the match stays claimed (``running``, arena.road.lifecycle; ``arena status`` shows each
worker's thinking matches and those waiting for a core): a duplicate task finds it taken, and its
clock (``started``, which the reconciler times) restarts each time the wait goes on and once the
core is granted, so the wait never counts as its play.
"""
from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings

from .keeper_client import keeper_client

WAIT_STEP = 5.0  # seconds a pool process waits for a core before it renews its claim


def usable_cores(cgroup: Path = Path("/sys/fs/cgroup")) -> int:
    """The cores this process may use: those it may run on, fewer where its cgroup's CPU quota (a
    container's ``cpus`` limit: cgroup v2 ``cpu.max``, v1 ``cpu.cfs_quota_us``) allows fewer."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 2)
    try:
        quota, period = (cgroup / "cpu.max").read_text().split()[:2]
    except (OSError, ValueError):
        try:
            quota = (cgroup / "cpu" / "cpu.cfs_quota_us").read_text().strip()
            period = (cgroup / "cpu" / "cpu.cfs_period_us").read_text().strip()
        except OSError:
            return cores
    if quota in ("max", "-1") or int(period) <= 0:
        return cores
    return max(1, min(cores, math.ceil(int(quota) / int(period))))


def thinking_matches() -> int:
    """Matches with a thinking bot a worker plays at once: ``PARLOUR_THINKING_MATCHES``, default
    one per core it may use."""
    return max(1, settings.PARLOUR_THINKING_MATCHES or usable_cores())


class Cores:
    """The main process's side: the worker's cores for thinking matches, and how they are used
    (``summary``, in the worker's heartbeat: ``arena status`` shows the matches waiting)."""

    def __init__(self, count: int | None = None) -> None:
        self.count = thinking_matches() if count is None else count
        self.free = threading.BoundedSemaphore(self.count)
        self.lock = threading.Lock()
        self.taken = 0
        self.waiting = 0

    def take(self, wait: float) -> bool:
        """A core within ``wait`` seconds, or False."""
        with self.lock:
            self.waiting += 1
        granted = self.free.acquire(timeout=max(0.0, wait))
        with self.lock:
            self.waiting -= 1
            self.taken += granted
        return granted

    def give(self) -> None:
        with self.lock:
            self.taken -= 1
        self.free.release()

    def summary(self) -> str:
        """"2/2 thinking, 3 waiting": matches with a thinking bot playing, of the cores, and waiting."""
        with self.lock:
            return f"{self.taken}/{self.count} thinking, {self.waiting} waiting"


class LostClaim(Exception):
    """The match was taken from this attempt while it waited for a core."""


@contextmanager
def core_for(thinking: bool, still_claimed: Callable[[], bool]) -> Iterator[None]:
    """Hold one of the worker's cores while a match with a thinking bot plays (nothing for any
    other match, or where no worker hands cores out: a runner outside Celery plays one match at a
    time). ``still_claimed`` renews the match's claim while it waits, and says whether it still
    holds it."""
    client = keeper_client() if thinking else None
    if client is None:
        yield
        return
    while not client.request(op="core", wait=WAIT_STEP)["granted"]:
        if not still_claimed():
            raise LostClaim("the match was taken from this attempt while it waited for a core")
    try:
        if not still_claimed():  # its clock starts now, not when it was claimed
            raise LostClaim("the match was taken from this attempt while it waited for a core")
        yield
    finally:
        try:
            client.request(op="core_free")
        except (ConnectionError, RuntimeError):  # the connection's end frees it anyway
            pass
