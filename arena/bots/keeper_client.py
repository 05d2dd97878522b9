"""A pool process's side of its worker's keeper (``arena.bots.keeper``, the worker's main process,
which keeps the shared house bots and the cores): one connection to it, and the seat the road holds."""
from __future__ import annotations

import json
import logging
import os
import socket
import threading
from typing import Any

log = logging.getLogger("parlour.arena")


def socket_name(pid: int) -> str:
    """The abstract Unix socket of the worker whose main process is ``pid``."""
    return f"\0parlour-house-bots-{pid}"


class KeeperClient:
    """A pool process's side: one connection to its worker's main process, one request at a time."""

    def __init__(self, conn: socket.socket) -> None:
        self.conn = conn
        self.reader = conn.makefile("rb")
        self.lock = threading.Lock()

    def request(self, **request: Any) -> dict[str, Any]:
        try:
            with self.lock:
                self.conn.sendall(json.dumps(request).encode() + b"\n")
                line = self.reader.readline()
        except OSError as exc:
            raise ConnectionError(f"the worker's house bots are gone ({exc})") from None
        if not line:
            raise ConnectionError("the worker's house bots are gone")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"the worker's house bots: {reply['error']}")
        return reply


_client: tuple[int, KeeperClient | None] | None = None  # (this process's pid, its client or None)


def keeper_client() -> KeeperClient | None:
    """This pool process's connection to its worker's keeper, or None where its parent keeps
    none (then the pool process keeps its own). Asked once per process."""
    global _client
    if _client is None or _client[0] != os.getpid():
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect(socket_name(os.getppid()))
        except OSError:
            conn.close()
            _client = (os.getpid(), None)
        else:
            _client = (os.getpid(), KeeperClient(conn))
    return _client[1]


class KeptSeat:
    """A seat of a shared house bot that the worker's main process keeps: what the road holds."""

    def __init__(self, spec: str, client: KeeperClient, referee: str) -> None:
        self.spec = spec
        self.client = client
        self.referee = referee
        self.pid = 0  # the process that plays the seat, once handed

    def play(self, seat_token: str) -> None:
        self.pid = self.client.request(op="seat", referee=self.referee, spec=self.spec, token=seat_token)["pid"]

    def release(self) -> None:
        if self.pid:
            try:
                self.client.request(op="release", referee=self.referee, pid=self.pid)
            except (OSError, RuntimeError) as exc:  # the connection's end releases it anyway
                log.warning("could not release a house seat: %s", exc)
            self.pid = 0
