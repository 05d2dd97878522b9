"""The worker's keeper: its main process keeps the shared house bots, and hands out the cores for
thinking matches (arena.bots.cores), for all its pool processes (their side: arena.bots.keeper_client).

The instant house bots (``random``, ``greedy``: arena.bots.warm_pool) play every seat of a spec from
ONE ``serve-seats --many`` process. Kept by each pool process, that is one process per pool
process, and each carries one match at a time: its stream holds one decision at a time. Kept by
the worker's main process, it is one per worker, referee and spec: the matches of all the pool
processes travel on its one stream, and what is ready at once goes in one batch each way (fewer
messages for the referee and the bot: ``bench/arena.py``, docs/deploy.md).

The main process listens on a Unix socket named after its pid (``socket_name``, Linux's abstract
namespace: no file to clean up); a pool process sends one JSON line per request and reads one back:

- ``{"op": "seat", "referee": address, "spec": spec, "token": seat token}`` -> ``{"pid": pid}``:
  the spec's process (started, retired and replaced as ``warm_pool.SharedBots`` does) is handed the
  seat;
- ``{"op": "release", "referee": address, "pid": pid}`` -> ``{}``: that seat's match is over (a
  pool process that dies first releases its seats with its connection);
- ``{"op": "core", "wait": seconds}`` -> ``{"granted": bool}`` and ``{"op": "core_free"}`` -> ``{}``:
  one of the worker's cores for a match with a thinking bot (arena.bots.cores), freed by the same
  connection or with its end.

Only the worker's own pool processes are served (SO_PEERCRED: the peer must be one of this
process's children, ``heartbeats.pool_pids``, and none of its house bots), so nothing else on the
machine — a bot in its sandbox — can hand out seats or retire a process. Where no main process
listens (a road outside a Celery worker, a test's pool), a pool process keeps its own shared
house bots instead (``warm_pool.BotPool``).
"""
from __future__ import annotations

import json
import logging
import os
import socket
import struct
import threading
from collections import Counter
from typing import Any

from ..fleet.heartbeats import pool_pids
from .cores import Cores
from .keeper_client import socket_name
from .warm_pool import BotKey, SharedBots

log = logging.getLogger("parlour.arena")


def peer_pid(conn: socket.socket) -> int:
    pid, _, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    return pid


class Keeper:
    """The main process's side: the shared house bots of every referee, and the socket."""

    def __init__(self) -> None:
        self.bots: dict[str, SharedBots] = {}  # by referee address
        self.lock = threading.Lock()
        self.listener: socket.socket | None = None
        self.cores = Cores()

    def start(self) -> None:
        """Listen (where the platform has SO_PEERCRED: Linux; elsewhere pool processes keep their own)."""
        if not hasattr(socket, "SO_PEERCRED"):
            return
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(socket_name(os.getpid()))
        listener.listen(64)
        self.listener = listener
        threading.Thread(target=self.accept, name="parlour-house-bots", daemon=True).start()

    def accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:  # closed: the worker is stopping
                return
            threading.Thread(target=self.serve, args=(conn,), name="parlour-house-seats", daemon=True).start()

    def serve(self, conn: socket.socket) -> None:
        """One pool process's requests, until it closes (or dies: its seats are released then)."""
        held: Counter[tuple[str, int] | str] = Counter()  # (referee, pid) -> seats handed out and not
        # released; "cores" -> cores taken and not freed
        with conn:
            if peer_pid(conn) not in pool_pids(self.pids()):
                return
            try:
                for line in conn.makefile("rb"):
                    try:
                        reply = self.handle(json.loads(line), held)
                    except Exception as exc:  # noqa: BLE001 - the pool process raises it as a platform failure
                        reply = {"error": f"{type(exc).__name__}: {exc}"}
                    conn.sendall(json.dumps(reply).encode() + b"\n")
            except OSError:
                pass
            finally:
                for _ in range(held.pop("cores", 0)):
                    self.cores.give()
                for (referee, pid), count in held.items():
                    for _ in range(count):
                        self.shared(referee).release_pid(pid)

    def handle(self, request: dict[str, Any], held: Counter) -> dict[str, Any]:
        if request["op"] == "core":
            granted = self.cores.take(float(request["wait"]))
            held["cores"] += granted
            return {"granted": granted}
        if request["op"] == "core_free":
            if held["cores"] > 0:  # a pool process frees only what it was given
                held["cores"] -= 1
                self.cores.give()
            return {}
        bots = self.shared(request["referee"])
        if request["op"] == "seat":
            bot = bots.acquire(BotKey(request["spec"], sandboxed=False))
            try:
                bot.play(request["token"])
            except OSError:  # it died just now: the seat is not its
                bots.release(bot)
                raise
            held[request["referee"], bot.pid] += 1
            return {"pid": bot.pid}
        if request["op"] == "release":
            key = (request["referee"], request["pid"])
            if held[key] > 0:  # a pool process releases only what it was handed
                held[key] -= 1
                bots.release_pid(request["pid"])
            return {}
        raise ValueError(f"unknown request {request['op']!r}")

    def pids(self) -> set[int]:
        """The house bot processes this worker keeps (its children that are no pool processes)."""
        with self.lock:
            return {pid for bots in self.bots.values() for pid in bots.pids()}

    def shared(self, referee: str) -> SharedBots:
        with self.lock:
            bots = self.bots.get(referee)
            if bots is None:
                bots = self.bots[referee] = SharedBots(referee)
            return bots

    def in_new_pool_process(self) -> None:
        """In a pool process just forked from the main one: let go of the main process's ends (a
        retired house bot's input must close when the main process closes it, not linger here)."""
        for bots in list(self.bots.values()):
            bots.drop_inherited()
        if self.listener is not None:
            self.listener.close()
            self.listener = None

    def close(self) -> None:
        if self.listener is not None:
            try:  # wakes the accepting thread (a close alone leaves the name bound while it waits)
                self.listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.listener.close()
            self.listener = None
        with self.lock:
            bots, self.bots = list(self.bots.values()), {}
        for one in bots:
            one.close()
