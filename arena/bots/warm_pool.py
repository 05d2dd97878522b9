"""Warm bots: bot processes that outlive a match, kept by each worker process.

A warm bot is a ``python -m bots_sdk serve-seats`` process: it reads seat tokens on its stdin and
plays them, a fresh ``Bot`` instance for each seat of each match. Two kinds:

- **Shared house bots.** The house bots whose decisions are instant, ``random`` and ``greedy``
  (any parameters), run as ``serve-seats --many``: ONE process per worker, referee and spec plays
  every seat of that spec in every match of the worker at once (of all its pool processes: the
  worker's main process keeps them, ``arena.bots.keeper``), on one multiplexed ``PlaySeats``
  stream whose batches carry all its seats' messages (docs/protocol.md). Random vs random#2, or
  a Bszzzz table of four randoms, is one process, a reaction window's four decisions are one
  message each way, and the decisions of the worker's matches that are ready together travel
  together. Outside a Celery worker (no main process keeping them) a pool keeps its own
  (``SharedBots``). The process is replaced when it has died or after
  ``PARLOUR_HOUSE_REUSE_MATCHES`` seats: it is retired (its stdin closed once its last seat is
  handed back, so it finishes its seats and exits) and a fresh one takes the next seats. A seat
  fault does not discard it: house bots are the platform's own code, so a fault there is a
  timeout under load, not a bot gone bad.
- **One seat at a time.** Every other bot — ``mcts`` (it thinks for its budget: sharing a process
  would charge each seat for the others' thinking), other house specs, and uploaded versions in
  their sandbox (the ``sandbox`` package) — plays one seat at a time, one match after another. It is
  handed back after its match and plays the next one only if the match left it clean: its
  process alive and its seat free of faults (no timeout, crash, illegal or malformed answer,
  disconnect). Anything else — and a sandbox past its reuse limits — is discarded, so a bot that
  misbehaved always meets its next match in a fresh process.

Different bots never share a process or a sandbox: a process serves one spec (one bot version)
only, and an uploaded bot never shares one at all.

Settings (docs/settings.md): ``PARLOUR_SANDBOX_REUSE_MATCHES`` and ``PARLOUR_SANDBOX_REUSE_MINUTES``
(an uploaded version's sandbox is replaced past either), ``PARLOUR_HOUSE_REUSE_MATCHES`` (the same
for a house bot's process; for a shared one: seats), ``PARLOUR_IDLE_BOTS`` (idle one-seat bots a
pool process keeps between matches — a worker has several pool processes per core,
arena.fleet.processes; past it, and past its reuse minutes, the longest idle is stopped).
"""
from __future__ import annotations

import atexit
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

from django.conf import settings

from referee.client import RefereeClient, SeatOutcome
from sandbox.relay import RefereeSocket
from sandbox.service import ServiceSandbox, make_sandbox

from . import sandbox_reaper
from .keeper_client import KeptSeat, keeper_client

# house bots that decide in microseconds: one process plays all their seats at once
INSTANT_HOUSE_BOTS = frozenset({"random", "greedy"})


@dataclass(frozen=True)
class BotKey:
    """What a warm process is for: one spec, in a sandbox of one folder or as a house bot."""

    spec: str
    sandboxed: bool
    root: str | None = None

    @property
    def shared(self) -> bool:
        """Played by one process for all its seats at once (an instant house bot)."""
        return not self.sandboxed and self.spec.partition("?")[0] in INSTANT_HOUSE_BOTS


