"""Nothing outlives its parent: the processes a command starts (``tournament run``, ``ladder
run``, ``demo``: a private Redis, a referee, a worker, beat, the web server) die with it, even when
it is killed with ``kill -9``.

A watcher process — in a session of its own, holding the read end of a pipe only
the command holds open — follows the children's descendants (twice a second, from /proc) and,
when that pipe closes (the kernel closes it when the command dies, however it dies), ends each
child's process group and every descendant it saw: a worker's pool and warm bots, the referee's
replay processes, a sandbox's launcher.

It also keeps them alive (``keep`` and ``heal``): a kept child found dead — a worker killed, a
referee crashed, a worker ended by its broker library on a Redis restart — is started again, and
``heal`` says which, and why it ended (its exit code or signal), for the command to print."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

WATCHER = r"""
import os, select, signal, sys, time

def started(pid):
    try:
        return open(f"/proc/{pid}/stat").read().rpartition(")")[2].split()[19]
    except OSError:
        return None

roots, known = [], {}  # the children it was told of; every descendant seen so far, with its start time
def look():
    todo = list(roots) + list(known)
    while todo:
        pid = todo.pop()
        for task in os.listdir(f"/proc/{pid}/task") if os.path.isdir(f"/proc/{pid}/task") else []:
            try:
                children = open(f"/proc/{pid}/task/{task}/children").read().split()
            except OSError:
                continue
            for child in map(int, children):
                if child not in known and started(child):
                    known[child] = started(child)
                    todo.append(child)

buffer = b""
while True:  # pids a line, until the command's end of the pipe closes (it ended, however it ended)
    ready, _, _ = select.select([0], [], [], 0.5)
    if ready:
        data = os.read(0, 4096)
        if not data:
            break
        buffer += data
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            roots.append(int(line))
            known[int(line)] = started(int(line))
    look()
look()

def signal_all(sig):
    for pid in roots:
        if started(pid) != known.get(pid):  # the pid is another process's now (pids wrap): not its group
            continue
        try:
            os.killpg(pid, sig)  # its group: what it started, even what this watcher never saw
        except (ProcessLookupError, PermissionError):
            pass
    for pid, when in known.items():
        if when is not None and started(pid) == when:  # never a reused pid
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass

signal_all(signal.SIGTERM)
deadline = time.monotonic() + float(sys.argv[1])
while time.monotonic() < deadline and any(started(p) == w for p, w in known.items() if w):
    time.sleep(0.1)
signal_all(signal.SIGKILL)
"""


def ended(returncode: int) -> str:
    """Why a process ended, as an operator reads it: ``killed by SIGKILL``, ``exit code 1``."""
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit code {returncode}"


@dataclass
class Kept:
    """A child started again when it dies: its name on the console, its process, how to restart it."""

    name: str
    process: subprocess.Popen
    restart: Callable[[], subprocess.Popen]
    restarts: int = 0
    next_try: float = 0.0


class Supervisor:
    """Starts children that die with this process; ``stop()`` ends them in order (last first);
    ``heal()`` restarts the kept ones that died."""

    def __init__(self, grace: float = 5.0) -> None:
        read, self._pipe = os.pipe()  # non-inheritable: no child but the watcher holds it
        self.watcher = subprocess.Popen([sys.executable, "-c", WATCHER, str(grace)], stdin=read,
                                        stdout=subprocess.DEVNULL, start_new_session=True)
        os.close(read)
        self.children: list[subprocess.Popen] = []
        self.kept: list[Kept] = []

    def keep(self, name: str, process: subprocess.Popen, restart: Callable[[], subprocess.Popen]) -> None:
        """Restart ``process`` with ``restart()`` whenever ``heal()`` finds it dead."""
        self.kept.append(Kept(name, process, restart))

    def heal(self) -> list[str]:
        """Restart every kept child found dead; one line per restart (or failed attempt) saying
        what ended and why. A restart that fails is tried again, at most every few seconds."""
        said = []
        for kept in self.kept:
            code = kept.process.poll()
            if code is None or time.monotonic() < kept.next_try:
                continue
            old = kept.process
            try:
                kept.process = kept.restart()
            except Exception as exc:  # noqa: BLE001 - said, and tried again: nothing else may stop the command
                kept.next_try = time.monotonic() + 5
                said.append(f"the {kept.name} stopped ({ended(code)}) and could not be restarted: {exc}")
                continue
            kept.restarts += 1
            if old in self.children:  # the new process takes the old one's place in the stopping order
                self.children[self.children.index(old)] = kept.process
            self.watch(kept.process.pid)
            said.append(f"the {kept.name} stopped ({ended(code)}); restarted it (pid {kept.process.pid}, "
                        f"restart {kept.restarts})")
        return said

    def watch(self, pid: int) -> None:
        """Have the watcher end this process (and its group, if it leads one) with this one."""
        os.write(self._pipe, f"{pid}\n".encode())

    def start(self, command: list[str], keep: str = "", **popen: Any) -> subprocess.Popen:
        """A child in a process group of its own (its children join it), dying with this process
        (the watcher ends it); with ``keep``, its name, started again when ``heal()`` finds it dead.
        No ``preexec_fn``: this process may already run gRPC's threads (the demo's referee client),
        and Python code between fork and exec could then hang the child."""
        child = subprocess.Popen(command, process_group=0, **popen)
        self.children.append(child)
        self.watch(child.pid)
        if keep:
            self.keep(keep, child, lambda: subprocess.Popen(command, process_group=0, **popen))
        return child

    def stop_after(self, first: subprocess.Popen | None = None, timeout: float = 10.0) -> None:
        """Stop, last started first, every child started after ``first`` (all of them: None)."""
        index = self.children.index(first) + 1 if first is not None else 0
        for child in reversed(self.children[index:]):
            if child.poll() is None:
                child.terminate()
                try:
                    child.wait(timeout)
                except subprocess.TimeoutExpired:
                    os.killpg(child.pid, signal.SIGKILL)
                    child.wait()
        del self.children[index:]

    def close(self) -> None:
        """Stop every child left; the watcher, finding nothing alive, exits."""
        self.stop_after(None)
        os.close(self._pipe)
        self.watcher.wait(30)
