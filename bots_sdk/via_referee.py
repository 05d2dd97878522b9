"""Matches through a referee with each seat's bot in a fresh process of its own: what
``python -m bots_sdk play --via-referee [--sandboxed]`` plays (and tests and benchmarks beside it).

The operator's client (``referee.client``) creates and follows the match over gRPC; this module
starts the seats' bots: a plain SDK process (``python -m bots_sdk connect``) for house bots, a
sandbox (the ``sandbox`` package) for file bots when asked. The arena keeps warm bots instead
(``arena/bot_pool.py``).
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from typing import Any

from referee.client import RefereeClient
from referee.timecontrol import TimeControl
from referee.games.registry import source_folders
import sandbox  # its functions read as attributes: a test (or an operator's probe) may replace them
from sandbox.relay import RefereeSocket
from sandbox.service import make_sandbox
from sandbox.settings import environment as sandbox_environment

from .loading import is_file_bot


class SeatProcess:
    """One seat's bot in a process of its own for one match: a plain SDK process for house bots,
    a sandbox for file bots, reaching the referee by ``socket`` (a Unix socket on this machine)."""

    def __init__(self, referee: RefereeClient, spec: str, token: str, sandboxed: bool, root: str | None,
                 socket: RefereeSocket | None = None) -> None:
        self.sandbox = None
        self.errors = None
        self.own_socket = None  # a socket made for this seat alone, closed with it
        if sandboxed:
            if socket is None:
                socket = self.own_socket = RefereeSocket(referee.address, referee.unix_path)
            self.sandbox = make_sandbox(spec, socket.path, token, bot_root=root, readable=source_folders())
            self.sandbox.start()
        else:
            self.errors = tempfile.TemporaryFile()
            self.process = subprocess.Popen(
                [sys.executable, "-m", "bots_sdk", "connect", spec, "--referee", referee.address,
                 f"--seat-token={token}"], stdout=subprocess.DEVNULL, stderr=self.errors)

    def stop(self, deadline: float) -> list[str]:
        """After the match: until ``deadline`` (monotonic) to exit, then everything the bot started
        is killed. Returns what the seat's owner should read (the sandbox's verdicts, early output)."""
        grace = max(0.0, deadline - time.monotonic())
        if self.sandbox is not None:
            self.sandbox.wait(grace)
            lines = sandbox.sandbox_report_lines(self.sandbox.close(), self.sandbox.limits)
            if self.own_socket is not None:
                self.own_socket.close()
            return lines
        try:
            self.process.wait(grace)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.errors.seek(0)
        failed = self.errors.read().decode(errors="replace").strip()
        self.errors.close()
        if failed:
            print(f"bot processes wrote:\n{failed[-4000:]}", file=sys.stderr)
        return []


def play_via_referee(referee: RefereeClient, game: str, variant: str, options: dict[str, Any], seed: int,
                     time_control: TimeControl, bot_specs: list[str | None], names: list[str],
                     remote_bots: list[str] | None = None, seats: list[dict[str, Any]] | None = None,
                     timeout: float | None = None, sandboxed: bool = False,
                     bot_roots: list[str | None] | None = None) -> dict[str, Any]:
    """One match, each local bot in a fresh process of its own (a seat whose spec is None is a
    remote bot's, offered on its Connect stream); returns the replay (the result is
    ``replay["result"]``). For a developer's one-off matches: the arena plays with warm bots.

    With ``sandboxed``, every file bot runs in a sandbox (the ``sandbox`` package) whose folder is
    its entry of ``bot_roots`` (default: the file's folder); what the sandbox saw (the bot's
    output before the SDK captured it, the kernel's verdicts) is added to the seat's log lines."""
    if sandboxed and any(spec and is_file_bot(spec) for spec in bot_specs):
        if not sandbox_environment().service and sandbox.support().mode == "refused":  # before the match exists: nobody waits for a bot that never comes
            raise sandbox.SandboxUnavailable(sandbox.support().describe())
    created = referee.create_match(game, variant, options, seed, time_control, names, remote_bots, seats)
    roots = bot_roots or [None] * len(bot_specs)
    players: dict[int, SeatProcess] = {}
    socket = RefereeSocket(referee.address, referee.unix_path)  # a relay only if a sandbox needs one
    try:
        try:
            for seat, (spec, token) in enumerate(zip(bot_specs, created.seat_tokens)):
                if spec is not None:
                    players[seat] = SeatProcess(referee, spec, token, sandboxed and is_file_bot(spec), roots[seat],
                                                socket)
            outcome = referee.follow(created.match_id, timeout)
        finally:  # the bots get one shared moment to exit after the match, then everything is killed
            deadline = time.monotonic() + 2.0
            reports = {seat: player.stop(deadline) for seat, player in players.items()}
    finally:
        socket.close()
    if outcome.replay_gz is None:
        return {"status": outcome.status, "result": outcome.result, "log": [], "bot_logs": []}
    replay = outcome.replay()
    for seat, lines in reports.items():
        replay["bot_logs"].extend({"seat": seat, "decision": None, "step": len(replay["log"]), "line": line}
                                  for line in lines)
    return replay
