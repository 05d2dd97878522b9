"""Nothing outlives its parent: the processes a command starts (``tournament run``, ``ladder
run``, ``demo``: a private Redis, a referee, a worker, beat, the web server) die with it, even when
it is killed with ``kill -9``.

Two means, each enough alone for its case: every child gets a parent-death signal (``prctl
PR_SET_PDEATHSIG``, set between fork and exec), and a watcher process — in a session of its own,
holding the read end of a pipe only the command holds open — kills each child's process group
(so their own children too: a worker's pool and warm bots) when that pipe closes, which the
kernel does when the command dies however it dies."""
from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
from typing import Any

PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)

WATCHER = r"""
import os, signal, sys, time
groups = []
for line in sys.stdin:  # one child's pid a line, until the command's end of the pipe closes
    if line.strip():
        groups.append(int(line))
def signal_all(sig):
    for pid in groups:
        for send in (os.killpg, os.kill):  # its group (children included); the process if no leader
            try:
                send(pid, sig)
                break
            except (ProcessLookupError, PermissionError):
                continue
signal_all(signal.SIGTERM)
deadline = time.monotonic() + float(sys.argv[1])
while time.monotonic() < deadline and any(os.path.exists(f"/proc/{p}") for p in groups):
    time.sleep(0.1)
signal_all(signal.SIGKILL)
"""


def die_with_parent() -> None:
    """``preexec_fn``: the child is killed when the thread that started it ends."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class Supervisor:
    """Starts children that die with this process; ``stop()`` ends them in order (last first)."""

    def __init__(self, grace: float = 5.0) -> None:
        read, self._pipe = os.pipe()  # non-inheritable: no child but the watcher holds it
        self.watcher = subprocess.Popen([sys.executable, "-c", WATCHER, str(grace)], stdin=read,
                                        stdout=subprocess.DEVNULL, start_new_session=True)
        os.close(read)
        self.children: list[subprocess.Popen] = []

    def watch(self, pid: int) -> None:
        """Have the watcher end this process (and its group, if it leads one) with this one."""
        os.write(self._pipe, f"{pid}\n".encode())

    def start(self, command: list[str], **popen: Any) -> subprocess.Popen:
        """A child in a process group of its own (its children join it), dying with this process."""
        child = subprocess.Popen(command, preexec_fn=die_with_parent, process_group=0, **popen)
        self.children.append(child)
        self.watch(child.pid)
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
