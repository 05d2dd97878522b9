"""Workers say they are alive: every worker's main process writes a key in Redis every few
seconds (``parlour:worker:<node>``, expiring after ``PARLOUR_HEARTBEAT_TTL`` s) with its pool's
processes, whether its referee answers and whether uploaded bots can run in its sandbox (which
the website reads, so the website itself needs no sandbox privileges). A match is held by one
process of one worker (``identity``); the reconciler hands back the matches of processes no
heartbeat vouches for."""
from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Collection
from pathlib import Path
from typing import Any

from django.conf import settings

from .broker import connection
from .queues import worker_queues

PREFIX = "parlour:worker:"


def every() -> float:
    """Seconds between a worker's beats: four within its heartbeat's life."""
    return settings.PARLOUR_HEARTBEAT_TTL / 4


def identity(node: str | None) -> str:
    """Who plays a match: the worker's node name and the process (a pool process) that plays it."""
    return f"{node or socket.gethostname()}/{os.getpid()}"


def pool_pids(others: Collection[int] = ()) -> list[int]:
    """This process's children (a Celery worker's pool processes) but ``others`` (the house bots
    its main process keeps: arena.bots.keeper)."""
    pids: list[int] = []
    for task in Path(f"/proc/{os.getpid()}/task").glob("*"):
        try:
            pids += [int(p) for p in (task / "children").read_text().split() if int(p) not in others]
        except OSError:
            continue
    return pids


def reachable(address: str, timeout: float = 1.0) -> bool:
    """Whether a referee's address accepts a connection (``host:port`` or ``unix:/path``)."""
    try:
        if address.startswith("unix:"):
            with socket.socket(socket.AF_UNIX) as sock:
                sock.settimeout(timeout)
                sock.connect(address[len("unix:"):])
        else:
            host, _, port = address.rpartition(":")
            socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=timeout).close()
        return True
    except (OSError, ValueError):
        return False


def worker_sandbox() -> tuple[bool, str]:
    """Whether this worker runs uploaded bots, and how: through the sandbox service when
    ``PARLOUR_SANDBOX_SERVICE`` names one (asked at each beat: it may come and go), else in this
    process (found once per process)."""
    from sandbox import support
    from sandbox.service import service_support
    from sandbox.settings import environment

    service = environment().service
    if service:
        return service_support(service)
    found = support()
    return found.mode != "refused", found.describe()


def beat(node: str, started: float, house_bots: Collection[int] = (), cores: str = "") -> None:
    """Say this worker is alive (its main process calls this every ``every()`` seconds; ``house_bots``:
    the pids of the house bots it keeps, children that are not pool processes; ``cores``: its
    cores for thinking matches in use, ``arena.bots.cores.Cores.summary``)."""
    referee = settings.REFEREE_ADDRESS
    runs, says = worker_sandbox()  # what the website says about uploads comes from here
    info = {"node": node, "host": socket.gethostname(), "pid": os.getpid(), "pool": pool_pids(house_bots),
            "started": started, "seen": time.time(), "referee": referee, "cores": cores,
            "referee_reachable": reachable(referee) if referee else None, "queues": worker_queues(),
            "sandbox": {"runs": runs, "says": says}}
    connection().set(PREFIX + node, json.dumps(info), ex=max(1, round(settings.PARLOUR_HEARTBEAT_TTL)))


def gone(node: str) -> None:
    connection().delete(PREFIX + node)


def alive_workers() -> dict[str, dict[str, Any]]:
    """The workers whose heartbeat has not expired, by node name."""
    found = {}
    client = connection()
    for key in client.scan_iter(match=PREFIX + "*", count=200):
        raw = client.get(key)
        if raw:
            info = json.loads(raw)
            found[info["node"]] = info
    return found


def beating_here(host: str | None = None) -> bool:
    """Whether a worker on this host (a worker container) beats: its heartbeat unexpired and written
    within ``PARLOUR_HEARTBEAT_TTL`` s. A wedged worker stops beating: its container's health check."""
    host = host or socket.gethostname()
    now = time.time()
    return any(info.get("host") == host and now - info.get("seen", 0) <= settings.PARLOUR_HEARTBEAT_TTL
               for info in alive_workers().values())


def holder_alive(worker: str, workers: dict[str, dict[str, Any]]) -> bool:
    """Whether the process named by ``identity`` is one a live worker vouches for."""
    node, _, pid = worker.rpartition("/")
    info = workers.get(node)
    if info is None or not pid.isdigit():
        return False
    return int(pid) in info["pool"] or int(pid) == info["pid"]