class WarmBot:
    """One warm bot process."""

    def __init__(self, key: BotKey, referee: str, sandbox_socket: str = "") -> None:
        """``referee``: the address the bot connects to; ``sandbox_socket``: the way to it from
        a sandbox (``BotPool.sandbox_socket``), for an uploaded bot."""
        self.key = key
        self.started = time.monotonic()
        self.matches = 0  # handed out (a shared process: seats)
        self.in_play = 0  # a shared process: seats handed out and not handed back yet
        self.retired = False  # a shared process: takes no more seats
        self.idle_since = 0.0  # a one-seat bot: when it was last handed back clean
        self.sandbox = None
        if key.sandboxed:
            from referee.games.registry import source_folders
            self.sandbox = make_sandbox(key.spec, sandbox_socket, bot_root=key.root, readable=tuple(source_folders()))
        if isinstance(self.sandbox, ServiceSandbox):
            # the sandbox service reaps its own: it kills the sandbox when this connection ends
            self.sandbox.start()
            self.process = self.sandbox.process
        elif self.sandbox is not None:
            # registered before it exists: a worker killed at any moment leaves it to the next
            # worker's start (arena.bots.sandbox_reaper)
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
            many = ["--many"] if key.shared else []
            self.process = subprocess.Popen(
                [sys.executable, "-m", "bots_sdk", "serve-seats", key.spec, "--referee", referee, *many],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def play(self, seat_token: str) -> None:
        """Hand the bot its next seat."""
        if self.sandbox is not None:
            self.sandbox.feed(seat_token)
        else:
            self.process.stdin.write(seat_token.encode() + b"\n")
            self.process.stdin.flush()

    def worn_out(self) -> bool:
        if self.sandbox is None:
            return self.matches >= settings.PARLOUR_HOUSE_REUSE_MATCHES
        return (self.matches >= settings.PARLOUR_SANDBOX_REUSE_MATCHES
                or time.monotonic() - self.started >= settings.PARLOUR_SANDBOX_REUSE_MINUTES * 60)

    def end_input(self) -> None:
        """Close this process's end of the bot's input: no more seats (the bot finishes those it
        has, then exits)."""
        try:
            self.process.stdin.close()
        except OSError:
            pass

    def close(self) -> list[str]:
        """Stop the process (and everything it started); what the bot's owner should read."""
        if self.sandbox is not None:
            from sandbox import sandbox_report_lines

            report = self.sandbox.close()
            sandbox_reaper.forget(self.sandbox.name)  # nothing registered for a service's: no-op
            return sandbox_report_lines(report, self.sandbox.limits)
        self.end_input()
        try:
            self.process.wait(1.0)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return []


def clean(seat: SeatOutcome) -> bool:
    """A seat that ended with no fault of any kind."""
    return seat.status == "ok" and not any(seat.fault_counts.values())


class SharedBots:
    """The shared house bots of one referee address: one process per spec, for all its seats."""

    def __init__(self, referee: str) -> None:
        self.referee = referee
        self.bots: dict[BotKey, WarmBot] = {}  # the one process of each shared house spec
        self.retiring: list[WarmBot] = []  # processes replaced, until they have exited
        self.lock = threading.Lock()
        self.started = 0  # processes started, for tests and benchmarks

    def acquire(self, key: BotKey) -> WarmBot:
        """The spec's one process, replaced once it has died or played its seats."""
        with self.lock:
            self.retiring = [bot for bot in self.retiring if bot.alive()]  # the exited ones are reaped
            bot = self.bots.get(key)
            if bot is None or not bot.alive() or bot.worn_out():
                if bot is not None:
                    self.retire(bot)
                self.started += 1
                bot = self.bots[key] = WarmBot(key, self.referee)
            bot.matches += 1
            bot.in_play += 1
            return bot

    def retire(self, bot: WarmBot) -> None:
        """A process takes no more seats; its input ends once its last seat is handed back."""
        bot.retired = True
        self.retiring.append(bot)
        if bot.in_play == 0:
            bot.end_input()

    def release(self, bot: WarmBot) -> None:
        """A seat's match is over (whatever its outcome: house bots are our own code)."""
        with self.lock:
            bot.in_play -= 1
            if bot.retired and bot.in_play == 0:
                bot.end_input()

    def release_pid(self, pid: int) -> None:
        with self.lock:
            bot = next((b for b in [*self.bots.values(), *self.retiring] if b.pid == pid), None)
        if bot is not None:
            self.release(bot)

    def pids(self) -> list[int]:
        with self.lock:
            return [bot.pid for bot in [*self.bots.values(), *self.retiring]]

    def drop_inherited(self) -> None:
        """In a process forked from the keeper: close its copies of the bots' inputs (the objects
        stay: the keeper's own copies are not this process's to reap)."""
        for bot in [*self.bots.values(), *self.retiring]:
            bot.end_input()

    def close(self) -> None:
        with self.lock:
            bots = [*self.bots.values(), *self.retiring]
            self.bots, self.retiring = {}, []
        for bot in bots:
            bot.close()


class BotPool:
    """The warm bots of one worker process for one referee: idle ones by key, and the shared house
    bots — its worker's (``arena.bots.keeper``, kept by the main process for every pool process), or
    its own where no worker keeps them (a runner outside a Celery worker)."""

    def __init__(self, referee: RefereeClient) -> None:
        self.referee = referee
        self.sandbox_socket = RefereeSocket(referee.address, referee.unix_path)  # how sandboxes reach it
        self.idle: dict[BotKey, list[WarmBot]] = {}
        self.shared = SharedBots(referee.address)
        self.lock = threading.Lock()
        self.started_alone = 0  # processes started for one seat at a time

    def acquire(self, key: BotKey) -> WarmBot | KeptSeat:
        """A bot for one seat: ``play`` it the seat's token, then ``release`` it after the match."""
        if key.shared:
            client = keeper_client()
            if client is not None:
                return KeptSeat(key.spec, client, self.referee.address)
            return self.shared.acquire(key)
        with self.lock:
            while self.idle.get(key):
                bot = self.idle[key].pop()
                if bot.alive():
                    bot.matches += 1
                    return bot
                bot.close()
            self.started_alone += 1
        bot = WarmBot(key, self.referee.address, self.sandbox_socket.path if key.sandboxed else "")
        bot.matches += 1
        return bot

    @property
    def started(self) -> int:
        """Processes started here, for tests and benchmarks."""
        return self.shared.started + self.started_alone

    def release(self, bot: WarmBot | KeptSeat, seat: SeatOutcome | None) -> list[str]:
        """After the match: keep a clean bot for the next one, else discard it (returning what its
        sandbox reports: why it died, what it printed before the SDK could capture it). A shared
        house bot stays whatever its seat's outcome."""
        if not isinstance(bot, WarmBot):
            bot.release()
            return []
        if bot.key.shared:
            self.shared.release(bot)
            return []
        if seat is not None and clean(seat) and bot.alive() and not bot.worn_out():
            bot.idle_since = time.monotonic()
            with self.lock:
                self.idle.setdefault(bot.key, []).append(bot)
                stale = self.take_stale()
            for old in stale:
                old.close()
            return []
        lines = bot.close()
        return lines if seat is None or not clean(seat) else []

    def take_stale(self) -> list[WarmBot]:
        """The idle bots to stop (under the lock): those past their reuse limits, and the longest
        idle beyond ``PARLOUR_IDLE_BOTS``."""
        kept = sorted((bot for bots in self.idle.values() for bot in bots), key=lambda b: b.idle_since)
        stale = [bot for bot in kept if bot.worn_out()]
        kept = [bot for bot in kept if not bot.worn_out()]
        stale += kept[:max(0, len(kept) - settings.PARLOUR_IDLE_BOTS)]
        for bot in stale:
            self.idle[bot.key].remove(bot)
        return stale

    def close(self) -> None:
        with self.lock:
            bots = [bot for bots in self.idle.values() for bot in bots]
            self.idle.clear()
        self.shared.close()
        for bot in bots:
            bot.close()
        self.sandbox_socket.close()


_pools: dict[str, BotPool] = {}


def pool_for(referee: RefereeClient) -> BotPool:
    """This process's pool for a referee (bots connect to one referee address)."""
    pool = _pools.get(referee.address)
    if pool is None:
        pool = _pools[referee.address] = BotPool(referee)
        atexit.register(pool.close)
    return pool
