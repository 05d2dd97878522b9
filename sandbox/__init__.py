"""Running an untrusted bot: a sandbox per bot, for one match or a few (see ``docs/security.md``).

The operator's jail, a package of its own: the SDK's ``play --sandboxed`` and the arena's warm
bots both start sandboxes; it imports neither of them, nor the referee (the bot inside is an
ordinary SDK process, started by its command line).

``Sandbox(spec, referee_socket).start()`` runs ``python -m bots_sdk serve-seats`` for the bot
inside the isolation of ``launch.py`` (namespaces, uid nobody, read-only minimal root) and a
cgroup of its own (``cgroups.py``), with the limits of ``limits.py``. The bot reaches the referee
only through a ``SeatRelay`` (``relay.py``): ``Play`` and nothing else, the seat token written into
the Hello by the relay, so the bot's process never holds a token (none on a command line, in an
environment or on its stdin). ``feed(token)`` hands the bot its next seat: the relay takes the
token and the bot a line on its stdin saying "play the next seat"; a sandbox made with a
``seat_token`` is fed that one and plays one match. ``close()`` kills every process it started
and reports what happened. ``support()`` (``support.py``) says once per process what this
machine allows; where the full isolation is refused, uploaded bots run only if the
operator sets ``PARLOUR_SANDBOX=weak`` (rlimits, an emptied environment, a new session and, where
the kernel allows, no network; the bot's uid is kept); ``PARLOUR_SANDBOX=off`` runs no uploaded
bot anywhere.
"""
from __future__ import annotations

import importlib.util
import json
import os
import secrets
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from . import seccomp
from .bot_folder import folder_bytes
from .cgroups import SandboxCgroup
from .kernel import LAUNCH_FAILED
from .limits import MiB, SandboxLimits
from .relay import SeatRelay
from .support import SandboxUnavailable, Support, decide

SANDBOX_SOCKET = "/run/parlour/referee.sock"  # where the bot finds the referee inside the sandbox
EMPTIED_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}  # all the environment a sandbox process gets


def sandbox_paths(readable: Sequence[str] = ()) -> list[str]:
    """What the bot's process may read besides its own files: Python, the venv (the installed
    games' entry points among its metadata), the SDK's packages, and ``readable``: what the
    caller adds (the game packages' code installed from elsewhere, which the registry finds: the
    sandbox itself knows no game)."""
    paths = [sys.base_prefix, sys.prefix]
    for package in ("bots_sdk", "referee", "parlour"):
        spec = importlib.util.find_spec(package)
        paths.extend(spec.submodule_search_locations or [])
    paths.extend(readable)
    return list(dict.fromkeys(str(Path(p).resolve()) for p in paths))


@dataclass
class SandboxReport:
    exit_code: int | None
    output: str  # what the process wrote before the SDK captured its output (bounded)
    oom_killed: bool = False
    mode: str = "full"
    killed_after_match: bool = False  # still running when the match was over


def sandbox_report_lines(report: SandboxReport, limits: SandboxLimits) -> list[str]:
    """The sandbox's side of a match, as log lines for the bot's owner."""
    lines = [f"[sandbox] {line}" for line in report.output.splitlines() if line.strip()]
    code = report.exit_code
    if report.killed_after_match:
        lines.append("[sandbox] the bot's processes were still running after the match: killed")
        return lines
    if report.oom_killed:
        lines.append(f"[sandbox] killed: over the memory limit of {limits.memory_bytes // MiB} MiB")
    if code == LAUNCH_FAILED:
        lines.append("[sandbox] the sandbox failed to start the bot")
    elif code is not None and code > 128 and code - 128 in signal.valid_signals():
        name = signal.Signals(code - 128).name
        why = {"SIGXCPU": f": over the CPU-time limit of {limits.cpu_seconds} s",
               "SIGKILL": " (by the kernel or the platform)"}.get(name, "")
        lines.append(f"[sandbox] the bot's process was killed by {name}{why}")
    elif code not in (0, None):
        lines.append(f"[sandbox] the bot's process exited with status {code}")
    return lines


