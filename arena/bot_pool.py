"""Warm bots: bot processes that outlive a match, kept by each worker process.

A warm bot is a ``python -m bots_sdk serve-seats`` process: it reads seat tokens on its stdin and
plays them one after another, a fresh ``Bot`` instance for each match. House bots run as plain
processes; an uploaded version runs in its sandbox (``bots_sdk.sandbox``). A bot is handed back
after its match and plays the next one only if the match left it clean: its process alive and
its seat free of faults (no timeout, crash, illegal or malformed answer, disconnect). Anything
else — and a sandbox past its reuse limits — is discarded, so a bot that misbehaved always meets
its next match in a fresh process. Different bots never share a process or a sandbox: a process
serves one spec (one bot version) only.

Settings (environment, read at start-up):

- ``PARLOUR_SANDBOX_REUSE_MATCHES`` (default 25): matches an uploaded version's sandbox plays
  before it is replaced;
- ``PARLOUR_SANDBOX_REUSE_MINUTES`` (default 10): minutes a sandbox lives before it is replaced;
- ``PARLOUR_HOUSE_REUSE_MATCHES`` (default 2000): the same for a house bot's process.
"""
from __future__ import annotations

import atexit
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

from referee.client import RefereeClient, SeatOutcome

from . import sandbox_reaper

SANDBOX_REUSE_MATCHES = int(os.environ.get("PARLOUR_SANDBOX_REUSE_MATCHES", 25))
SANDBOX_REUSE_MINUTES = float(os.environ.get("PARLOUR_SANDBOX_REUSE_MINUTES", 10))
HOUSE_REUSE_MATCHES = int(os.environ.get("PARLOUR_HOUSE_REUSE_MATCHES", 2000))


@dataclass(frozen=True)
class BotKey:
    """What a warm process is for: one spec, in a sandbox of one folder or as a house bot."""

    spec: str
    sandboxed: bool
    root: str | None = None


class WarmBot:
    """One warm bot process."""

    def __init__(self, key: BotKey, referee: RefereeClient) -> None:
        self.key = key
        self.started = time.monotonic()
        self.matches = 0
        self.sandbox = None
        if key.sandboxed:
            from bots_sdk.sandbox import Sandbox

            self.sandbox = Sandbox(key.spec, referee.sandbox_socket(), bot_root=key.root)
            # registered before it exists: a worker killed at any moment leaves it to the next
            # worker's start (arena.sandbox_reaper)
            sandbox_reaper.register(self.sandbox.name, 0, sandbox_reaper.cgroup_paths(self.sandbox.name), "full")
            try:
                self.sandbox.start()
            except BaseException:
                sandbox_reaper.forget(self.sandbox.name)
                raise
            self.process = self.sandbox.process
            sandbox_reaper.register(self.sandbox.name, self.process.pid,
                                    [str(p) for p in self.sandbox.cgroup.paths] if self.sandbox.cgroup else [],
                                    self.sandbox.mode)
        else:
            # no parent-death signal (it fires when the *thread* that started the process ends): a
            # house bot ends when its stdin closes, which the death of its worker does
            self.process = subprocess.Popen(
                [sys.executable, "-m", "bots_sdk", "serve-seats", key.spec, "--referee", referee.address],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def play(self, seat_token: str) -> None:
        """Hand the bot its next seat."""
        self.matches += 1
        if self.sandbox is not None:
            self.sandbox.feed(seat_token)
        else:
            self.process.stdin.write(seat_token.encode() + b"\n")
            self.process.stdin.flush()

    def worn_out(self) -> bool:
        if self.sandbox is None:
            return self.matches >= HOUSE_REUSE_MATCHES
        return (self.matches >= SANDBOX_REUSE_MATCHES
                or time.monotonic() - self.started >= SANDBOX_REUSE_MINUTES * 60)

    def close(self) -> list[str]:
        """Stop the process (and everything it started); what the bot's owner should read."""
        if self.sandbox is not None:
            from bots_sdk.sandbox import sandbox_report_lines

            report = self.sandbox.close()
            sandbox_reaper.forget(self.sandbox.name)
            return sandbox_report_lines(report, self.sandbox.limits)
        try:
            self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(1.0)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return []


def clean(seat: SeatOutcome) -> bool:
    """A seat that ended with no fault of any kind."""
    return seat.status == "ok" and not any(seat.fault_counts.values())


class BotPool:
    """The warm bots of one worker process, idle ones by key."""

    def __init__(self, referee: RefereeClient) -> None:
        self.referee = referee
        self.idle: dict[BotKey, list[WarmBot]] = {}
        self.lock = threading.Lock()
        self.started = 0  # processes started, for tests and benchmarks

    def acquire(self, key: BotKey) -> WarmBot:
        with self.lock:
            while self.idle.get(key):
                bot = self.idle[key].pop()
                if bot.alive():
                    return bot
                bot.close()
            self.started += 1
        return WarmBot(key, self.referee)

    def release(self, bot: WarmBot, seat: SeatOutcome | None) -> list[str]:
        """After the match: keep a clean bot for the next one, else discard it (returning what its
        sandbox reports: why it died, what it printed before the SDK could capture it)."""
        if seat is not None and clean(seat) and bot.alive() and not bot.worn_out():
            with self.lock:
                self.idle.setdefault(bot.key, []).append(bot)
            return []
        lines = bot.close()
        return lines if seat is None or not clean(seat) else []

    def close(self) -> None:
        with self.lock:
            bots = [bot for bots in self.idle.values() for bot in bots]
            self.idle.clear()
        for bot in bots:
            bot.close()


_pools: dict[str, BotPool] = {}


def pool_for(referee: RefereeClient) -> BotPool:
    """This process's pool for a referee (bots connect to one referee address)."""
    pool = _pools.get(referee.address)
    if pool is None:
        pool = _pools[referee.address] = BotPool(referee)
        atexit.register(pool.close)
    return pool