class _BoundedReader(threading.Thread):
    """Drains a pipe, keeping the first ``limit`` bytes."""

    def __init__(self, stream, limit: int) -> None:
        super().__init__(daemon=True)
        self.stream, self.limit = stream, limit
        self.data = bytearray()
        self.dropped = 0

    def run(self) -> None:
        while chunk := self.stream.read1(65536):
            keep = max(0, self.limit - len(self.data))
            self.data += chunk[:keep]
            self.dropped += len(chunk) - min(keep, len(chunk))

    def text(self) -> str:
        text = self.data.decode(errors="replace")
        return text + (f"\n[{self.dropped} more bytes of output dropped]" if self.dropped else "")


class Sandbox:
    """One bot's sandbox: one match (made with its ``seat_token``) or several, fed one by one."""

    def __init__(self, spec: str | None, referee_socket: str | None, seat_token: str | None = None,
                 limits: SandboxLimits | None = None, bot_root: str | None = None,
                 command: list[str] | None = None, readable: Sequence[str] = ()) -> None:
        """``readable``: folders the bot may read besides the SDK's (``sandbox_paths``)."""
        self.limits = limits or SandboxLimits.declared()
        self.readable = tuple(str(p) for p in readable)
        self.name = secrets.token_hex(8)
        self.spec, self.referee_socket, self.seat_token = spec, referee_socket, seat_token
        self.bot_root = bot_root
        self.command = command
        self.process: subprocess.Popen | None = None
        self.cgroup: SandboxCgroup | None = None
        self.mode = "full"
        self.relay: SeatRelay | None = None
        self._readers: list[_BoundedReader] = []

    # -------------------------------------------------------------------------------- the command
    def _bot_files(self) -> tuple[Path, str]:
        """The folder copied to /bot and the spec as the bot's process sees it."""
        path_text, _, class_name = self.spec.rpartition(":")
        path = Path(path_text).resolve()
        root = Path(self.bot_root).resolve() if self.bot_root else path.parent
        if root not in path.parents:
            raise SandboxUnavailable(f"{path} is not inside {root}")
        size = folder_bytes(root)
        if size > self.limits.bot_bytes:
            raise SandboxUnavailable(f"the bot's folder {root} holds {size // MiB} MiB, over the "
                                     f"{self.limits.bot_bytes // MiB} MiB limit: give the bot a folder of its own")
        return root, f"/bot/{path.relative_to(root)}:{class_name}"

    def _serve_command(self, spec: str, folders: list[str], socket: str) -> list[str]:
        # no seat token: the relay behind ``socket`` adds it to each Hello
        command = [sys.executable, "-I", "-m", "bots_sdk", "serve-seats", spec, "--referee", f"unix:{socket}",
                   "--capture-output", str(self.limits.output_bytes)]
        for folder in folders:
            command += ["--path", folder]
        return command

    # -------------------------------------------------------------------------------- start / stop
    def start(self) -> None:
        mode = "full" if self.command is not None else support().mode  # the probe itself is full
        if mode == "refused":
            raise SandboxUnavailable(support().describe())
        self.mode = mode
        if self.referee_socket and self.command is None:
            self.relay = SeatRelay(f"unix:{self.referee_socket}", self.seat_token)
        if mode == "weak":
            self._start_weak()
        else:
            self._start_full()
        for stream in (self.process.stdout, self.process.stderr):
            reader = _BoundedReader(stream, self.limits.output_bytes)
            reader.start()
            self._readers.append(reader)
        if self.seat_token is not None and self.command is None:  # one match: fed, then no more
            self.feed(self.seat_token)
            self.process.stdin.close()

    def feed(self, seat_token: str) -> None:
        """Give the bot its next seat to play (it plays its seats one after another): the relay
        holds the token, the bot reads only "the next seat" (``-``) on its stdin."""
        if self.relay is not None:
            self.relay.next_seat(seat_token)
        self.process.stdin.write((b"-" if self.relay is not None else seat_token.encode()) + b"\n")
        self.process.stdin.flush()

    def _start_full(self) -> None:
        if self.command is None:
            bot_dir, spec = self._bot_files()
            folder = str(Path(spec.rpartition(":")[0]).parent)
            command = self._serve_command(spec, list(dict.fromkeys([folder, "/bot"])), SANDBOX_SOCKET)
        else:
            bot_dir, command = None, self.command
        self.cgroup = SandboxCgroup(self.name, self.limits.memory_bytes, self.limits.processes, self.limits.cpus)
        config = {
            "cgroups": [str(p) for p in self.cgroup.paths],
            "read_only": sandbox_paths(self.readable),
            "bot_dir": str(bot_dir) if bot_dir else "/nonexistent",
            "referee_socket": self.relay.path if self.relay else os.devnull,
            "root_bytes": self.limits.bot_bytes + 8 * MiB,
            "scratch_bytes": self.limits.scratch_bytes,
            "rlimits": self.limits.rlimits(),
            "seccomp": list(seccomp.DENIED) if seccomp.available() else [],
            "command": command,
            "env": dict(EMPTIED_ENV, HOME="/tmp"),
            "keep_stdin": self.command is None,  # the seat tokens follow the config line
        }
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-m", "sandbox.launch"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                env=EMPTIED_ENV, cwd="/")
            self.process.stdin.write(json.dumps(config).encode() + b"\n")
            self.process.stdin.flush()
            if self.command is not None:
                self.process.stdin.close()
        except BaseException:
            self.close()
            raise

    def _start_weak(self) -> None:
        path_text, _, class_name = self.spec.rpartition(":")
        path = Path(path_text).resolve()
        roots = [str(Path(self.bot_root).resolve())] if self.bot_root else []
        folders = list(dict.fromkeys([str(path.parent), *roots]))
        command = self._serve_command(f"{path}:{class_name}", folders, self.relay.path)
        # no cgroup here: the address space is the nearest limit (loose, since gRPC reserves much
        # virtual memory it never touches)
        rlimits = dict(self.limits.rlimits(), RLIMIT_AS=4 * self.limits.memory_bytes)

        # no network if the kernel lets us, then the limits, set by a launcher that then execs the
        # bot (weak_launch.py: no Python between fork and exec in this threaded process)
        launcher = [sys.executable, "-I", "-m", "sandbox.weak_launch", json.dumps(rlimits)]
        self.process = subprocess.Popen(
            [*launcher, *command], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True, cwd=str(path.parent), env=dict(EMPTIED_ENV, HOME=str(path.parent)))

    def wait(self, timeout: float | None = None) -> int | None:
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def close(self) -> SandboxReport:
        """Kill everything the bot started (its whole cgroup, or its session in weak mode)."""
        if self.process is not None and self.process.stdin and not self.process.stdin.closed:
            try:
                self.process.stdin.close()
            except OSError:  # the bot's end is gone already
                pass
        code = None if self.process is None else self.process.poll()
        running = self.process is not None and code is None
        if running or (self.process is not None and self.mode == "weak"):  # a session outlives its leader
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        oom = False
        if self.cgroup is not None:
            oom = self.cgroup.oom_killed()
            self.cgroup.remove()
        if running:
            code = self.process.wait()
        if self.relay is not None:
            self.relay.close()
        if code is not None and code < 0:  # Popen's way of saying "killed by a signal" (weak mode)
            code = 128 - code
        for reader in self._readers:
            reader.join(2)
        output = "".join(r.text() for r in self._readers)
        return SandboxReport(code, output, oom, self.mode, running)


@lru_cache(maxsize=1)
def support() -> Support:
    """What this machine and the operator allow (``support.decide``), found once per process."""
    return decide(trial_sandbox)


def trial_sandbox() -> str:
    """Why a trial sandbox failed here (empty: it ran). The probe is a real sandbox."""
    try:
        probe = Sandbox(None, None, "", command=[sys.executable, "-I", "-c", "print('sandbox ok')"])
        probe.start()
        code = probe.wait(30)
        report = probe.close()
    except (OSError, SandboxUnavailable) as exc:
        return f"{type(exc).__name__}: {exc}"
    if code != 0 or "sandbox ok" not in report.output:
        return f"a trial sandbox failed (exit status {code}): {report.output.strip()[-300:]}"
    return ""


__all__ = ["LAUNCH_FAILED", "Sandbox", "SandboxLimits", "SandboxReport", "SandboxUnavailable", "Support", "support"]
